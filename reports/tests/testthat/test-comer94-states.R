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
    metric = c("pipelined_share", "pipelined_share"),
    send_min_bytes = NA_real_, send_max_bytes = NA_real_,
    recv_min_bytes = NA_real_, recv_max_bytes = NA_real_,
    check = "at_most", target = 10, tolerance = 0, partly_tolerance = 25
  )
  table <- tibble::tibble(setup = "s", send_buffer = 1, recv_buffer = 2, pipelined_share = 20)
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
