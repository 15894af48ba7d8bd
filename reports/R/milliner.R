# milliner: ipcbench's message rows, their per-size summaries and the
# metrics of reports/reference/milliner-claims.csv.

milliner_experiments <- c(
  "udp-segments-1024", "udp-segments-1460", "udp-unack", "udp-unack-limit",
  "tcp-buffers-small", "tcp-buffers", "compare-udp", "compare-tcp",
  "compare-rpc", "compare-tcp-linux", "collisions-tcp", "collisions-udp"
)

medium_absent <- list(medium_frames = NA_real_, medium_collisions = NA_real_)

add_missing_columns <- function(df, columns) {
  for (name in setdiff(names(columns), names(df))) {
    df[[name]] <- columns[[name]]
  }
  df
}

# Every message row of the experiments that have results, or NULL.
read_ipc_messages <- function(results_dir, paper, experiments = milliner_experiments) {
  files <- file.path(results_dir, paper, experiments, "results.csv")
  files <- files[file.exists(files)]
  if (length(files) == 0) {
    return(NULL)
  }
  purrr::map(files, read_results_csv, tool = "ipcbench") |>
    dplyr::bind_rows() |>
    # Runs on a duplex link count no collisions; results from before the counts existed lack them.
    add_missing_columns(medium_absent) |>
    dplyr::mutate(setup = paste(stack, backend), million_bytes = message_bytes / 1e6)
}

# One row per setup, experiment, curve and size: mean time and throughput,
# their coefficient of variation, completion, loss and paging.
summarise_ipc <- function(messages) {
  messages |>
    dplyr::group_by(setup, experiment, mode, curve, segment, unack, buffer, message_bytes, million_bytes) |>
    dplyr::summarise(
      n = dplyr::n(),
      completed = all(completed),
      # Before the means, which replace the columns they summarise.
      cv_pct = if (n > 1) 100 * stats::sd(throughput_mbit) / mean(throughput_mbit) else NA_real_,
      elapsed_s = mean(elapsed_s),
      throughput_mbit = mean(throughput_mbit),
      # A transfer that never completed reports no count: unknown, not zero.
      retransmissions = if (all(is.na(retransmissions))) NA_real_ else sum(retransmissions, na.rm = TRUE),
      pageins = max(a_pageins + b_pageins, 0, na.rm = TRUE),
      pageouts = max(a_pageouts + b_pageouts, 0, na.rm = TRUE),
      # Every message of one run carries that run's counts: each trial's once.
      medium_frames = sum(medium_frames[!duplicated(trial)]),
      medium_collisions = sum(medium_collisions[!duplicated(trial)]),
      .groups = "drop"
    )
}

# summarise_ipc()'s table without rows, for judging when no message was read: every column
# a metric may read is there.
empty_ipc_sizes <- function() {
  tibble::tibble(
    setup = character(), experiment = character(), mode = character(), curve = character(),
    segment = double(), unack = double(), buffer = double(), message_bytes = double(),
    million_bytes = double(), n = integer(), completed = logical(), cv_pct = double(),
    elapsed_s = double(), throughput_mbit = double(), retransmissions = double(),
    pageins = double(), pageouts = double(), medium_frames = double(), medium_collisions = double()
  )
}

# milliner's claims judged on the messages' per-size summaries; the sensitivity section calls it
# again with a variant's messages in place of its base's.
judge_milliner <- function(tables, claims) {
  sizes <- if (is.null(tables$messages)) empty_ipc_sizes() else summarise_ipc(tables$messages)
  evaluate_claims(claims, sizes, metrics = milliner_metrics)
}

# Sec 5.1's table: per setup and k, whether the message got through, with its retransmissions
# and throughput; the setup column only when there are several.
unack_limit_table <- function(sizes) {
  limit <- dplyr::filter(sizes, experiment == "udp-unack-limit") |>
    dplyr::arrange(setup, unack) |>
    dplyr::transmute(
      Setup = setup,
      `Unacknowledged segments (k)` = unack,
      `Message delivered` = dplyr::if_else(completed, "yes", "no"),
      Retransmissions = retransmissions,
      `Throughput (Mb/s)` = signif(throughput_mbit, 3)
    )
  if (dplyr::n_distinct(limit$Setup) == 1) {
    limit$Setup <- NULL
  }
  limit
}

# Per size, the value of x at the curve whose key is k (NA when absent).
at_curve <- function(rows, key, k, x = "elapsed_s") {
  hit <- rows[!is.na(rows[[key]]) & rows[[key]] == k, ]
  stats::setNames(hit[[x]], hit$message_bytes)
}

# Throughput of curve a over curve b (labels or buffer sizes), in % more.
gain_pct <- function(rows, a, b) {
  ta <- at_curve(rows, "buffer", as.numeric(a), "throughput_mbit")
  tb <- at_curve(rows, "buffer", as.numeric(b), "throughput_mbit")
  both <- intersect(names(ta), names(tb))
  na_if_empty(100 * (tb[both] / ta[both] - 1), stats::median)
}

# Nearest measured size to target, per curve.
nearest_size <- function(rows, target) {
  rows |>
    dplyr::group_by(curve) |>
    dplyr::filter(abs(message_bytes - target) == min(abs(message_bytes - target))) |>
    dplyr::ungroup()
}

milliner_metrics <- list(
  largest_segment_fastest = function(rows, modes, ...) {
    if (nrow(rows) == 0) return(NA_real_)
    best <- rows |>
      dplyr::group_by(message_bytes) |>
      dplyr::summarise(ok = segment[which.min(elapsed_s)] == max(segment), .groups = "drop")
    100 * mean(best$ok)
  },
  diminishing_gain_ratio = function(rows, modes, ...) {
    segs <- sort(unique(rows$segment))
    if (length(segs) < 4) return(NA_real_)
    t <- function(s) at_curve(rows, "segment", s)
    first <- t(segs[1]) - t(segs[2])
    last <- t(segs[length(segs) - 1]) - t(segs[length(segs)])
    ratio <- first / pmax(last, 1e-6)
    na_if_empty(ratio, stats::median)
  },
  segment_order = function(rows, modes, ...) {
    order <- as.numeric(modes)
    if (nrow(rows) == 0) return(NA_real_)
    held <- rows |>
      dplyr::filter(segment %in% order) |>
      dplyr::group_by(unack, message_bytes) |>
      dplyr::filter(dplyr::n() == length(order)) |>
      dplyr::summarise(ok = identical(segment[order(elapsed_s)], order), .groups = "drop")
    if (nrow(held) == 0) NA_real_ else 100 * mean(held$ok)
  },
  max_reliable_unack = function(rows, modes, ...) {
    if (nrow(rows) == 0) return(NA_real_)
    reliable <- rows |>
      dplyr::group_by(unack) |>
      dplyr::summarise(ok = all(completed) && sum(retransmissions) == 0, .groups = "drop") |>
      dplyr::arrange(unack)
    bad <- which(!reliable$ok)
    if (length(bad) == 0) max(reliable$unack) else if (bad[1] == 1) 0 else reliable$unack[bad[1] - 1]
  },
  buffer_gain_pct = function(rows, modes, ...) gain_pct(rows, modes[1], modes[2]),
  spread_increase_points = function(rows, modes, ...) {
    spread <- function(r) {
      s <- r |>
        dplyr::group_by(message_bytes) |>
        dplyr::summarise(x = 100 * (max(throughput_mbit) / min(throughput_mbit) - 1), .groups = "drop")
      na_if_empty(s$x, stats::median)
    }
    spread(dplyr::filter(rows, message_bytes > 12e6)) - spread(dplyr::filter(rows, message_bytes < 12e6))
  },
  protocol_order = function(rows, modes, ...) {
    held <- rows |>
      dplyr::filter(curve %in% modes) |>
      dplyr::group_by(message_bytes) |>
      dplyr::filter(dplyr::n() == length(modes)) |>
      dplyr::summarise(ok = identical(curve[order(-throughput_mbit)], modes), .groups = "drop")
    if (nrow(held) == 0) NA_real_ else 100 * mean(held$ok)
  },
  max_throughput = function(rows, modes, ...) na_if_empty(rows$throughput_mbit, max),
  fall_ratio = function(rows, modes, ...) {
    at10 <- nearest_size(rows, 10e6)
    at20 <- nearest_size(rows, 20e6)
    both <- dplyr::inner_join(at10, at20, by = "curve", suffix = c("_10", "_20"))
    if (any(abs(both$message_bytes_20 - 20e6) > 2e6) || nrow(both) == 0) return(NA_real_)
    stats::median(both$throughput_mbit_10 / both$throughput_mbit_20)
  },
  paging_onset = function(rows, modes, ...) {
    paged <- dplyr::filter(rows, pageins + pageouts > 0)
    if (nrow(rows) == 0) return(NA_real_)
    if (nrow(paged) == 0) return(Inf)
    min(paged$million_bytes)
  },
  share_faster = function(rows, modes, ...) {
    ta <- stats::setNames(rows$throughput_mbit[rows$curve == modes[1]], rows$message_bytes[rows$curve == modes[1]])
    tb <- stats::setNames(rows$throughput_mbit[rows$curve == modes[2]], rows$message_bytes[rows$curve == modes[2]])
    both <- intersect(names(ta), names(tb))
    if (length(both) == 0) NA_real_ else 100 * mean(ta[both] > tb[both])
  },
  # Collisions per frame sent on the shared medium (%), pooled over each curve's runs; the
  # largest over the curves.
  max_collision_pct = function(rows, modes, ...) {
    per_curve <- rows |>
      dplyr::filter(!is.na(medium_frames)) |>
      dplyr::group_by(experiment, curve) |>
      dplyr::summarise(pct = 100 * sum(medium_collisions) / sum(medium_frames), .groups = "drop")
    na_if_empty(per_curve$pct[is.finite(per_curve$pct)], max)
  },
  # Throughput of mode a (rpc) over mode b (tcp), per size both measured; the median over
  # those sizes. Below 1: a is slower.
  throughput_ratio = function(rows, modes, ...) {
    per_size <- function(m) {
      hit <- rows[which(rows$mode == m), ]
      means <- tapply(hit$throughput_mbit, hit$message_bytes, mean)
      stats::setNames(as.numeric(means), names(means))
    }
    ta <- per_size(modes[1])
    tb <- per_size(modes[2])
    both <- intersect(names(ta), names(tb))
    na_if_empty(ta[both] / tb[both], stats::median)
  },
  max_cv_pct = function(rows, modes, ...) na_if_empty(rows$cv_pct[!is.na(rows$cv_pct)], max),
  not_measured = function(rows, modes, ...) NA_real_
)

# Collisions per frame sent on the shared medium, per curve, with the throughput beside it.
collision_rates <- function(sizes) {
  sizes |>
    dplyr::filter(!is.na(medium_frames)) |>
    dplyr::group_by(setup, experiment, curve) |>
    dplyr::summarise(
      frames = sum(medium_frames),
      collisions = sum(medium_collisions),
      collision_pct = signif(100 * collisions / frames, 3),
      mean_throughput_mbit = signif(mean(throughput_mbit), 3),
      .groups = "drop"
    )
}

# TRUE when x is a data frame with rows: a figure of experiments not run yet
# is left out rather than drawn empty.
has_rows <- function(x) {
  !is.null(x) && nrow(x) > 0
}

# Where paging began, per curve: the first size with any page-in or page-out
# on either host.
paging_starts <- function(sizes) {
  sizes |>
    dplyr::filter(experiment %in% c("compare-udp", "compare-tcp", "tcp-buffers")) |>
    dplyr::group_by(setup, experiment, curve) |>
    dplyr::summarise(
      first_paging_million_bytes = suppressWarnings(min(million_bytes[pageins + pageouts > 0])),
      # Curves in the order of their buffer or number of unacknowledged segments, not their names.
      curve_key = min(dplyr::coalesce(as.numeric(buffer), as.numeric(unack))),
      .groups = "drop"
    ) |>
    dplyr::arrange(setup, experiment, curve_key) |>
    dplyr::select(-curve_key)
}
