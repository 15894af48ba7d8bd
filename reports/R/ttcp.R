# ttcp throughput against UDP cooling (liu95cool Fig 15):
# results/<paper>/<experiment>/results.csv, one row per transfer.

ttcp_required <- c(
  "experiment", "link", "stack", "backend", "proto", "cool_iterations", "repeat",
  "bytes", "throughput_mbit", "datagrams_sent", "datagrams_received", "run_id"
)

# The transfers of one ttcp experiment; NULL when absent or empty.
read_ttcp_results <- function(results_dir, paper, experiment) {
  path <- file.path(experiment_dir(results_dir, paper, experiment), "results.csv")
  data <- read_contract_csv(path, ttcp_required, tool = "ttcp")
  if (is.null(data)) {
    return(NULL)
  }
  data |>
    dplyr::mutate(proto = tolower(proto)) |>
    add_setup()
}

# One row per setup, protocol and cooling length: mean throughput and the
# datagram loss pooled over the transfers.
summarise_ttcp <- function(transfers) {
  transfers |>
    dplyr::group_by(setup, link, stack, backend, experiment, proto, cool_iterations) |>
    dplyr::summarise(
      transfers = dplyr::n(),
      throughput_mbit = mean(throughput_mbit, na.rm = TRUE),
      throughput_sd = if (dplyr::n() > 1) stats::sd(throughput_mbit, na.rm = TRUE) else NA_real_,
      datagrams_sent = sum(datagrams_sent, na.rm = TRUE),
      datagrams_received = sum(datagrams_received, na.rm = TRUE),
      loss_pct = pooled_loss_pct(datagrams_sent, datagrams_received),
      .groups = "drop"
    ) |>
    dplyr::arrange(setup, proto, cool_iterations)
}

# UDP rows of a ttcp summary, shortest cooling first.
ttcp_udp_levels <- function(ttcp) {
  if (is.null(ttcp) || nrow(ttcp) == 0) {
    return(tibble::tibble(
      cool_iterations = numeric(), throughput_mbit = numeric(), loss_pct = numeric(),
      transfers = integer()
    ))
  }
  ttcp |>
    dplyr::filter(proto == "udp", !is.na(cool_iterations)) |>
    dplyr::arrange(cool_iterations)
}

# TCP throughput over all of its transfers' levels; NA when TCP was not run.
ttcp_tcp_throughput <- function(ttcp) {
  if (is.null(ttcp)) {
    return(NA_real_)
  }
  tcp <- dplyr::filter(ttcp, proto == "tcp")
  if (nrow(tcp) == 0) {
    return(NA_real_)
  }
  sum(tcp$throughput_mbit * tcp$transfers) / sum(tcp$transfers)
}

# Spearman correlation between cooling length and a UDP column; NA with
# fewer than three cooling lengths.
ttcp_trend <- function(ttcp, column) {
  levels <- ttcp_udp_levels(ttcp)
  levels <- levels[!is.na(levels[[column]]), ]
  if (nrow(levels) < 3) {
    return(NA_real_)
  }
  if (stats::sd(levels[[column]]) == 0) {
    return(0)
  }
  stats::cor(levels$cool_iterations, levels[[column]], method = "spearman")
}
