# The report sources (reports/*.Rmd) hold prose and labelled chunks that call functions; the
# functions live in reports/R/, under these tests.

report_sources <- function() {
  Sys.glob(file.path(reports_dir, "*.Rmd"))
}

# Lines that define a function: `function(` or R's shorthand `\(`.
function_definitions <- function(lines) {
  grep("function\\s*\\(|\\\\\\(", lines, value = TRUE)
}

# The header of every R chunk without a label.
unlabelled_chunks <- function(lines) {
  grep("^```\\{r\\s*(,|\\})", lines, value = TRUE)
}

test_that("the checks find a function defined in a chunk and a chunk without a label", {
  lines <- c(
    "```{r setup}", "f <- function(x) x", "g <- \\(x) x + 1", "```",
    "RTT as a function of size, in prose.", "```{r}", "f(1)", "```", "```{r, fig.height = 2}", "```"
  )
  expect_equal(function_definitions(lines), c("f <- function(x) x", "g <- \\(x) x + 1"))
  expect_equal(unlabelled_chunks(lines), c("```{r}", "```{r, fig.height = 2}"))
})

test_that("no report defines a function", {
  paths <- report_sources()
  expect_gte(length(paths), 6)
  for (path in paths) {
    expect_equal(function_definitions(readLines(path, warn = FALSE)), character(), info = path)
  }
})

test_that("every chunk of every report has a label", {
  for (path in report_sources()) {
    expect_equal(unlabelled_chunks(readLines(path, warn = FALSE)), character(), info = path)
  }
})

test_that("every report takes its settings from use_report_output(), none sets its own", {
  for (path in report_sources()) {
    lines <- readLines(path, warn = FALSE)
    expect_length(grep("^use_report_output\\(", lines), 1)
    expect_length(grep("opts_chunk|^output:", lines), 0)
  }
})
