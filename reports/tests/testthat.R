# Runs every testthat test of reports/; exits non-zero when any fails.
# Usage: Rscript reports/tests/testthat.R

file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
tests_dir <- if (length(file_arg) > 0) {
  dirname(normalizePath(sub("^--file=", "", file_arg[1])))
} else {
  normalizePath(file.path("reports", "tests"))
}

results <- testthat::test_dir(
  file.path(tests_dir, "testthat"),
  reporter = testthat::ProgressReporter$new(show_praise = FALSE),
  stop_on_failure = FALSE
)
summary <- as.data.frame(results)
failed <- sum(summary$failed) + sum(summary$error)
if (failed > 0) {
  # Named again at the very end, where a log cut to its last lines still shows them.
  for (test in results) {
    bad <- Filter(function(e) inherits(e, c("expectation_failure", "expectation_error")), test$results)
    for (e in bad) {
      lines <- utils::head(strsplit(conditionMessage(e), "\n", fixed = TRUE)[[1]], 12)
      message("FAILED ", test$file, ": ", test$test, "\n  ", paste(lines, collapse = "\n  "))
    }
  }
  message("reports tests: ", failed, " failing test(s)")
  quit(status = 1)
}
