# Published claims (reports/reference/<paper>-claims.csv) and their verdicts,
# computed from the per-size summaries of summarise_sizes().

# Every column a claims file may have, with its type: the one place the columns are named. A
# paper's file holds those its claims need (echo claims modes and sizes, buffer-matrix claims
# buffer bounds); its header says which.
claim_column_types <- c(
  claim_id = "c", figure = "c", source = "c", claim = "c", published = "c",
  experiments = "c", metric = "c", modes = "c",
  size_min_bytes = "d", size_max_bytes = "d",
  send_min_bytes = "d", send_max_bytes = "d", recv_min_bytes = "d", recv_max_bytes = "d",
  check = "c", target = "d", tolerance = "d", partly_tolerance = "d", unit = "c",
  target_basis = "c", no_change = "d", scanned_assumption = "c", reference = "c"
)

# The columns every claims file has: what the claim says and how its verdict is reached.
claim_required_columns <- c(
  "claim_id", "figure", "source", "claim", "published", "experiments", "metric",
  "check", "target", "tolerance", "partly_tolerance", "unit", "target_basis"
)

# "inconclusive": the 95 % interval of the measured value straddles the bound of "reproduced",
# or a sign or order lies inside the measured scatter; "fitted": the data agree on a figure a
# host model's free parameters were fitted on (R/fitted.R); "follows from assumption" and
# "follows from the model": the data agree, but an assumption of the spec, or the model itself
# (nothing in it can make the claim fail), decides it; "not reproducible here": nothing here can
# measure it. None counts as reproduced.
verdict_levels <- c(
  "reproduced", "partly", "not reproduced", "inconclusive", "fitted", "follows from assumption",
  "follows from the model", "not reproducible here", "no data"
)

# The basis prefixes of a claims file (target_basis) that decide a verdict whatever the data
# say; each is also the verdict that agreeing data then read.
decided_bases <- c("follows from assumption", "follows from the model")

# Metrics that compare exactly two modes, a against b.
pair_metrics <- c(
  "rtt_rel_diff_median", "rtt_abs_rel_diff_median", "rtt_abs_rel_diff_max",
  "share_faster", "gap_trend", "dispersion_ratio", "loss_diff"
)

# Reads a claims file, typed by claim_column_types; metrics are the functions its metric column
# may name.
read_claims <- function(path, metrics = claim_metrics) {
  header <- names(readr::read_csv(path, n_max = 0, col_types = readr::cols(.default = "c")))
  unknown_column <- setdiff(header, names(claim_column_types))
  missing_column <- setdiff(claim_required_columns, header)
  problems <- c(
    if (length(unknown_column) > 0) paste("unknown column(s)", paste(unknown_column, collapse = ", ")),
    if (length(missing_column) > 0) paste("missing column(s)", paste(missing_column, collapse = ", "))
  )
  if (length(problems) > 0) {
    stop(
      path, ": ", paste(problems, collapse = "; "),
      " (the columns a claims file may have are claim_column_types in reports/R/claims.R)",
      call. = FALSE
    )
  }
  col_types <- do.call(readr::cols, as.list(claim_column_types[header]))
  # A field with an unquoted comma shifts the rest of its row: refuse it (below) rather than
  # warn and judge the claim on a shifted value.
  claims <- withCallingHandlers(
    readr::read_csv(path, col_types = col_types, progress = FALSE),
    vroom_parse_issue = function(w) invokeRestart("muffleWarning")
  )
  parsing <- readr::problems(claims)
  if (nrow(parsing) > 0) {
    stop(
      path, ": ", paste0("line ", parsing$row, ", column ", parsing$col, ": expected ",
        parsing$expected, ", found ", parsing$actual,
        collapse = "; "
      ),
      " (quote a field that holds a comma)",
      call. = FALSE
    )
  }
  unknown_metric <- setdiff(claims$metric, names(metrics))
  unknown_check <- setdiff(claims$check, c("at_most", "at_least", "about"))
  if (length(unknown_metric) > 0 || length(unknown_check) > 0) {
    stop(
      path, ": unknown metric(s) ", paste(unknown_metric, collapse = ", "),
      " or check(s) ", paste(unknown_check, collapse = ", "),
      call. = FALSE
    )
  }
  if (any(claims$partly_tolerance < claims$tolerance)) {
    stop(path, ": partly_tolerance must not be below tolerance", call. = FALSE)
  }
  claims
}

split_list <- function(x) {
  trimws(strsplit(x, ";", fixed = TRUE)[[1]])
}

# The per-size rows one claim looks at; an empty size bound means unbounded.
claim_rows <- function(sizes, experiments, size_min, size_max) {
  size_min <- dplyr::coalesce(size_min, -Inf)
  size_max <- dplyr::coalesce(size_max, Inf)
  dplyr::filter(
    sizes,
    experiment %in% experiments,
    message_bytes >= size_min,
    message_bytes <= size_max
  )
}

# Joins mode a and mode b message by message, keeping sizes where both have RTTs (one row
# per setup, experiment, mode and size). Base R, not a join: the bootstrap calls it hundreds
# of times per claim.
pair_modes <- function(sizes, mode_a, mode_b) {
  keys <- c("setup", "experiment", "message_bytes")
  side <- function(m) {
    sizes[which(sizes$mode == m & !is.na(sizes$rtt_median)), , drop = FALSE]
  }
  a <- side(mode_a)
  b <- side(mode_b)
  hit <- match(do.call(paste, unname(as.list(a[keys]))), do.call(paste, unname(as.list(b[keys]))))
  a <- a[!is.na(hit), , drop = FALSE]
  b <- b[hit[!is.na(hit)], , drop = FALSE]
  rest <- setdiff(names(sizes), keys)
  pairs <- as.data.frame(a[keys])
  pairs[paste0(rest, "_a")] <- as.data.frame(a[rest])
  pairs[paste0(rest, "_b")] <- as.data.frame(b[rest])
  pairs
}

# The sizes behind a claim that compares two modes' RTTs: per size where both came back whole,
# each mode's median RTT, how much slower (%) mode a is than mode b, and which was faster.
mode_gap_rows <- function(sizes, mode_a, mode_b) {
  pairs <- pair_modes(sizes, mode_a, mode_b)
  tibble::tibble(
    setup = pairs$setup, experiment = pairs$experiment, message_bytes = pairs$message_bytes,
    mode_a = rep(mode_a, nrow(pairs)), mode_b = rep(mode_b, nrow(pairs)),
    rtt_a = pairs$rtt_median_a, rtt_b = pairs$rtt_median_b, gap_pct = rel_diff_pct(pairs),
    faster = dplyr::case_when(
      pairs$rtt_median_a < pairs$rtt_median_b ~ mode_a,
      pairs$rtt_median_b < pairs$rtt_median_a ~ mode_b,
      TRUE ~ "neither"
    )
  ) |>
    dplyr::arrange(setup, experiment, message_bytes)
}

# The sizes of one mode at which no echo came back whole (so no RTT compares them), with the
# datagrams each echo sent and brought back on average.
never_whole_sizes <- function(sizes, mode) {
  rows <- rows_where(sizes, sizes$mode == mode & sizes$echoes > 0 & sizes$complete_echoes == 0)
  tibble::tibble(
    setup = rows$setup, experiment = rows$experiment, message_bytes = rows$message_bytes,
    sent_per_echo = rows$datagrams_sent / rows$echoes, back_per_echo = rows$datagrams_back / rows$echoes
  )
}

# Relative RTT difference of mode a over mode b in percent, per message.
rel_diff_pct <- function(pairs) {
  100 * (pairs$rtt_median_a / pairs$rtt_median_b - 1)
}

relative_iqr <- function(sizes) {
  (sizes$rtt_q75 - sizes$rtt_q25) / sizes$rtt_median
}

# The rows where keep is TRUE (NA counts as FALSE). Base R, not dplyr::filter(): the metrics the
# bootstrap recomputes call it hundreds of times per claim, where filter()'s overhead dominated
# a report's rendering.
rows_where <- function(data, keep) {
  data[which(keep), , drop = FALSE]
}

na_if_empty <- function(x, f) {
  x <- x[!is.na(x)]
  if (length(x) == 0) NA_real_ else f(x)
}

# Each metric takes the claim's per-size rows and its modes and returns one
# number, or NA when the data cannot answer.
claim_metrics <- list(
  # Worst per-size pooled datagram loss (%) over the listed modes; its interval runs from the
  # highest lower bound to the highest upper bound of the sizes' own intervals.
  max_loss = function(sizes, modes, ...) {
    rows <- dplyr::filter(sizes, mode %in% modes, !is.na(loss_pct))
    if (nrow(rows) == 0) {
      return(NA_real_)
    }
    ci <- loss_interval(rows$datagrams_sent, rows$datagrams_back)
    with_ci(max(rows$loss_pct), max(ci$low), max(ci$high))
  },
  # Datagram loss (%) pooled over every message of the listed modes: the paper's loss over a
  # range of sizes.
  pooled_loss = function(sizes, modes, ...) {
    rows <- rows_where(sizes, sizes$mode %in% modes)
    if (nrow(rows) == 0) {
      return(NA_real_)
    }
    ci <- loss_interval(sum(rows$datagrams_sent), sum(rows$datagrams_back))
    with_ci(pooled_loss_pct(rows$datagrams_sent, rows$datagrams_back), ci$low, ci$high)
  },
  # Median over sizes of how much slower (%) mode a is than mode b; negative
  # when a is faster.
  rtt_rel_diff_median = function(sizes, modes, ...) {
    na_if_empty(rel_diff_pct(pair_modes(sizes, modes[1], modes[2])), stats::median)
  },
  # Median over sizes of the absolute RTT difference (%) between a and b.
  rtt_abs_rel_diff_median = function(sizes, modes, ...) {
    diffs <- abs(rel_diff_pct(pair_modes(sizes, modes[1], modes[2])))
    na_if_empty(diffs, stats::median)
  },
  # Largest absolute RTT difference (%) between a and b over sizes.
  rtt_abs_rel_diff_max = function(sizes, modes, ...) {
    na_if_empty(abs(rel_diff_pct(pair_modes(sizes, modes[1], modes[2]))), max)
  },
  # Share of sizes (%) at which mode a has the shorter median RTT than mode b.
  share_faster = function(sizes, modes, ...) {
    pairs <- pair_modes(sizes, modes[1], modes[2])
    if (nrow(pairs) == 0) {
      return(NA_real_)
    }
    100 * mean(pairs$rtt_median_a < pairs$rtt_median_b)
  },
  # Spearman correlation between message size and the RTT gap (b minus a).
  gap_trend = function(sizes, modes, ...) {
    pairs <- pair_modes(sizes, modes[1], modes[2])
    if (nrow(pairs) < 3) {
      return(NA_real_)
    }
    gap <- pairs$rtt_median_b - pairs$rtt_median_a
    if (stats::sd(gap) == 0) {
      return(0)
    }
    stats::cor(pairs$message_bytes, gap, method = "spearman")
  },
  # R squared of a straight line through median RTT against size.
  rtt_linearity = function(sizes, modes, ...) {
    rows <- rows_where(sizes, sizes$mode == modes[1] & !is.na(sizes$rtt_median))
    if (nrow(rows) < 3 || stats::sd(rows$rtt_median) == 0) {
      return(NA_real_)
    }
    stats::cor(rows$message_bytes, rows$rtt_median)^2
  },
  # Median relative IQR of mode a's RTT divided by that of mode b, over the
  # sizes both have: below 1 means a is the more predictable.
  dispersion_ratio = function(sizes, modes, ...) {
    a <- rows_where(sizes, sizes$mode == modes[1] & !is.na(sizes$rtt_median))
    b <- rows_where(sizes, sizes$mode == modes[2] & !is.na(sizes$rtt_median))
    shared <- intersect(a$message_bytes, b$message_bytes)
    a <- na_if_empty(relative_iqr(a[a$message_bytes %in% shared, ]), stats::median)
    b <- na_if_empty(relative_iqr(b[b$message_bytes %in% shared, ]), stats::median)
    if (is.na(a) || is.na(b)) {
      return(NA_real_)
    }
    # Echoes that never vary (virtual time without jitter) give no ratio: which mode varies
    # less cannot be told. Any spread against none is the less predictable.
    if (b == 0) {
      if (a == 0) {
        return(undecided(NA_real_, "neither mode's RTT varies from echo to echo (both spreads 0)"))
      }
      return(Inf)
    }
    a / b
  },
  # Pooled loss of mode a minus pooled loss of mode b, in points: negative
  # when a loses less. Interval: Newcombe's hybrid method on both modes' exact intervals.
  loss_diff = function(sizes, modes, ...) {
    loss <- purrr::map(modes[1:2], function(m) claim_metrics$pooled_loss(sizes, m))
    if (any(is.na(unlist(loss)))) {
      return(NA_real_)
    }
    d <- as.numeric(loss[[1]]) - as.numeric(loss[[2]])
    ci <- purrr::map(loss, value_ci)
    p <- purrr::map_dbl(loss, as.numeric)
    with_ci(d,
      d - sqrt((p[1] - ci[[1]][1])^2 + (ci[[2]][2] - p[2])^2),
      d + sqrt((ci[[1]][2] - p[1])^2 + (p[2] - ci[[2]][1])^2)
    )
  },
  # Lowest of the listed modes' pooled losses: "both modes lose more than x".
  min_pooled_loss = function(sizes, modes, ...) {
    loss <- purrr::map(modes, function(m) claim_metrics$pooled_loss(sizes, m))
    if (any(is.na(unlist(loss)))) {
      return(NA_real_)
    }
    ci <- purrr::map(loss, value_ci)
    with_ci(
      min(purrr::map_dbl(loss, as.numeric)),
      min(purrr::map_dbl(ci, 1)), min(purrr::map_dbl(ci, 2))
    )
  },
  # Share (%) of the listed modes' echoes that came back whole, i.e. that
  # give an RTT sample.
  complete_share = function(sizes, modes, ...) {
    rows <- dplyr::filter(sizes, mode %in% modes)
    if (sum(rows$echoes) == 0) {
      return(NA_real_)
    }
    lost <- loss_interval(sum(rows$echoes), sum(rows$complete_echoes))
    with_ci(100 * sum(rows$complete_echoes) / sum(rows$echoes), 100 - lost$high, 100 - lost$low)
  },
  # Weakest (lowest) Spearman correlation between size and loss over the
  # listed modes: high when every mode's loss rises with size.
  loss_trend = function(sizes, modes, ...) {
    rho <- purrr::map_dbl(modes, function(m) {
      rows <- dplyr::filter(sizes, mode == m, !is.na(loss_pct))
      if (nrow(rows) < 3) {
        return(NA_real_)
      }
      if (stats::sd(rows$loss_pct) == 0) {
        return(0)
      }
      stats::cor(rows$message_bytes, rows$loss_pct, method = "spearman")
    })
    if (any(is.na(rho))) NA_real_ else min(rho)
  },
  # Share (%) of the recommendation table's size classes, for the networks
  # whose experiments are in these rows, where the recommendation derived
  # from the data (derive_recommendations()) is the published one.
  table2_agreement = function(sizes, modes, extra = list(), ...) {
    if (is.null(extra$table2) || nrow(sizes) == 0) {
      return(NA_real_)
    }
    derived <- derive_recommendations(sizes, extra$table2, extra$acceptable_loss_pct)
    derived <- dplyr::filter(derived, !is.na(derived))
    if (nrow(derived) == 0) {
      return(NA_real_)
    }
    100 * mean(derived$derived == derived$recommended)
  },
  # ttcp (Fig 15): Spearman correlation between busy-wait iterations and UDP
  # loss; negative when longer cooling loses less.
  ttcp_loss_trend = function(sizes, modes, extra = list(), ...) {
    with_transfers(ttcp_trend(extra$ttcp, "loss_pct"), ttcp_udp_levels(extra$ttcp)$transfers)
  },
  # ttcp (Fig 15): the same for UDP throughput.
  ttcp_throughput_trend = function(sizes, modes, extra = list(), ...) {
    with_transfers(ttcp_trend(extra$ttcp, "throughput_mbit"), ttcp_udp_levels(extra$ttcp)$transfers)
  },
  # ttcp (Fig 15): share (%) of UDP's lost datagrams that the link dropped
  # (reports/R/liu95cool.R); 0 when the receiving host lost them all.
  ttcp_link_loss_share = function(sizes, modes, extra = list(), ...) {
    transfers <- extra$ttcp_transfers
    udp <- if (is.null(transfers)) 0 else sum(transfers$proto == "udp")
    with_transfers(ttcp_link_loss_share(transfers), udp)
  },
  # ttcp (Fig 15): UDP throughput divided by TCP throughput at the shortest
  # cooling whose UDP loss is below the acceptable level; NA when no cooling
  # got there.
  ttcp_ratio_at_acceptable = function(sizes, modes, extra = list(), ...) {
    levels <- ttcp_udp_levels(extra$ttcp)
    tcp <- ttcp_tcp_throughput(extra$ttcp)
    if (nrow(levels) == 0 || is.na(tcp) || is.null(extra$acceptable_loss_pct)) {
      return(NA_real_)
    }
    first <- dplyr::filter(levels, loss_pct < extra$acceptable_loss_pct)
    if (nrow(first) == 0) {
      return(NA_real_)
    }
    tcp_transfers <- sum(extra$ttcp$transfers[extra$ttcp$proto == "tcp"])
    with_transfers(first$throughput_mbit[1] / tcp, first$transfers[1] + tcp_transfers)
  }
)

# A ttcp metric's value with the transfers it rests on (the scorecard's n), which the per-size
# rows of echo claims cannot count.
with_transfers <- function(value, transfers) {
  if (is.na(value)) {
    return(value)
  }
  structure(value, n = sum(transfers), n_of = "transfers")
}

# 95 % Clopper-Pearson (exact binomial) interval (%) of the share lost, per element: sent
# datagrams, back those that returned. Exact rather than Wilson so that a handful of echoes
# cannot decide a bound (1 lost of 2 spans 1.3 to 98.7 %). Datagrams of one echo count as
# independent trials.
loss_interval <- function(sent, back) {
  n <- pmax(sent, 1)
  lost <- pmin(pmax(n - back, 0), n)
  low <- ifelse(lost == 0, 0, stats::qbeta(0.025, lost, n - lost + 1))
  high <- ifelse(lost == n, 1, stats::qbeta(0.975, lost + 1, n - lost))
  list(low = 100 * low, high = 100 * high)
}

# Per-size rows of the classes of a recommendation table (network, size
# class, size range, experiments, recommended protocol) and the protocol the
# data recommend, by our reading of the paper's reasoning: both UDP and TCP
# when uncooled UDP loses no more than the acceptable level; cooled UDP when
# only cooling brings the loss there and cooled UDP is then faster than TCP
# (median over sizes); TCP otherwise. NA where UDP was not measured.
derive_recommendations <- function(sizes, table2, acceptable_loss_pct) {
  rows <- purrr::map(seq_len(nrow(table2)), function(i) {
    class <- table2[i, ]
    in_class <- claim_rows(
      sizes, split_list(class$experiments), class$size_min_bytes, class$size_max_bytes
    )
    purrr::map(unique(in_class$setup), function(s) {
      here <- dplyr::filter(in_class, setup == s)
      udp <- as.numeric(claim_metrics$pooled_loss(here, "udp"))
      cooled <- as.numeric(claim_metrics$pooled_loss(here, "udp-cooled"))
      cooled_vs_tcp <- claim_metrics$rtt_rel_diff_median(here, c("udp-cooled", "tcp"))
      derived <- dplyr::case_when(
        is.na(udp) ~ NA_character_,
        udp <= acceptable_loss_pct ~ "UDP/TCP",
        !is.na(cooled) & cooled <= acceptable_loss_pct &
          !is.na(cooled_vs_tcp) & cooled_vs_tcp < 0 ~ "cooled UDP",
        TRUE ~ "TCP"
      )
      dplyr::bind_cols(class, tibble::tibble(
        setup = s, udp_loss_pct = udp, cooled_loss_pct = cooled,
        cooled_vs_tcp_pct = cooled_vs_tcp, derived = derived
      ))
    })
  })
  out <- dplyr::bind_rows(purrr::list_flatten(rows))
  if (nrow(out) == 0) {
    return(dplyr::mutate(table2[0, ],
      setup = character(), udp_loss_pct = numeric(), cooled_loss_pct = numeric(),
      cooled_vs_tcp_pct = numeric(), derived = character()
    ))
  }
  out
}

# The side of its no-change value a claim puts the measurement on: -1 a fall, 1 a rise, 0 no
# direction. no_change (claims file) is 0 for a change or difference, 1 for a ratio, empty for a
# claim about a level; a bound on the far side of it ("at most 10 % slower") states no direction.
paper_direction <- function(check, target, no_change) {
  if (is.na(no_change)) {
    return(0)
  }
  switch(check,
    at_most = if (target <= no_change) -1 else 0,
    at_least = if (target >= no_change) 1 else 0,
    about = sign(target - no_change),
    0
  )
}

# Verdict of one measured value against one claim. Margin is in the claim's
# unit, positive when the measured value lies on the claim's side of the
# published value (for "about": measured minus published). "partly" needs the
# paper's direction: a change the paper has as a fall that measures as no
# change or a rise is not reproduced, however close to the bound.
judge_claim <- function(measured, check, target, tolerance, partly_tolerance,
                        no_change = NA_real_) {
  if (is.na(measured)) {
    return(list(verdict = "no data", margin = NA_real_))
  }
  distance <- switch(check,
    at_most = measured - target,
    at_least = target - measured,
    about = abs(measured - target),
    stop("unknown check: ", check, call. = FALSE)
  )
  direction <- paper_direction(check, target, no_change)
  wrong_way <- direction != 0 && sign(measured - no_change) != direction
  verdict <- if (distance <= tolerance) {
    "reproduced"
  } else if (distance <= partly_tolerance && !wrong_way) {
    "partly"
  } else {
    "not reproduced"
  }
  margin <- if (check == "about") measured - target else -distance
  # Adding zero turns a negative zero into zero, which prints without a sign.
  list(verdict = verdict, margin = margin + 0)
}

# A metric's value with the 95 % interval its samples give (see loss_interval(),
# bootstrap_interval()); a value without one has no "ci" attribute.
with_ci <- function(value, low, high) {
  structure(value, ci = c(low, high))
}

value_ci <- function(value) {
  ci <- attr(value, "ci")
  if (is.null(ci) || is.na(as.numeric(value))) c(NA_real_, NA_real_) else as.numeric(ci)
}

# TRUE when some of the interval would be judged reproduced and some not: its ends and the
# point nearest the target. A count of none (no datagram lost) against a claim of none (at most
# 0 %) is a count no sample size can improve on: the paper counted none, so did we; it is judged
# on the count. (A share of 100 % whose interval reaches lower is not such a count: some of
# what it counts was undecided.)
straddles_bound <- function(ci, judge, target, measured = NA_real_, bound = NA_real_) {
  if (anyNA(ci) || ci[1] == ci[2]) {
    return(FALSE)
  }
  if (!is.na(bound) && bound == 0 && measured == 0 && ci[1] == 0) {
    return(FALSE)
  }
  points <- c(ci, min(max(target, ci[1]), ci[2]))
  reproduced <- purrr::map_chr(points, function(x) judge(x)$verdict) == "reproduced"
  any(reproduced) && !all(reproduced)
}

# The one-sided bound of reproduced (NA for "about").
reproduced_bound <- function(claim) {
  switch(claim$check,
    at_most = claim$target + claim$tolerance,
    at_least = claim$target - claim$tolerance,
    NA_real_
  )
}

claim_no_change <- function(claim) {
  if ("no_change" %in% names(claim)) claim$no_change else NA_real_
}

# A metric's value that the data cannot decide, with the reason (e.g. a sign inside the measured
# scatter, or two spreads that are both zero): it reads "inconclusive" whatever its number.
undecided <- function(value, reason) {
  structure(value, undecided = reason)
}

# One claim judged on one metric value (with its "ci" attribute): judge_claim() with the
# claim's rule; "inconclusive" when the interval straddles the bound of reproduced or the value
# is undecided(); verdict (e.g. from never_whole()) overrides the rule; the claim's basis has
# the last word. note says why a verdict is not the rule's (the undecided reason).
judge_claim_row <- function(claim, value, verdict = NA_character_) {
  measured <- as.numeric(value)
  ci <- value_ci(value)
  judge <- function(x) {
    judge_claim(
      x, claim$check, claim$target, claim$tolerance, claim$partly_tolerance,
      claim_no_change(claim)
    )
  }
  judged <- judge(measured)
  reason <- attr(value, "undecided")
  if (!is.na(verdict)) {
    judged$verdict <- verdict
  } else if (!is.null(reason)) {
    judged$verdict <- "inconclusive"
  } else if (straddles_bound(ci, judge, claim$target, measured, reproduced_bound(claim))) {
    judged$verdict <- "inconclusive"
  }
  basis <- if ("target_basis" %in% names(claim)) claim$target_basis else NA_character_
  tibble::tibble(
    measured = measured,
    verdict = basis_verdict(basis, judged$verdict),
    margin = judged$margin,
    ci_low = ci[1],
    ci_high = ci[2],
    note = if (is.null(reason)) NA_character_ else reason
  )
}

# Bootstrap settings: resamples and seed, fixed so that a report renders the same intervals.
# 200 resamples, not thousands: every resample recomputes the claim's metric, and a report
# judges dozens of RTT claims. NETREPRO_BOOTSTRAP_REPS overrides it (the render tests, which
# check rendering, not intervals, use few); the report states the number it used.
bootstrap_reps <- as.integer(Sys.getenv("NETREPRO_BOOTSTRAP_REPS", "200"))
bootstrap_seed <- 1995

# Metrics read only the per-size RTT summaries, so resampling each size's echoes gives their
# bootstrap distribution.
bootstrap_metrics <- c(
  "rtt_rel_diff_median", "rtt_abs_rel_diff_median", "rtt_abs_rel_diff_max", "share_faster",
  "gap_trend", "rtt_linearity", "dispersion_ratio", "rtt_mean", "experiment_rtt_ratio_max",
  "experiment_rtt_ratio_median", "rtt_ratio_first_last", "rtt_trend"
)

# reps resamples of x with replacement, one per column (indices, since sample() of a single
# number n would draw from 1:n).
resample_matrix <- function(x, reps) {
  matrix(x[sample.int(length(x), length(x) * reps, replace = TRUE)], nrow = length(x))
}

# Cell metrics of mean throughput (R/comer94.R), whose interval is a bootstrap over each
# cell's transfers.
cell_bootstrap_metrics <- c(
  "row_change", "diagonal_change", "lockstep_deviation", "normal_rel_error",
  "normal_change_vs_baseline"
)

# Type-7 quantile p of every column of a matrix whose columns are sorted.
column_quantile <- function(sorted, p) {
  h <- (nrow(sorted) - 1) * p + 1
  lo <- floor(h)
  sorted[lo, ] + (h - lo) * (sorted[ceiling(h), ] - sorted[lo, ])
}

# reps copies of the per-size rows, each with every size's RTT summary (median, quartiles,
# mean) recomputed from its echoes (one RTT per row of `echoes`) drawn with replacement.
resampled_rtt_rows <- function(rows, echoes, reps = bootstrap_reps, seed = bootstrap_seed) {
  keys <- c("setup", "experiment", "mode", "message_bytes")
  echoes <- echoes[!is.na(echoes$rtt_ms), ]
  samples <- split(echoes$rtt_ms, do.call(paste, c(echoes[keys], sep = "\r")))
  key <- do.call(paste, c(rows[keys], sep = "\r"))
  set.seed(seed)
  columns <- intersect(c("rtt_median", "rtt_q25", "rtt_q75", "rtt_mean"), names(rows))
  # One matrix per column: a row per size, a column per resample; sizes without echoes keep
  # their value.
  drawn <- purrr::map(stats::setNames(columns, columns), function(column) {
    matrix(rows[[column]], nrow = nrow(rows), ncol = reps)
  })
  for (i in seq_along(key)) {
    x <- samples[[key[i]]]
    if (length(x) == 0) {
      next
    }
    drawn_x <- resample_matrix(x, reps)
    # Every column sorted by one order() over (column, value), not one sort() per column.
    sorted <- matrix(drawn_x[order(col(drawn_x), drawn_x)], nrow = length(x))
    quartiles <- list(
      rtt_median = column_quantile(sorted, 0.5), rtt_q25 = column_quantile(sorted, 0.25),
      rtt_q75 = column_quantile(sorted, 0.75), rtt_mean = colMeans(sorted)
    )
    for (column in columns) {
      drawn[[column]][i, ] <- quartiles[[column]]
    }
  }
  rows <- as.data.frame(rows)
  purrr::map(seq_len(reps), function(b) {
    for (column in columns) {
      rows[[column]] <- drawn[[column]][, b]
    }
    rows
  })
}

# Percentile 95 % interval of a metric over resampled rows; NA when under 95 % of the
# resamples give a value.
bootstrap_interval <- function(metric, replicates, ...) {
  values <- purrr::map_dbl(replicates, function(rows) as.numeric(metric(rows, ...)))
  if (mean(!is.na(values)) < 0.95) {
    return(c(NA_real_, NA_real_))
  }
  unname(stats::quantile(values, c(0.025, 0.975), na.rm = TRUE))
}

# How many measurements of what a verdict rests on, from the metric's "n" and "n_of"
# attributes, else the fallback.
value_n <- function(value, n, n_of) {
  if (is.na(as.numeric(value))) {
    return(tibble::tibble(n = NA_real_, n_of = NA_character_))
  }
  tibble::tibble(
    n = as.numeric(if (is.null(attr(value, "n"))) n else attr(value, "n")),
    n_of = if (is.null(attr(value, "n_of"))) n_of else attr(value, "n_of")
  )
}

# Tables beside the per-size summaries that some metrics read (ttcp
# summaries, reference tables): those with an experiment column are cut to
# the claim's experiments; others pass whole.
cut_extra <- function(extra, experiments) {
  purrr::map(extra, function(table) {
    if (is.data.frame(table) && "experiment" %in% names(table)) {
      table <- rows_where(table, table$experiment %in% experiments)
    }
    table
  })
}

# Metrics are called with the claim's rows and modes, the extra tables cut to
# its experiments, and its experiments in the claims file's order.
evaluate_claim <- function(claim, sizes, extra = list(), metrics = claim_metrics) {
  experiments <- split_list(claim$experiments)
  rows <- claim_rows(sizes, experiments, claim$size_min_bytes, claim$size_max_bytes)
  value <- metrics[[claim$metric]](
    rows, split_list(claim$modes),
    extra = cut_extra(extra, experiments), experiments = experiments
  )
  modes <- split_list(claim$modes)
  echoes <- extra$echoes
  if (claim$metric %in% bootstrap_metrics && !is.na(as.numeric(value)) && !is.null(echoes)) {
    echoes <- dplyr::filter(echoes, experiment %in% experiments)
    ci <- bootstrap_interval(
      metrics[[claim$metric]], resampled_rtt_rows(rows, echoes), modes,
      extra = cut_extra(extra, experiments), experiments = experiments
    )
    value <- with_ci(as.numeric(value), ci[1], ci[2])
  }
  # A value the data cannot decide (undecided()) is not a missing one.
  missing_rtt <- is.null(attr(value, "undecided")) && never_whole(claim$metric, rows, modes, value)
  override <- if (missing_rtt) "not reproduced" else NA_character_
  # n counts the sizes of the claim's modes; a paper whose modes column names something else
  # (milliner's segments and curves) counts all the claim's rows.
  in_modes <- if ("mode" %in% names(rows)) rows[rows$mode %in% modes, ] else rows[0, ]
  if (nrow(in_modes) == 0) {
    in_modes <- rows
  }
  # An RTT comparison of two modes rests only on the sizes where both brought a message back
  # whole, however many sizes were sent.
  sizes_n <- if (claim$metric %in% paired_rtt_metrics) {
    dplyr::n_distinct(pair_modes(rows, modes[1], modes[2])$message_bytes)
  } else {
    dplyr::n_distinct(in_modes$message_bytes)
  }
  judged <- judge_claim_row(claim, value, override)
  if (missing_rtt) {
    judged$note <- paste(
      "at no size did every mode the claim names bring a message back whole:",
      "there is no round trip to compare"
    )
  }
  dplyr::bind_cols(
    judged,
    value_n(value, sizes_n, "sizes"),
    echoes = if ("echoes" %in% names(in_modes)) sum(in_modes$echoes) else NA_real_
  )
}

# A claims file marks a claim whose target an assumption decides by starting its target_basis
# with "follows from assumption", and one the model cannot make fail with "follows from the
# model" (agreement then proves nothing; disagreement still counts); one nothing here can
# measure with "not reproducible here".
basis_verdict <- function(target_basis, verdict) {
  basis <- dplyr::coalesce(target_basis, "")
  if (startsWith(basis, "not reproducible here")) {
    return("not reproducible here")
  }
  decided <- decided_bases[startsWith(basis, decided_bases)]
  if (length(decided) == 1 && verdict %in% c("reproduced", "partly")) {
    return(decided)
  }
  verdict
}

# A basis may hold for one stack's setups only, naming it after its prefix: "follows from
# assumption (stack linux): ..." decides the verdicts of the setups on the Linux stack, and the
# claim's other setups are judged on their data (the basis NA for them). An unscoped basis
# holds for every setup.
basis_for_setup <- function(target_basis, setup) {
  basis <- dplyr::coalesce(target_basis, "")
  scope <- regmatches(basis, regexec("^(follows from assumption|follows from the model) \\(stack ([a-z0-9-]+)\\)", basis))[[1]]
  if (length(scope) == 0) {
    return(target_basis)
  }
  stacks <- trimws(strsplit(dplyr::coalesce(setup, ""), "/", fixed = TRUE)[[1]])
  if (scope[3] %in% stacks) target_basis else NA_character_
}

# Metrics that need RTTs, which only whole echoes give.
rtt_metrics <- c(
  "rtt_rel_diff_median", "rtt_abs_rel_diff_median", "rtt_abs_rel_diff_max", "share_faster",
  "gap_trend", "rtt_linearity", "dispersion_ratio"
)

# The metrics that compare two modes' RTTs size by size (pair_modes()).
paired_rtt_metrics <- intersect(pair_metrics, rtt_metrics)

# TRUE when an RTT metric found no value because a mode the claim names was measured in its
# range but, at some size, no echo came back whole: the RTT the claim speaks of does not
# exist, so the claim is not reproduced rather than unmeasured.
never_whole <- function(metric, rows, modes, measured) {
  if (!is.na(measured) || !metric %in% rtt_metrics || nrow(rows) == 0) {
    return(FALSE)
  }
  here <- dplyr::filter(rows, mode %in% modes)
  all(modes %in% here$mode) && sum(here$echoes) > 0 && any(here$complete_echoes == 0)
}

# The setups that measured any of the experiments, in any of the tables.
claim_setups <- function(tables, experiments) {
  setups <- purrr::map(tables, function(table) {
    if (!is.data.frame(table) || !all(c("setup", "experiment") %in% names(table))) {
      return(character())
    }
    unique(table$setup[table$experiment %in% experiments])
  })
  sort(unique(unlist(setups)))
}

# One row per claim and setup that measured its experiments (one "no data"
# row when none did), with measured value, verdict and margin. Setups are
# never pooled. fits (read_host_fits()) name the claims a setup's host models were fitted on:
# those read "fitted" (R/fitted.R); paper is the claims' paper, which a fit may name.
evaluate_claims <- function(claims, sizes, extra = list(), metrics = claim_metrics,
                            fits = no_fits(), paper = NA_character_) {
  purrr::map(seq_len(nrow(claims)), function(i) {
    claim <- claims[i, ]
    experiments <- split_list(claim$experiments)
    tables <- c(list(sizes), extra)
    setups <- claim_setups(tables, experiments)
    hosts <- setup_hosts(tables, experiments)
    if (length(setups) == 0) {
      setups <- NA_character_
    }
    purrr::map(setups, function(s) {
      here <- dplyr::filter(sizes, setup %in% s)
      if (is.na(s)) {
        here <- sizes[0, ]
      }
      runs <- hosts$host[hosts$setup %in% s]
      scoped <- claim
      if ("target_basis" %in% names(claim)) {
        scoped$target_basis <- basis_for_setup(claim$target_basis, s)
      }
      judged <- evaluate_claim(scoped, here, extra_for_setup(extra, s), metrics) |>
        mark_claim_fits(claim, runs, fits, paper)
      dplyr::bind_cols(claim, setup = s, hosts = hosts_text(runs), judged)
    }) |>
      dplyr::bind_rows()
  }) |>
    dplyr::bind_rows() |>
    dplyr::mutate(verdict = factor(verdict, levels = verdict_levels))
}

# The host models a setup ran, "a, b"; NA for none (a setup without host models).
hosts_text <- function(hosts) {
  if (length(hosts) == 0) NA_character_ else paste(sort(unique(hosts)), collapse = ", ")
}

extra_for_setup <- function(extra, setup) {
  purrr::map(extra, function(table) {
    if (is.data.frame(table) && "setup" %in% names(table)) {
      rows_where(table, table$setup %in% setup)
    } else {
      table
    }
  })
}

# Differences of percentages are percentage points.
difference_unit <- function(unit) {
  dplyr::if_else(startsWith(unit, "%"), " points", "")
}

# Plain-language comparison for the scorecard, e.g. "1.3 points under the
# bound 4.5 %".
describe_margin <- function(measured, margin, check, target, unit) {
  unit <- dplyr::coalesce(as.character(unit), "")
  side <- dplyr::case_when(
    is.na(measured) ~ NA_character_,
    check != "about" & margin == 0 ~ "exactly at",
    check == "at_most" & margin > 0 ~ "under",
    check == "at_most" ~ "over",
    check == "at_least" & margin > 0 ~ "above",
    check == "at_least" ~ "short of",
    margin == 0 ~ "exactly at",
    margin > 0 ~ "above",
    TRUE ~ "below"
  )
  reference <- "the target"
  amount <- dplyr::if_else(
    side == "exactly at", "", paste0(fmt_num(abs(margin)), difference_unit(unit), " ")
  )
  dplyr::if_else(
    is.na(measured),
    "not measured",
    paste0(amount, side, " ", reference, " ", fmt_num(target), " ", unit)
  )
}

# The verdict rule of a claim in words, e.g. "<= 4.5 % (partly <= 9 %)".
rule_text <- function(check, target, tolerance, partly_tolerance, unit) {
  unit <- dplyr::coalesce(as.character(unit), "")
  dplyr::case_when(
    check == "at_most" ~ paste0(
      "\u2264 ", fmt_num(target + tolerance), " ", unit,
      " (partly \u2264 ", fmt_num(target + partly_tolerance), ")"
    ),
    check == "at_least" ~ paste0(
      "\u2265 ", fmt_num(target - tolerance), " ", unit,
      " (partly \u2265 ", fmt_num(target - partly_tolerance), ")"
    ),
    TRUE ~ paste0(
      fmt_num(target), " \u00b1 ", fmt_num(tolerance), " ", unit,
      " (partly \u00b1 ", fmt_num(partly_tolerance), ")"
    )
  )
}

# The scorecard CSV: one row per claim, per setup where a claim was
# measured in several (claim_id@setup).
scorecard_table <- function(evaluated) {
  evaluated |>
    dplyr::add_count(claim_id, name = "setups") |>
    dplyr::transmute(
      claim_id = dplyr::if_else(
        setups > 1, paste0(claim_id, "@", gsub(" ", "", setup)), claim_id
      ),
      figure,
      claim,
      published,
      measured = signif(measured, 4),
      verdict = as.character(verdict),
      margin = signif(margin, 4),
      unit,
      n = claim_column(evaluated, "n"),
      n_of = claim_column(evaluated, "n_of"),
      echoes = claim_column(evaluated, "echoes"),
      ci_low = signif(claim_column(evaluated, "ci_low"), 4),
      ci_high = signif(claim_column(evaluated, "ci_high"), 4),
      # An assumption the spec chose by scanning against the paper (comer94's write size).
      scanned_assumption = claim_column(evaluated, "scanned_assumption"),
      setup,
      hosts = claim_column(evaluated, "hosts"),
      era_host = era_host_setup(setup),
      fitted = claim_column(evaluated, "fitted") %in% TRUE,
      note = claim_column(evaluated, "note")
    )
}

# TRUE for a setup on the era's hosts: the Tahoe stack, with a 1990s host model (setup labels
# name the stack as one of their parts, e.g. "ethernet-10/tahoe/sim/sparcstation-ipc",
# "tahoe / sim / sparcstation-ipc", "tahoe sim").
era_host_setup <- function(setup) {
  grepl("(^|[ /])tahoe([ /]|$)", dplyr::coalesce(setup, ""))
}

# Writes the scorecard CSV; an empty evaluation still gives the header.
write_scorecard <- function(evaluated, out_dir, paper) {
  dir.create(out_dir, recursive = TRUE, showWarnings = FALSE)
  path <- file.path(out_dir, paste0(paper, "-scorecard.csv"))
  readr::write_csv(scorecard_table(evaluated), path, na = "")
  invisible(path)
}

# How a metric's 95 % interval is made; metrics not named here have none (see each report's
# "How the verdicts are computed" for why). A function, as the metrics of R/ishikura.R and
# R/milliner.R are named there.
interval_methods <- function() {
  c(
    max_loss = "exact binomial per size",
    pooled_loss = "exact binomial",
    min_pooled_loss = "exact binomial",
    complete_share = "exact binomial",
    loss_diff = "Newcombe, from exact binomial",
    stats::setNames(rep("bootstrap over echoes", length(bootstrap_metrics)), bootstrap_metrics),
    stats::setNames(
      rep("bootstrap over transfers", length(cell_bootstrap_metrics)), cell_bootstrap_metrics
    ),
    stats::setNames(
      rep("bootstrap over transfers", length(mftp_bootstrap_metrics)), mftp_bootstrap_metrics
    ),
    stats::setNames(rep("range of the runs", length(run_range_metrics)), run_range_metrics)
  )
}

# Columns for a report's table of verdict rules: the rule with check, target, tolerance and
# partly tolerance spelt out, the n of every setup's verdict (setups joined by "; "), and the
# interval method.
verdict_rule_columns <- function(claims, evaluated) {
  unit <- dplyr::coalesce(as.character(claims$unit), "")
  no_change <- if ("no_change" %in% names(claims)) claims$no_change else NA_real_
  direction <- purrr::pmap_dbl(
    list(claims$check, claims$target, no_change), paper_direction
  )
  rests_on <- tibble::tibble(
    claim_id = evaluated$claim_id, n = n_text(evaluated),
    has_ci = !is.na(claim_column(evaluated, "ci_low"))
  ) |>
    dplyr::group_by(claim_id) |>
    dplyr::summarise(n = paste(unique(n), collapse = "; "), has_ci = any(has_ci), .groups = "drop")
  has_ci <- rests_on$has_ci[match(claims$claim_id, rests_on$claim_id)] %in% TRUE
  tibble::tibble(
    Rule = paste0(
      "<code>", claims$check, "</code> ", fmt_num(claims$target), ", tolerance ",
      fmt_num(claims$tolerance), ", partly tolerance ", fmt_num(claims$partly_tolerance), ": ",
      escape_html(rule_text(
        claims$check, claims$target, claims$tolerance, claims$partly_tolerance, unit
      )),
      dplyr::case_when(
        direction < 0 ~ paste0("; partly only below ", fmt_num(no_change)),
        direction > 0 ~ paste0("; partly only above ", fmt_num(no_change)),
        TRUE ~ ""
      )
    ),
    n = dplyr::coalesce(rests_on$n[match(claims$claim_id, rests_on$claim_id)], "–"),
    `95 % interval` = dplyr::if_else(
      has_ci, dplyr::coalesce(unname(interval_methods()[claims$metric]), "none"), "none"
    )
  )
}

# The paragraph every report's "How the verdicts are computed" gives on direction, n,
# intervals and assumptions; extra is a paper's own HTML sentence.
verdict_method_html <- function(extra = "") {
  paste0(
    "<p><b>Direction, n and intervals.</b> A claim about a change names its no-change value ",
    "(<code>no_change</code> in the claims file: 0 for a change or difference, 1 for a ratio); ",
    "<i>partly</i> then needs the measured value on the paper's side of it, so a rise where the ",
    "paper has a fall is <i>not reproduced</i>, however close to the bound. Column n gives what ",
    "each setup's verdict rests on: the message sizes of the claim's modes and their echoes, ",
    "buffer cells, or transfers. Loss metrics carry a 95 % exact binomial (Clopper-Pearson) ",
    "interval over datagrams (for the worst size, from the highest lower to the highest upper ",
    "bound of the sizes' intervals; Newcombe's method for a difference of two losses); a claim ",
    "whose interval holds values on both sides of the bound of <i>reproduced</i> reads ",
    "<i>inconclusive</i> and counts neither way. Virtual-time runs without random loss give a ",
    "zero-width interval, which is what they measured. RTT metrics of echo experiments carry a ",
    "percentile bootstrap interval: every size's echoes drawn again with replacement, ",
    bootstrap_reps, " times from seed ", bootstrap_seed, ", and the metric recomputed. ",
    "Throughput metrics of buffer cells (changes along a row or the diagonal, deviation from ",
    "the lockstep rate, error against the paper, change against the baseline) carry the same ",
    "bootstrap over each cell's transfers, the cells' classification kept as measured. ",
    "ishikura's signs and changes between sweep points (growth with N, the drop from linear ",
    "under loss, Table 2's changes and wins) carry a bootstrap over each point's transfers, and ",
    "milliner's orders and ratios an interval from the range of each size's runs. ",
    "Other metrics have no interval, and their verdicts rest on the point value, with n the ",
    "only guide to how much data they saw: ishikura's and milliner's levels (a throughput, a ",
    "time, a fitted constant), shares of cells, of size classes and of Table 2's classes, and ",
    "loss trends (they classify summaries that no resample here reaches), the RTT steps of the ",
    "saw-tooth, and the ttcp cooling metrics. ",
    "So signs and orders are judged only outside the measured scatter: a difference whose ",
    "interval holds the bound, or two spreads that are both zero, reads <i>inconclusive</i>. ",
    "A claim whose ",
    "reason starts \u201cfollows from assumption X\u201d is decided by that assumption, one whose ",
    "reason starts \u201cfollows from the model\u201d by the model itself (nothing in it can make ",
    "the claim fail); a reason that names a stack after these words (\u201c(stack linux)\u201d) ",
    "decides the setups on that stack only. One on a figure a host model was fitted on reads ",
    "<i>fitted</i> (see the ",
    "host models' section); none is ever counted as reproduced.", extra, "</p>"
  )
}
