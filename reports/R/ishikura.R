# ishikura (MFTP): reading the mftp transfers, summarising them by sweep point,
# and the metrics its claims (reference/ishikura-claims.csv) are judged by.

# No transfers, with every column summarise_points reads (the recoveries' included), so that
# an experiment not run summarises to no points.
empty_mftp <- function() {
  empty <- tibble::tibble(
    experiment = character(), setup = character(), host = character(), connections = double(),
    window = double(), added_rtt_ms = double(), cell_loss_ratio = double(),
    bit_error_ratio = double(), throughput_mbit = double(), elapsed_s = double(),
    bytes = double(), retransmitted_packets = double(), retransmit_timeouts = double(),
    run_id = character()
  )
  for (key in c(recovery_keys, reorder_keys)) empty[[key]] <- double()
  empty
}

# Every mftp transfer of the listed experiments, one row each; absent sweep
# columns are 0 (the link kind's own value: no errors) or NA (RTT).
read_mftp <- function(results_dir, paper, experiments) {
  tables <- purrr::map(experiments, function(e) {
    path <- file.path(results_dir, paper, e, "results.csv")
    if (!file.exists(path)) {
      return(NULL)
    }
    read_results_csv(path, "mftp")
  })
  data <- dplyr::bind_rows(purrr::compact(tables))
  if (nrow(data) == 0) {
    return(empty_mftp())
  }
  for (key in c("cell_loss_ratio", "bit_error_ratio", "added_rtt_ms", recovery_keys, reorder_keys)) {
    if (!key %in% names(data)) data[[key]] <- NA_real_
  }
  data |>
    dplyr::mutate(
      cell_loss_ratio = dplyr::coalesce(cell_loss_ratio, 0),
      bit_error_ratio = dplyr::coalesce(bit_error_ratio, 0)
    ) |>
    add_setup()
}

# Session columns of the slow-start recoveries (netrepro/recovery.py), on every
# row of a session; NA where the experiment did not trace cwnd.
recovery_keys <- c(
  "recoveries", "recoveries_cut", "recoveries_unfinished", "recovery_s", "recovery_rtts", "recovery_formula_rtts", "base_rtt_ms"
)

# Per transfer, how often the receiving program held a connection back behind its bound of
# blocks ahead of a gap, and the most octets it held ahead (mftp --reorder-max); NA in results
# from before mftp recorded them.
reorder_keys <- c("reorder_stalls", "held_ahead_max")

# The columns that name a sweep point of an experiment and setup (and its host model).
point_keys <- c(
  "experiment", "setup", "host", "connections", "window", "added_rtt_ms", "cell_loss_ratio",
  "bit_error_ratio"
)

# Mean and spread of throughput at each sweep point of each experiment and
# setup; the recoveries of its sessions (one row each) summed, their mean Tr
# weighted by how many each completed; the receiver's stalls per transfer and the
# most it held ahead of a gap.
summarise_points <- function(transfers) {
  sessions <- !duplicated(transfers$run_id)
  if (!"host" %in% names(transfers)) {
    transfers$host <- rep(NA_character_, nrow(transfers))
  }
  for (key in setdiff(reorder_keys, names(transfers))) transfers[[key]] <- rep(NA_real_, nrow(transfers))
  transfers |>
    dplyr::mutate(session = sessions) |>
    dplyr::group_by(dplyr::across(dplyr::all_of(point_keys))) |>
    dplyr::summarise(
      mean_mbit = mean(throughput_mbit), sd_mbit = stats::sd(throughput_mbit),
      runs = dplyr::n(), elapsed_s = sum(elapsed_s), bytes = sum(bytes),
      retransmitted = max_or_na(retransmitted_packets), timeouts = max_or_na(retransmit_timeouts),
      recovery_s = weighted_or_na(recovery_s[session], recoveries[session]),
      recovery_rtts = weighted_or_na(recovery_rtts[session], recoveries[session]),
      recovery_formula_rtts = mean(recovery_formula_rtts[session]),
      recoveries_cut = sum(recoveries_cut[session]),
      recoveries_unfinished = sum(recoveries_unfinished[session]),
      recoveries = sum(recoveries[session]),
      stalls_per_transfer = mean(reorder_stalls), held_ahead_max = max_or_na(held_ahead_max),
      .groups = "drop"
    )
}

# The largest of x; NA when x is empty (a point of no transfers).
max_or_na <- function(x) if (length(x) == 0) NA_real_ else max(x)

# Mean of x weighted by w over the entries that have both; NA when no weight.
weighted_or_na <- function(x, w) {
  keep <- !is.na(x) & !is.na(w) & w > 0
  if (!any(keep)) NA_real_ else sum(x[keep] * w[keep]) / sum(w[keep])
}

# Reference constants by name (reference/ishikura-constants.csv).
read_constants <- function(path) {
  table <- readr::read_csv(path, col_types = "cdcc", progress = FALSE)
  stats::setNames(table$value, table$name)
}

# Packet error rate of a 9 KB packet, as Sec 5.3 converts: 188 cells or 72 kbit.
packet_error_rate <- function(cell_loss, bit_error, constants) {
  1 - (1 - cell_loss)^constants[["cells_per_packet"]] *
    (1 - bit_error)^constants[["bits_per_packet"]]
}

# Fig 10: throughput of 16 connections at RTT 200 ms under each error,
# normalised to 16 connections error-free at RTT 200 ms.
fig10_curves <- function(points, constants) {
  base <- dplyr::filter(
    points, experiment == "fig6", connections == 16, added_rtt_ms == 200
  ) |>
    dplyr::select(setup, base_mbit = mean_mbit)
  points |>
    dplyr::filter(
      experiment %in% c("cell-loss", "bit-error"), connections == 16, added_rtt_ms == 200
    ) |>
    dplyr::inner_join(base, by = "setup") |>
    dplyr::mutate(
      error = dplyr::if_else(experiment == "cell-loss", "cell loss", "payload bit error"),
      error_ratio = dplyr::if_else(experiment == "cell-loss", cell_loss_ratio, bit_error_ratio),
      packet_error_rate = packet_error_rate(cell_loss_ratio, bit_error_ratio, constants),
      normalised = mean_mbit / base_mbit
    )
}

# Fig 6's points: one line per added RTT, in order of RTT.
fig6_rows <- function(points) {
  dplyr::filter(points, experiment == "fig6") |>
    dplyr::mutate(series = factor(
      paste(added_rtt_ms, "ms"),
      levels = paste(sort(unique(added_rtt_ms)), "ms")
    ))
}

# Fig 7's points, the window in Kbytes.
fig7_rows <- function(points) {
  dplyr::filter(points, experiment == "fig7") |>
    dplyr::mutate(window_kbytes = window / 1024)
}

# Fig 8's points: cell loss at an added RTT of 200 ms, one line per cell loss ratio.
fig8_rows <- function(points) {
  dplyr::filter(points, experiment == "cell-loss", added_rtt_ms == 200) |>
    dplyr::mutate(series = factor(cell_loss_ratio))
}

# Fig 9's points: every cell loss point, one line per number of connections.
fig9_rows <- function(points) {
  dplyr::filter(points, experiment == "cell-loss") |>
    dplyr::mutate(series = factor(connections))
}

# fig10_curves() twice over, once against each error's own ratio (Figs 10a and 10b) and once
# against the packet error rate both convert to.
fig10_rows <- function(curves) {
  dplyr::bind_rows(
    dplyr::mutate(curves, axis = "error ratio (Fig 10a, 10b)", x = error_ratio),
    dplyr::mutate(curves, axis = "packet error rate (converted)", x = packet_error_rate)
  )
}

# Segmented window W' (octets): the smallest swept window whose throughput at
# the 24K point's RTT is within 2 % of the 24K window's (the step 24K lies on).
fit_segmented_window <- function(points, window = 24576) {
  fig7 <- dplyr::filter(points, experiment == "fig7", connections == 1)
  at <- fig7$mean_mbit[fig7$window == window]
  if (length(at) != 1) {
    return(NA_real_)
  }
  same_step <- fig7$window[abs(fig7$mean_mbit / at - 1) <= 0.02]
  min(same_step)
}

# k of Tp = k*N*W'/D, least squares through the origin over the fig6 points
# at RTT >= 200 ms, D the added RTT.
fit_k <- function(points, w_prime) {
  rows <- dplyr::filter(points, experiment == "fig6", added_rtt_ms >= 200)
  if (nrow(rows) == 0 || is.na(w_prime)) {
    return(NA_real_)
  }
  ideal <- rows$connections * w_prime * 8 / (rows$added_rtt_ms / 1000) / 1e6
  sum(ideal * rows$mean_mbit) / sum(ideal^2)
}

# Table 2 measured beside published, by total window.
table2_rows <- function(points, reference) {
  measured <- points |>
    dplyr::filter(experiment %in% c("table2-multi", "table2-single")) |>
    dplyr::mutate(
      series = dplyr::if_else(experiment == "table2-multi", "multi", "single"),
      total_window_kbytes = round(connections * window / 1024)
    ) |>
    dplyr::select(setup, series, total_window_kbytes, measured_kbps = mean_mbit, runs) |>
    dplyr::mutate(measured_kbps = 1000 * measured_kbps)
  dplyr::left_join(reference, measured, by = c("series", "total_window_kbytes"))
}

# The measured kb/s and transfers of one setup's Table 2 point of a series ("multi": n
# connections of 64K, "single": one of n x 64K) at a total window in Kbytes; NA when not
# measured. Base R: the bootstrap calls it hundreds of times.
table2_point <- function(points, which, total_kbytes) {
  hit <- which(points$experiment == paste0("table2-", which) &
    round(points$connections * points$window / 1024) == total_kbytes)
  if (length(hit) != 1) {
    return(c(kbps = NA_real_, runs = NA_real_))
  }
  c(kbps = 1000 * points$mean_mbit[hit], runs = points$runs[hit])
}

# Per cent change of one Table 2 series from a 64K to a 512K total window.
table2_change <- function(points, ref, which) {
  from <- table2_point(points, which, 64)
  to <- table2_point(points, which, 512)
  if (anyNA(c(from, to))) {
    return(NA_real_)
  }
  with_n(100 * (to[["kbps"]] / from[["kbps"]] - 1), from[["runs"]] + to[["runs"]])
}

# Measured kb/s of one Table 2 cell.
table2_kbps <- function(points, ref, which, total_kbytes) {
  cell <- table2_point(points, which, total_kbytes)
  if (anyNA(cell)) NA_real_ else with_n(cell[["kbps"]], cell[["runs"]])
}

# Multi over single at one Table 2 column (total window in Kbytes): n connections of 64K against
# one window-scaled connection of the same total; NA when either was not measured.
table2_ratio <- function(points, total_kbytes) {
  multi <- table2_point(points, "multi", total_kbytes)
  single <- table2_point(points, "single", total_kbytes)
  if (anyNA(c(multi, single))) {
    return(NA_real_)
  }
  with_n(multi[["kbps"]] / single[["kbps"]], multi[["runs"]] + single[["runs"]])
}

# Per Table 2 column and setup: the published and the measured multi / single ratio.
table2_ratio_rows <- function(points, reference) {
  published <- reference |>
    tidyr::pivot_wider(names_from = series, values_from = published_kbps) |>
    dplyr::transmute(total_window_kbytes, published_ratio = multi / single)
  setups <- unique(points$setup[points$experiment %in% c("table2-multi", "table2-single")])
  measured <- purrr::map(setups, function(s) {
    here <- dplyr::filter(points, setup == s)
    tibble::tibble(
      setup = s, total_window_kbytes = published$total_window_kbytes,
      measured_ratio = purrr::map_dbl(
        published$total_window_kbytes, function(k) as.numeric(table2_ratio(here, k))
      )
    )
  })
  none <- tibble::tibble(setup = character(), total_window_kbytes = numeric(), measured_ratio = numeric())
  dplyr::left_join(published, dplyr::bind_rows(none, measured), by = "total_window_kbytes")
}

# Fig 1, measured and by the formula, in RTTs: each of n connections of W and
# one connection of n*W, per n and cell loss ratio, with the recoveries behind
# each (completed; cut by the next loss; unfinished when the transfer ended).
recovery_long <- function(points, window = 24576) {
  points |>
    dplyr::filter(experiment %in% c("fig1-multi", "fig1-single")) |>
    dplyr::mutate(
      case = dplyr::if_else(experiment == "fig1-multi", "each of n connections of W", "one connection of n*W"),
      n = dplyr::if_else(experiment == "fig1-multi", connections, round(window / !!window))
    ) |>
    dplyr::select(setup, case, n, cell_loss_ratio, recoveries, recoveries_cut, recoveries_unfinished,
      measured = recovery_rtts, formula = recovery_formula_rtts
    ) |>
    tidyr::pivot_longer(c(measured, formula), names_to = "source", values_to = "rtts")
}

# Fig 1's bars: recovery_long() with a panel per setup (named when there are several) and cell
# loss ratio.
recovery_panels <- function(points, window = 24576) {
  recovery_long(points, window) |>
    dplyr::mutate(panel = paste0(
      if (dplyr::n_distinct(setup) > 1) paste0(setup, "\n") else "", "cell loss ", signif(cell_loss_ratio, 2)
    ))
}

# The recoveries behind each of Fig 1's groups of bars, and the height to write them at.
recovery_labels <- function(panels) {
  panels |>
    dplyr::group_by(panel, case, n) |>
    dplyr::summarise(
      top = max(rtts, na.rm = TRUE),
      label = paste0(
        recoveries[1], " done\n", recoveries_cut[1], " cut, ", recoveries_unfinished[1], " unfinished"
      ),
      .groups = "drop"
    )
}

# Fig 1: one row per n and cell loss ratio where both setups recovered at
# least once: Tr of each of n connections of W (fig1-multi) and of one
# connection of n*W (fig1-single), measured and by the paper's formula.
recovery_pairs <- function(points, window = 24576) {
  multi <- points |>
    dplyr::filter(experiment == "fig1-multi", recoveries > 0) |>
    dplyr::transmute(n = connections, cell_loss_ratio,
      multi_s = recovery_s, multi_formula = recovery_formula_rtts, multi_recoveries = recoveries
    )
  single <- points |>
    dplyr::filter(experiment == "fig1-single", recoveries > 0) |>
    dplyr::transmute(n = round(window / !!window), cell_loss_ratio,
      single_s = recovery_s, single_formula = recovery_formula_rtts, single_recoveries = recoveries
    )
  dplyr::inner_join(multi, single, by = c("n", "cell_loss_ratio")) |>
    dplyr::mutate(
      measured_ratio = single_s / multi_s, formula_ratio = single_formula / multi_formula
    )
}

# Table 1's parameters: the paper's range beside the values our points swept ("not swept" for
# a parameter no experiment varied).
table1_swept <- function(table1, points) {
  swept <- purrr::map_chr(table1$column, function(column) {
    values <- sort(unique(points[[column]]))
    values <- values[!is.na(values)]
    if (length(values) == 0) "not swept" else paste(signif(values, 3), collapse = ", ")
  })
  tibble::tibble(
    Parameter = table1$parameter,
    `Paper (low .. high)` = paste(signif(table1$low, 3), "..", signif(table1$high, 3), table1$unit),
    `Our values` = swept
  )
}

# Sec 3.2's automatic N: per setup and added RTT, the RTT mftp measured, Tm*D/W, the N it chose
# and the throughput.
auto_n_rows <- function(transfers) {
  dplyr::filter(transfers, experiment == "auto-n") |>
    dplyr::group_by(Setup = setup, `Added RTT (ms)` = added_rtt_ms) |>
    dplyr::summarise(
      `Measured RTT (ms)` = fmt_num(mean(rtt_measured_ms)), `Tm·D/W` = fmt_num(mean(formula_connections)),
      `N chosen` = max(connections), `Throughput (Mb/s)` = fmt_num(mean(throughput_mbit)), .groups = "drop"
    )
}

# A metric's value with the number of measurements (transfers, or recoveries)
# it rests on, shown beside its verdict.
with_n <- function(value, n) structure(value, n = n)

# The one point of rows that x selects, its value and its transfers.
point_value <- function(rows, value) {
  if (nrow(rows) == 1) with_n(value, rows$runs) else NA_real_
}

# Straight-line R squared of y on x; NA below three points.
r_squared <- function(x, y) {
  if (length(x) < 3 || stats::sd(y) == 0) NA_real_ else stats::cor(x, y)^2
}

# Each metric takes one setup's points, the reference tables and constants,
# and returns one number or NA.
mftp_metrics <- list(
  table1_coverage = function(points, ref) {
    covered <- purrr::map_lgl(seq_len(nrow(ref$table1)), function(i) {
      values <- points[[ref$table1$column[i]]]
      values <- values[!is.na(values) & values > 0 | ref$table1$low[i] == 0]
      length(values) > 0 && min(values) <= ref$table1$low[i] * 1.001 &&
        max(values) >= ref$table1$high[i] * 0.999
    })
    with_n(100 * mean(covered), sum(points$runs))
  },
  rtt0_min_mbit = function(points, ref) {
    x <- dplyr::filter(points, experiment == "fig6", added_rtt_ms == 0)
    if (nrow(x) == 0) NA_real_ else with_n(min(x$mean_mbit), sum(x$runs))
  },
  linearity_r2 = function(points, ref) {
    x <- dplyr::filter(points, experiment == "fig6", added_rtt_ms >= 200)
    fits <- purrr::map_dbl(split(x, x$added_rtt_ms), function(s) r_squared(s$connections, s$mean_mbit))
    if (length(fits) == 0) NA_real_ else with_n(min(fits), sum(x$runs))
  },
  n16_rtt200_mbit = function(points, ref) {
    x <- dplyr::filter(points, experiment == "fig6", connections == 16, added_rtt_ms == 200)
    point_value(x, x$mean_mbit)
  },
  pct_of_tm = function(points, ref) {
    x <- dplyr::filter(points, experiment == "fig6", connections == 16, added_rtt_ms == 200)
    tm <- 16 * x$window * 8 / 0.2 / 1e6
    point_value(x, 100 * x$mean_mbit / tm)
  },
  step_share = function(points, ref) {
    x <- dplyr::arrange(dplyr::filter(points, experiment == "fig7"), window)
    if (nrow(x) < 3) {
      return(NA_real_)
    }
    with_n(100 * mean(abs(diff(x$mean_mbit) / utils::head(x$mean_mbit, -1)) <= 0.02), sum(x$runs))
  },
  segmented_window_kbytes = function(points, ref) {
    x <- dplyr::filter(points, experiment == "fig7", window == 24576)
    point_value(x, x$mean_mbit * 1e6 * (x$added_rtt_ms / 1000) / 8 / 1024)
  },
  growth_with_n_rtt200 = function(points, ref) {
    x <- rows_where(points, points$experiment == "cell-loss" & points$added_rtt_ms == 200)
    rho <- purrr::map_dbl(split(x, x$cell_loss_ratio), function(s) {
      stats::cor(s$connections, s$mean_mbit, method = "spearman")
    })
    if (length(rho) == 0) NA_real_ else with_n(min(rho), sum(x$runs))
  },
  # How far (points of "% of linear") the growth from 1 to 16 connections at 200 ms falls below
  # linear at the highest cell loss ratio, against the same growth without errors (Fig 6):
  # positive when loss makes the growth less linear.
  linear_efficiency_drop = function(points, ref) {
    efficiency <- function(x) {
      one <- x$mean_mbit[x$connections == 1]
      sixteen <- x$mean_mbit[x$connections == 16]
      if (length(one) != 1 || length(sixteen) != 1) NA_real_ else 100 * sixteen / (16 * one)
    }
    lossy <- rows_where(points, points$experiment == "cell-loss" & points$added_rtt_ms == 200)
    lossy <- rows_where(lossy, lossy$cell_loss_ratio == max(lossy$cell_loss_ratio, -Inf))
    clean <- rows_where(points, points$experiment == "fig6" & points$added_rtt_ms == 200)
    drop <- efficiency(clean) - efficiency(lossy)
    ends <- c(1, 16)
    used <- c(lossy$runs[lossy$connections %in% ends], clean$runs[clean$connections %in% ends])
    if (is.na(drop)) NA_real_ else with_n(drop, sum(used))
  },
  share_rtt_helped = function(points, ref) {
    x <- rows_where(points, points$experiment == "cell-loss" & points$added_rtt_ms > 0)
    slices <- split(x, list(x$added_rtt_ms, x$cell_loss_ratio), drop = TRUE)
    gains <- purrr::map_dbl(slices, function(s) {
      s$mean_mbit[s$connections == max(s$connections)][1] / s$mean_mbit[s$connections == 1][1]
    })
    if (length(gains) == 0) NA_real_ else with_n(100 * mean(gains > 1.1), sum(x$runs))
  },
  rtt0_gain_pct = function(points, ref) {
    x <- dplyr::filter(points, experiment == "cell-loss", added_rtt_ms == 0)
    gains <- x |>
      dplyr::group_by(cell_loss_ratio) |>
      dplyr::summarise(
        gain = mean_mbit[connections == max(connections)] / mean_mbit[connections == 1],
        .groups = "drop"
      )
    if (nrow(gains) == 0) NA_real_ else with_n(100 * (max(gains$gain) - 1), sum(x$runs))
  },
  fig10_gap = function(points, ref) {
    curves <- fig10_curves(points, ref$constants)
    cells <- dplyr::arrange(dplyr::filter(curves, error == "cell loss"), packet_error_rate)
    bits <- dplyr::filter(curves, error != "cell loss")
    inside <- bits$packet_error_rate >= min(cells$packet_error_rate, Inf) &
      bits$packet_error_rate <= max(cells$packet_error_rate, -Inf)
    if (nrow(cells) < 2 || !any(inside)) {
      return(NA_real_)
    }
    on_cells <- stats::approx(
      log10(cells$packet_error_rate), cells$normalised, log10(bits$packet_error_rate[inside])
    )$y
    with_n(100 * max(abs(on_cells - bits$normalised[inside])), sum(curves$runs))
  },
  table2_multi_growth = function(points, ref) table2_change(points, ref, "multi"),
  table2_single_change = function(points, ref) table2_change(points, ref, "single"),
  table2_single_64k_kbps = function(points, ref) table2_kbps(points, ref, "single", 64),
  table2_multi_512k_kbps = function(points, ref) table2_kbps(points, ref, "multi", 512),
  table2_ratio_64k = function(points, ref) table2_ratio(points, 64),
  table2_ratio_128k = function(points, ref) table2_ratio(points, 128),
  table2_ratio_256k = function(points, ref) table2_ratio(points, 256),
  table2_ratio_384k = function(points, ref) table2_ratio(points, 384),
  table2_ratio_512k = function(points, ref) table2_ratio(points, 512),
  table2_multi_wins = function(points, ref) {
    totals <- unique(ref$table2$total_window_kbytes[ref$table2$total_window_kbytes > 64])
    wins <- purrr::map_lgl(totals, function(total) {
      multi <- table2_point(points, "multi", total)[["kbps"]]
      single <- table2_point(points, "single", total)[["kbps"]]
      if (is.na(multi) || is.na(single)) NA else multi > single
    })
    wins <- wins[!is.na(wins)]
    if (length(wins) == 0) NA_real_ else with_n(100 * mean(wins), sum(points$runs))
  },
  fit_k = function(points, ref) {
    used <- dplyr::filter(points, experiment == "fig7" | (experiment == "fig6" & added_rtt_ms >= 200))
    with_n(fit_k(points, fit_segmented_window(points)), sum(used$runs))
  },
  fit_w_kbytes = function(points, ref) {
    with_n(fit_segmented_window(points) / 1024, sum(points$runs[points$experiment == "fig7"]))
  },
  sec2_mbit = function(points, ref) {
    x <- dplyr::filter(points, experiment == "sec2")
    point_value(x, x$mean_mbit)
  },
  recovery_ratio_per_n = function(points, ref) {
    pairs <- recovery_pairs(points)
    if (nrow(pairs) == 0) {
      return(NA_real_)
    }
    with_n(min(pairs$measured_ratio / pairs$n), sum(pairs$multi_recoveries + pairs$single_recoveries))
  },
  recovery_vs_formula = function(points, ref) {
    x <- dplyr::filter(points, experiment == "fig1-multi", recoveries > 0)
    if (nrow(x) == 0) {
      return(NA_real_)
    }
    with_n(weighted_or_na(x$recovery_rtts / x$recovery_formula_rtts, x$recoveries), sum(x$recoveries))
  }
)

# Metrics whose verdict turns on a sign or a change between points: their interval is a
# bootstrap over each point's transfers (resampled_points()), so a difference inside the
# transfers' scatter reads inconclusive.
mftp_bootstrap_metrics <- c(
  "linear_efficiency_drop", "growth_with_n_rtt200", "share_rtt_helped", "table2_multi_growth",
  "table2_single_change", "table2_multi_wins", "table2_ratio_64k", "table2_ratio_128k",
  "table2_ratio_256k", "table2_ratio_384k", "table2_ratio_512k"
)

# reps copies of the points, each point's mean throughput recomputed from its transfers drawn
# with replacement.
resampled_points <- function(points, transfers, reps = bootstrap_reps, seed = bootstrap_seed) {
  keys <- intersect(point_keys, names(transfers))
  samples <- split(transfers$throughput_mbit, do.call(paste, c(transfers[keys], sep = "\r")))
  key <- do.call(paste, c(points[keys], sep = "\r"))
  set.seed(seed)
  means <- matrix(points$mean_mbit, nrow = nrow(points), ncol = reps)
  for (i in seq_along(key)) {
    x <- samples[[key[i]]]
    if (length(x) > 0) {
      means[i, ] <- colMeans(resample_matrix(x, reps))
    }
  }
  points <- as.data.frame(points)
  purrr::map(seq_len(reps), function(b) {
    points$mean_mbit <- means[, b]
    points
  })
}

# Claims x the setups that measured their experiments (one "no data" row when
# none did), each setup judged on its own with judge_claim(); transfers (when given) give the
# bootstrap intervals of mftp_bootstrap_metrics, fits (read_host_fits()) the claims a setup's
# host model was fitted on.
evaluate_mftp_claims <- function(claims, points, ref, transfers = NULL, fits = no_fits()) {
  purrr::map(seq_len(nrow(claims)), function(i) {
    claim <- claims[i, ]
    experiments <- split_list(claim$experiments)
    setups <- unique(points$setup[points$experiment %in% experiments])
    if (length(setups) == 0) {
      setups <- NA_character_
    }
    purrr::map(setups, function(s) {
      rows <- dplyr::filter(points, setup %in% s, experiment %in% experiments)
      metric <- mftp_metrics[[claim$metric]]
      value <- if (nrow(rows) == 0) NA_real_ else metric(rows, ref)
      resample <- claim$metric %in% mftp_bootstrap_metrics && !is.null(transfers)
      if (resample && !is.na(as.numeric(value))) {
        here <- dplyr::filter(transfers, setup %in% s, experiment %in% experiments)
        ci <- bootstrap_interval(metric, resampled_points(rows, here), ref)
        value <- structure(with_ci(as.numeric(value), ci[1], ci[2]), n = attr(value, "n"))
      }
      hosts <- unique(stats::na.omit(rows$host))
      judged <- judge_claim_row(claim, value) |>
        mark_claim_fits(claim, hosts, fits, "ishikura")
      dplyr::bind_cols(
        claim, setup = s, hosts = hosts_text(hosts), judged, value_n(value, NA_real_, "transfers")
      )
    }) |>
      dplyr::bind_rows()
  }) |>
    dplyr::bind_rows() |>
    dplyr::mutate(verdict = factor(verdict, levels = verdict_levels))
}

# ishikura's claims judged on the transfers' points and the reference tables; the sensitivity
# section calls it again with a variant's transfers in place of its base's. fits: the host
# models' fitted figures (read_host_fits()).
judge_ishikura <- function(tables, claims, ref, fits = no_fits()) {
  evaluate_mftp_claims(claims, summarise_points(tables$transfers), ref, tables$transfers, fits)
}
