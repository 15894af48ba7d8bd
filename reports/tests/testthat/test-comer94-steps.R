# A hand-made lockstep trace: each 8192-octet segment waits for the ACK of the
# one before it (the ACK 4 ms after the segment, the next segment 2 ms later).
toy_lockstep_trace <- function() {
  tibble::tibble(
    pair = "16K/20K", backend = "sim",
    t_ms = c(0, 1, 5, 7, 11, 13),
    direction = c("ack", "data", "ack", "data", "ack", "data"),
    seq = c(0, 1, 0, 8193, 0, 16385),
    len = c(0, 8192, 0, 8192, 0, 8192),
    ack = c(1, 0, 8193, 0, 16385, 0)
  )
}

# Two segments in flight: the second leaves before the first is acknowledged.
toy_stream_trace <- function() {
  tibble::tibble(
    pair = "16K/16K", backend = "sim",
    t_ms = c(0, 1, 2, 3, 4, 5),
    direction = c("ack", "data", "data", "ack", "data", "ack"),
    seq = c(0, 1, 8193, 0, 16385, 0),
    len = c(0, 8192, 8192, 0, 8192, 0),
    ack = c(1, 0, 0, 8193, 0, 24577)
  )
}

test_that("segment steps time each segment to its ACK and the ACK to the next segment", {
  steps <- segment_steps(toy_lockstep_trace())
  expect_equal(steps$to_ack_ms, c(4, 4, NA))
  expect_equal(steps$ack_to_next_ms, c(2, 2, NA))
  expect_equal(steps$lockstep, c(TRUE, TRUE, FALSE))
})

test_that("a segment sent behind an unacknowledged one is no lockstep step", {
  steps <- segment_steps(toy_stream_trace())
  expect_equal(steps$lockstep, c(FALSE, FALSE, FALSE))
  expect_equal(steps$to_ack_ms, c(2, 3, 1))
})

test_that("the summary gives the time per block and the median lockstep step", {
  steps <- segment_steps(dplyr::bind_rows(toy_lockstep_trace(), toy_stream_trace()))
  summary <- step_summary(steps)
  lock <- dplyr::filter(summary, pair == "16K/20K")
  expect_equal(lock$ms_per_block, 6)
  expect_equal(lock$lockstep_steps, 2)
  expect_equal(lock$step_ms, 6)
  stream <- dplyr::filter(summary, pair == "16K/16K")
  expect_equal(stream$ms_per_block, 1.5)
  expect_equal(stream$lockstep_steps, 0)
  expect_true(is.na(stream$step_ms))
})

test_that("the published time per block follows the paper's megabit", {
  table1 <- tibble::tibble(send_buffer = c(16384, 16384), recv_buffer = c(16384, 20480),
                           throughput_mbit = c(16, 8))
  expect_equal(published_ms_per_block(table1, 16384, 20480, 2^20), 1e3 * 8192 * 8 / (8 * 2^20))
  expect_equal(published_ms_per_block(table1, c(16384, 16384), c(16384, 20480), 1e6, 4096),
               c(2.048, 4.096))
  expect_true(is.na(published_ms_per_block(table1, 20480, 20480, 1e6)))
})
