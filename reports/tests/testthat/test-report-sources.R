# The report sources (reports/*.Rmd) take their settings from one place.

report_sources <- function() {
  Sys.glob(file.path(reports_dir, "*.Rmd"))
}

test_that("every report takes its settings from use_report_output(), none sets its own", {
  paths <- report_sources()
  expect_gte(length(paths), 6)
  for (path in paths) {
    lines <- readLines(path, warn = FALSE)
    expect_length(grep("^use_report_output\\(", lines), 1)
    expect_length(grep("opts_chunk|^output:", lines), 0)
  }
})
