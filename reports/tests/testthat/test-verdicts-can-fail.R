# Every claim of every paper can fail: for each claim id of the five claims files (read from
# there), data that contradict the paper read "not reproduced" and data that agree read
# "reproduced", or the label the claim's basis gives it ("follows from assumption", "follows
# from the model": agreement proves nothing, disagreement still counts; "not reproducible here"
# both ways). The data come from one generator per metric (helper-verdict-data.R), built from
# the claim's own target, check and tolerances, so a new claim is covered as it is added; a
# claim whose metric has no generator, or whose metric cannot reach a contradicting value, fails.

verdict_papers <- c("comer94", "liu95db", "liu95cool", "ishikura", "milliner")

# Few resamples: every interval here is zero-width or far from its bound, and the file judges
# each claim twice; restored at the end.
reps_home <- environment(bootstrap_interval)
saved_reps <- get("bootstrap_reps", envir = reps_home)
assign("bootstrap_reps", 20L, envir = reps_home)

for (paper in verdict_papers) {
  claims <- read_claims(verdict_reference(paste0(paper, "-claims")), verdict_metrics(paper))
  test_that(paste0(paper, ": every claim can fail, and agreeing data reproduce it"), {
    expect_gt(nrow(claims), 0)
    for (i in seq_len(nrow(claims))) {
      claim <- claims[i, ]
      generator <- claim_data_generators[[paper]][[claim$metric]]
      expect(
        !is.null(generator),
        paste0(paper, " ", claim$claim_id, ": no generator for metric ", claim$metric,
          " (add one to helper-verdict-data.R)")
      )
      if (is.null(generator)) next
      for (want in c("agree", "contradict")) {
        value <- claim_value(claim, want, generator$domain, generator$scale)
        expect(
          !is.na(value),
          paste0(paper, " ", claim$claim_id, ": metric ", claim$metric, " cannot take a value that ",
            if (want == "agree") "agrees" else "contradicts",
            " (relabel the claim in its basis or give it a metric that can fail)")
        )
        if (is.na(value)) next
        verdict <- judge_generated(paper, claim, generator$make(claim, value))
        expected <- if (want == "agree") agreeing_verdict(claim) else contradicting_verdict(claim)
        expect(
          identical(verdict, expected),
          paste0(paper, " ", claim$claim_id, " (", claim$metric, ") on data that ", want, "s (",
            signif(value, 4), "): ", paste(verdict, collapse = ", "), ", expected ", expected)
        )
      }
    }
  })
}

test_that("the generators cover every metric the claims files name, and only those", {
  for (paper in verdict_papers) {
    claims <- read_claims(verdict_reference(paste0(paper, "-claims")), verdict_metrics(paper))
    expect_true(all(claims$metric %in% names(claim_data_generators[[paper]])), info = paper)
  }
})

test_that("a contradicting value lies beyond partly, on the domain's far end when it is finite", {
  claim <- one_claim(check = "at_least", target = 100, tolerance = 0, partly_tolerance = 25)
  expect_equal(claim_value(claim, "contradict", c(0, 100), 10), 0)
  expect_equal(claim_value(claim, "agree", c(0, 100), 10), 100)
  about <- one_claim(check = "about", target = 85, tolerance = 10, partly_tolerance = 25)
  expect_equal(claim_value(about, "contradict", c(0, 100), 10), 0)
  unbounded <- one_claim(check = "at_most", target = 1, tolerance = 0, partly_tolerance = 0.2)
  expect_gt(claim_value(unbounded, "contradict", c(0, Inf), 1), 1.2)
  # A metric that can never exceed its bound cannot contradict an at_most claim at that bound.
  stuck <- one_claim(check = "at_most", target = 100, tolerance = 0, partly_tolerance = 0)
  expect_true(is.na(claim_value(stuck, "contradict", c(0, 100), 10)))
})

assign("bootstrap_reps", saved_reps, envir = reps_home)
