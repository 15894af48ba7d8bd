# Reading the pipeline's results tree: results/<paper>/<experiment>/{results.csv,provenance.jsonl}.

# The columns an echo (pingx) results.csv must have: its contract's columns
# (R/columns.R) but those older results lack: add_setup() fills in the host,
# summarise_sizes() reads a missing count of misordered datagrams as not recorded, and
# echo_drop_table() a missing run's drops by place (results from before they were counted).
echo_optional_columns <- c(
  "host", "send_buffer", "recv_buffer", "datagrams_misordered",
  "run_drops_send_queue", "run_drops_link", "run_drops_echo_ipq", "run_drops_echo_socket",
  "run_drops_client_ipq", "run_drops_client_socket"
)

echo_required_columns <- function() {
  setdiff(results_column_names("pingx"), echo_optional_columns)
}

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
  header <- csv_header(path)
  missing_cols <- setdiff(echo_required_columns(), header)
  if (length(missing_cols) > 0) {
    stop(
      path, " lacks the column(s) ", paste(missing_cols, collapse = ", "),
      "; the pipeline's results.csv must follow the data contract.",
      call. = FALSE
    )
  }
  data <- readr::read_csv(path, col_types = results_col_types("pingx", header), progress = FALSE)
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
    required <- echo_required_columns()
    data <- readr::read_csv(
      I(paste(required, collapse = ",")),
      col_types = results_col_types("pingx", required)
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

# A CSV of another contract (ttcp or mftp transfers, packet traces): with a
# tool, a results.csv typed by its contract (R/columns.R), else read as text;
# optional columns may be absent. NULL when the file is absent or has no rows;
# an error naming the missing required columns otherwise.
read_contract_csv <- function(path, required, tool = NULL) {
  if (!file.exists(path)) {
    return(NULL)
  }
  data <- if (is.null(tool)) {
    readr::read_csv(path, col_types = readr::cols(.default = readr::col_character()), progress = FALSE)
  } else {
    read_results_csv(path, tool)
  }
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
