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
