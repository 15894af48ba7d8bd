# liu95db, ATM half (Sec 3.2): echoed messages at sizes the delayed ACK makes
# abnormal (Figs 12, 15, 16) and ttcp's buffer matrix with TCP_NODELAY
# (Table 3, read with the buffer-matrix helpers of R/comer94.R).

# In the echo experiments the link is what the paper compares (ATM against
# Ethernet), like the mode; a setup is the stack, backend and host model.
echo_setup <- function(stack, backend, host) {
  base <- paste(stack, backend, sep = " / ")
  dplyr::if_else(is.na(host) | host == "", base, paste(base, host, sep = " / "))
}

# The echo experiments: read_results() with numeric socket buffers and the
# echo setup.
read_echo_results <- function(results_dir, paper, experiments) {
  results <- read_results(results_dir, paper, experiments)
  results$data <- results$data |>
    dplyr::mutate(
      dplyr::across(dplyr::any_of(c("send_buffer", "recv_buffer")), as.numeric),
      setup = echo_setup(stack, backend, host)
    )
  results
}

# Network of a link by its name, as the formula table names it
# (link_prefix: "atm-taxi-100" is ATM).
link_network <- function(link, formula) {
  purrr::map_chr(link, function(l) {
    hit <- formula$network[startsWith(l, formula$link_prefix)]
    if (length(hit) == 0) NA_character_ else hit[1]
  })
}

read_formula <- function(path) {
  readr::read_csv(path,
    col_types = readr::cols(
      offset_octets = "d", period_octets = "d", normal_octets = "d",
      first_normal_period = "i", lead_abnormal_octets = "d", .default = "c"
    ),
    progress = FALSE
  )
}

# The class the paper's formula predicts for a message size on a network:
# sizes up to the offset are normal; beyond it, period n (from 0) starts with
# a stretch of normal_octets + 1 sizes, normal from period first_normal_period
# on, and the rest of each period is abnormal. The first lead_abnormal_octets
# sizes past the offset are abnormal whatever their period (liu95db's Ethernet
# text: 4K+1 to 4K+M-1). A size that none of these names is NA, as is a
# network without a formula.
formula_class <- function(bytes, network, formula) {
  row <- match(network, formula$network)
  past <- bytes - formula$offset_octets[row]
  phase <- past %% formula$period_octets[row]
  period <- past %/% formula$period_octets[row]
  dplyr::case_when(
    is.na(row) ~ NA_character_,
    past <= 0 ~ "normal",
    past <= formula$lead_abnormal_octets[row] ~ "abnormal",
    phase > formula$normal_octets[row] ~ "abnormal",
    period >= formula$first_normal_period[row] ~ "normal",
    TRUE ~ NA_character_
  )
}

# The formula's abnormal ranges on a network that overlap sizes lo to hi,
# for shading a figure: one row per range (from, to in octets).
formula_abnormal_ranges <- function(network, formula, lo, hi) {
  row <- formula[formula$network == network, ]
  if (nrow(row) == 0) {
    return(tibble::tibble(network = character(), from = numeric(), to = numeric()))
  }
  periods <- seq(0, max(0, ceiling((hi - row$offset_octets) / row$period_octets)))
  starts <- row$offset_octets + periods * row$period_octets + row$normal_octets + 1
  ranges <- tibble::tibble(
    network = network, from = starts, to = starts + row$period_octets - row$normal_octets - 2
  )
  if (row$lead_abnormal_octets > 0) {
    lead_from <- row$offset_octets + 1
    ranges <- dplyr::bind_rows(
      tibble::tibble(
        network = network, from = lead_from, to = lead_from + row$lead_abnormal_octets - 1
      ),
      ranges
    )
  }
  ranges |>
    dplyr::filter(from <= hi, to >= lo)
}

# Sizes as the paper writes them: 12K, 12K-1, 4K+1; octets otherwise.
size_label <- function(bytes) {
  k <- 1024
  dplyr::case_when(
    bytes %% k == 0 ~ paste0(bytes %/% k, "K"),
    (bytes + 1) %% k == 0 ~ paste0((bytes + 1) %/% k, "K-1"),
    (bytes - 1) %% k == 0 & bytes > k ~ paste0((bytes - 1) %/% k, "K+1"),
    TRUE ~ paste(bytes, "octets")
  )
}

# The classification of message sizes from the data. A size is abnormal when
# its median RTT is at least `factor` times the lowest median RTT among the
# sizes within `neighbourhood` octets of it (itself included): a message a
# few octets longer than a normal one cannot legitimately take several times
# as long. A size without a neighbour in reach is not classified (NA).
classify_sizes <- function(sizes, factor, neighbourhood) {
  sizes |>
    dplyr::filter(!is.na(rtt_median)) |>
    dplyr::group_by(setup, link, experiment, mode) |>
    dplyr::mutate(
      neighbours = purrr::map_int(message_bytes, function(b) {
        sum(abs(message_bytes - b) <= neighbourhood) - 1L
      }),
      lowest_near_ms = purrr::map_dbl(message_bytes, function(b) {
        min(rtt_median[abs(message_bytes - b) <= neighbourhood])
      }),
      ratio_to_near = rtt_median / lowest_near_ms,
      abnormal = dplyr::if_else(neighbours > 0, ratio_to_near >= factor, NA)
    ) |>
    dplyr::ungroup()
}

# Classified sizes beside the formula's prediction for their link.
predict_sizes <- function(classified, formula) {
  dplyr::mutate(classified,
    network = link_network(link, formula),
    predicted = formula_class(message_bytes, network, formula),
    measured = dplyr::if_else(abnormal, "abnormal", "normal"),
    agree = measured == predicted
  )
}

# How many sizes each factor would call abnormal, per setup and experiment:
# shows how sharply the data split.
size_class_sensitivity <- function(sizes, factors, neighbourhood) {
  purrr::map(factors, function(f) {
    classify_sizes(sizes, f, neighbourhood) |>
      dplyr::group_by(setup, experiment, mode) |>
      dplyr::summarise(factor = f, abnormal_sizes = sum(abnormal, na.rm = TRUE), .groups = "drop")
  }) |>
    dplyr::bind_rows()
}

# The change of RTT from each echo to the next one of the same trial, size
# and mode (the saw-tooth of Fig 12); echoes without an RTT break the chain.
echo_steps <- function(data) {
  data |>
    dplyr::filter(!is.na(rtt_ms)) |>
    dplyr::group_by(setup, experiment, link, mode, message_bytes, trial) |>
    dplyr::arrange(echo, .by_group = TRUE) |>
    dplyr::mutate(step_ms = rtt_ms - dplyr::lag(rtt_ms), gap = echo - dplyr::lag(echo)) |>
    dplyr::ungroup() |>
    dplyr::filter(gap == 1) |>
    dplyr::select(setup, experiment, link, mode, message_bytes, trial, echo, step_ms)
}

# How far the mean RTT of a size may lie from the typical one and still count as the same
# (Fig 14's "almost constant"): a quarter.
near_constant_band <- 0.25

# The sizes (per-size rows of one mode) the formula calls abnormal, each with its mean RTT beside
# the median of those means in its setup and whether it lies within `band` of it (Fig 14's
# small files).
abnormal_constancy_rows <- function(sizes, formula, band = near_constant_band) {
  rows <- rows_where(sizes, !is.na(sizes$rtt_mean))
  network <- link_network(rows$link, formula)
  rows <- rows[formula_class(rows$message_bytes, network, formula) %in% "abnormal", , drop = FALSE]
  typical <- stats::ave(rows$rtt_mean, rows$setup, FUN = stats::median)
  tibble::tibble(
    setup = rows$setup, message_bytes = rows$message_bytes, rtt_mean = rows$rtt_mean,
    typical_ms = typical, off_pct = 100 * (rows$rtt_mean / typical - 1),
    near = abs(rows$rtt_mean / typical - 1) <= band
  )
}

# Per run (experiment, size and trial) of one mode's echoes, the spread of its round trips from
# the 10th to the 90th percentile (ms): how far the RTT swings from message to message within one
# run of 50 (Fig 13). Runs of fewer than 5 round trips are left out.
rtt_swings <- function(echoes, mode) {
  rows <- rows_where(echoes, echoes$mode == mode & !is.na(echoes$rtt_ms))
  key <- paste(rows$setup, rows$experiment, rows$message_bytes, rows$trial, sep = "\r")
  runs <- split(rows$rtt_ms, key)
  runs <- runs[lengths(runs) >= 5]
  keys <- do.call(rbind, strsplit(names(runs), "\r", fixed = TRUE))
  if (length(runs) == 0) {
    return(tibble::tibble(
      setup = character(), experiment = character(), message_bytes = numeric(),
      trial = character(), echoes = integer(), swing_ms = numeric()
    ))
  }
  tibble::tibble(
    setup = keys[, 1], experiment = keys[, 2], message_bytes = as.numeric(keys[, 3]),
    trial = keys[, 4], echoes = lengths(runs),
    swing_ms = unname(vapply(runs, function(x) {
      diff(stats::quantile(x, c(0.1, 0.9), names = FALSE))
    }, numeric(1)))
  )
}

# Per size of one mode: datagrams returned and those of them that came back after one of a
# higher index (pingx's count; NA for runs before it was recorded), as a share (%).
misorder_rows <- function(sizes, mode) {
  rows <- rows_where(sizes, sizes$mode == mode & sizes$datagrams_back > 0)
  tibble::tibble(
    setup = rows$setup, experiment = rows$experiment, message_bytes = rows$message_bytes,
    returned = rows$datagrams_back, misordered = rows$datagrams_misordered,
    misordered_pct = 100 * rows$datagrams_misordered / rows$datagrams_back
  )
}

# Spearman correlation of size with x; 0 when x never changes (nothing rises), NA under 3 sizes.
size_trend <- function(bytes, x) {
  if (length(x) < 3) {
    return(NA_real_)
  }
  if (stats::sd(x) == 0) {
    return(0)
  }
  stats::cor(bytes, x, method = "spearman")
}

# Median RTT of one mode in experiment a over experiment b at each size both
# measured.
experiment_ratios <- function(sizes, mode, experiments) {
  side <- function(e) {
    rows_where(sizes, sizes$experiment == e & sizes$mode == mode & !is.na(sizes$rtt_median))
  }
  a <- side(experiments[1])
  b <- side(experiments[2])
  hit <- match(a$message_bytes, b$message_bytes)
  a$rtt_median[!is.na(hit)] / b$rtt_median[hit[!is.na(hit)]]
}

# Metrics of the echo claims; each takes the claim's per-size rows, modes,
# extra tables and experiments (see evaluate_claim()).
liu95db_echo_metrics <- c(claim_metrics, list(
  # Mean RTT (ms) over every echo of the first mode that came back.
  rtt_mean = function(sizes, modes, ...) {
    rows <- rows_where(sizes, sizes$mode == modes[1] & sizes$rtt_n > 0)
    if (nrow(rows) == 0) NA_real_ else sum(rows$rtt_mean * rows$rtt_n) / sum(rows$rtt_n)
  },
  # Median RTT in the first experiment over that in the second, for the first
  # mode; the largest ratio over the sizes both measured.
  experiment_rtt_ratio_max = function(sizes, modes, experiments = character(), ...) {
    if (length(experiments) < 2) {
      return(NA_real_)
    }
    na_if_empty(experiment_ratios(sizes, modes[1], experiments), max)
  },
  # Median RTT of the smallest size in the range over that of the largest.
  rtt_ratio_first_last = function(sizes, modes, ...) {
    rows <- rows_where(sizes, sizes$mode == modes[1] & !is.na(sizes$rtt_median))
    rows <- rows[order(rows$message_bytes), , drop = FALSE]
    if (nrow(rows) < 2) NA_real_ else rows$rtt_median[1] / rows$rtt_median[nrow(rows)]
  },
  # Median change of RTT (ms) from one echo to the next (echo_steps(), in
  # extra$steps) over the first mode's sizes in the range.
  sawtooth_step = function(sizes, modes, extra = list(), ...) {
    if (is.null(extra$steps)) {
      return(NA_real_)
    }
    steps <- dplyr::filter(extra$steps, mode == modes[1], message_bytes %in% sizes$message_bytes)
    if (nrow(steps) < 3) NA_real_ else stats::median(steps$step_ms)
  },
  # Share (%) of the classified sizes of the first mode whose class from the
  # data (classify_sizes() with extra$abnormal_factor and
  # extra$neighbourhood_octets) is the formula's (extra$formula).
  size_class_agreement = function(sizes, modes, extra = list(), ...) {
    rows <- dplyr::filter(sizes, mode == modes[1])
    if (nrow(rows) == 0 || is.null(extra$formula)) {
      return(NA_real_)
    }
    classified <- classify_sizes(rows, extra$abnormal_factor, extra$neighbourhood_octets) |>
      predict_sizes(extra$formula) |>
      dplyr::filter(!is.na(agree))
    if (nrow(classified) == 0) NA_real_ else 100 * mean(classified$agree)
  },
  # Median RTT in the first experiment over that in the second, for the first
  # mode; the median ratio over the sizes both measured.
  experiment_rtt_ratio_median = function(sizes, modes, experiments = character(), ...) {
    if (length(experiments) < 2) {
      return(NA_real_)
    }
    na_if_empty(experiment_ratios(sizes, modes[1], experiments), stats::median)
  },
  # Median over the first mode's runs of how far their round trips swing (rtt_swings(), ms),
  # from the echoes (extra$echoes) at the sizes in the range.
  rtt_swing_ms = function(sizes, modes, extra = list(), ...) {
    echoes <- extra$echoes
    if (is.null(echoes)) {
      return(NA_real_)
    }
    echoes <- rows_where(echoes, echoes$message_bytes %in% sizes$message_bytes)
    swings <- rtt_swings(echoes, modes[1])
    if (nrow(swings) == 0) NA_real_ else stats::median(swings$swing_ms)
  },
  # Share (%) of the sizes the formula (extra$formula) calls abnormal whose mean RTT, for the
  # first mode, lies within near_constant_band of the median of those sizes' means.
  abnormal_rtt_constancy = function(sizes, modes, extra = list(), ...) {
    if (is.null(extra$formula)) {
      return(NA_real_)
    }
    rows <- abnormal_constancy_rows(rows_where(sizes, sizes$mode == modes[1]), extra$formula)
    if (nrow(rows) < 2) NA_real_ else 100 * mean(rows$near)
  },
  # Spearman correlation of size with the mean RTT of the first mode (Fig 14 plots averages).
  rtt_trend = function(sizes, modes, ...) {
    rows <- rows_where(sizes, sizes$mode == modes[1] & !is.na(sizes$rtt_mean))
    size_trend(rows$message_bytes, rows$rtt_mean)
  },
  # Spearman correlation of size with the share of the first mode's returned datagrams that
  # came back out of order (misorder_rows()); NA without pingx's count.
  misorder_trend = function(sizes, modes, ...) {
    if (!"datagrams_misordered" %in% names(sizes)) {
      return(NA_real_)
    }
    rows <- misorder_rows(sizes, modes[1])
    rows <- rows[!is.na(rows$misordered_pct), ]
    size_trend(rows$message_bytes, rows$misordered_pct)
  },
  # Pooled datagram loss of the first mode in the first experiment over that
  # in the second, over the sizes both measured.
  experiment_loss_ratio = function(sizes, modes, experiments = character(), ...) {
    if (length(experiments) < 2) {
      return(NA_real_)
    }
    loss_ratio_between(sizes, modes[1], experiments)
  },
  # Share (%) of the reference's Table 1 sizes (extra$table1) that the first
  # mode measured.
  table1_size_agreement = function(sizes, modes, extra = list(), ...) {
    measured <- unique(dplyr::filter(sizes, mode == modes[1])$message_bytes)
    if (is.null(extra$table1) || length(measured) == 0) {
      return(NA_real_)
    }
    100 * mean(extra$table1$size_bytes %in% measured)
  },
  # Share (%) of the sizes the formula (extra$formula) calls abnormal whose
  # median RTT, for the first mode, exceeds that of the next larger size it
  # calls normal; sizes with no larger normal one are left out.
  abnormal_slower_share = function(sizes, modes, extra = list(), ...) {
    if (is.null(extra$formula)) {
      return(NA_real_)
    }
    pairs <- abnormal_beside_normal(dplyr::filter(sizes, mode == modes[1]), extra$formula)
    if (nrow(pairs) == 0) NA_real_ else 100 * mean(pairs$rtt_abnormal > pairs$rtt_normal)
  }
))

# Pooled datagram loss of one mode in experiment a over that in experiment b,
# over the sizes both measured: 1 when neither lost anything.
loss_ratio_between <- function(sizes, mode, experiments) {
  rows <- dplyr::filter(sizes, mode == !!mode, experiment %in% experiments[1:2])
  shared <- Reduce(intersect, split(rows$message_bytes, rows$experiment))
  loss <- purrr::map_dbl(experiments[1:2], function(e) {
    here <- dplyr::filter(rows, experiment == e, message_bytes %in% shared)
    pooled_loss_pct(here$datagrams_sent, here$datagrams_back)
  })
  if (length(shared) == 0 || anyNA(loss)) {
    return(NA_real_)
  }
  if (loss[2] == 0) {
    return(if (loss[1] == 0) 1 else Inf)
  }
  loss[1] / loss[2]
}

# Each size the formula calls abnormal beside the median RTT a size it calls normal would take
# at the same size (rtt_normal), per setup: interpolated in size between the nearest normal
# sizes below and above it (below_bytes, above_bytes), or, with none below, the next normal size
# above's, which bounds it from above as RTT grows with size. A size with no normal size above
# it is left out. rtt_abnormal is its own median RTT.
abnormal_beside_normal <- function(sizes, formula) {
  sizes |>
    dplyr::filter(!is.na(rtt_median)) |>
    dplyr::group_by(setup) |>
    dplyr::group_modify(function(rows, key) beside_normal_rows(rows, formula)) |>
    dplyr::ungroup()
}

# abnormal_beside_normal() for one setup's sizes.
beside_normal_rows <- function(rows, formula) {
  classed <- rows |>
    dplyr::mutate(predicted = formula_class(message_bytes, link_network(link, formula), formula)) |>
    dplyr::arrange(message_bytes)
  normal <- dplyr::filter(classed, predicted == "normal")
  abnormal <- dplyr::filter(classed, predicted == "abnormal")
  nearest <- function(pick) {
    purrr::map_int(abnormal$message_bytes, function(b) {
      hit <- pick(b)
      if (length(hit) == 0) NA_integer_ else hit
    })
  }
  above <- nearest(function(b) utils::head(which(normal$message_bytes > b), 1))
  below <- nearest(function(b) utils::tail(which(normal$message_bytes < b), 1))
  tibble::tibble(
    abnormal_bytes = abnormal$message_bytes, rtt_abnormal = abnormal$rtt_median,
    below_bytes = normal$message_bytes[below], rtt_below = normal$rtt_median[below],
    above_bytes = normal$message_bytes[above], rtt_above = normal$rtt_median[above]
  ) |>
    dplyr::filter(!is.na(above_bytes)) |>
    dplyr::mutate(rtt_normal = dplyr::if_else(
      is.na(below_bytes), rtt_above,
      rtt_below + (rtt_above - rtt_below) * (abnormal_bytes - below_bytes) / (above_bytes - below_bytes)
    ))
}

# Evaluates both kinds of claims, each on its own setups (echo setups for
# echo claims, buffer-matrix setups for cell claims), in the claims file's
# order; fits, the host models' fitted figures (R/fitted.R).
evaluate_liu95db_claims <- function(claims, sizes, cells, extra, fits = no_fits()) {
  is_cell <- claims$metric %in% names(cell_metrics)
  # Either kind may be absent (the sensitivity section judges a base's claims alone).
  echo <- if (any(!is_cell)) {
    evaluate_claims(claims[!is_cell, ], sizes, extra, liu95db_echo_metrics, fits, "liu95db")
  }
  matrix <- if (any(is_cell)) {
    evaluate_cell_claims(claims[is_cell, ], cells, extra$transfers, fits, "liu95db")
  }
  dplyr::bind_rows(echo, matrix) |>
    dplyr::arrange(match(claim_id, claims$claim_id)) |>
    dplyr::mutate(verdict = factor(as.character(verdict), levels = verdict_levels))
}

# liu95db's claims judged on the echoes of tables and Table 3's cells; the sensitivity section
# calls it again with a variant's echoes in place of its base's. extra: the tables the metrics
# read beside the echoes (formula, table1, transfers, abnormal_factor, neighbourhood_octets);
# fits, the host models' fitted figures (read_host_fits()).
judge_liu95db <- function(tables, claims, cells, extra, fits = no_fits()) {
  evaluate_liu95db_claims(claims, summarise_sizes(tables$echoes), cells, extra = c(
    list(steps = echo_steps(tables$echoes), echoes = tables$echoes), extra
  ), fits)
}

# What liu95db's claims measure: a cell claim its metric over its buffer range, an echo claim
# its metric of its modes in its experiments over its sizes.
liu95db_claims_measured_as <- function(claims) {
  dplyr::if_else(
    claims$metric %in% names(cell_metrics),
    cell_claims_measured_as(claims),
    echo_claims_measured_as(claims, size_range_label)
  )
}

# A link as the figures name it: its network and its id, e.g. "ATM (atm-taxi-100)".
network_label <- function(link, formula) {
  paste0(link_network(link, formula), " (", link, ")")
}

# Fig 16's rows of the TCP_NODELAY experiments: sizes labelled and in order, modes labelled,
# a panel per link and setup.
nodelay_rows <- function(rows, experiments, formula) {
  dplyr::filter(rows, experiment %in% experiments) |>
    dplyr::mutate(
      size = factor(size_label(message_bytes), levels = size_label(sort(unique(message_bytes)))),
      mode_label = mode_factor(mode), panel = paste0(network_label(link, formula), ": ", setup)
    )
}

# Why Table 3 has no cells: its experiment ran (ran) but none of its transfers set TCP_NODELAY,
# or it has no results.
table3_missing_note <- function(ran, results_dir, paper, experiment) {
  if (ran) {
    return(callout(paste0(
      "<b>Not run yet with TCP_NODELAY.</b> <code>",
      escape_html(file.path(results_dir, paper, experiment, "results.csv")),
      "</code> holds no transfer with <code>nodelay</code> TRUE."
    )))
  }
  experiment_note(tibble::tibble(), experiment, experiment, results_dir, paper)
}

# The change (%) of the published Table 3 over the published Table 2 across
# the cells both tables call normal: the paper's side of claim M07.
published_normal_change <- function(table3, table2) {
  paired <- dplyr::inner_join(table3, table2,
    by = c("send_buffer", "recv_buffer"), suffix = c("", "_t2")
  ) |>
    dplyr::transmute(
      mean_mbit = throughput_mbit, abnormal = shaded,
      baseline_mbit = throughput_mbit_t2, baseline_abnormal = shaded_t2
    )
  list(
    change_pct = as.numeric(cell_metrics$normal_change_vs_baseline(paired)),
    cells = sum(!paired$abnormal & !paired$baseline_abnormal)
  )
}

# Table 3 against Table 2, cell by cell, for the scatter plot: the published
# pair of tables as one panel and each setup's measured pair as another.
baseline_points <- function(cells, table3, table2) {
  published <- dplyr::inner_join(table3, table2,
    by = c("send_buffer", "recv_buffer"), suffix = c("", "_t2")
  ) |>
    dplyr::transmute(
      panel = "Published (Table 3 against Table 2)", backend = "published",
      send_buffer, recv_buffer,
      with_nodelay = throughput_mbit, without = throughput_mbit_t2,
      normal_in_both = !shaded & !shaded_t2
    )
  measured <- cells |>
    dplyr::filter(!is.na(baseline_mbit)) |>
    dplyr::transmute(
      panel = paste("Measured:", setup), backend, send_buffer, recv_buffer,
      with_nodelay = mean_mbit, without = baseline_mbit,
      normal_in_both = !abnormal & !baseline_abnormal
    )
  dplyr::bind_rows(published, measured) |>
    dplyr::mutate(
      panel = factor(panel, levels = unique(panel)),
      class = factor(
        dplyr::if_else(normal_in_both, "normal in both", "abnormal in either"),
        levels = c("normal in both", "abnormal in either")
      )
    )
}

# Sizes measured both in virtual time and in emulation (compare_backends()),
# labelled for plot_backend_pairs(): x is the message size, one panel per
# experiment (which names the link) and mode, and per stack and host model
# when there are several.
echo_comparison_labels <- function(comparison) {
  testbed <- testbed_label(comparison$link, comparison$stack, comparison$host)
  stack_host <- echo_setup(comparison$stack, "", comparison$host)
  what <- paste0(comparison$experiment, ": ", label_modes(comparison$mode))
  panel <- if (dplyr::n_distinct(stack_host) > 1) paste0(stack_host, ", ", what) else what
  ordering <- order(testbed, comparison$experiment, comparison$mode)
  dplyr::mutate(comparison,
    testbed = testbed,
    size = factor(
      size_label(message_bytes),
      levels = unique(size_label(sort(unique(message_bytes))))
    ),
    panel = factor(panel, levels = unique(panel[ordering]))
  )
}

# Per setup, experiment, link, mode and size: how many echoes came back, the
# mean, median and range of their RTTs, and the median change from one echo
# to the next (echo_steps()) with the share of changes that are declines.
sequence_summary <- function(data, steps) {
  keys <- c("setup", "experiment", "link", "mode", "message_bytes")
  rtt <- data |>
    dplyr::filter(!is.na(rtt_ms)) |>
    dplyr::group_by(dplyr::across(dplyr::all_of(keys))) |>
    dplyr::summarise(
      echoes = dplyr::n(), mean_ms = mean(rtt_ms), median_ms = stats::median(rtt_ms),
      min_ms = min(rtt_ms), max_ms = max(rtt_ms), .groups = "drop"
    )
  change <- steps |>
    dplyr::group_by(dplyr::across(dplyr::all_of(keys))) |>
    dplyr::summarise(
      median_step_ms = stats::median(step_ms), declining_pct = 100 * mean(step_ms < 0),
      .groups = "drop"
    )
  dplyr::left_join(rtt, change, by = keys)
}

# Median RTT with and without TCP_NODELAY side by side, per setup, link and
# size, with the formula's prediction for the size on that link.
nodelay_table <- function(sizes, formula) {
  sizes |>
    dplyr::filter(mode %in% c("tcp", "tcp-nodelay")) |>
    dplyr::transmute(
      setup, link, experiment, message_bytes, rtt_median,
      mode = factor(mode, levels = c("tcp", "tcp-nodelay"))
    ) |>
    tidyr::pivot_wider(names_from = mode, values_from = rtt_median, names_expand = TRUE) |>
    dplyr::mutate(
      network = link_network(link, formula),
      predicted = formula_class(message_bytes, network, formula),
      change_pct = 100 * (`tcp-nodelay` / tcp - 1)
    )
}

# A claim's size range in the paper's notation, e.g. " (12K-1 to 12K)";
# empty when unbounded.
size_range_label <- function(size_min, size_max) {
  dplyr::case_when(
    is.na(size_min) & is.na(size_max) ~ "",
    size_min == size_max ~ paste0(" (", size_label(size_min), ")"),
    is.na(size_max) ~ paste0(" (from ", size_label(size_min), ")"),
    is.na(size_min) ~ paste0(" (up to ", size_label(size_max), ")"),
    TRUE ~ paste0(" (", size_label(size_min), " to ", size_label(size_max), ")")
  )
}

# Fig 1's two sides: lan-print printed a line per returned datagram.
print_label <- function(experiment) {
  dplyr::if_else(experiment == "lan-print", "with a print per datagram", "without the print")
}

# Median RTT per setup, mode and size without (lan-large) and with
# (lan-print) a print per returned datagram, and the change in percent.
print_change <- function(sizes) {
  sizes |>
    dplyr::filter(experiment %in% c("lan-large", "lan-print"), mode %in% c("tcp", "udp")) |>
    dplyr::transmute(
      setup, mode, message_bytes, rtt_median,
      experiment = factor(experiment, levels = c("lan-large", "lan-print"))
    ) |>
    tidyr::pivot_wider(names_from = experiment, values_from = rtt_median, names_expand = TRUE) |>
    dplyr::filter(!is.na(`lan-large`), !is.na(`lan-print`)) |>
    dplyr::transmute(
      setup, mode, message_bytes, without_ms = `lan-large`, with_ms = `lan-print`,
      change_pct = 100 * (with_ms / without_ms - 1)
    )
}

read_table1 <- function(path) {
  readr::read_csv(path, col_types = readr::cols(size_bytes = "d", .default = "c"), progress = FALSE)
}

# Table 1's files with what one experiment measured of each: echoes, median
# RTT of TCP and UDP, and the pooled loss of both UDP modes (NA where not run).
table1_beside <- function(table1, sizes) {
  pick <- function(m, column) {
    rows <- dplyr::filter(sizes, mode == m)
    rows[[column]][match(table1$size_bytes, rows$message_bytes)]
  }
  echoes <- sizes |>
    dplyr::group_by(message_bytes) |>
    dplyr::summarise(echoes = sum(echoes), .groups = "drop")
  dplyr::mutate(table1,
    echoes = echoes$echoes[match(size_bytes, echoes$message_bytes)],
    tcp_ms = pick("tcp", "rtt_median"), udp_ms = pick("udp", "rtt_median"),
    udp_loss_pct = pick("udp", "loss_pct"), cooled_loss_pct = pick("udp-cooled", "loss_pct")
  )
}

# Datagrams sent and returned, and the pooled loss, of one mode per setup and
# experiment.
loss_by_network <- function(sizes, experiments, mode) {
  sizes |>
    dplyr::filter(experiment %in% experiments, mode == !!mode) |>
    dplyr::group_by(setup, experiment, link) |>
    dplyr::summarise(
      sent = sum(datagrams_sent), back = sum(datagrams_back),
      loss_pct = pooled_loss_pct(datagrams_sent, datagrams_back), .groups = "drop"
    )
}

# The claims whose verdict differs between a setup on another stack (a Linux
# kernel) and one on the Tahoe stack, one row per claim and pair of setups.
stack_verdict_changes <- function(evaluated) {
  judged <- evaluated |>
    dplyr::filter(!is.na(setup), verdict != "no data") |>
    dplyr::mutate(tahoe = grepl("(^| / )tahoe( / |$)", setup))
  side <- function(is_tahoe, prefix) {
    dplyr::filter(judged, tahoe == is_tahoe) |>
      dplyr::select(claim_id, claim, setup, measured, verdict) |>
      dplyr::rename_with(~ paste0(prefix, .x), c(setup, measured, verdict))
  }
  dplyr::inner_join(side(FALSE, "other_"), dplyr::select(side(TRUE, "tahoe_"), -claim),
    by = "claim_id", relationship = "many-to-many"
  ) |>
    dplyr::filter(as.character(other_verdict) != as.character(tahoe_verdict)) |>
    dplyr::arrange(claim_id)
}

# One sentence per setup on the datagrams pingx counted out of order (misorder_rows()), for
# Fig 4: how many of how many returned, at how many sizes; or that the runs predate the count.
misorder_summary_html <- function(rows) {
  if (nrow(rows) == 0) {
    return("")
  }
  per_setup <- rows |>
    dplyr::group_by(setup) |>
    dplyr::summarise(
      recorded = all(!is.na(misordered)), misordered = sum(misordered), returned = sum(returned),
      sizes = dplyr::n(), with_any = sum(misordered > 0), .groups = "drop"
    )
  paste0(
    "<p><b>Misordering (", escape_html(per_setup$setup), "):</b> ",
    dplyr::if_else(
      per_setup$recorded,
      paste0(
        "pingx counted ", per_setup$misordered, " of the ", per_setup$returned,
        " returned UDP datagrams out of order, at ", per_setup$with_any, " of ", per_setup$sizes,
        " sizes."
      ),
      "not recorded: these runs predate pingx's count of datagrams returned out of order."
    ),
    "</p>",
    collapse = ""
  )
}

# Per size of one mode, its round trips against a clock period (the delayed ACK's 200 ms tick):
# the lowest, median and mean RTT, and the share (%) of echoes at least half a period above the
# lowest, i.e. whose acknowledgement missed a tick and waited a whole period for the next.
tick_late_rows <- function(echoes, mode, period_ms) {
  rows_where(echoes, echoes$mode == mode & !is.na(echoes$rtt_ms)) |>
    dplyr::group_by(setup, experiment, link, message_bytes) |>
    dplyr::summarise(
      echoes = dplyr::n(), lowest_ms = min(rtt_ms), median_ms = stats::median(rtt_ms),
      mean_ms = mean(rtt_ms), late_pct = 100 * mean(rtt_ms >= min(rtt_ms) + period_ms / 2),
      .groups = "drop"
    )
}

# Per setup and size both experiments measured, one mode's datagram loss (%) in experiment a
# beside that in b: the sizes behind experiment_loss_ratio.
loss_pair_rows <- function(sizes, mode, experiments) {
  side <- function(e) {
    rows_where(sizes, sizes$experiment == e & sizes$mode == mode & sizes$datagrams_sent > 0)
  }
  a <- side(experiments[1])
  b <- side(experiments[2])
  hit <- match(paste(a$setup, a$message_bytes), paste(b$setup, b$message_bytes))
  a <- a[!is.na(hit), , drop = FALSE]
  b <- b[hit[!is.na(hit)], , drop = FALSE]
  tibble::tibble(setup = a$setup, message_bytes = a$message_bytes, loss_a = a$loss_pct, loss_b = b$loss_pct)
}

# The cells normal both in Table 3 and in our run of Table 2 (those normal_change_vs_baseline
# pools), each with its throughput with TCP_NODELAY and without, ours and published, all in
# Mb/s of 10^6 bits (the paper's megabit is paper_megabit_bits bits).
nodelay_cost_rows <- function(cells, table2, paper_megabit_bits) {
  cells <- rows_where(cells, !cells$abnormal & cells$baseline_abnormal %in% FALSE &
    !is.na(cells$mean_mbit) & !is.na(cells$baseline_mbit))
  hit <- match(
    paste(cells$send_buffer, cells$recv_buffer), paste(table2$send_buffer, table2$recv_buffer)
  )
  tibble::tibble(
    setup = cells$setup, send_buffer = cells$send_buffer, recv_buffer = cells$recv_buffer,
    ours_nodelay = cells$mean_mbit, paper_nodelay = cells$published_si_mbit,
    ours_without = cells$baseline_mbit,
    paper_without = table2$throughput_mbit[hit] * paper_megabit_bits / 1e6
  )
}

# Per setup, over nodelay_cost_rows(): what TCP_NODELAY changes (%, mean throughput with it
# over the mean without), ours and published, and how far each of our two tables lies from
# the published one (%, our mean over the published mean).
nodelay_cost_summary <- function(rows) {
  change <- function(a, b) 100 * (mean(a) / mean(b) - 1)
  rows <- rows_where(rows, !is.na(rows$paper_nodelay) & !is.na(rows$paper_without))
  dplyr::group_by(rows, setup) |>
    dplyr::summarise(
      cells = dplyr::n(),
      ours_change_pct = change(ours_nodelay, ours_without),
      paper_change_pct = change(paper_nodelay, paper_without),
      nodelay_vs_paper_pct = change(ours_nodelay, paper_nodelay),
      without_vs_paper_pct = change(ours_without, paper_without),
      .groups = "drop"
    )
}

# Spearman correlation of size with RTT over all rows and within each class the formula gives
# (normal, abnormal), with the number of sizes in each: A07's large files, class by class.
trend_by_class <- function(bytes, rtt, class) {
  groups <- list(
    all = rep(TRUE, length(bytes)), normal = class %in% "normal", abnormal = class %in% "abnormal"
  )
  tibble::tibble(
    group = names(groups),
    sizes = vapply(groups, sum, integer(1), USE.NAMES = FALSE),
    rho = vapply(groups, function(keep) size_trend(bytes[keep], rtt[keep]), numeric(1),
      USE.NAMES = FALSE
    )
  )
}
