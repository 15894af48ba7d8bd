# ishikura: the tables behind the report's analysis of the era-host misses (issue #35): what
# one connection moves per round trip and what k that makes, what a loss costs at RTT 0, and
# how the n x 64K connections of Table 2 share what they get.

# Octets a window keeps in flight when the sender sends whole segments only: floor(W / MSS)
# segments of MSS (the segmented window W').
whole_segments_octets <- function(window, mss) floor(window / mss) * mss

# k of Tp = k*N*W'/D at the most connections of each added RTT above 0, per experiment given,
# with the segments each connection moved per added RTT; then the paper's own point (its N 16
# at 200 ms) under source "paper".
k_by_rtt_rows <- function(points, constants, experiments) {
  mss <- constants[["mss_octets"]]
  per_segment_bits <- 8 * mss
  measured <- points |>
    dplyr::filter(experiment %in% experiments, added_rtt_ms > 0) |>
    dplyr::group_by(experiment, setup, added_rtt_ms) |>
    dplyr::filter(connections == max(connections, -Inf)) |>
    dplyr::ungroup() |>
    dplyr::transmute(
      source = experiment, setup, added_rtt_ms, connections, mean_mbit,
      segments_per_rtt = mean_mbit * 1e6 * added_rtt_ms / 1000 / (per_segment_bits * connections),
      k = mean_mbit * 1e6 * added_rtt_ms / 1000 /
        (connections * 8 * whole_segments_octets(window, mss))
    )
  paper_n <- 16
  paper_rtt_ms <- 200
  paper_mbit <- constants[["n16_rtt200_mbit"]]
  paper <- tibble::tibble(
    source = "paper", setup = NA_character_, added_rtt_ms = paper_rtt_ms, connections = paper_n,
    mean_mbit = paper_mbit,
    segments_per_rtt = paper_mbit * 1e6 * paper_rtt_ms / 1000 / (per_segment_bits * paper_n),
    k = paper_mbit * 1e6 * paper_rtt_ms / 1000 /
      (paper_n * 8 * whole_segments_octets(24576, mss))
  )
  dplyr::bind_rows(dplyr::arrange(measured, source, setup, added_rtt_ms), paper)
}

# Cell loss at RTT 0: per cell loss ratio, one connection and the most, with the
# retransmission timeouts per transfer and the seconds each one cost against the same N
# error-free (fig6 at RTT 0); gain_pct is the most connections' rate over one connection's.
rtt0_loss_rows <- function(points) {
  free <- points |>
    dplyr::filter(experiment == "fig6", added_rtt_ms == 0) |>
    dplyr::transmute(setup, connections, free_s = elapsed_s / runs)
  lossy <- dplyr::filter(points, experiment == "cell-loss", added_rtt_ms == 0)
  if (nrow(lossy) == 0) {
    return(tibble::tibble())
  }
  lossy |>
    dplyr::group_by(setup, cell_loss_ratio) |>
    dplyr::filter(connections %in% c(1, max(connections))) |>
    dplyr::mutate(gain_pct = 100 * (mean_mbit[connections == max(connections)] /
      mean_mbit[connections == 1] - 1)) |>
    dplyr::ungroup() |>
    dplyr::left_join(free, by = c("setup", "connections")) |>
    dplyr::transmute(
      setup, cell_loss_ratio, connections, mean_mbit,
      timeouts_per_transfer = timeouts / runs,
      s_per_timeout = dplyr::if_else(timeouts > 0, (elapsed_s / runs - free_s) / (timeouts / runs),
        NA_real_
      ),
      gain_pct
    ) |>
    dplyr::arrange(setup, cell_loss_ratio, connections)
}

# Table 2's n x 64K connections: per total window, n, the published and measured aggregate
# and per-connection rates, and each aggregate as a share of n times its own series' one
# connection (100 % when the n connections do not hinder each other); measured from the
# experiment given (table2-multi or a variant of it).
table2_share_rows <- function(points, reference, experiment = "table2-multi") {
  multi <- dplyr::filter(reference, series == "multi")
  one_published <- multi$published_kbps[multi$total_window_kbytes == min(multi$total_window_kbytes)]
  measured <- points |>
    dplyr::filter(.data$experiment == .env$experiment) |>
    dplyr::transmute(setup, n = connections, measured_kbps = 1000 * mean_mbit)
  measured <- measured |>
    dplyr::group_by(setup) |>
    dplyr::mutate(measured_share_pct = 100 * measured_kbps / (n * measured_kbps[n == 1])) |>
    dplyr::ungroup()
  multi |>
    dplyr::transmute(
      total_window_kbytes, n = total_window_kbytes / 64, published_kbps,
      published_per_conn_kbps = published_kbps / n,
      published_share_pct = 100 * published_kbps / (n * one_published)
    ) |>
    dplyr::left_join(measured, by = "n", relationship = "one-to-many") |>
    dplyr::mutate(measured_per_conn_kbps = measured_kbps / n)
}
