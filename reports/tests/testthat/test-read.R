test_that("missing experiments are reported, present ones read", {
  dir <- withr::local_tempdir()
  make_synthetic_results(dir, experiments = "lan-2k", trials = 1, echoes = 2)
  results <- read_results(dir, "liu95cool", c("lan-2k", "lan-nasa"))
  expect_equal(results$missing, "lan-nasa")
  expect_setequal(unique(results$data$experiment), "lan-2k")
  expect_type(results$data$complete, "logical")
  expect_true("setup" %in% names(results$data))
})

test_that("a results.csv with a header only counts as missing", {
  dir <- withr::local_tempdir()
  make_synthetic_results(dir, experiments = "lan-2k", trials = 1, echoes = 1)
  path <- file.path(dir, "liu95cool", "lan-2k", "results.csv")
  writeLines(readLines(path, n = 1), path)
  expect_equal(read_results(dir, "liu95cool", "lan-2k")$missing, "lan-2k")
})

test_that("no experiment at all gives an empty table with the contract's columns", {
  dir <- withr::local_tempdir()
  results <- read_results(dir, "liu95cool", "lan-2k")
  expect_equal(nrow(results$data), 0)
  expect_true(all(c("rtt_ms", "datagrams", "setup") %in% names(results$data)))
  expect_equal(nrow(summarise_sizes(results$data)), 0)
})

test_that("a results.csv without a contract column is refused by name", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "p", "e")
  dir.create(path, recursive = TRUE)
  rows <- dplyr::select(echo_rows("udp", 1, 1), -datagrams, -setup)
  readr::write_csv(rows, file.path(path, "results.csv"))
  expect_error(read_results(dir, "p", "e"), "datagrams")
})

test_that("provenance lines are read across experiments", {
  dir <- withr::local_tempdir()
  make_synthetic_results(dir, experiments = c("lan-512b", "lan-2k"), trials = 1, echoes = 1)
  runs <- read_provenance(dir, "liu95cool", c("lan-512b", "lan-2k", "lan-nasa"))
  expect_length(runs, 2)
  expect_equal(runs[[1]]$experiment, "lan-512b")
})
