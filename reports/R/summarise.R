# Shaping per-echo rows into per-size summaries; every plot and claim starts here.

# link, stack, backend and host are implied by setup; they are kept so that
# figures and the backend comparison can use them.
size_keys <- c(
  "setup", "link", "stack", "backend", "host", "experiment", "mode",
  "message_bytes", "message_name"
)

# Datagram loss of a group of echoes, pooled over datagrams (the paper's
# round-trip datagram loss); NA for TCP modes, which send no datagrams.
pooled_loss_pct <- function(datagrams, returned) {
  sent <- sum(datagrams, na.rm = TRUE)
  if (sent == 0) {
    return(NA_real_)
  }
  100 * (1 - sum(returned, na.rm = TRUE) / sent)
}

# One row per setup, experiment, mode and message: RTT quantiles over the
# echoes that came back whole, the pooled datagram loss, and the datagrams that came back out
# of order (NA for results recorded before pingx counted them).
summarise_sizes <- function(data) {
  if (!"datagrams_misordered" %in% names(data)) {
    data$datagrams_misordered <- rep(NA_real_, nrow(data))
  }
  data |>
    dplyr::group_by(dplyr::across(dplyr::all_of(size_keys))) |>
    dplyr::summarise(
      echoes = dplyr::n(),
      complete_echoes = sum(complete, na.rm = TRUE),
      trials = dplyr::n_distinct(trial),
      rtt_n = sum(!is.na(rtt_ms)),
      rtt_mean = stats_or_na(rtt_ms, mean),
      rtt_median = stats_or_na(rtt_ms, stats::median),
      rtt_q25 = stats_or_na(rtt_ms, function(x) stats::quantile(x, 0.25, names = FALSE)),
      rtt_q75 = stats_or_na(rtt_ms, function(x) stats::quantile(x, 0.75, names = FALSE)),
      rtt_min = stats_or_na(rtt_ms, min),
      rtt_max = stats_or_na(rtt_ms, max),
      datagrams_sent = sum(datagrams, na.rm = TRUE),
      datagrams_back = sum(datagrams_returned, na.rm = TRUE),
      datagrams_misordered = sum(datagrams_misordered),
      loss_pct = pooled_loss_pct(datagrams, datagrams_returned),
      cool_gap_us = stats_or_na(cool_gap_us, stats::median),
      .groups = "drop"
    ) |>
    dplyr::arrange(setup, experiment, mode, message_bytes)
}

# One row per setup, experiment, mode, message and trial: the spread across
# repeats that the figures draw as points.
summarise_trials <- function(data) {
  data |>
    dplyr::group_by(dplyr::across(dplyr::all_of(c(size_keys, "trial")))) |>
    dplyr::summarise(
      rtt_median = stats_or_na(rtt_ms, stats::median),
      loss_pct = pooled_loss_pct(datagrams, datagrams_returned),
      .groups = "drop"
    )
}

stats_or_na <- function(x, f) {
  x <- x[!is.na(x)]
  if (length(x) == 0) {
    return(NA_real_)
  }
  f(x)
}

# Per experiment and mode: how much was measured, for the "what we ran" tables.
summarise_coverage <- function(data) {
  data |>
    dplyr::group_by(setup, experiment, mode) |>
    dplyr::summarise(
      sizes = dplyr::n_distinct(message_bytes),
      smallest_bytes = min(message_bytes),
      largest_bytes = max(message_bytes),
      trials = dplyr::n_distinct(trial),
      echoes_per_trial = max(echo),
      echoes = dplyr::n(),
      complete_pct = 100 * mean(complete, na.rm = TRUE),
      .groups = "drop"
    )
}
