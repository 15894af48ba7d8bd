# Reading the pipeline's results tree: results/<paper>/<experiment>/{results.csv,provenance.jsonl}.

results_columns <- readr::cols(
  paper = readr::col_character(),
  experiment = readr::col_character(),
  mirrors = readr::col_character(),
  link = readr::col_character(),
  stack = readr::col_character(),
  backend = readr::col_character(),
  mode = readr::col_character(),
  message_set = readr::col_character(),
  message_name = readr::col_character(),
  message_bytes = readr::col_double(),
  trial = readr::col_integer(),
  echo = readr::col_integer(),
  rtt_ms = readr::col_double(),
  datagrams = readr::col_double(),
  datagrams_returned = readr::col_double(),
  complete = readr::col_logical(),
  cool_gap_us = readr::col_double(),
  run_id = readr::col_character(),
  .default = readr::col_character()
)

experiment_dir <- function(results_dir, paper, experiment) {
  file.path(results_dir, paper, experiment)
}

# Reads one experiment's results.csv; NULL when the file is absent so that the
# report can say which panels have no data instead of failing.
read_experiment_results <- function(results_dir, paper, experiment) {
  path <- file.path(experiment_dir(results_dir, paper, experiment), "results.csv")
  if (!file.exists(path)) {
    return(NULL)
  }
  header <- names(readr::read_csv(path, n_max = 0, col_types = readr::cols(.default = "c")))
  missing_cols <- setdiff(names(results_columns$cols), header)
  if (length(missing_cols) > 0) {
    stop(
      path, " lacks the column(s) ", paste(missing_cols, collapse = ", "),
      "; the pipeline's results.csv must follow the data contract.",
      call. = FALSE
    )
  }
  data <- readr::read_csv(path, col_types = results_columns, progress = FALSE)
  wrong <- setdiff(unique(data$experiment), experiment)
  if (length(wrong) > 0) {
    stop(path, " holds rows of experiment(s) ", paste(wrong, collapse = ", "),
      call. = FALSE
    )
  }
  data
}

# Reads every listed experiment; returns the rows of those found and the ids of
# those missing (no results.csv, or one without rows).
read_results <- function(results_dir, paper, experiments) {
  per_experiment <- purrr::map(
    experiments,
    function(e) read_experiment_results(results_dir, paper, e)
  )
  found <- purrr::map_lgl(per_experiment, function(d) !is.null(d) && nrow(d) > 0)
  data <- dplyr::bind_rows(per_experiment[found])
  if (nrow(data) == 0) {
    data <- readr::read_csv(
      I(paste(names(results_columns$cols), collapse = ",")),
      col_types = results_columns
    )
  }
  list(
    data = add_setup(data),
    missing = experiments[!found]
  )
}

# A setup is one emulated link, stack, backend and (when given) host model;
# results of different setups are never pooled.
setup_label <- function(link, stack, backend, host) {
  base <- paste(link, stack, backend, sep = " / ")
  dplyr::if_else(is.na(host) | host == "", base, paste(base, host, sep = " / "))
}

# A testbed is a setup without its backend: what virtual time and emulation
# must agree on.
testbed_label <- function(link, stack, host) {
  base <- paste(link, stack, sep = " / ")
  dplyr::if_else(is.na(host) | host == "", base, paste(base, host, sep = " / "))
}

# Adds the setup; a contract without a host column gets host NA, so that
# summaries can always key on it.
add_setup <- function(data) {
  if (!"host" %in% names(data)) {
    data$host <- rep(NA_character_, nrow(data))
  }
  dplyr::mutate(data, setup = setup_label(link, stack, backend, host))
}

read_jsonl <- function(path) {
  lines <- readLines(path, warn = FALSE)
  lines <- lines[nzchar(trimws(lines))]
  purrr::map(lines, jsonlite::fromJSON, simplifyVector = FALSE)
}

# One list element per run, across all listed experiments that have a
# provenance.jsonl.
read_provenance <- function(results_dir, paper, experiments) {
  paths <- file.path(
    experiment_dir(results_dir, paper, experiments), "provenance.jsonl"
  )
  paths <- paths[file.exists(paths)]
  purrr::list_flatten(purrr::map(paths, read_jsonl))
}

# A CSV of another contract (ttcp transfers, packet traces), read as text so
# that optional columns may be absent; NULL when the file is absent or has no
# rows; an error naming the missing required columns otherwise.
read_contract_csv <- function(path, required) {
  if (!file.exists(path)) {
    return(NULL)
  }
  data <- readr::read_csv(
    path,
    col_types = readr::cols(.default = readr::col_character()), progress = FALSE
  )
  missing_cols <- setdiff(required, names(data))
  if (length(missing_cols) > 0) {
    stop(
      path, " lacks the column(s) ", paste(missing_cols, collapse = ", "),
      "; the pipeline's file must follow the data contract.",
      call. = FALSE
    )
  }
  if (nrow(data) == 0) {
    return(NULL)
  }
  data
}

# TRUE/FALSE flags written as TRUE, true, T or 1; absent or empty is FALSE.
parse_flag <- function(x) {
  !is.na(x) & toupper(trimws(x)) %in% c("TRUE", "T", "1", "YES")
}
