# A hand-made trace of a 10000-octet receive buffer: a round of 6000 octets acknowledged at
# once (2000 left unread), a round of 3000 acknowledged only by the timer, and a last,
# unacknowledged segment.
toy_round_trace <- function() {
  tibble::tibble(
    t_ms = c(0, 1, 2, 3, 4, 5, 205, 206),
    direction = c("ack", "data", "data", "ack", "data", "data", "ack", "data"),
    len = c(0, 4000, 2000, 0, 1000, 2000, 0, 500),
    win = c(10000, 10000, 10000, 8000, 10000, 10000, 10000, 10000),
    rule = c("ctl", "S2", "S1", "R2", "S2", "S1", "acknow", "S2")
  )
}

test_that("sender_rounds closes each round at the receiver's next ACK", {
  rounds <- sender_rounds(toy_round_trace(), 10000)
  expect_equal(rounds$octets, c(6000, 3000))
  expect_equal(rounds$ack_ms, c(3, 205))
  expect_equal(rounds$wait_ms, c(1, 200))
  expect_equal(rounds$rule, c("R2", "acknow"))
  expect_equal(rounds$unread_before, c(0, 2000))
})

test_that("sender_rounds of a trace without data is empty", {
  trace <- dplyr::filter(toy_round_trace(), direction == "ack")
  expect_equal(nrow(sender_rounds(trace, 10000)), 0)
})

test_that("round_summary finds the first wait for the timer and the thresholds", {
  summary <- round_summary(sender_rounds(toy_round_trace(), 10000), 10000, 3000, 35, 200)
  expect_equal(summary$waited, 1)
  expect_equal(summary$first_wait_ms, 205)
  expect_equal(summary$before, "6,000")
  expect_equal(summary$after, "6,000")
  expect_equal(summary$short, "3,000")
  expect_equal(summary$short_with_unread, "5,000")
  expect_equal(summary$r2_octets, 3500)
  expect_equal(round_summary(sender_rounds(toy_round_trace(), 10001), 10001, 3000, 35, 200)$r2_octets, 3501)
  expect_equal(summary$r1_octets, 6000)
})

test_that("k01_rounds_html names the missing mechanism only for waits in an unshaded cell", {
  rounds <- sender_rounds(toy_round_trace(), 10000)
  summary <- round_summary(rounds, 10000, 3000, 35, 200)
  waiting <- k01_rounds_html(summary, "20K/36K", "sim", 1.5, 14, FALSE)
  expect_match(waiting, "Missing mechanism")
  expect_match(waiting, "1 of 2 rounds waited")
  expect_match(waiting, "leaves the cell unshaded")
  shaded <- k01_rounds_html(summary, "20K/40K", "sim", 1.5, 1.1, TRUE)
  expect_no_match(shaded, "Missing mechanism")
  expect_match(shaded, "1 of 2 rounds waited")
  streaming <- k01_rounds_html(round_summary(rounds[1, ], 10000, 3000, 35, 200), "20K/36K", "sim", 14, 14, FALSE)
  expect_no_match(streaming, "Missing mechanism")
  expect_match(streaming, "no round of the sender waits")
})

test_that("k01_section_html writes one paragraph per traced backend, beside its own cell", {
  trace <- toy_round_trace()
  traced <- list(
    stats = tibble::tibble(
      backend = c("sim", "linkemu"), pair = "20K/36K", send_buffer = 20480, recv_buffer = 10000
    ),
    trace = dplyr::bind_rows(
      dplyr::mutate(trace, backend = "sim"),
      dplyr::mutate(trace[c(1:4, 8), ], backend = "linkemu")
    )
  )
  cells <- tibble::tibble(
    setup = c("a", "b", "a"), send_buffer = c(20480, 20480, 16384), recv_buffer = 10000,
    mean_mbit = c(1.5, 99, 99), published_si_mbit = c(14, 99, 99), shaded = c(FALSE, TRUE, TRUE)
  )
  html <- k01_section_html(traced, cells, "a", 3000, 35, 200)
  expect_length(html, 2)
  expect_match(html[1], "Missing mechanism.*\\(sim\\)")
  expect_match(html[1], "at 1.5 Mb/s in Table 1 here and at 14 ")
  expect_match(html[2], "\\(linkemu\\) no round of the sender waits")
  expect_equal(k01_section_html(list(stats = traced$stats[0, ], trace = trace), cells, "a", 3000, 35, 200),
               character())
})
