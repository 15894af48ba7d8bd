# milliner: ipcbench's message rows, their per-size summaries and the
# metrics of reports/reference/milliner-claims.csv.

milliner_experiments <- c(
  "udp-segments-1024", "udp-segments-1460", "udp-unack", "udp-unack-limit",
  "tcp-buffers-small", "tcp-buffers", "compare-udp", "compare-tcp",
  "compare-rpc", "compare-tcp-linux", "collisions-tcp", "collisions-udp"
)

# Columns older results or other backends lack: runs on a duplex link count no collisions,
# results from before the per-host counts have only both hosts' together, and a run without host
# models names none.
medium_absent <- list(
  medium_frames = NA_real_, medium_collisions = NA_real_,
  medium_a_frames = NA_real_, medium_a_collisions = NA_real_,
  medium_b_frames = NA_real_, medium_b_collisions = NA_real_,
  host = NA_character_, host_b = NA_character_
)

# The shared medium's counts a run carries, both hosts together and each host's.
medium_count_columns <- c(
  "medium_frames", "medium_collisions", "medium_a_frames", "medium_a_collisions",
  "medium_b_frames", "medium_b_collisions"
)

# Where a run lost packets, in the order they meet them: the sender's interface, the link,
# the receiver's IP input queue, its reassembly, its socket buffer. Results from before the
# per-place counts lack some (NA: not counted).
drop_place_columns <- c(
  "sender_drops", "link_drops", "receiver_ipq_drops", "receiver_frag_drops", "receiver_fullsock"
)
drops_absent <- stats::setNames(as.list(rep(NA_real_, length(drop_place_columns))), drop_place_columns)

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
    add_missing_columns(medium_absent) |>
    dplyr::mutate(setup = paste(stack, backend), million_bytes = message_bytes / 1e6)
}

# One row per setup, experiment, curve and size (and the host models at both ends): mean time
# and throughput, their coefficient of variation and the range of the runs, completion, loss
# and paging.
summarise_ipc <- function(messages) {
  messages |>
    add_missing_columns(c(medium_absent, drops_absent)) |>
    dplyr::group_by(
      setup, host, host_b, experiment, mode, curve, segment, unack, buffer, message_bytes,
      million_bytes
    ) |>
    dplyr::summarise(
      n = dplyr::n(),
      completed = all(completed),
      # Before the means, which replace the columns they summarise.
      cv_pct = if (n > 1) 100 * stats::sd(throughput_mbit) / mean(throughput_mbit) else NA_real_,
      elapsed_min = min(elapsed_s), elapsed_max = max(elapsed_s),
      throughput_min = min(throughput_mbit), throughput_max = max(throughput_mbit),
      elapsed_s = mean(elapsed_s),
      throughput_mbit = mean(throughput_mbit),
      # A transfer that never completed reports no count: unknown, not zero.
      retransmissions = if (all(is.na(retransmissions))) NA_real_ else sum(retransmissions, na.rm = TRUE),
      pageins = max(a_pageins + b_pageins, 0, na.rm = TRUE),
      pageouts = max(a_pageouts + b_pageouts, 0, na.rm = TRUE),
      # Every message of one run (a trial's repeat) carries that run's counts: each run's once.
      dplyr::across(
        dplyr::all_of(c(medium_count_columns, drop_place_columns)),
        function(x) sum(x[!duplicated(data.frame(trial, `repeat`))])
      ),
      .groups = "drop"
    )
}

# summarise_ipc()'s table without rows, for judging when no message was read: every column
# a metric may read is there.
empty_ipc_sizes <- function() {
  tibble::tibble(
    setup = character(), host = character(), host_b = character(), experiment = character(),
    mode = character(), curve = character(),
    segment = double(), unack = double(), buffer = double(), message_bytes = double(),
    million_bytes = double(), n = integer(), completed = logical(), cv_pct = double(),
    elapsed_min = double(), elapsed_max = double(), throughput_min = double(),
    throughput_max = double(),
    elapsed_s = double(), throughput_mbit = double(), retransmissions = double(),
    pageins = double(), pageouts = double(), medium_frames = double(), medium_collisions = double(),
    medium_a_frames = double(), medium_a_collisions = double(), medium_b_frames = double(),
    medium_b_collisions = double(), sender_drops = double(), link_drops = double(),
    receiver_ipq_drops = double(), receiver_frag_drops = double(), receiver_fullsock = double()
  )
}

# milliner's claims judged on the messages' per-size summaries; the sensitivity section calls it
# again with a variant's messages in place of its base's. fits: the host models' fitted figures
# (read_host_fits()).
judge_milliner <- function(tables, claims, fits = no_fits()) {
  sizes <- if (is.null(tables$messages)) empty_ipc_sizes() else summarise_ipc(tables$messages)
  evaluate_claims(claims, sizes, metrics = milliner_metrics, fits = fits, paper = "milliner")
}

# Sec 5.1's table: per setup and k, whether the message got through, with its retransmissions,
# throughput and where its packets were lost; the setup column only when there are several.
unack_limit_table <- function(sizes) {
  limit <- dplyr::filter(sizes, experiment == "udp-unack-limit") |>
    add_missing_columns(drops_absent) |>
    dplyr::arrange(setup, unack) |>
    dplyr::transmute(
      Setup = setup,
      `Unacknowledged segments (k)` = unack,
      `Message delivered` = dplyr::if_else(completed, "yes", "no"),
      Retransmissions = retransmissions,
      `Throughput (Mb/s)` = signif(throughput_mbit, 3),
      `Sender drops` = sender_drops,
      `Link drops` = link_drops,
      `IP queue drops` = receiver_ipq_drops,
      `Fragments not reassembled` = receiver_frag_drops,
      `Socket drops` = receiver_fullsock
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

# The metrics whose interval spans the runs: an order or a ratio that the runs' ranges do not
# settle is inside the run-to-run scatter.
run_range_metrics <- c(
  "largest_segment_fastest", "first_segment_excess_pct", "protocol_order",
  "share_more_throughput", "throughput_ratio"
)

# Whether a is better than b (lower time, or higher throughput with higher = TRUE), by their
# means and by their runs: decided when the runs of one never reach the other's (the ranges do
# not overlap), so a difference inside the run-to-run scatter decides nothing.
better <- function(a_mean, a_min, a_max, b_mean, b_min, b_max, higher = FALSE) {
  if (higher) {
    list(holds = a_mean > b_mean, surely = a_min > b_max, surely_not = a_max < b_min)
  } else {
    list(holds = a_mean < b_mean, surely = a_max < b_min, surely_not = a_min > b_max)
  }
}

# The share (%) of points where a comparison holds by the means, with an interval over the
# points the runs cannot decide: from counting them all as failing to counting them all as
# holding. n: the points.
decided_share <- function(holds, surely, surely_not) {
  if (length(holds) == 0) {
    return(NA_real_)
  }
  structure(
    with_ci(100 * mean(holds), 100 * mean(surely), 100 * mean(!surely_not)),
    n = length(holds), n_of = "sizes"
  )
}

# Per point (a row per curve), whether the curve whose key is `first` beats every other row.
first_beats_rest <- function(point, key, first, column = "elapsed", higher = FALSE) {
  a <- point[point[[key]] == first, ]
  b <- point[point[[key]] != first, ]
  if (nrow(a) != 1 || nrow(b) == 0) {
    return(NULL)
  }
  mean_col <- if (column == "elapsed") "elapsed_s" else "throughput_mbit"
  cmp <- better(
    a[[mean_col]], a[[paste0(column, "_min")]], a[[paste0(column, "_max")]],
    b[[mean_col]], b[[paste0(column, "_min")]], b[[paste0(column, "_max")]], higher
  )
  list(holds = all(cmp$holds), surely = all(cmp$surely), surely_not = any(cmp$surely_not))
}

# decided_share() of a per-point comparison (compare: a point's rows to first_beats_rest()-like
# list) over the points of rows split by `by`.
share_over_points <- function(rows, by, compare) {
  points <- purrr::compact(purrr::map(split(rows, rows[by], drop = TRUE), compare))
  decided_share(
    purrr::map_lgl(points, "holds"), purrr::map_lgl(points, "surely"),
    purrr::map_lgl(points, "surely_not")
  )
}

milliner_metrics <- list(
  # Share (%) of sizes at which the largest segment has the shortest mean time, decided only
  # outside the runs' scatter (decided_share()).
  largest_segment_fastest = function(rows, modes, ...) {
    if (nrow(rows) == 0) return(NA_real_)
    share_over_points(rows, "message_bytes", function(point) {
      first_beats_rest(point, "segment", max(point$segment))
    })
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
  # How much longer (%) the first listed segment takes than the fastest of the listed ones, the
  # median over the points (unack count and size); its interval from the runs' ranges (the
  # first at its fastest run against the others at their slowest, and the reverse).
  first_segment_excess_pct = function(rows, modes, ...) {
    listed <- as.numeric(modes)
    rows <- rows_where(rows, rows$segment %in% listed)
    by_point <- split(rows, rows[c("unack", "message_bytes")], drop = TRUE)
    points <- purrr::compact(purrr::map(by_point, function(point) {
      first <- point[point$segment == listed[1], ]
      others <- point[point$segment != listed[1], ]
      if (nrow(first) != 1 || nrow(others) != length(listed) - 1) {
        return(NULL)
      }
      excess <- function(a, b) 100 * max(0, a / min(b) - 1)
      c(
        value = excess(first$elapsed_s, others$elapsed_s),
        low = excess(first$elapsed_min, others$elapsed_max),
        high = excess(first$elapsed_max, others$elapsed_min)
      )
    }))
    if (length(points) == 0) return(NA_real_)
    points <- do.call(rbind, points)
    structure(
      with_ci(
        stats::median(points[, "value"]), stats::median(points[, "low"]),
        stats::median(points[, "high"])
      ),
      n = nrow(points), n_of = "points"
    )
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
  # Share (%) of sizes at which the listed curves run in the listed order, fastest first; a
  # pair inside the runs' scatter decides nothing (decided_share()).
  protocol_order = function(rows, modes, ...) {
    rows <- rows_where(rows, rows$curve %in% modes)
    share_over_points(rows, "message_bytes", function(point) {
      if (nrow(point) != length(modes)) {
        return(NULL)
      }
      point <- point[match(modes, point$curve), ]
      a <- point[-nrow(point), ]
      b <- point[-1, ]
      cmp <- better(
        a$throughput_mbit, a$throughput_min, a$throughput_max,
        b$throughput_mbit, b$throughput_min, b$throughput_max, higher = TRUE
      )
      list(holds = all(cmp$holds), surely = all(cmp$surely), surely_not = any(cmp$surely_not))
    })
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
  # Share (%) of sizes at which curve a has more throughput than curve b, decided only outside
  # the runs' scatter (decided_share()).
  share_more_throughput = function(rows, modes, ...) {
    rows <- rows_where(rows, rows$curve %in% modes[1:2])
    share_over_points(rows, "message_bytes", function(point) {
      first_beats_rest(point, "curve", modes[1], "throughput", higher = TRUE)
    })
  },
  # Collisions per frame a host sent on the shared medium (%), as each host's netstat -i
  # counts them, pooled over each curve's runs; the largest over the curves and both hosts.
  # Results that counted only both hosts together bound it: a curve's pooled share is a mean
  # of its hosts' shares weighted by their frames, so the larger host's share lies between
  # the pooled share and 100 %, given as the value's interval.
  max_host_collision_pct = function(rows, modes, ...) {
    per_curve <- collision_rates(rows)
    pct <- c(per_curve$a_collision_pct, per_curve$b_collision_pct)
    if (any(is.finite(pct))) {
      return(max(pct[is.finite(pct)]))
    }
    pooled <- na_if_empty(per_curve$collision_pct[is.finite(per_curve$collision_pct)], max)
    if (is.na(pooled)) pooled else with_ci(pooled, pooled, 100)
  },
  # Throughput of mode a (rpc) over mode b (tcp), per size both measured; the median over
  # those sizes. Below 1: a is slower. Its interval spans the runs: at each size from a's
  # slowest run over b's fastest to the reverse, the median over sizes of each end.
  throughput_ratio = function(rows, modes, ...) {
    per_size <- function(m) {
      hit <- rows[which(rows$mode == m), ]
      tibble::tibble(
        message_bytes = as.numeric(names(tapply(hit$throughput_mbit, hit$message_bytes, mean))),
        mean = as.numeric(tapply(hit$throughput_mbit, hit$message_bytes, mean)),
        low = as.numeric(tapply(hit$throughput_min, hit$message_bytes, min)),
        high = as.numeric(tapply(hit$throughput_max, hit$message_bytes, max))
      )
    }
    both <- dplyr::inner_join(
      per_size(modes[1]), per_size(modes[2]), by = "message_bytes", suffix = c("_a", "_b")
    )
    if (nrow(both) == 0) return(NA_real_)
    with_ci(
      stats::median(both$mean_a / both$mean_b),
      stats::median(both$low_a / both$high_b), stats::median(both$high_a / both$low_b)
    )
  },
  # The typical spread of repeated runs: the median over points with at least two runs of the
  # coefficient of variation (%) of their throughput. n: the points.
  median_cv_pct = function(rows, modes, ...) {
    cv <- rows$cv_pct[!is.na(rows$cv_pct)]
    if (length(cv) == 0) return(NA_real_)
    structure(stats::median(cv), n = length(cv), n_of = "points")
  },
  not_measured = function(rows, modes, ...) NA_real_
)

# Collisions per frame sent on the shared medium, per curve: both hosts together and each host
# (a sends the messages, b answers), with the throughput beside them. A host's share is NA when
# the runs did not count per host.
collision_rates <- function(sizes) {
  add_missing_columns(sizes, medium_absent) |>
    dplyr::filter(!is.na(medium_frames) | !is.na(medium_a_frames)) |>
    dplyr::group_by(setup, experiment, curve) |>
    dplyr::summarise(
      frames = sum(medium_frames),
      collisions = sum(medium_collisions),
      collision_pct = 100 * collisions / frames,
      a_frames = sum(medium_a_frames),
      a_collisions = sum(medium_a_collisions),
      a_collision_pct = 100 * a_collisions / a_frames,
      b_frames = sum(medium_b_frames),
      b_collisions = sum(medium_b_collisions),
      b_collision_pct = 100 * b_collisions / b_frames,
      mean_throughput_mbit = mean(throughput_mbit),
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
