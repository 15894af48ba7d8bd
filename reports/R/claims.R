# Published claims (reports/reference/<paper>-claims.csv) and their verdicts,
# computed from the per-size summaries of summarise_sizes().

claim_columns <- readr::cols(
  claim_id = readr::col_character(),
  figure = readr::col_character(),
  source = readr::col_character(),
  claim = readr::col_character(),
  published = readr::col_character(),
  experiments = readr::col_character(),
  metric = readr::col_character(),
  modes = readr::col_character(),
  size_min_bytes = readr::col_double(),
  size_max_bytes = readr::col_double(),
  check = readr::col_character(),
  target = readr::col_double(),
  tolerance = readr::col_double(),
  partly_tolerance = readr::col_double(),
  unit = readr::col_character(),
  target_basis = readr::col_character()
)

# "follows from assumption": the data agree, but a parameter fitted to the same figure decides
# it; "not reproducible here": nothing here can measure it. Neither counts as reproduced.
verdict_levels <- c(
  "reproduced", "partly", "not reproduced", "follows from assumption", "not reproducible here",
  "no data"
)

# Metrics that compare exactly two modes, a against b.
pair_metrics <- c(
  "rtt_rel_diff_median", "rtt_abs_rel_diff_median", "rtt_abs_rel_diff_max",
  "share_faster", "gap_trend", "dispersion_ratio", "loss_diff"
)

# Reads a claims file; metrics are the functions its metric column may name.
read_claims <- function(path, metrics = claim_metrics, col_types = claim_columns) {
  claims <- readr::read_csv(path, col_types = col_types, progress = FALSE)
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

# Joins mode a and mode b message by message, keeping sizes where both have RTTs.
pair_modes <- function(sizes, mode_a, mode_b) {
  keys <- c("setup", "experiment", "message_bytes")
  a <- dplyr::filter(sizes, mode == mode_a, !is.na(rtt_median))
  b <- dplyr::filter(sizes, mode == mode_b, !is.na(rtt_median))
  dplyr::inner_join(a, b, by = keys, suffix = c("_a", "_b"))
}

# Relative RTT difference of mode a over mode b in percent, per message.
rel_diff_pct <- function(pairs) {
  100 * (pairs$rtt_median_a / pairs$rtt_median_b - 1)
}

relative_iqr <- function(sizes) {
  (sizes$rtt_q75 - sizes$rtt_q25) / sizes$rtt_median
}

na_if_empty <- function(x, f) {
  x <- x[!is.na(x)]
  if (length(x) == 0) NA_real_ else f(x)
}

# Each metric takes the claim's per-size rows and its modes and returns one
# number, or NA when the data cannot answer.
claim_metrics <- list(
  # Worst per-size pooled datagram loss (%) over the listed modes.
  max_loss = function(sizes, modes, ...) {
    rows <- dplyr::filter(sizes, mode %in% modes)
    na_if_empty(rows$loss_pct, max)
  },
  # Datagram loss (%) pooled over every message of the first mode.
  pooled_loss = function(sizes, modes, ...) {
    rows <- dplyr::filter(sizes, mode == modes[1])
    if (nrow(rows) == 0) {
      return(NA_real_)
    }
    pooled_loss_pct(rows$datagrams_sent, rows$datagrams_back)
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
    rows <- dplyr::filter(sizes, mode == modes[1], !is.na(rtt_median))
    if (nrow(rows) < 3 || stats::sd(rows$rtt_median) == 0) {
      return(NA_real_)
    }
    stats::cor(rows$message_bytes, rows$rtt_median)^2
  },
  # Median relative IQR of mode a's RTT divided by that of mode b, over the
  # sizes both have: below 1 means a is the more predictable.
  dispersion_ratio = function(sizes, modes, ...) {
    a <- dplyr::filter(sizes, mode == modes[1], !is.na(rtt_median))
    b <- dplyr::filter(sizes, mode == modes[2], !is.na(rtt_median))
    shared <- intersect(a$message_bytes, b$message_bytes)
    a <- na_if_empty(relative_iqr(a[a$message_bytes %in% shared, ]), stats::median)
    b <- na_if_empty(relative_iqr(b[b$message_bytes %in% shared, ]), stats::median)
    if (is.na(a) || is.na(b)) {
      return(NA_real_)
    }
    # Echoes that never vary (virtual time) are equally predictable; any spread is less so.
    if (b == 0) {
      return(if (a == 0) 1 else Inf)
    }
    a / b
  },
  # Pooled loss of mode a minus pooled loss of mode b, in points: negative
  # when a loses less.
  loss_diff = function(sizes, modes, ...) {
    loss <- purrr::map_dbl(modes[1:2], function(m) claim_metrics$pooled_loss(sizes, m))
    loss[1] - loss[2]
  },
  # Lowest of the listed modes' pooled losses: "both modes lose more than x".
  min_pooled_loss = function(sizes, modes, ...) {
    loss <- purrr::map_dbl(modes, function(m) claim_metrics$pooled_loss(sizes, m))
    if (any(is.na(loss))) NA_real_ else min(loss)
  },
  # Share (%) of the listed modes' echoes that came back whole, i.e. that
  # give an RTT sample.
  complete_share = function(sizes, modes, ...) {
    rows <- dplyr::filter(sizes, mode %in% modes)
    if (sum(rows$echoes) == 0) {
      return(NA_real_)
    }
    100 * sum(rows$complete_echoes) / sum(rows$echoes)
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
    ttcp_trend(extra$ttcp, "loss_pct")
  },
  # ttcp (Fig 15): the same for UDP throughput.
  ttcp_throughput_trend = function(sizes, modes, extra = list(), ...) {
    ttcp_trend(extra$ttcp, "throughput_mbit")
  },
  # ttcp (Fig 15): share (%) of UDP's lost datagrams that the link dropped
  # (reports/R/liu95cool.R); 0 when the receiving host lost them all.
  ttcp_link_loss_share = function(sizes, modes, extra = list(), ...) {
    ttcp_link_loss_share(extra$ttcp_transfers)
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
    first$throughput_mbit[1] / tcp
  }
)

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
      udp <- claim_metrics$pooled_loss(here, "udp")
      cooled <- claim_metrics$pooled_loss(here, "udp-cooled")
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

# Verdict of one measured value against one claim. Margin is in the claim's
# unit, positive when the measured value lies on the claim's side of the
# published value (for "about": measured minus published).
judge_claim <- function(measured, check, target, tolerance, partly_tolerance) {
  if (is.na(measured)) {
    return(list(verdict = "no data", margin = NA_real_))
  }
  distance <- switch(check,
    at_most = measured - target,
    at_least = target - measured,
    about = abs(measured - target),
    stop("unknown check: ", check, call. = FALSE)
  )
  verdict <- if (distance <= tolerance) {
    "reproduced"
  } else if (distance <= partly_tolerance) {
    "partly"
  } else {
    "not reproduced"
  }
  margin <- if (check == "about") measured - target else -distance
  # Adding zero turns a negative zero into zero, which prints without a sign.
  list(verdict = verdict, margin = margin + 0)
}

# Tables beside the per-size summaries that some metrics read (ttcp
# summaries, reference tables): those with an experiment column are cut to
# the claim's experiments; others pass whole.
cut_extra <- function(extra, experiments) {
  purrr::map(extra, function(table) {
    if (is.data.frame(table) && "experiment" %in% names(table)) {
      table <- dplyr::filter(table, experiment %in% experiments)
    }
    table
  })
}

# Metrics are called with the claim's rows and modes, the extra tables cut to
# its experiments, and its experiments in the claims file's order.
evaluate_claim <- function(claim, sizes, extra = list(), metrics = claim_metrics) {
  experiments <- split_list(claim$experiments)
  rows <- claim_rows(sizes, experiments, claim$size_min_bytes, claim$size_max_bytes)
  measured <- metrics[[claim$metric]](
    rows, split_list(claim$modes),
    extra = cut_extra(extra, experiments), experiments = experiments
  )
  judged <- judge_claim(
    measured, claim$check, claim$target, claim$tolerance, claim$partly_tolerance
  )
  if (never_whole(claim$metric, rows, split_list(claim$modes), measured)) {
    judged$verdict <- "not reproduced"
  }
  judged$verdict <- basis_verdict(claim$target_basis, judged$verdict)
  tibble::tibble(
    measured = measured,
    verdict = judged$verdict,
    margin = judged$margin,
    sizes_used = dplyr::n_distinct(rows$message_bytes)
  )
}

# A claims file marks a claim whose target an assumption decides by starting its target_basis
# with "follows from assumption" (agreement then proves nothing; disagreement still counts),
# and one nothing here can measure with "not reproducible here".
basis_verdict <- function(target_basis, verdict) {
  basis <- dplyr::coalesce(target_basis, "")
  if (startsWith(basis, "not reproducible here")) {
    return("not reproducible here")
  }
  if (startsWith(basis, "follows from assumption") && verdict %in% c("reproduced", "partly")) {
    return("follows from assumption")
  }
  verdict
}

# Metrics that need RTTs, which only whole echoes give.
rtt_metrics <- c(
  "rtt_rel_diff_median", "rtt_abs_rel_diff_median", "rtt_abs_rel_diff_max", "share_faster",
  "gap_trend", "rtt_linearity", "dispersion_ratio"
)

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
# never pooled.
evaluate_claims <- function(claims, sizes, extra = list(), metrics = claim_metrics) {
  purrr::map(seq_len(nrow(claims)), function(i) {
    claim <- claims[i, ]
    setups <- claim_setups(c(list(sizes), extra), split_list(claim$experiments))
    if (length(setups) == 0) {
      setups <- NA_character_
    }
    purrr::map(setups, function(s) {
      here <- dplyr::filter(sizes, setup %in% s)
      if (is.na(s)) {
        here <- sizes[0, ]
      }
      dplyr::bind_cols(
        claim, setup = s, evaluate_claim(claim, here, extra_for_setup(extra, s), metrics)
      )
    }) |>
      dplyr::bind_rows()
  }) |>
    dplyr::bind_rows() |>
    dplyr::mutate(verdict = factor(verdict, levels = verdict_levels))
}

extra_for_setup <- function(extra, setup) {
  purrr::map(extra, function(table) {
    if (is.data.frame(table) && "setup" %in% names(table)) {
      dplyr::filter(table, setup %in% !!setup)
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
      unit
    )
}

# Writes the scorecard CSV; an empty evaluation still gives the header.
write_scorecard <- function(evaluated, out_dir, paper) {
  dir.create(out_dir, recursive = TRUE, showWarnings = FALSE)
  path <- file.path(out_dir, paste0(paper, "-scorecard.csv"))
  readr::write_csv(scorecard_table(evaluated), path, na = "")
  invisible(path)
}
