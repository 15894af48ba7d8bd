# A hand-made 16K/16K trace: two 8K segments, an update from tcp_input
# offering 7128 octets, the full update, a segment by S2, an update after the
# first 4K read (12288) and a last segment by S3.
toy_update_trace <- function() {
  tibble::tibble(
    pair = "16K/16K", backend = "sim", recv_buffer = 16384,
    t_ms = c(0, 1, 4, 7.5, 8, 9, 13, 14),
    direction = c("ack", "data", "data", "ack", "ack", "data", "ack", "data"),
    seq = c(0, 1, 8193, 0, 0, 16385, 0, 20481),
    len = c(0, 8192, 8192, 0, 0, 4096, 0, 8192),
    ack = c(1, 0, 0, 16385, 16385, 0, 20481, 0),
    win = c(16384, 16384, 16384, 7128, 16384, 16384, 12288, 16384),
    rule = c("ctl", "S3", "S3", "R2", "R2", "S2", "R2", "S3")
  )
}

test_that("each update is classed by the window it offers", {
  expect_equal(
    update_class(c(16384, 12288, 8192, 7128), 16384),
    c("the whole buffer", "half or more, not all", "half or more, not all", "less than half")
  )
})

test_that("an update is timed from the newest segment it acknowledges and followed by the next rule", {
  u <- window_updates(toy_update_trace())
  expect_equal(u$win, c(7128, 16384, 12288))
  expect_equal(u$since_segment_ms, c(3.5, 4, 4))
  expect_equal(u$next_rule, c("S2", "S2", "S3"))
})

test_that("the summary counts updates and the rules after them per class", {
  s <- update_summary(window_updates(toy_update_trace()))
  expect_equal(as.character(s$class), c("the whole buffer", "half or more, not all", "less than half"))
  expect_equal(s$updates, c(1, 1, 1))
  expect_equal(s$next_s3, c(0, 1, 0))
  expect_equal(s$next_s2, c(1, 0, 1))
})

test_that("an ACK after the last segment has no next rule", {
  tr <- dplyr::bind_rows(toy_update_trace(), tibble::tibble(
    pair = "16K/16K", backend = "sim", recv_buffer = 16384, t_ms = 18, direction = "ack",
    seq = 0, len = 0, ack = 28673, win = 16384, rule = "R2"
  ))
  u <- window_updates(tr)
  expect_true(is.na(dplyr::last(u$next_rule)))
})
