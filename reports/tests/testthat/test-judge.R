test_that("at_most: within the bound is reproduced, beyond it partly, then not", {
  expect_equal(judge_claim(4, "at_most", 4.5, 0, 4.5)$verdict, "reproduced")
  expect_equal(judge_claim(4.5, "at_most", 4.5, 0, 4.5)$verdict, "reproduced")
  expect_equal(judge_claim(6, "at_most", 4.5, 0, 4.5)$verdict, "partly")
  expect_equal(judge_claim(9.1, "at_most", 4.5, 0, 4.5)$verdict, "not reproduced")
})

test_that("at_least applies the tolerance below the target", {
  expect_equal(judge_claim(95, "at_least", 90, 10, 40)$verdict, "reproduced")
  expect_equal(judge_claim(80, "at_least", 90, 10, 40)$verdict, "reproduced")
  expect_equal(judge_claim(79, "at_least", 90, 10, 40)$verdict, "partly")
  expect_equal(judge_claim(49, "at_least", 90, 10, 40)$verdict, "not reproduced")
})

test_that("about is two-sided", {
  expect_equal(judge_claim(94, "about", 85, 10, 25)$verdict, "reproduced")
  expect_equal(judge_claim(76, "about", 85, 10, 25)$verdict, "reproduced")
  expect_equal(judge_claim(99, "about", 85, 10, 25)$verdict, "partly")
  expect_equal(judge_claim(50, "about", 85, 10, 25)$verdict, "not reproduced")
})

test_that("margins are signed towards the claim", {
  expect_equal(judge_claim(3, "at_most", 4.5, 0, 4.5)$margin, 1.5)
  expect_equal(judge_claim(6, "at_most", 4.5, 0, 4.5)$margin, -1.5)
  expect_equal(judge_claim(95, "at_least", 90, 10, 40)$margin, 5)
  expect_equal(judge_claim(70, "about", 85, 10, 25)$margin, -15)
})

test_that("a missing measurement reads no data", {
  judged <- judge_claim(NA_real_, "at_most", 8, 0, 8)
  expect_equal(judged$verdict, "no data")
  expect_true(is.na(judged$margin))
})

test_that("margins are described in words", {
  expect_equal(
    describe_margin(3, 1.5, "at_most", 4.5, "%"),
    "1.5 points under the target 4.5 %"
  )
  expect_equal(
    describe_margin(0.5, -0.3, "at_least", 0.8, "Spearman rho"),
    "0.3 short of the target 0.8 Spearman rho"
  )
  expect_equal(describe_margin(NA, NA, "at_most", 8, "%"), "not measured")
})

test_that("rules are written out with their partly bounds", {
  expect_equal(rule_text("at_most", 4.5, 0, 4.5, "%"), "\u2264 4.5 % (partly \u2264 9)")
  expect_equal(rule_text("about", 85, 10, 25, "%"), "85 \u00b1 10 % (partly \u00b1 25)")
})

test_that("partly needs the paper's direction: a rise where the paper has a fall is not reproduced", {
  # comer94 K08 (at most 0 %, partly 5): the old rule read +3.9 % as partly.
  expect_equal(judge_claim(3.9, "at_most", 0, 0, 5, no_change = 0)$verdict, "not reproduced")
  expect_equal(judge_claim(-0.5, "at_most", 0, 0, 5, no_change = 0)$verdict, "reproduced")
  # A fall of 10 % (about, partly within 10): no change is not the paper's direction either.
  expect_equal(judge_claim(-4, "about", -10, 5, 10, no_change = 0)$verdict, "partly")
  expect_equal(judge_claim(0, "about", -10, 5, 10, no_change = 0)$verdict, "not reproduced")
  # Ratios change at 1: at least twice as slow, partly when merely slower.
  expect_equal(judge_claim(1.5, "at_least", 2, 0, 1, no_change = 1)$verdict, "partly")
  expect_equal(judge_claim(1, "at_least", 2, 0, 1, no_change = 1)$verdict, "not reproduced")
  expect_equal(judge_claim(1.1, "at_most", 1, 0, 0.2, no_change = 1)$verdict, "not reproduced")
  # A claim about a level (no no_change) or a bound on the far side keeps its partly band.
  expect_equal(judge_claim(3.9, "at_most", 0, 0, 5)$verdict, "partly")
  expect_equal(judge_claim(15, "at_most", 10, 0, 10, no_change = 0)$verdict, "partly")
})

test_that("an interval that straddles the bound of reproduced reads inconclusive", {
  claim <- one_claim(check = "at_most", target = 7, tolerance = 0, partly_tolerance = 7)
  # W01 on a quick profile: 1 of 2 echoes lost reads 50 % but decides nothing.
  judged <- judge_claim_row(claim, with_ci(50, 1.3, 98.7))
  expect_equal(judged$verdict, "inconclusive")
  expect_equal(c(judged$ci_low, judged$ci_high), c(1.3, 98.7))
  expect_equal(judge_claim_row(claim, with_ci(50, 30, 70))$verdict, "not reproduced")
  expect_equal(judge_claim_row(claim, with_ci(2, 0, 6))$verdict, "reproduced")
  # A zero-width interval (virtual time) decides.
  expect_equal(judge_claim_row(claim, with_ci(0, 0, 0))$verdict, "reproduced")
  about <- one_claim(check = "about", target = 10, tolerance = 1, partly_tolerance = 5)
  expect_equal(judge_claim_row(about, with_ci(5, 2, 20))$verdict, "inconclusive")
  expect_equal(judge_claim_row(about, with_ci(5, 3, 8))$verdict, "partly")
})

test_that("loss intervals are exact binomial (Clopper-Pearson) intervals", {
  ci <- loss_interval(2, 1)
  expect_equal(c(ci$low, ci$high), c(1.258, 98.742), tolerance = 1e-3)
  expect_equal(loss_interval(10, 3)$high, 100 * stats::binom.test(7, 10)$conf.int[2])
  none <- loss_interval(1000, 1000)
  expect_equal(none$low, 0)
  expect_lt(none$high, 0.4)
})

test_that("no loss at all, against a claim of no loss, is judged on the count", {
  none <- one_claim(check = "at_most", target = 0, tolerance = 0, partly_tolerance = 1)
  expect_equal(judge_claim_row(none, with_ci(0, 0, 16.8))$verdict, "reproduced")
  # Under a bound above zero the same count cannot decide it.
  five <- one_claim(check = "at_most", target = 5, tolerance = 0, partly_tolerance = 5)
  expect_equal(judge_claim_row(five, with_ci(0, 0, 8.8))$verdict, "inconclusive")
  expect_equal(judge_claim_row(none, with_ci(0.5, 0, 3))$verdict, "inconclusive")
  expect_equal(judge_claim_row(none, with_ci(0.5, 0.1, 3))$verdict, "partly")
})
