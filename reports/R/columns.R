# The columns of results/<paper>/<experiment>/results.csv, per tool, and their
# types: read from the one data contract, configs/schema/results-columns.json,
# which the aggregator (netrepro/columns.py) and docs/results.md follow too.

results_readr_types <- c(character = "c", integer = "i", double = "d", logical = "l")

# The contract's path: looked for from the working directory upwards, as reports
# render from reports/ and the tests run from reports/tests/testthat.
results_schema_path <- function(from = getwd()) {
  dir <- normalizePath(from, mustWork = TRUE)
  repeat {
    path <- file.path(dir, "configs", "schema", "results-columns.json")
    if (file.exists(path)) {
      return(path)
    }
    if (dirname(dir) == dir) {
      stop(
        "no configs/schema/results-columns.json in ", from, " or above; ",
        "run the reports from the netrepro tree.",
        call. = FALSE
      )
    }
    dir <- dirname(dir)
  }
}

results_schema_cache <- new.env(parent = emptyenv())

# The contract, read once per path: tools$<tool>$columns and sweep$columns are
# data frames with name, type and description (and the sweep's axis).
results_schema <- function(path = results_schema_path()) {
  if (is.null(results_schema_cache[[path]])) {
    assign(path, jsonlite::fromJSON(path, simplifyVector = TRUE), envir = results_schema_cache)
  }
  results_schema_cache[[path]]
}

# A tool's own columns (name, type, description) in results.csv's order.
results_tool_columns <- function(tool, schema = results_schema()) {
  own <- schema$tools[[tool]]$columns
  if (is.null(own)) {
    stop(
      "the results contract has no tool '", tool, "'; it has ",
      paste(names(schema$tools), collapse = ", "), ".",
      call. = FALSE
    )
  }
  own[c("name", "type", "description")]
}

results_column_names <- function(tool, schema = results_schema()) {
  results_tool_columns(tool, schema)$name
}

# A tool's columns, then those a sweep may add that the tool lacks.
results_column_table <- function(tool, schema = results_schema()) {
  own <- results_tool_columns(tool, schema)
  sweep <- schema$sweep$columns
  rbind(own, sweep[!sweep$name %in% own$name, c("name", "type", "description")])
}

# readr's col_types for a tool's results.csv: its columns and the sweep's, by
# their contract type; any other column is read as text. With a header, only
# the columns it has, so that readr has no parser without a column.
results_col_types <- function(tool, header = NULL, schema = results_schema()) {
  columns <- results_column_table(tool, schema)
  if (!is.null(header)) {
    columns <- columns[columns$name %in% header, ]
  }
  types <- as.list(stats::setNames(unname(results_readr_types[columns$type]), columns$name))
  do.call(readr::cols, c(types, list(.default = readr::col_character())))
}

# A tool's results.csv with every column the contract knows typed by it.
read_results_csv <- function(path, tool) {
  readr::read_csv(path, col_types = results_col_types(tool, csv_header(path)), progress = FALSE)
}

# A CSV's column names, without reading its rows.
csv_header <- function(path) {
  names(readr::read_csv(path, n_max = 0, col_types = readr::cols(.default = "c"), progress = FALSE))
}
