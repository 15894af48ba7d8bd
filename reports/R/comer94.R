# comer94: ttcp bulk-transfer throughput over a matrix of send and receive
# buffers (Table 1), its anomaly, and the circular-wait trace (Fig 6).

transfer_required <- c(
  "experiment", "link", "stack", "backend", "send_buffer", "recv_buffer",
  "repeat", "bytes", "throughput_mbit", "run_id"
)

trace_required <- c("t_ms", "direction", "seq", "len", "ack", "win", "rule")

# Buffer sizes as the paper writes them: whole Kbytes of 1024 octets, rounded
# down, so that SunOS's cap of 52428 octets reads "51K".
buffer_label <- function(octets) {
  paste0(floor(octets / 1024), "K")
}

# A buffer label that keeps sizes which are not whole Kbytes (e.g. 3 x MSS)
# in octets; SunOS's cap of 52428 stays "51K".
octet_label <- function(octets) {
  dplyr::if_else(octets %% 1024 == 0 | octets == 52428, buffer_label(octets), paste(octets, "octets"))
}

# Ordered factor of buffer labels, smallest first.
buffer_factor <- function(octets) {
  levels <- buffer_label(sort(unique(octets)))
  factor(buffer_label(octets), levels = unique(levels))
}

# The transfers of one experiment, typed; NULL when absent or empty. Rows
# with TCP_NODELAY set belong to another paper's table and are kept apart:
# `nodelay_rows` counts them.
read_transfers <- function(results_dir, paper, experiment) {
  path <- file.path(experiment_dir(results_dir, paper, experiment), "results.csv")
  data <- read_contract_csv(path, transfer_required, tool = "ttcp")
  if (is.null(data)) {
    return(NULL)
  }
  absent <- list(
    paper = NA_character_, mirrors = NA_character_, host = NA_character_,
    receiver_throughput_mbit = NA_real_, nodelay = FALSE
  )
  for (optional in names(absent)) {
    if (!optional %in% names(data)) {
      data[[optional]] <- rep(absent[[optional]], nrow(data))
    }
  }
  data |>
    dplyr::mutate(
      nodelay = dplyr::coalesce(nodelay, FALSE),
      setup = setup_label(link, stack, backend, host)
    )
}

# A transfers table without rows, for reports whose experiment is missing.
empty_transfers <- function() {
  tibble::tibble(
    experiment = character(), link = character(), stack = character(), backend = character(),
    host = character(), send_buffer = numeric(), recv_buffer = numeric(), `repeat` = numeric(),
    bytes = numeric(), throughput_mbit = numeric(), receiver_throughput_mbit = numeric(),
    nodelay = logical(), run_id = character(), setup = character()
  )
}

# Published numbers and mechanism constants from reports/reference/. A
# buffer matrix (comer94 Table 1, liu95db Table 3) has send_buffer,
# recv_buffer, throughput_mbit (as printed) and shaded. Which cells a host model was fitted on
# is the host model's to say (R/fitted.R).
read_matrix_reference <- function(path) {
  readr::read_csv(path,
    col_types = readr::cols(
      send_buffer = "d", recv_buffer = "d", throughput_mbit = "d", shaded = "l",
      .default = "c"
    ),
    progress = FALSE
  )
}

read_mechanism <- function(path) {
  readr::read_csv(path,
    col_types = readr::cols(value = "d", .default = "c"), progress = FALSE
  )
}

# One constant of the mechanism table by name; an error if it is missing.
mechanism_value <- function(mechanism, name) {
  value <- mechanism$value[mechanism$name == name]
  if (length(value) != 1) {
    stop("reference mechanism table has no single value '", name, "'", call. = FALSE)
  }
  value
}

read_lockstep_reference <- function(path) {
  readr::read_csv(path,
    col_types = readr::cols(
      send_buffer = "d", recv_buffer = "d", octets_per_tick = "d", published_mbit = "d",
      .default = "c"
    ),
    progress = FALSE
  )
}

# Throughput (Mb/s of 10^6 bits) of a transfer that moves `octets` once per
# timer tick.
per_tick_mbit <- function(octets, tick_ms) {
  octets * 8 / (tick_ms / 1000) / 1e6
}

# One row per setup and buffer pair: the throughput of its measurements.
summarise_cells <- function(transfers) {
  transfers |>
    dplyr::group_by(setup, link, stack, backend, host, send_buffer, recv_buffer) |>
    dplyr::summarise(
      measurements = dplyr::n(),
      mean_mbit = mean(throughput_mbit, na.rm = TRUE),
      sd_mbit = if (dplyr::n() > 1) stats::sd(throughput_mbit, na.rm = TRUE) else NA_real_,
      median_mbit = stats::median(throughput_mbit, na.rm = TRUE),
      min_mbit = stats_or_na(throughput_mbit, min),
      max_mbit = stats_or_na(throughput_mbit, max),
      receiver_mean_mbit = stats_or_na(receiver_throughput_mbit, mean),
      .groups = "drop"
    ) |>
    dplyr::arrange(setup, send_buffer, recv_buffer)
}

# The classification rule. A setup's normal level is the median of its cell
# means (most cells stream). A cell is abnormal when its mean throughput is
# below `fraction` of that level.
classify_cells <- function(cells, fraction) {
  cells |>
    dplyr::group_by(setup) |>
    dplyr::mutate(
      normal_level_mbit = stats::median(mean_mbit, na.rm = TRUE),
      ratio_to_normal = mean_mbit / normal_level_mbit,
      abnormal = ratio_to_normal < fraction
    ) |>
    dplyr::ungroup()
}

# The same rule applied to single measurements, against their setup's level.
classify_measurements <- function(transfers, cells, fraction) {
  levels <- dplyr::distinct(cells, setup, normal_level_mbit)
  transfers |>
    dplyr::left_join(levels, by = "setup") |>
    dplyr::mutate(abnormal = throughput_mbit < fraction * normal_level_mbit)
}

# How many cells each fraction would call abnormal, per setup: shows how
# sharply the data split.
threshold_sensitivity <- function(cells, fractions) {
  purrr::map(fractions, function(f) {
    classify_cells(cells, f) |>
      dplyr::group_by(setup) |>
      dplyr::summarise(fraction = f, abnormal_cells = sum(abnormal), .groups = "drop")
  }) |>
    dplyr::bind_rows()
}

# Cells with the published value (as printed and in 10^6-bit Mb/s), the
# paper's shading and, where the paper names one, the lockstep mechanism
# throughput.
join_reference <- function(cells, matrix, lockstep, paper_megabit_bits, tick_ms) {
  published <- matrix |>
    dplyr::transmute(
      send_label = buffer_label(send_buffer), recv_label = buffer_label(recv_buffer),
      published_mbit = throughput_mbit,
      published_si_mbit = throughput_mbit * paper_megabit_bits / 1e6,
      shaded
    )
  mechanism <- lockstep |>
    dplyr::transmute(
      send_label = buffer_label(send_buffer), recv_label = buffer_label(recv_buffer),
      lockstep_octets = octets_per_tick,
      lockstep_mbit = per_tick_mbit(octets_per_tick, tick_ms),
      lockstep_published_mbit = published_mbit
    )
  cells |>
    dplyr::mutate(send_label = buffer_label(send_buffer), recv_label = buffer_label(recv_buffer)) |>
    dplyr::left_join(published, by = c("send_label", "recv_label")) |>
    dplyr::left_join(mechanism, by = c("send_label", "recv_label"))
}

# The published side a measured buffer matrix is set against: the matrix (comer94 Table 1,
# liu95db Table 3), the cells the paper gives a lockstep batch for, the paper's megabit and the
# delayed-ACK tick.
matrix_published <- function(matrix, lockstep, paper_megabit_bits, tick_ms) {
  list(matrix = matrix, lockstep = lockstep, paper_megabit_bits = paper_megabit_bits, tick_ms = tick_ms)
}

# The cells of transfers: summarised, classified by the rule with `fraction`, joined to the
# published side, with the classes of their single transfers (count_transfer_classes()) and
# the stack's segment counts (count_segments_behind()).
matrix_cells <- function(transfers, fraction, published) {
  summarise_cells(transfers) |>
    classify_cells(fraction) |>
    join_reference(
      published$matrix, published$lockstep, published$paper_megabit_bits, published$tick_ms
    ) |>
    count_transfer_classes(transfers, fraction) |>
    count_segments_behind(transfers)
}

# Per cell, from the stack's counts over all its transfers (one count per run, repeated on the
# run's rows): the new data segments the sender sent and how many left while earlier data was
# still unacknowledged. NA where no count was recorded (emulated runs, older results).
count_segments_behind <- function(cells, transfers) {
  keys <- c("setup", "send_buffer", "recv_buffer")
  counters <- c("pair_data_segments", "pair_segments_behind")
  if (!all(counters %in% names(transfers))) {
    return(dplyr::mutate(cells, data_segments = NA_real_, segments_behind = NA_real_))
  }
  counts <- pair_count_sums(transfers, counters) |>
    dplyr::rename(data_segments = pair_data_segments, segments_behind = pair_segments_behind)
  dplyr::left_join(cells, counts, by = keys)
}

# How far a lockstep transfer may lie from the mechanism's rate and still be at it (Fig 7's band).
lockstep_band <- 0.1

# Per cell, of its transfers (Figs 9-13): how many the rule calls abnormal (locked), each against
# its setup's normal level as classify_measurements() does, how many lie within `band` of the
# cell's lockstep mechanism rate (0 where the paper gives none), and the mean rate of the locked
# and of the streaming ones (NA where there are none).
count_transfer_classes <- function(cells, transfers, fraction, band = lockstep_band) {
  keys <- c("setup", "send_buffer", "recv_buffer")
  rates <- dplyr::select(cells, dplyr::all_of(keys), normal_level_mbit, lockstep_mbit)
  counts <- transfers |>
    dplyr::inner_join(rates, by = keys) |>
    dplyr::mutate(locked = throughput_mbit < fraction * normal_level_mbit) |>
    dplyr::group_by(dplyr::across(dplyr::all_of(keys))) |>
    dplyr::summarise(
      transfers_abnormal = sum(locked, na.rm = TRUE),
      transfers_at_lockstep = sum(abs(throughput_mbit / lockstep_mbit - 1) <= band, na.rm = TRUE),
      locked_mean_mbit = stats_or_na(throughput_mbit[locked %in% TRUE], mean),
      streaming_mean_mbit = stats_or_na(throughput_mbit[locked %in% FALSE], mean),
      .groups = "drop"
    )
  dplyr::left_join(cells, counts, by = keys)
}

# Share (%) of the transfers of the cells that `counted` (a count per cell) counts, with the
# transfers it rests on; NA without transfers or counts.
transfer_share <- function(cells, counted) {
  if (!counted %in% names(cells)) {
    return(NA_real_)
  }
  cells <- rows_where(cells, !is.na(cells[[counted]]) & cells$measurements > 0)
  total <- sum(cells$measurements)
  if (total == 0) {
    return(NA_real_)
  }
  structure(100 * sum(cells[[counted]]) / total, n = total, n_of = "transfers")
}

# matrix_cells() of each experiment's transfers without TCP_NODELAY, named as experiments is;
# experiments without results are left out.
experiments_cells <- function(results_dir, paper, experiments, fraction, published) {
  cells <- purrr::map(experiments, function(experiment) {
    measured <- read_transfers(results_dir, paper, experiment)
    if (is.null(measured)) {
      return(NULL)
    }
    matrix_cells(dplyr::filter(measured, !nodelay), fraction, published)
  })
  purrr::compact(cells)
}

# The transfers of several experiments in one table (none: no rows). Names on experiments are
# dropped: bind_rows() would read a named list as one row.
read_experiments_transfers <- function(results_dir, paper, experiments) {
  measured <- purrr::map(unname(experiments), function(e) read_transfers(results_dir, paper, e))
  dplyr::bind_rows(empty_transfers(), measured)
}

# Per host model (the names of cells_by_model) and setup: how many cells both the data and the
# paper call normal, the mean absolute error of those cells against the paper, and the range
# of their means; cells a setup's host model was fitted on (fits, in the reference tables
# named) are left out.
host_model_errors <- function(cells_by_model, fits = no_fits(), references = character()) {
  purrr::imap(cells_by_model, function(cells, model) {
    dplyr::group_by(cells, setup) |>
      dplyr::group_modify(function(rows, key) {
        hosts <- unique(stats::na.omit(rows$host))
        rows <- split_fitted_cells(rows, fitted_cells(fits, hosts, references))$held_out
        normal <- normal_cells(rows)
        tibble::tibble(
          cells = nrow(normal),
          error = cell_metrics$normal_rel_error(rows),
          low = if (nrow(normal) > 0) min(normal$mean_mbit) else NA_real_,
          high = if (nrow(normal) > 0) max(normal$mean_mbit) else NA_real_
        )
      }) |>
      dplyr::ungroup() |>
      dplyr::mutate(model = model)
  }) |>
    dplyr::bind_rows()
}

# Cells beside the same setup's cells of another measured matrix (liu95db's
# Table 3 beside our run of comer94's Table 1, which the paper reprints as
# Table 2).
join_baseline <- function(cells, baseline) {
  baseline <- dplyr::transmute(baseline,
    setup, send_buffer, recv_buffer,
    baseline_mbit = mean_mbit, baseline_abnormal = abnormal
  )
  dplyr::left_join(cells, baseline, by = c("setup", "send_buffer", "recv_buffer"))
}

# Cells whose measured class differs from the paper's shading.
shading_disagreements <- function(cells) {
  dplyr::filter(cells, !is.na(shaded), abnormal != shaded)
}

# The stack's counts of why each ACK left the receiver, per setup and buffer
# pair: by R1, by R2 or by the 200 ms timer. The counts are summed over a
# pair's transfers and repeated on each of its rows, so one row per run is
# kept. Only virtual time records them; elsewhere the pair is absent.
rule_counts <- function(transfers) {
  counters <- c("pair_acks_r1", "pair_acks_r2", "pair_acks_timer")
  if (!all(counters %in% names(transfers))) {
    return(tibble::tibble(
      setup = character(), send_buffer = numeric(), recv_buffer = numeric(),
      acks_r1 = numeric(), acks_r2 = numeric(), acks_timer = numeric()
    ))
  }
  pair_count_sums(transfers, counters) |>
    dplyr::rename(acks_r1 = pair_acks_r1, acks_r2 = pair_acks_r2, acks_timer = pair_acks_timer)
}

# The stack's counts (columns counters) of each setup's buffer pairs, summed over their runs: a
# count is its run's total, repeated on each of the run's transfers, so one row per run is kept.
# Rows without the counts (emulated runs, older results) are left out.
pair_count_sums <- function(transfers, counters) {
  transfers |>
    dplyr::mutate(dplyr::across(dplyr::all_of(counters), as.numeric)) |>
    dplyr::filter(dplyr::if_all(dplyr::all_of(counters), function(x) !is.na(x))) |>
    dplyr::distinct(setup, send_buffer, recv_buffer, run_id, .keep_all = TRUE) |>
    dplyr::group_by(setup, send_buffer, recv_buffer) |>
    dplyr::summarise(dplyr::across(dplyr::all_of(counters), sum), .groups = "drop")
}

# How the chosen buffer pairs sent, from the stack's own counts summed over their transfers (one
# row per run, as in rule_counts()): mean throughput, the share of data segments each sender rule
# sent, the mean segment (octets moved per segment) and the share of ACKs the 200 ms timer sent.
# Only virtual time records the counts; elsewhere a pair has none and is left out.
sending_rules <- function(transfers, pairs) {
  counters <- c(
    "pair_segments_s1", "pair_segments_s2", "pair_segments_s3", "pair_acks_r1", "pair_acks_r2",
    "pair_acks_timer"
  )
  if (!all(counters %in% names(transfers))) {
    return(NULL)
  }
  chosen <- dplyr::semi_join(transfers, pairs, by = c("send_buffer", "recv_buffer")) |>
    dplyr::filter(!is.na(pair_segments_s1))
  per_run <- chosen |>
    dplyr::group_by(setup, send_buffer, recv_buffer, run_id) |>
    dplyr::summarise(
      dplyr::across(dplyr::all_of(counters), dplyr::first),
      octets = sum(bytes), mbit = sum(throughput_mbit), transfers = dplyr::n(), .groups = "drop"
    )
  per_run |>
    dplyr::group_by(setup, send_buffer, recv_buffer) |>
    dplyr::summarise(
      mean_mbit = sum(mbit) / sum(transfers),
      dplyr::across(dplyr::all_of(counters), sum),
      octets = sum(octets), .groups = "drop"
    ) |>
    dplyr::mutate(
      segments = pair_segments_s1 + pair_segments_s2 + pair_segments_s3,
      s1_pct = 100 * pair_segments_s1 / segments,
      s2_pct = 100 * pair_segments_s2 / segments,
      s3_pct = 100 * pair_segments_s3 / segments,
      mean_segment_octets = octets / segments,
      timer_ack_pct = 100 * pair_acks_timer / (pair_acks_r1 + pair_acks_r2 + pair_acks_timer)
    ) |>
    dplyr::select(
      setup, send_buffer, recv_buffer, mean_mbit, s1_pct, s2_pct, s3_pct, mean_segment_octets,
      timer_ack_pct
    )
}

# For each cell that disagrees with the paper, which receiver rule decided it,
# from the stack's own counts: the share of ACKs the 200 ms timer sent, and
# the two thresholds a held batch failed (R1: 2*MSS with the buffer empty; R2:
# 35 % of the receive buffer). A cell called normal whose transfers split (some
# locked: transfers_abnormal, when the cells carry it) says so.
disagreement_causes <- function(disagreements, counts, mss, r2_share = 0.35) {
  locked <- if ("transfers_abnormal" %in% names(disagreements)) {
    disagreements$transfers_abnormal
  } else {
    NA_real_
  }
  disagreements |>
    dplyr::left_join(counts, by = c("setup", "send_buffer", "recv_buffer")) |>
    dplyr::mutate(
      locked_transfers = locked,
      acks = acks_r1 + acks_r2 + acks_timer,
      timer_share = acks_timer / acks,
      r1_octets = 2 * mss,
      r2_octets = ceiling(r2_share * recv_buffer),
      cause = dplyr::case_when(
        is.na(acks) | acks == 0 ~
          "no rule counts for this setup (only virtual time records them)",
        abnormal ~ paste0(
          "receiver rule: ", fmt_num(100 * timer_share, 2), " % of ACKs waited for the ",
          "200 ms timer (R1 ", acks_r1, ", R2 ", acks_r2, ", timer ", acks_timer,
          "): batches held below both R1's ", r1_octets, " octets and R2's ",
          r2_octets, " (35 % of ", recv_buffer, ") lock the pair"
        ),
        dplyr::coalesce(locked_transfers, 0) > 0 ~ paste0(
          locked_transfers, " of ", measurements, " transfers locked (", fmt_num(100 * timer_share, 2),
          " % of ACKs waited for the 200 ms timer); the others streamed and lift the cell's mean ",
          "above the rule's level"
        ),
        TRUE ~ paste0(
          "receiver rule: only ", fmt_num(100 * timer_share, 2), " % of ACKs waited for the ",
          "200 ms timer (R1 ", acks_r1, ", R2 ", acks_r2, ", timer ", acks_timer,
          "): R1 (", r1_octets, " octets) or R2 (", r2_octets,
          " octets) released the batches, so no lockstep formed"
        )
      )
    )
}

# The per-setup agreement between measured classes and the paper's shading.
shading_agreement_counts <- function(cells) {
  cells |>
    dplyr::filter(!is.na(shaded)) |>
    dplyr::group_by(setup) |>
    dplyr::summarise(
      cells = dplyr::n(),
      agree = sum(abnormal == shaded),
      abnormal_both = sum(abnormal & shaded),
      abnormal_only_measured = sum(abnormal & !shaded),
      abnormal_only_paper = sum(!abnormal & shaded),
      .groups = "drop"
    )
}

# Shading agreement of the same matrix measured under several ttcp write
# sizes: one row per write size and setup, with the disagreeing cells named.
# `cells_by_write` is a named list of classified cells joined to the paper's
# matrix; its names label the write sizes. Only the cells every write size
# measured are compared, so the counts stay comparable across sizes.
# `abnormal_error_pct` is the mean relative error against the published value
# over the cells both the paper and the data call abnormal.
write_size_agreement <- function(cells_by_write) {
  keys <- c("setup", "send_buffer", "recv_buffer")
  common <- Reduce(
    function(kept, cells) dplyr::semi_join(kept, cells, by = keys),
    lapply(cells_by_write, function(cells) dplyr::distinct(cells, dplyr::across(dplyr::all_of(keys))))
  )
  rows <- lapply(names(cells_by_write), function(label) {
    cells <- dplyr::semi_join(cells_by_write[[label]], common, by = keys)
    off <- shading_disagreements(cells) |>
      dplyr::group_by(setup) |>
      dplyr::summarise(
        cells_off = paste0(
          buffer_label(send_buffer), "/", buffer_label(recv_buffer),
          collapse = ", "
        ),
        .groups = "drop"
      )
    abnormal_error <- cells |>
      dplyr::filter(!is.na(shaded), abnormal, shaded) |>
      dplyr::group_by(setup) |>
      dplyr::summarise(
        abnormal_error_pct = 100 * mean(abs(mean_mbit / published_si_mbit - 1)),
        .groups = "drop"
      )
    shading_agreement_counts(cells) |>
      dplyr::left_join(off, by = "setup") |>
      dplyr::left_join(abnormal_error, by = "setup") |>
      dplyr::mutate(
        write_size = label,
        cells_off = dplyr::coalesce(cells_off, "none"),
        .before = 1
      )
  })
  dplyr::bind_rows(rows)
}

# write_size_agreement() as an HTML table.
write_size_table_html <- function(by_write) {
  kable_html(dplyr::transmute(by_write,
    `Write size` = write_size, Setup = setup, `Cells compared` = cells,
    `Agree with the shading` = agree,
    `Abnormal only in our data` = abnormal_only_measured,
    `Abnormal only in the paper` = abnormal_only_paper,
    `Cells that disagree (send/receive)` = cells_off,
    `Abnormal cells: mean error against the paper (%)` = fmt_num(abnormal_error_pct, 2)
  ))
}

# What comer94's claims on buffer cells measure: the metric over their buffer range.
cell_claims_measured_as <- function(claims) {
  paste0(
    "<code>", claims$metric, "</code> over ",
    buffer_range_text(
      claims$send_min_bytes, claims$send_max_bytes, claims$recv_min_bytes, claims$recv_max_bytes
    )
  )
}

# The cells one claim looks at; an empty bound means unbounded.
cell_claim_rows <- function(cells, claim) {
  bound <- function(x, default) dplyr::coalesce(x, default)
  dplyr::filter(
    cells,
    send_buffer >= bound(claim$send_min_bytes, -Inf),
    send_buffer <= bound(claim$send_max_bytes, Inf),
    recv_buffer >= bound(claim$recv_min_bytes, -Inf),
    recv_buffer <= bound(claim$recv_max_bytes, Inf)
  )
}

# Percent change of mean throughput from the first to the last cell of x,
# ordered by `by`.
change_pct <- function(cells, by) {
  cells <- cells[order(cells[[by]]), ]
  cells <- cells[!is.na(cells$mean_mbit), ]
  if (nrow(cells) < 2) {
    return(NA_real_)
  }
  100 * (cells$mean_mbit[nrow(cells)] / cells$mean_mbit[1] - 1)
}

# The cells both the paper and the data call normal that have a published value: the cells a
# model's absolute error is judged on (cells a host model was fitted on are left out before,
# by evaluate_cell_claims()).
normal_cells <- function(cells) {
  rows_where(cells, !is.na(cells$shaded) & !cells$shaded & !cells$abnormal &
    !is.na(cells$published_si_mbit))
}

# Each metric takes a setup's classified cells (join_reference()) within the
# claim's buffer range and returns one number, or NA.
cell_metrics <- list(
  # Share (%) of cells whose measured class matches the paper's shading.
  shading_agreement = function(cells) {
    cells <- dplyr::filter(cells, !is.na(shaded), !is.na(abnormal))
    if (nrow(cells) == 0) NA_real_ else 100 * mean(cells$abnormal == cells$shaded)
  },
  # Share (%) of the cells the paper leaves unshaded that our data call normal; n counts only
  # those cells, so that agreement on them is scored apart from the shaded ones.
  unnamed_agreement = function(cells) {
    cells <- dplyr::filter(cells, shaded %in% FALSE, !is.na(abnormal))
    if (nrow(cells) == 0) NA_real_ else structure(100 * mean(!cells$abnormal), n = nrow(cells))
  },
  # Share (%) of cells classified abnormal.
  share_abnormal = function(cells) {
    cells <- dplyr::filter(cells, !is.na(abnormal))
    if (nrow(cells) == 0) NA_real_ else 100 * mean(cells$abnormal)
  },
  # Share (%) of cells classified normal.
  share_normal = function(cells) {
    cells <- dplyr::filter(cells, !is.na(abnormal))
    if (nrow(cells) == 0) NA_real_ else 100 * mean(!cells$abnormal)
  },
  # Percent change from the smallest to the largest receive buffer in the
  # range, along each send-buffer row; the median over rows.
  row_change = function(cells) {
    changes <- purrr::map_dbl(
      split(cells, cells$send_buffer), function(row) change_pct(row, "recv_buffer")
    )
    na_if_empty(changes, stats::median)
  },
  # Percent change from the smallest to the largest equal-buffer cell.
  diagonal_change = function(cells) {
    change_pct(rows_where(cells, cells$send_buffer == cells$recv_buffer), "send_buffer")
  },
  # Signed deviation (%) from the lockstep mechanism throughput of the cell that lies farthest
  # from it. A claim on the rate in lockstep speaks of the transfers that locked: a cell's rate
  # is theirs (count_transfer_classes()), its mean where none locked.
  lockstep_deviation = function(cells) {
    cells <- rows_where(cells, !is.na(cells$lockstep_mbit) & !is.na(cells$mean_mbit))
    if (nrow(cells) == 0) {
      return(NA_real_)
    }
    locked <- if ("locked_mean_mbit" %in% names(cells)) cells$locked_mean_mbit else NA_real_
    deviation <- 100 * (dplyr::coalesce(locked, cells$mean_mbit) / cells$lockstep_mbit - 1)
    deviation[which.max(abs(deviation))]
  },
  # Mean absolute relative error (%) against the published value, over the
  # cells that both the paper and the data call normal.
  normal_rel_error = function(cells) {
    cells <- normal_cells(cells)
    if (nrow(cells) == 0) {
      return(NA_real_)
    }
    # n: the normal cells compared, not every cell of the matrix.
    structure(100 * mean(abs(cells$mean_mbit / cells$published_si_mbit - 1)), n = nrow(cells))
  },
  # Spearman correlation of total buffer space with throughput over the cells
  # the data call normal.
  normal_trend = function(cells) {
    cells <- dplyr::filter(cells, !abnormal, !is.na(mean_mbit))
    if (nrow(cells) < 3 || stats::sd(cells$mean_mbit) == 0) {
      return(NA_real_)
    }
    rho <- stats::cor(cells$send_buffer + cells$recv_buffer, cells$mean_mbit, method = "spearman")
    structure(rho, n = nrow(cells))
  },
  # Change (%) of the mean throughput over the cells that both this matrix
  # and the baseline matrix (join_baseline()) call normal: negative when this
  # matrix is slower.
  normal_change_vs_baseline = function(cells) {
    if (!"baseline_mbit" %in% names(cells)) {
      return(NA_real_)
    }
    cells <- rows_where(cells, !cells$abnormal & cells$baseline_abnormal %in% FALSE &
      !is.na(cells$mean_mbit) & !is.na(cells$baseline_mbit))
    if (nrow(cells) == 0) {
      return(NA_real_)
    }
    structure(100 * (mean(cells$mean_mbit) / mean(cells$baseline_mbit) - 1), n = nrow(cells))
  },
  # Share (%) of the cells' transfers that the rule calls abnormal (Figs 9-13).
  transfer_abnormal_share = function(cells) transfer_share(cells, "transfers_abnormal"),
  # Share (%) of the cells' transfers that the rule calls normal.
  transfer_normal_share = function(cells) {
    abnormal <- transfer_share(cells, "transfers_abnormal")
    if (is.na(abnormal)) {
      return(abnormal)
    }
    structure(100 - abnormal, n = attr(abnormal, "n"), n_of = "transfers")
  },
  # Share (%) of the transfers of the cells with a lockstep mechanism rate that run at it
  # (within lockstep_band).
  transfer_lockstep_share = function(cells) {
    transfer_share(rows_where(cells, !is.na(cells$lockstep_mbit)), "transfers_at_lockstep")
  },
  # The circular-wait trace (circular_wait_stats()): share (%) of Fig 5's opening segments
  # that the transfer repeats.
  opening_match = function(cells) {
    if (!"opening_match" %in% names(cells)) {
      return(NA_real_)
    }
    cells <- rows_where(cells, !is.na(cells$opening_match))
    if (nrow(cells) == 0) {
      return(NA_real_)
    }
    structure(mean(cells$opening_match), n = sum(cells$opening_steps), n_of = "opening segments")
  },
  # The circular-wait trace: share (%) of its cycles from Fig 6's entry to the end that
  # follow the published lockstep, over the traced transfers.
  circular_wait_share = function(cells) {
    if (!"circular_wait_share" %in% names(cells)) {
      return(NA_real_)
    }
    cells <- rows_where(cells, !is.na(cells$circular_wait_share))
    if (nrow(cells) == 0) {
      return(NA_real_)
    }
    cycles <- sum(cells$cycles)
    share <- if (cycles == 0) 0 else 100 * sum(cells$following) / cycles
    structure(share, n = cycles, n_of = "cycles")
  },
  # Traced pairs (read_state_pairs()): share (%) of the data octets that rule
  # S3 sent; NA when the trace has no rules (emulated runs).
  s3_octet_share = function(cells) {
    if (!"s3_octet_share" %in% names(cells)) NA_real_ else na_if_empty(cells$s3_octet_share, mean)
  },
  # Share (%) of the cells' new data segments that left while earlier data was still
  # unacknowledged (the sender streams rather than waits for each ACK), over all the cells'
  # transfers (count_segments_behind()): one traced transfer falls into either pattern by the
  # draw, Table 1's 50 transfers a pair show which prevails.
  behind_share = function(cells) {
    if (!"segments_behind" %in% names(cells)) {
      return(NA_real_)
    }
    cells <- rows_where(cells, !is.na(cells$segments_behind))
    total <- sum(cells$data_segments)
    if (total == 0) {
      return(NA_real_)
    }
    structure(100 * sum(cells$segments_behind) / total, n = total, n_of = "data segments")
  },
  # ftp transfers (one row per link): mean throughput over the ATM link
  # divided by that over the Ethernet, in %.
  atm_over_ethernet = function(cells) {
    if (!"link" %in% names(cells)) {
      return(NA_real_)
    }
    atm <- cells$mean_mbit[startsWith(cells$link, "atm")]
    ethernet <- cells$mean_mbit[startsWith(cells$link, "ethernet")]
    if (length(atm) == 0 || length(ethernet) == 0) NA_real_ else 100 * mean(atm) / mean(ethernet)
  }
)

# reps copies of the cells, each cell's mean throughput recomputed from its transfers drawn
# with replacement; the classification (abnormal) is kept as measured.
resampled_cells <- function(cells, transfers, reps = bootstrap_reps, seed = bootstrap_seed) {
  keys <- c("setup", "send_buffer", "recv_buffer")
  transfers <- transfers[!is.na(transfers$throughput_mbit), ]
  samples <- split(transfers$throughput_mbit, do.call(paste, c(transfers[keys], sep = "\r")))
  key <- do.call(paste, c(cells[keys], sep = "\r"))
  set.seed(seed)
  means <- matrix(cells$mean_mbit, nrow = nrow(cells), ncol = reps)
  for (i in seq_along(key)) {
    x <- samples[[key[i]]]
    if (length(x) > 0) {
      means[i, ] <- colMeans(resample_matrix(x, reps))
    }
  }
  cells <- as.data.frame(cells)
  purrr::map(seq_len(reps), function(b) {
    cells$mean_mbit <- means[, b]
    cells
  })
}

# A cell metric's value, with its bootstrap interval when the transfers behind the cells are
# given and the metric reads their mean throughput.
cell_value <- function(metric, rows, transfers) {
  value <- if (nrow(rows) == 0) NA_real_ else cell_metrics[[metric]](rows)
  if (is.null(transfers) || !metric %in% cell_bootstrap_metrics || is.na(as.numeric(value))) {
    return(value)
  }
  ci <- bootstrap_interval(cell_metrics[[metric]], resampled_cells(rows, transfers))
  structure(with_ci(as.numeric(value), ci[1], ci[2]), n = attr(value, "n"))
}

# Claims x setups: every setup's cells are judged on their own; transfers, when given, are
# the per-transfer rows behind the cells, for the intervals. fits (read_host_fits()): a claim
# whose cells include some a setup's host model was fitted on (in a table of its `reference`)
# is judged on the held-out cells; one with only fitted cells on those, and reads "fitted".
evaluate_cell_claims <- function(claims, cells, transfers = NULL, fits = no_fits(),
                                 paper = NA_character_) {
  setups <- unique(cells$setup)
  if (length(setups) == 0) {
    setups <- NA_character_
  }
  purrr::map(seq_len(nrow(claims)), function(i) {
    claim <- claims[i, ]
    purrr::map(setups, function(s) {
      here <- dplyr::filter(cells, setup %in% s)
      hosts <- if ("host" %in% names(here)) unique(stats::na.omit(here$host)) else character()
      rows <- cell_claim_rows(here, claim)
      split <- split_fitted_cells(rows, fitted_cells(fits, hosts, claim_references(claim)))
      judged_on <- if (nrow(split$held_out) > 0) split$held_out else split$fitted
      value <- cell_value(
        claim$metric, judged_on,
        if (is.null(transfers)) NULL else dplyr::filter(transfers, setup %in% s)
      )
      judged <- judge_claim_row(claim, value) |>
        mark_claim_fits(claim, hosts, fits, paper)
      if (nrow(split$fitted) > 0) {
        judged <- mark_fitted_cells(judged, split, hosts, fits)
      }
      dplyr::bind_cols(
        claim, setup = s, hosts = hosts_text(hosts), judged,
        value_n(value, nrow(judged_on), "cells")
      )
    }) |>
      dplyr::bind_rows()
  }) |>
    dplyr::bind_rows() |>
    dplyr::mutate(verdict = factor(verdict, levels = verdict_levels))
}

# A cell claim's judged row when some of its cells were fitted: on the held-out cells when there
# are any (the note says how many were left out), else "fitted".
mark_fitted_cells <- function(judged, split, hosts, fits) {
  models <- paste(unique(fits$host[fits$host %in% hosts]), collapse = ", ")
  if (nrow(split$held_out) > 0) {
    left_out <- nrow(split$fitted)
    judged$note <- paste0(
      "held-out cells only: ", left_out, if (left_out == 1) " cell" else " cells", " that ",
      models, " was fitted on left out"
    )
    return(judged)
  }
  judged$fitted <- TRUE
  judged$verdict <- fitted_verdict(judged$verdict, TRUE)
  judged$note <- paste0("fitted: ", models, " was fitted on these cells")
  judged
}

# The buffer range of a claim in words, e.g. "send 16K, receive 24K to 51K".
buffer_range_text <- function(send_min, send_max, recv_min, recv_max) {
  size <- octet_label
  one <- function(what, lo, hi) {
    dplyr::case_when(
      is.na(lo) & is.na(hi) ~ paste(what, "any"),
      !is.na(lo) & !is.na(hi) & lo == hi ~ paste(what, size(lo)),
      is.na(hi) ~ paste0(what, " \u2265 ", size(lo)),
      is.na(lo) ~ paste0(what, " \u2264 ", size(hi)),
      TRUE ~ paste0(what, " ", size(lo), " to ", size(hi))
    )
  }
  paste0(one("send", send_min, send_max), ", ", one("receive", recv_min, recv_max))
}

# Long table of matrices for the heat map: the published matrix as one panel
# (named `label`) and each setup's measured means as another.
matrix_panels <- function(cells, matrix, label) {
  published <- matrix |>
    dplyr::transmute(
      panel = label, send_buffer, recv_buffer,
      throughput_mbit, abnormal = shaded
    )
  measured <- cells |>
    dplyr::transmute(
      panel = paste("Measured:", setup), send_buffer, recv_buffer,
      throughput_mbit = mean_mbit, abnormal
    )
  dplyr::bind_rows(published, measured) |>
    dplyr::mutate(
      panel = factor(panel, levels = unique(panel)),
      send = factor(buffer_label(send_buffer), levels = rev(unique(buffer_label(sort(unique(send_buffer)))))),
      recv = buffer_factor(recv_buffer),
      label = fmt_num(throughput_mbit, 2)
    )
}

# Equal send and receive buffers (Fig 3): measured per setup and published
# (named `label`).
equal_buffer_rows <- function(cells, matrix, transfers, label) {
  published <- matrix |>
    dplyr::filter(send_buffer == recv_buffer) |>
    dplyr::transmute(source = label, buffer = send_buffer, throughput_mbit)
  measured <- cells |>
    dplyr::filter(send_buffer == recv_buffer) |>
    dplyr::transmute(source = setup, buffer = send_buffer, throughput_mbit = mean_mbit)
  points <- transfers |>
    dplyr::filter(send_buffer == recv_buffer) |>
    dplyr::transmute(source = setup, backend, buffer = send_buffer, throughput_mbit)
  list(lines = dplyr::bind_rows(published, measured), points = points)
}

# Measurements of the cells with a lockstep mechanism value, and those values.
lockstep_rows <- function(classified_transfers, cells) {
  mechanism <- dplyr::filter(cells, !is.na(lockstep_mbit))
  keys <- c("setup", "send_buffer", "recv_buffer")
  points <- dplyr::semi_join(classified_transfers, mechanism, by = keys)
  list(
    points = dplyr::mutate(points,
      cell = paste0(buffer_label(send_buffer), "/", buffer_label(recv_buffer))
    ),
    mechanism = dplyr::mutate(mechanism,
      cell = paste0(buffer_label(send_buffer), "/", buffer_label(recv_buffer)),
      low = (1 - lockstep_band) * lockstep_mbit, high = (1 + lockstep_band) * lockstep_mbit
    )
  )
}

# The packet trace of the circular wait; NULL when absent. A trace may hold
# several backends' runs (optional column backend; "not recorded" when
# absent); rule is empty in traces captured from an emulated run.
read_trace <- function(results_dir, paper, experiment) {
  path <- file.path(experiment_dir(results_dir, paper, experiment), "trace.csv")
  data <- read_contract_csv(path, trace_required)
  if (is.null(data)) {
    return(NULL)
  }
  if (!"backend" %in% names(data)) {
    data$backend <- NA_character_
  }
  dplyr::mutate(data,
    dplyr::across(c(t_ms, seq, len, ack, win), as.numeric),
    direction = tolower(direction),
    backend = dplyr::coalesce(dplyr::na_if(backend, ""), "not recorded"),
    rule = dplyr::coalesce(dplyr::na_if(rule, ""), "not recorded")
  )
}

# Trace rows shaped for a time-sequence plot: data segments as vertical bars
# from seq to seq + len, ACKs as the acknowledged edge and the window's right
# edge (ack + win), all relative to the first data octet of each backend's
# run.
trace_shapes <- function(trace) {
  trace <- trace |>
    dplyr::group_by(backend) |>
    dplyr::mutate(origin = first_data_octet(seq, direction)) |>
    dplyr::ungroup()
  data <- trace |>
    dplyr::filter(direction == "data") |>
    dplyr::transmute(backend, t_ms, from = seq - origin, to = seq - origin + len, len, rule)
  acks <- trace |>
    dplyr::filter(direction == "ack") |>
    dplyr::transmute(
      backend, t_ms,
      acked = ack - origin, window_edge = ack - origin + win, rule
    )
  list(data = data, acks = acks)
}

first_data_octet <- function(seq, direction) {
  data_seq <- seq[direction == "data" & !is.na(seq)]
  if (length(data_seq) == 0) 0 else min(data_seq)
}

# Per backend of a trace: packets, data segments, ACKs, time span, and
# whether the sender's rules were recorded.
trace_summary <- function(trace) {
  trace |>
    dplyr::group_by(backend) |>
    dplyr::summarise(
      packets = dplyr::n(),
      data = sum(direction == "data"),
      acks = sum(direction == "ack"),
      span_ms = diff(range(t_ms, na.rm = TRUE)),
      rules_recorded = any(rule != "not recorded"),
      .groups = "drop"
    )
}

# Cells measured both in virtual time and in emulation
# (compare_backends()), labelled for plot_backend_pairs(): x is the receive
# buffer, one panel per send buffer (and testbed, when there are several).
cell_comparison_labels <- function(comparison) {
  testbed <- testbed_label(comparison$link, comparison$stack, comparison$host)
  send <- paste("send", buffer_label(comparison$send_buffer))
  panel <- if (dplyr::n_distinct(testbed) > 1) paste0(testbed, ": ", send) else send
  ordering <- order(testbed, comparison$send_buffer)
  dplyr::mutate(comparison,
    testbed = testbed,
    recv = buffer_factor(recv_buffer),
    panel = factor(panel, levels = unique(panel[ordering]))
  )
}

# The appendix figure that plots a send buffer's row, by our reading: Figs 9 to 13 take the
# send buffers of the published matrix (`rows`) two at a time, in order, Fig 9(a) being the 16K
# row as Sec 4.2 says; e.g. "Fig 9(a)".
appendix_figure <- function(send_buffer, rows) {
  i <- match(send_buffer, sort(unique(rows))) - 1
  panel <- c("a", "b")[i %% 2 + 1]
  dplyr::if_else(is.na(i), NA_character_, paste0("Fig ", 9 + i %/% 2, "(", panel, ")"))
}

# Per setup and send-buffer row of cells (count_transfer_classes()): its appendix figure, the
# cells and transfers, how many transfers the rule calls abnormal, and of the transfers of cells
# with a lockstep rate how many ran at it.
appendix_rows <- function(cells, rows) {
  cells |>
    dplyr::filter(!is.na(transfers_abnormal)) |>
    dplyr::group_by(setup, send_buffer) |>
    dplyr::summarise(
      cells = dplyr::n(), transfers = sum(measurements), abnormal = sum(transfers_abnormal),
      with_rate = sum(measurements[!is.na(lockstep_mbit)]),
      at_rate = sum(transfers_at_lockstep[!is.na(lockstep_mbit)]), .groups = "drop"
    ) |>
    dplyr::mutate(figure = appendix_figure(send_buffer, rows), .before = 1)
}

# Per experiment (the names of cells_by_experiment, each matrix_cells()) and receive buffer of
# the send row `send`: its transfers, how many the rule calls abnormal (lockstep), their share,
# and the mean rate of the others (streaming), so that a row's cells show how they split under
# each host model.
row_lock_shares <- function(cells_by_experiment, send) {
  purrr::imap(cells_by_experiment, function(cells, name) {
    dplyr::filter(cells, send_buffer == send) |>
      dplyr::transmute(
        experiment = name, setup, recv_buffer, transfers = measurements,
        locked = transfers_abnormal, locked_pct = 100 * locked / transfers,
        streaming_mbit = streaming_mean_mbit
      )
  }) |>
    dplyr::bind_rows()
}
