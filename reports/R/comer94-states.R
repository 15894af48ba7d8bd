# comer94 beyond Table 1: the sender's states of Fig 8 from the packet traces,
# the Ethernet matrix of Sec 5 and the ftp comparison of Sec 1.

# Data segments of a trace (len > 0), per backend, each with the octets still
# unacknowledged when it left: the highest ACK captured before it. A segment
# sent behind another unacknowledged one is pipelined (the sender streams);
# one sent with everything acknowledged followed a wait for an ACK.
trace_segments <- function(trace) {
  trace |>
    dplyr::group_by(backend) |>
    dplyr::arrange(t_ms, .by_group = TRUE) |>
    dplyr::mutate(
      acked = cummax(dplyr::if_else(direction == "ack", dplyr::coalesce(ack, 0), 0))
    ) |>
    dplyr::filter(direction == "data", len > 0) |>
    dplyr::mutate(
      outstanding = pmax(seq - acked, 0),
      pipelined = outstanding > 0,
      index = dplyr::row_number()
    ) |>
    dplyr::ungroup()
}

# One text per data segment: its rule and length, and whether it followed an
# ACK wait; the units of the state sequences.
segment_pattern <- function(rule, len, pipelined) {
  paste0(rule, " ", len, dplyr::if_else(pipelined, " behind another", " after all ACKed"))
}

# Run-length encoding of each backend's segment patterns in sending order:
# one row per run, with its first segment and length.
segment_runs <- function(segments) {
  segments |>
    dplyr::mutate(pattern = segment_pattern(rule, len, pipelined)) |>
    dplyr::group_by(dplyr::across(dplyr::any_of(c("pair", "backend")))) |>
    dplyr::mutate(run = cumsum(pattern != dplyr::lag(pattern, default = ""))) |>
    dplyr::group_by(run, .add = TRUE) |>
    dplyr::summarise(
      pattern = pattern[1], first = min(index), segments = dplyr::n(), .groups = "drop"
    )
}

# A sequence of runs in words, e.g. "S2 4096 after all ACKed → S3 8192 ... ×127",
# keeping the first `keep` runs and the longest one.
runs_text <- function(runs, keep = 6) {
  shown <- unique(c(utils::head(seq_len(nrow(runs)), keep), which.max(runs$segments)))
  text <- paste0(
    runs$pattern[shown], dplyr::if_else(runs$segments[shown] > 1, paste0(" \u00d7", runs$segments[shown]), "")
  )
  gaps <- c(diff(shown) > 1, FALSE)
  paste0(text, dplyr::if_else(gaps, " \u2192 \u2026", ""), collapse = " \u2192 ")
}

# Per backend of one trace: data segments, share of data octets each rule
# sent (NA when the capture has no rules: emulated runs), share of segments
# sent behind another, and the median segment length.
trace_pair_stats <- function(segments) {
  segments |>
    dplyr::group_by(backend) |>
    dplyr::summarise(
      data_segments = dplyr::n(),
      rules_recorded = any(rule != "not recorded"),
      s1_octet_share = 100 * sum(len[rule == "S1"]) / sum(len),
      s2_octet_share = 100 * sum(len[rule == "S2"]) / sum(len),
      s3_octet_share = 100 * sum(len[rule == "S3"]) / sum(len),
      pipelined_share = 100 * mean(pipelined),
      median_len = stats::median(len),
      .groups = "drop"
    ) |>
    dplyr::mutate(dplyr::across(
      c(s1_octet_share, s2_octet_share, s3_octet_share),
      function(share) dplyr::if_else(rules_recorded, share, NA_real_)
    ))
}

# The traced buffer pairs of Fig 8: for each experiment with both a trace and
# transfers, its segments and statistics labelled with the pair and keyed by
# the setup of the backend that traced it (for claims). NULL when none
# (a trace whose backend no transfer shares counts as none).
read_state_pairs <- function(results_dir, paper, experiments) {
  pairs <- purrr::map(experiments, function(experiment) {
    trace <- read_trace(results_dir, paper, experiment)
    transfers <- read_transfers(results_dir, paper, experiment)
    if (is.null(trace) || is.null(transfers)) {
      return(NULL)
    }
    keys <- dplyr::distinct(transfers, backend, setup, host, send_buffer, recv_buffer) |>
      dplyr::mutate(pair = paste0(buffer_label(send_buffer), "/", buffer_label(recv_buffer)))
    segments <- dplyr::inner_join(trace_segments(trace), keys, by = "backend")
    if (nrow(segments) == 0) {
      return(NULL)
    }
    list(
      trace = dplyr::inner_join(trace, dplyr::select(keys, backend, pair), by = "backend"),
      segments = segments,
      stats = dplyr::inner_join(trace_pair_stats(segments), keys, by = "backend")
    )
  })
  pairs <- Filter(Negate(is.null), pairs)
  if (length(pairs) == 0) {
    return(NULL)
  }
  list(
    trace = dplyr::bind_rows(purrr::map(pairs, "trace")),
    segments = dplyr::bind_rows(purrr::map(pairs, "segments")),
    stats = dplyr::bind_rows(purrr::map(pairs, "stats"))
  )
}

# Ladder rows for the side-by-side drawing of Fig 8: the packets of each
# pair's trace (column pair) in its first `window_ms` after the first data
# segment, placed on a sender (x = 0) to receiver (x = 1) ladder. Data
# segments leave the sender at their capture time; ACKs reach it at theirs,
# so each arrow is drawn `slant_ms` long.
ladder_rows <- function(trace, window_ms, slant_ms) {
  trace |>
    dplyr::group_by(pair) |>
    dplyr::mutate(origin = min(t_ms[direction == "data" & len > 0])) |>
    dplyr::ungroup() |>
    dplyr::filter(
      t_ms >= origin, t_ms <= origin + window_ms, (direction == "data" & len > 0) | direction == "ack"
    ) |>
    dplyr::mutate(
      t_ms = t_ms - origin,
      x = dplyr::if_else(direction == "data", 0, 1),
      xend = 1 - x,
      y = dplyr::if_else(direction == "data", t_ms, t_ms - slant_ms),
      yend = dplyr::if_else(direction == "data", t_ms + slant_ms, t_ms),
      label = dplyr::if_else(direction == "data", paste(rule, len), rule)
    )
}

# Claims are judged on the table of the experiment(s) they name: `tables` is
# a list named by the claims file's `experiments` text (e.g. "table1"); a
# claim whose table is absent (NULL) or empty gets "no data". `transfers`, named
# the same way, holds the transfers behind a table's cells, for the intervals; fits, the host
# models' fitted figures (R/fitted.R).
evaluate_claims_by_experiment <- function(claims, tables, transfers = list(), fits = no_fits()) {
  empty <- tibble::tibble(setup = character(), send_buffer = numeric(), recv_buffer = numeric())
  purrr::map(unique(claims$experiments), function(experiments) {
    table <- tables[[experiments]]
    if (is.null(table)) {
      table <- empty
    }
    evaluate_cell_claims(
      dplyr::filter(claims, .data$experiments == !!experiments), table, transfers[[experiments]],
      fits, "comer94"
    )
  }) |>
    dplyr::bind_rows() |>
    dplyr::arrange(match(claim_id, claims$claim_id))
}

# comer94's claims, each judged on the experiments its claims-file row names. Table 1's cells
# come from tables$transfers, so that the sensitivity section can judge a variant's transfers
# the same way; the other experiments' tables from measured (circular_wait, state_pairs,
# ethernet_cells, ethernet_transfers, ftp_cells) and Table 1's rule and published side from
# fraction and published (matrix_published()); fits, the host models' fitted figures
# (read_host_fits()).
judge_comer94 <- function(tables, claims, measured, fraction, published, fits = no_fits()) {
  table1_transfers <- dplyr::filter(tables$transfers, experiment == "table1")
  evaluate_claims_by_experiment(claims, list(
    "table1" = matrix_cells(table1_transfers, fraction, published),
    "circular-wait" = measured$circular_wait,
    "fig8-16k16k; fig8-16k20k" = measured$state_pairs[["stats"]],
    "ethernet" = measured$ethernet_cells,
    "ftp-ethernet; ftp-atm" = measured$ftp_cells
  ), transfers = list(
    "table1" = table1_transfers,
    "ethernet" = measured$ethernet_transfers
  ), fits)
}

# Heat-map panels of a measured matrix alone (no published matrix), with
# sizes that are not whole Kbytes written in octets.
measured_panels <- function(cells) {
  send_levels <- unique(octet_label(sort(unique(cells$send_buffer))))
  recv_levels <- unique(octet_label(sort(unique(cells$recv_buffer))))
  cells |>
    dplyr::transmute(
      panel = factor(paste("Measured:", setup)), send_buffer, recv_buffer,
      throughput_mbit = mean_mbit, abnormal,
      send = factor(octet_label(send_buffer), levels = rev(send_levels)),
      recv = factor(octet_label(recv_buffer), levels = recv_levels),
      label = fmt_num(throughput_mbit, 2)
    )
}

# The ftp rates of the paper (reference/comer94-ftp.csv) as octets per
# delayed-ACK tick, under both readings of "Mb/s", against the batches a
# lockstep can move per tick (`batches`, named). The nearest batch under each
# reading, and how far off it is.
ftp_batches <- function(ftp, batches, tick_ms, paper_megabit_bits) {
  readings <- c("10^6 bits" = 1e6, "2^20 bits (Table 1's)" = paper_megabit_bits)
  tidyr::expand_grid(ftp, reading = names(readings)) |>
    dplyr::mutate(
      octets_per_tick = published_mbit * readings[reading] / 8 * tick_ms / 1000,
      nearest = names(batches)[purrr::map_int(octets_per_tick, function(o) which.min(abs(batches - o)))],
      nearest_octets = unname(batches[nearest]),
      off_pct = 100 * (octets_per_tick / nearest_octets - 1)
    )
}

# Measured cells (any write size) whose mean lies within `tolerance_pct` of
# `target_mbit` (10^6-bit megabits): which buffer pairs and writes would give
# the rate.
cells_near_rate <- function(cells_by_write, target_mbit, tolerance_pct) {
  purrr::imap(cells_by_write, function(cells, write) dplyr::mutate(cells, write_size = write)) |>
    dplyr::bind_rows() |>
    dplyr::mutate(off_pct = 100 * (mean_mbit / target_mbit - 1)) |>
    dplyr::filter(abs(off_pct) <= tolerance_pct) |>
    dplyr::arrange(abs(off_pct))
}

read_ftp_reference <- function(path) {
  readr::read_csv(path,
    col_types = readr::cols(published_mbit = "d", file_octets = "d", .default = "c"),
    progress = FALSE
  )
}

# The backend whose traces a figure draws: one that recorded the rules (the
# Tahoe stack's segment log) when there is one, else the first.
drawn_backend <- function(stats) {
  with_rules <- stats$backend[stats$rules_recorded]
  if (length(with_rules) > 0) sort(with_rules)[1] else sort(stats$backend)[1]
}

# The state sequence of each traced pair and backend (runs_text()).
state_sequences <- function(segments) {
  runs <- segment_runs(segments)
  purrr::map(split(runs, list(runs$pair, runs$backend), drop = TRUE), function(r) {
    tibble::tibble(pair = r$pair[1], backend = r$backend[1], sequence = runs_text(r))
  }) |>
    dplyr::bind_rows()
}

# The published ftp rate (Mb/s as printed) over each network.
ftp_rate <- function(ftp, network) {
  ftp$published_mbit[match(network, ftp$network)]
}

ftp_required <- c("experiment", "link", "stack", "backend", "window", "bytes", "throughput_mbit", "run_id")

# The ftp transfers (mftp, one row per transfer) of the listed experiments;
# NULL when none has results.
read_ftp_transfers <- function(results_dir, paper, experiments) {
  rows <- purrr::map(experiments, function(experiment) {
    read_contract_csv(
      file.path(experiment_dir(results_dir, paper, experiment), "results.csv"), ftp_required,
      tool = "mftp"
    )
  })
  rows <- dplyr::bind_rows(Filter(Negate(is.null), rows))
  if (nrow(rows) == 0) {
    return(NULL)
  }
  add_setup(rows)
}

# One row per link of each testbed without its link (stack, backend, host), so
# that a claim compares the links within one setup. The window stands in as
# both buffers for cell_claim_rows().
ftp_cells <- function(transfers) {
  transfers |>
    dplyr::mutate(setup = paste("ftp:", testbed_label(stack, backend, host))) |>
    dplyr::group_by(setup, host, link, window) |>
    dplyr::summarise(
      transfers = dplyr::n(), mean_mbit = mean(throughput_mbit),
      min_mbit = min(throughput_mbit), max_mbit = max(throughput_mbit), .groups = "drop"
    ) |>
    dplyr::mutate(send_buffer = window, recv_buffer = window)
}

# The segment sequence of Figs 5 and 6 (reference/comer94-circular-wait.csv): step, phase
# (opening, entry, lockstep), len_octets and the sender rule of each.
read_circular_wait_reference <- function(path) {
  readr::read_csv(path,
    col_types = readr::cols(step = "i", len_octets = "d", .default = "c"), progress = FALSE
  ) |>
    dplyr::arrange(step)
}

# TRUE where a segment's recorded rule is the published one; a capture without rules (an
# emulated run) is judged on lengths and timing alone.
rule_matches <- function(recorded, published) {
  recorded == "not recorded" | recorded == published
}

# Share (%) of the published opening steps that the first data segments of one trace (sorted
# by time) repeat: the same length and, where recorded, the same rule.
opening_share <- function(segments, opening) {
  first <- utils::head(segments, nrow(opening))
  matched <- first$len == opening$len_octets[seq_len(nrow(first))] &
    rule_matches(first$rule, opening$rule[seq_len(nrow(first))])
  100 * sum(matched) / nrow(opening)
}

# The cycles of one trace (sorted by time) from its circular wait to the end: the first segment
# of the published entry length sent with everything acknowledged is the entry; each data segment
# after it is a cycle, but for the transfer's last one, which carries whatever remained. A cycle
# follows the published sequence when its segment is the lockstep batch, left with everything
# acknowledged and one timer tick (within `band`) after the segment before it; after the entry
# the wait for the timer is anywhere up to a tick. No entry: no cycle follows (share 0).
lockstep_cycles <- function(segments, entry, lockstep, tick_ms, band) {
  at <- which(segments$len == entry$len_octets & !segments$pipelined &
    rule_matches(segments$rule, entry$rule))
  if (length(at) == 0) {
    return(tibble::tibble(entry_ms = NA_real_, cycles = 0L, following = 0L, share = 0))
  }
  first <- at[1]
  after <- seq_len(nrow(segments) - 1)
  after <- after[after > first]
  gap <- segments$t_ms[after] - segments$t_ms[after - 1]
  on_tick <- dplyr::if_else(
    after == first + 1, gap <= (1 + band) * tick_ms,
    gap >= (1 - band) * tick_ms & gap <= (1 + band) * tick_ms
  )
  follows <- segments$len[after] == lockstep$len_octets & !segments$pipelined[after] &
    rule_matches(segments$rule[after], lockstep$rule) & on_tick
  tibble::tibble(
    entry_ms = segments$t_ms[first], cycles = length(after), following = sum(follows),
    share = if (length(after) == 0) NA_real_ else 100 * mean(follows)
  )
}

# Per traced pair and backend (trace_segments() of read_state_pairs(), keyed by setup and
# buffers): opening_match, the share of Fig 5's opening_steps the transfer repeats, and
# circular_wait_share, the share of its cycles from the entry of Fig 6 to the end that follow
# the published lockstep (lockstep_cycles()), with the cycles it rests on.
circular_wait_stats <- function(segments, sequence, tick_ms, band = lockstep_band) {
  opening <- dplyr::filter(sequence, phase == "opening")
  entry <- dplyr::filter(sequence, phase == "entry")
  lockstep <- dplyr::filter(sequence, phase == "lockstep")
  keys <- c("pair", "backend", "setup", "host", "send_buffer", "recv_buffer")
  keys <- intersect(keys, names(segments))
  segments |>
    dplyr::group_by(dplyr::across(dplyr::all_of(keys))) |>
    dplyr::group_modify(function(s, key) {
      s <- s[order(s$t_ms), ]
      cycles <- lockstep_cycles(s, entry[1, ], lockstep[1, ], tick_ms, band)
      dplyr::bind_cols(
        tibble::tibble(opening_match = opening_share(s, opening), opening_steps = nrow(opening)),
        dplyr::rename(cycles, circular_wait_share = share)
      )
    }) |>
    dplyr::ungroup()
}

# The first data segments of each traced pair and backend as "len rule" texts, e.g.
# "4096 S2, 9148 S1, 3140 S2".
opening_segments_text <- function(segments, n) {
  segments |>
    dplyr::group_by(pair, backend) |>
    dplyr::arrange(t_ms, .by_group = TRUE) |>
    dplyr::slice_head(n = n) |>
    dplyr::summarise(opening = paste(len, rule, collapse = ", "), .groups = "drop")
}

# The circular-wait section's table: per traced pair and backend, its opening beside Fig 5's
# (the reference sequence), where it entered the wait of Fig 6 and how many of its cycles
# followed the lockstep (circular_wait_stats()).
circular_wait_rows <- function(segments, stats, sequence) {
  opening <- dplyr::filter(sequence, phase == "opening")
  entry <- dplyr::filter(sequence, phase == "entry")
  published <- paste(opening$len_octets, opening$rule, collapse = ", ")
  first <- opening_segments_text(segments, nrow(opening))
  dplyr::left_join(stats, first, by = c("pair", "backend")) |>
    dplyr::transmute(
      Pair = pair, Backend = backend,
      !!paste0("First segments (Fig 5: ", published, ")") := opening,
      `Opening matched (%)` = fmt_num(opening_match),
      !!paste0("Entry: ", entry$len_octets[1], " octets at") := dplyr::if_else(
        is.na(entry_ms), "none", paste(fmt_num(entry_ms), "ms")
      ),
      `Cycles that follow the lockstep` = paste(following, "of", cycles)
    )
}
