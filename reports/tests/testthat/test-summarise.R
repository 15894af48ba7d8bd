test_that("loss is pooled over datagrams, not averaged over messages", {
  expect_equal(pooled_loss_pct(c(10, 2), c(10, 0)), 100 * 2 / 12)
  expect_equal(pooled_loss_pct(c(4, 4), c(4, 4)), 0)
})

test_that("loss is NA when no datagram was sent (TCP)", {
  expect_true(is.na(pooled_loss_pct(c(0, 0), c(0, 0))))
})

test_that("size summaries take RTT quantiles over complete echoes only", {
  data <- dplyr::bind_rows(
    echo_rows("udp", 8192, c(1, 2, 3, NA), datagrams = 1, returned = c(1, 1, 1, 0)),
    echo_rows("tcp", 8192, c(5, 7))
  )
  sizes <- summarise_sizes(data)
  udp <- dplyr::filter(sizes, mode == "udp")
  expect_equal(udp$echoes, 4)
  expect_equal(udp$rtt_n, 3)
  expect_equal(udp$rtt_median, 2)
  expect_equal(udp$rtt_min, 1)
  expect_equal(udp$rtt_max, 3)
  expect_equal(udp$loss_pct, 25)
  tcp <- dplyr::filter(sizes, mode == "tcp")
  expect_equal(tcp$rtt_median, 6)
  expect_true(is.na(tcp$loss_pct))
})

test_that("a size where nothing came back has NA RTT but a loss", {
  data <- echo_rows("udp", 81920, c(NA, NA), datagrams = 10, returned = c(2, 3))
  sizes <- summarise_sizes(data)
  expect_true(is.na(sizes$rtt_median))
  expect_equal(sizes$loss_pct, 75)
})

test_that("trial summaries keep one row per trial", {
  data <- dplyr::bind_rows(
    echo_rows("udp", 100, c(1, 3), datagrams = 1, trial = 1),
    echo_rows("udp", 100, c(10, 30), datagrams = 1, trial = 2)
  )
  trials <- summarise_trials(data)
  expect_equal(nrow(trials), 2)
  expect_equal(trials$rtt_median, c(2, 20))
})

test_that("coverage counts trials, echoes and complete share", {
  data <- dplyr::bind_rows(
    echo_rows("udp", 100, c(1, NA), datagrams = 1, returned = c(1, 0), trial = 1),
    echo_rows("udp", 200, c(1, 2), datagrams = 1, trial = 2)
  )
  coverage <- summarise_coverage(data)
  expect_equal(coverage$sizes, 2)
  expect_equal(coverage$trials, 2)
  expect_equal(coverage$echoes_per_trial, 2)
  expect_equal(coverage$complete_pct, 75)
})
