# A hand-made trace: two segments in flight, then one sent after all was ACKed.
# The first row is the handshake's ACK.
toy_state_trace <- function(rule = c("ctl", "S2", "S3", "R2", "S3", "R2", "S2")) {
  tibble::tibble(
    backend = "sim",
    t_ms = c(0.5, 1, 2, 3, 4, 5, 6),
    direction = c("ack", "data", "data", "ack", "data", "ack", "data"),
    seq = c(0, 1, 4097, 0, 12289, 0, 20481),
    len = c(0, 4096, 8192, 0, 8192, 0, 8192),
    ack = c(1, 0, 0, 4097, 0, 20481, 0),
    win = 16384,
    rule = rule
  )
}

test_that("segments behind unacknowledged data count as pipelined", {
  segments <- trace_segments(toy_state_trace())
  expect_equal(segments$outstanding, c(0, 4096, 8192, 0))
  expect_equal(segments$pipelined, c(FALSE, TRUE, TRUE, FALSE))
})

test_that("pair statistics share data octets by rule, and need recorded rules", {
  stats <- trace_pair_stats(trace_segments(toy_state_trace()))
  expect_equal(stats$s3_octet_share, 100 * 16384 / 28672)
  expect_equal(stats$pipelined_share, 50)
  emulated <- trace_pair_stats(trace_segments(toy_state_trace(rule = "not recorded")))
  expect_true(is.na(emulated$s3_octet_share))
  expect_equal(emulated$pipelined_share, 50)
})

test_that("state sequences run-length encode the segment patterns", {
  segments <- dplyr::mutate(trace_segments(toy_state_trace()), pair = "16K/16K")
  runs <- segment_runs(segments)
  expect_equal(runs$segments, c(1, 2, 1))
  expect_equal(runs$pattern[2], "S3 8192 behind another")
  text <- state_sequences(segments)$sequence
  expect_match(text, "S3 8192 behind another \u00d72", fixed = TRUE)
  expect_match(text, "^S2 4096 after all ACKed")
})

test_that("ladder rows start at the first data segment and slant each arrow", {
  rows <- ladder_rows(dplyr::mutate(toy_state_trace(), pair = "p"), window_ms = 3, slant_ms = 0.5)
  expect_equal(rows$t_ms, c(0, 1, 2, 3))
  ack <- dplyr::filter(rows, direction == "ack")
  expect_equal(c(ack$x, ack$y, ack$yend), c(1, 1.5, 2))
})

test_that("claims are judged on the table their experiments name", {
  claims <- tibble::tibble(
    claim_id = c("A", "B"), figure = "Fig 8", experiments = c("t", "absent"),
    metric = c("s3_octet_share", "s3_octet_share"),
    send_min_bytes = NA_real_, send_max_bytes = NA_real_,
    recv_min_bytes = NA_real_, recv_max_bytes = NA_real_,
    check = "at_most", target = 10, tolerance = 0, partly_tolerance = 25
  )
  table <- tibble::tibble(setup = "s", send_buffer = 1, recv_buffer = 2, s3_octet_share = 20)
  evaluated <- evaluate_claims_by_experiment(claims, list(t = table))
  expect_equal(as.character(evaluated$verdict), c("partly", "no data"))
  expect_equal(evaluated$measured[1], 20)
})

test_that("the ATM over Ethernet ratio compares links within one setup", {
  transfers <- tibble::tibble(
    experiment = "e", link = c("ethernet-10", "ethernet-10", "atm-taxi-100"), stack = "tahoe",
    backend = "sim", host = "h", window = 16384, bytes = 4.4e6, throughput_mbit = c(4, 6, 1),
    run_id = "r"
  )
  cells <- ftp_cells(transfers)
  expect_equal(nrow(cells), 2)
  expect_equal(cell_metrics$atm_over_ethernet(cells), 20)
  expect_true(is.na(cell_metrics$atm_over_ethernet(cells[cells$link == "atm-taxi-100", ])))
})

test_that("a timer-bound rate names its batch under each megabit", {
  ftp <- tibble::tibble(network = "atm", published_mbit = 9148 * 8 / 0.2 / 1e6)
  implied <- ftp_batches(ftp, c(eight = 8192, mss = 9148), 200, 2^20)
  expect_equal(implied$nearest, c("mss", "mss"))
  expect_equal(unname(implied$off_pct[1]), 0)
  expect_gt(implied$off_pct[2], 4)
})

test_that("measured cells near a rate are found at any write size", {
  cell <- function(recv, mean) tibble::tibble(setup = "s", send_buffer = 16384, recv_buffer = recv, mean_mbit = mean)
  cells <- list("4K" = cell(c(24576, 36864), c(0.33, 0.47)), "1K" = cell(16384, 15))
  near <- cells_near_rate(cells, 0.366, 10)
  expect_equal(near$recv_buffer, 24576)
  expect_equal(near$write_size, "4K")
})

test_that("sizes that are not whole Kbytes keep their octets", {
  expect_equal(octet_label(c(4096, 4380, 52428)), c("4K", "4380 octets", "51K"))
})

# Fig 5's opening, Fig 6's entry and lockstep, as reference/comer94-circular-wait.csv has them.
circular_sequence <- function() {
  read_circular_wait_reference(file.path(reports_dir, "reference", "comer94-circular-wait.csv"))
}

# Data segments (trace_segments()'s columns) at times t_ms, each with everything acknowledged
# unless pipelined.
cycle_segments <- function(t_ms, len, rule = "S2", pipelined = FALSE) {
  tibble::tibble(backend = "sim", t_ms = t_ms, len = len, rule = rule, pipelined = pipelined)
}

test_that("the circular-wait sequence is Fig 5's opening, Fig 6's entry and an 8K lockstep", {
  sequence <- circular_sequence()
  expect_equal(sequence$phase, c("opening", "opening", "opening", "entry", "lockstep"))
  expect_equal(sequence$rule, c("S2", "S1", "S2", "S2", "S2"))
  # The leftover of Fig 5 is 12K less an MSS, and the entry of Fig 6 that leftover plus a block.
  expect_equal(sequence$len_octets[3], 12288 - sequence$len_octets[2])
  expect_equal(sequence$len_octets[4], sequence$len_octets[3] + sequence$len_octets[1])
})

test_that("the opening counts segments of the published length and, where logged, rule", {
  opening <- dplyr::filter(circular_sequence(), phase == "opening")
  segments <- cycle_segments(1:4, c(4096, 9148, 3140, 7236), c("S2", "S1", "S2", "S2"))
  expect_equal(opening_share(segments, opening), 100)
  expect_equal(opening_share(dplyr::mutate(segments, rule = c("S2", "S3", "S2", "S2")), opening), 100 * 2 / 3)
  expect_equal(opening_share(dplyr::mutate(segments, rule = "not recorded"), opening), 100)
  expect_equal(opening_share(segments[1, ], opening), 100 / 3)
})

test_that("lockstep cycles start at the entry, keep to the tick and leave out the tail", {
  sequence <- circular_sequence()
  entry <- dplyr::filter(sequence, phase == "entry")
  lockstep <- dplyr::filter(sequence, phase == "lockstep")
  # Entry at 10 ms, the first batch 150 ms later (the timer's phase), then one a tick, a tail.
  segments <- cycle_segments(c(5, 10, 160, 360, 561, 563), c(9148, 7236, 8192, 8192, 8192, 4096))
  cycles <- lockstep_cycles(segments, entry, lockstep, 200, 0.1)
  expect_equal(c(cycles$entry_ms, cycles$cycles, cycles$following, cycles$share), c(10, 3, 3, 100))
  # A batch that leaves early, one behind unacknowledged data, one of another length.
  early <- dplyr::mutate(segments, t_ms = c(5, 10, 160, 300, 501, 503))
  expect_equal(lockstep_cycles(early, entry, lockstep, 200, 0.1)$following, 2)
  behind <- dplyr::mutate(segments, pipelined = c(FALSE, FALSE, FALSE, TRUE, FALSE, FALSE))
  expect_equal(lockstep_cycles(behind, entry, lockstep, 200, 0.1)$share, 100 * 2 / 3)
  other <- dplyr::mutate(segments, len = c(9148, 7236, 8192, 12288, 8192, 4096))
  expect_equal(lockstep_cycles(other, entry, lockstep, 200, 0.1)$following, 2)
  # An entry sent behind unacknowledged data is no entry: no cycle follows.
  none <- lockstep_cycles(dplyr::mutate(segments, pipelined = c(FALSE, TRUE, FALSE, FALSE, FALSE, FALSE)),
    entry, lockstep, 200, 0.1)
  expect_equal(c(none$cycles, none$share), c(0, 0))
  # The transfer ends at the entry: nothing to judge.
  expect_true(is.na(lockstep_cycles(segments[1:3, ], entry, lockstep, 200, 0.1)$share))
})

test_that("circular-wait statistics come per pair and backend, and the metrics read them", {
  segments <- dplyr::bind_rows(
    cycle_segments(c(1, 5, 10, 80, 280, 480, 482), c(4096, 9148, 3140, 7236, 8192, 8192, 4096),
      c("S2", "S1", "S2", "S2", "S2", "S2", "fin")),
    dplyr::mutate(cycle_segments(c(1, 2, 3), c(4096, 4096, 4096)), backend = "linkemu")
  ) |>
    dplyr::mutate(pair = "16K/24K", setup = paste0("s-", backend), send_buffer = 16384, recv_buffer = 24576)
  stats <- circular_wait_stats(segments, circular_sequence(), 200)
  sim <- dplyr::filter(stats, backend == "sim")
  expect_equal(c(sim$opening_match, sim$circular_wait_share, sim$cycles), c(100, 100, 2))
  emulated <- dplyr::filter(stats, backend == "linkemu")
  expect_equal(c(emulated$opening_match, emulated$circular_wait_share), c(100 / 3, 0))
  # Pooled over cycles: a trace without the entry adds none.
  expect_equal(as.numeric(cell_metrics$circular_wait_share(stats)), 100)
  expect_equal(attr(cell_metrics$circular_wait_share(stats), "n"), 2)
  expect_equal(as.numeric(cell_metrics$circular_wait_share(emulated)), 0)
  expect_equal(as.numeric(cell_metrics$opening_match(sim)), 100)
  expect_equal(attr(cell_metrics$opening_match(sim), "n"), 3)
  expect_true(is.na(cell_metrics$opening_match(tibble::tibble(setup = "s"))))
  expect_true(is.na(cell_metrics$circular_wait_share(tibble::tibble(setup = "s"))))
})

test_that("the circular-wait claims are judged on the trace's statistics", {
  claims <- read_claims(file.path(reports_dir, "reference", "comer94-claims.csv"), cell_metrics) |>
    dplyr::filter(claim_id %in% c("K21", "K22"))
  stats <- tibble::tibble(
    setup = "s", send_buffer = 16384, recv_buffer = 24576, opening_match = 100, opening_steps = 3,
    cycles = 20, following = 9, circular_wait_share = 45
  )
  evaluated <- evaluate_claims_by_experiment(claims, list("circular-wait" = stats))
  expect_equal(as.character(evaluated$verdict), c("reproduced", "not reproduced"))
  expect_equal(evaluated$n_of, c("opening segments", "cycles"))
})

test_that("the circular-wait table sets the trace's opening beside Fig 5's", {
  segments <- cycle_segments(c(1, 5, 10, 80), c(4096, 9148, 3140, 7236), c("S2", "S1", "S2", "S2")) |>
    dplyr::mutate(pair = "16K/24K")
  expect_equal(opening_segments_text(segments, 3)$opening, "4096 S2, 9148 S1, 3140 S2")
  stats <- tibble::tibble(
    pair = "16K/24K", backend = "sim", opening_match = 100, entry_ms = c(80), cycles = 0L, following = 0L
  )
  rows <- circular_wait_rows(segments, stats, circular_sequence())
  expect_equal(rows[[3]], "4096 S2, 9148 S1, 3140 S2")
  expect_match(names(rows)[3], "Fig 5: 4096 S2, 9148 S1, 3140 S2", fixed = TRUE)
  expect_equal(rows[[5]], "80 ms")
  expect_equal(rows$`Cycles that follow the lockstep`, "0 of 0")
  expect_equal(circular_wait_rows(segments, dplyr::mutate(stats, entry_ms = NA_real_), circular_sequence())[[5]], "none")
})
