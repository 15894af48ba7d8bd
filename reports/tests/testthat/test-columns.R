# results.csv's columns and types from the one data contract
# (configs/schema/results-columns.json), as the readers use them.

contract_path <- file.path(reports_dir, "..", "configs", "schema", "results-columns.json")

collector_type <- function(collector) {
  sub("^collector_", "", class(collector)[1])
}

test_that("the contract is found from the reports folder and from below it", {
  expect_equal(normalizePath(results_schema_path(reports_dir)), normalizePath(contract_path))
  expect_equal(
    normalizePath(results_schema_path(file.path(reports_dir, "tests", "testthat"))),
    normalizePath(contract_path)
  )
  expect_error(results_schema_path(withr::local_tempdir()), "results-columns.json")
})

test_that("every tool's columns get their contract type, in the contract's order", {
  contract <- jsonlite::fromJSON(contract_path)
  for (tool in c("pingx", "ttcp", "mftp", "ipcbench")) {
    own <- contract$tools[[tool]]$columns
    types <- results_col_types(tool)
    expect_equal(results_column_names(tool), own$name)
    expect_equal(utils::head(names(types$cols), nrow(own)), own$name)
    expect_equal(unname(purrr::map_chr(types$cols[own$name], collector_type)), own$type)
    expect_equal(collector_type(types$default), "character")
  }
  expect_equal(collector_type(results_col_types("pingx")$cols$complete), "logical")
  expect_equal(collector_type(results_col_types("ttcp")$cols[["repeat"]]), "integer")
})

test_that("a sweep's columns are typed, and a tool's own column is not listed twice", {
  mftp <- names(results_col_types("mftp")$cols)
  expect_equal(sum(mftp == "connections"), 1)
  expect_true(all(c("added_rtt_ms", "cell_loss_ratio", "delay_ms") %in% mftp))
  expect_equal(collector_type(results_col_types("pingx")$cols$added_rtt_ms), "double")
})

test_that("with a header only its columns are typed, so a file without a sweep reads silently", {
  path <- withr::local_tempfile(fileext = ".csv")
  writeLines(c("experiment,trial,repeat,window_scale,throughput_mbit,note", "e,1,2,TRUE,9.5,x"), path)
  types <- results_col_types("mftp", csv_header(path))
  expect_setequal(names(types$cols), c("experiment", "trial", "repeat", "window_scale", "throughput_mbit"))
  expect_no_warning(data <- readr::read_csv(path, col_types = types, progress = FALSE))
  expect_type(data$trial, "integer")
  expect_type(data$window_scale, "logical")
  expect_type(data$throughput_mbit, "double")
  expect_type(data$note, "character")
})

test_that("a results.csv read by its tool is typed, and a missing required column is named", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "results.csv")
  writeLines(c(
    "experiment,link,stack,backend,trial,repeat,bytes,throughput_mbit,nodelay,link_drops,run_id",
    "e,l,tahoe,sim,1,3,1024,0.5,FALSE,NA,r"
  ), path)
  data <- read_contract_csv(path, c("experiment", "bytes"), tool = "ttcp")
  expect_type(data$`repeat`, "integer")
  expect_type(data$nodelay, "logical")
  expect_type(data$link_drops, "double")
  expect_type(read_contract_csv(path, "bytes")$bytes, "character")
  expect_error(read_contract_csv(path, c("bytes", "proto"), tool = "ttcp"), "proto")
})

test_that("an unknown tool is refused with the tools there are", {
  expect_error(results_col_types("pingz"), "no tool 'pingz'.*pingx, ttcp, mftp, ipcbench")
})
