# milliner's metrics and report, on small hand-made summaries and the synthetic fixture.

ipc_sizes <- function(curve, message_bytes, throughput_mbit, ...) {
  tibble::tibble(
    setup = "tahoe sim", experiment = "x", curve = curve, message_bytes = message_bytes,
    million_bytes = message_bytes / 1e6, throughput_mbit = throughput_mbit,
    elapsed_s = message_bytes * 8 / (throughput_mbit * 1e6), ...
  )
}

test_that("max_reliable_unack is the last k before the first loss", {
  rows <- tibble::tibble(unack = 1:8, completed = c(rep(TRUE, 7), FALSE),
                         retransmissions = c(0, 0, 0, 0, 0, 0, 3, 0))
  expect_equal(milliner_metrics$max_reliable_unack(rows, character()), 6)
  rows$retransmissions <- 0
  rows$completed <- TRUE
  expect_equal(milliner_metrics$max_reliable_unack(rows, character()), 8)
})

test_that("fall_ratio compares the sizes nearest 10 and 20 million bytes", {
  rows <- ipc_sizes("tcp", c(10, 15, 20) * 1048576, c(9, 4, 2))
  expect_equal(milliner_metrics$fall_ratio(rows, character()), 9 / 2)
  rows <- ipc_sizes("tcp", c(10, 19) * 1048576, c(9, 1.5))
  expect_equal(milliner_metrics$fall_ratio(rows, character()), 6)
})

test_that("paging_onset is the first size that paged, Inf when none did", {
  rows <- ipc_sizes("tcp", c(11, 12, 13) * 1e6, c(9, 9, 3), pageins = c(0, 5, 9), pageouts = 0)
  expect_equal(milliner_metrics$paging_onset(rows, character()), 12)
  rows$pageins <- 0
  expect_equal(milliner_metrics$paging_onset(rows, character()), Inf)
})

test_that("protocol_order checks every size", {
  rows <- ipc_sizes(rep(c("a", "b"), 2), rep(c(1, 2), each = 2), c(9, 8, 7, 8))
  expect_equal(milliner_metrics$protocol_order(rows, c("a", "b")), 50)
})

test_that("summarise_ipc's coefficient of variation uses the repeats", {
  messages <- tibble::tibble(
    setup = "s", experiment = "e", mode = "tcp", curve = "c", segment = NA, unack = NA, buffer = 1,
    message_bytes = 1, million_bytes = 1e-6, completed = TRUE, elapsed_s = c(1, 1),
    throughput_mbit = c(9, 11), retransmissions = 0, a_pageins = 0, b_pageins = 0,
    a_pageouts = 0, b_pageouts = 0, trial = 1, medium_frames = NA_real_, medium_collisions = NA_real_
  )
  expect_equal(summarise_ipc(messages)$cv_pct, 100 * stats::sd(c(9, 11)) / 10)
})

test_that("max_collision_pct pools each curve's runs and takes the worst curve", {
  rows <- ipc_sizes(c("tcp", "tcp", "udp"), c(1, 2, 1) * 1e6, c(6, 6, 9),
                    medium_frames = c(100, 300, 1000), medium_collisions = c(10, 50, 0))
  expect_equal(milliner_metrics$max_collision_pct(rows, character()), 100 * 60 / 400)
  rows$medium_frames <- NA_real_
  expect_true(is.na(milliner_metrics$max_collision_pct(rows, character())))
})

test_that("summarise_ipc counts each run's collisions once, whatever its messages", {
  messages <- tibble::tibble(
    setup = "s", experiment = "e", mode = "tcp", curve = "c", segment = NA, unack = NA, buffer = 1,
    message_bytes = 1, million_bytes = 1e-6, completed = TRUE, elapsed_s = 1,
    throughput_mbit = 9, retransmissions = 0, a_pageins = 0, b_pageins = 0,
    a_pageouts = 0, b_pageouts = 0, trial = c(1, 1, 2), medium_frames = c(50, 50, 70),
    medium_collisions = c(5, 5, 7)
  )
  got <- summarise_ipc(messages)
  expect_equal(c(got$medium_frames, got$medium_collisions), c(120, 12))
})

test_that("a milliner verdict counts the sizes it rests on, whatever its modes column names", {
  rows <- tibble::tibble(
    setup = "s", experiment = "udp-segments-1024", mode = "udp", curve = "c",
    segment = rep(c(1024, 8192), 3), message_bytes = rep(c(1e6, 2e6, 3e6), each = 2),
    elapsed_s = rep(c(2, 1), 3)
  )
  claim <- one_claim(
    experiments = "udp-segments-1024", metric = "largest_segment_fastest", modes = NA_character_,
    check = "at_least", target = 100, partly_tolerance = 50
  )
  got <- evaluate_claim(claim, rows, metrics = milliner_metrics)
  expect_equal(got$measured, 100)
  expect_equal(got$n, 3)
})
