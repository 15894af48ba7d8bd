test_that("the index links each report with its scorecard and counts verdicts", {
  dir <- withr::local_tempdir()
  readr::write_csv(
    tibble::tibble(
      claim_id = c("C1", "C2"), figure = "Fig 1", claim = c("a <b>", "b"),
      published = "p", measured = c(1, NA), verdict = c("reproduced", "no data"),
      margin = c(1, NA), unit = "%"
    ),
    file.path(dir, "paperx-scorecard.csv")
  )
  writeLines(
    "<html><head><title>Paper X re-run</title></head><body>SYNTHETIC DATA</body></html>",
    file.path(dir, "paperx.html")
  )
  html <- index_html(read_scorecards(dir), dir)
  expect_match(html, "<a href=\"paperx.html\">Paper X re-run</a>", fixed = TRUE)
  expect_match(html, "paperx-scorecard.csv", fixed = TRUE)
  expect_match(html, "a &lt;b&gt;", fixed = TRUE)
  expect_match(html, "verdict-reproduced\">reproduced</span> 1", fixed = TRUE)
  expect_match(html, "SYNTHETIC DATA: this report", fixed = TRUE)
  expect_match(index_html(list(), dir), "No report has been rendered yet")
})

test_that("verdicts become badges with a CSS class", {
  expect_equal(
    verdict_badge("not reproduced"),
    '<span class="verdict verdict-not-reproduced">not reproduced</span>'
  )
  expect_equal(
    unname(verdict_counts(c("partly", "partly", "no data"))),
    c(0L, 2L, 0L, 1L)
  )
})
