# Hand-made summarised points (summarise_points' columns) of one setup.
analysis_points <- function(experiment, ..., mean_mbit, elapsed_s = 10, timeouts = 0, runs = 10) {
  sweep <- utils::modifyList(
    list(connections = 1, window = 24576, added_rtt_ms = 200, cell_loss_ratio = 0),
    list(...)
  )
  tibble::tibble(
    experiment = experiment, setup = "s", !!!sweep, mean_mbit = mean_mbit,
    elapsed_s = elapsed_s, timeouts = timeouts, runs = runs
  )
}

constants <- c(mss_octets = 9148, n16_rtt200_mbit = 8.5)

test_that("whole segments of a window are its segmented window", {
  expect_equal(whole_segments_octets(24576, 9148), 18296)
  expect_equal(whole_segments_octets(9000, 9148), 0)
})

test_that("k and segments per RTT come from the most connections of each RTT", {
  w_bits <- 18296 * 8
  points <- analysis_points("fig6",
    connections = c(1, 16, 16), added_rtt_ms = c(200, 200, 500),
    mean_mbit = c(9, 0.5 * 16 * w_bits / 0.2 / 1e6, 16 * w_bits / 0.5 / 1e6)
  )
  rows <- k_by_rtt_rows(points, constants, "fig6")
  expect_equal(rows$source, c("fig6", "fig6", "paper"))
  expect_equal(rows$k[1:2], c(0.5, 1))
  expect_equal(rows$segments_per_rtt[1:2], c(1, 2))
  expect_equal(rows$k[3], 8.5e6 * 0.2 / (16 * w_bits), tolerance = 1e-12)
  expect_equal(nrow(k_by_rtt_rows(points, constants, "fig7")), 1)
})

test_that("a timeout's cost is the time over the error-free transfer, per timeout", {
  points <- dplyr::bind_rows(
    analysis_points("fig6",
      connections = c(1, 16), added_rtt_ms = 0, mean_mbit = 32, elapsed_s = 40
    ),
    analysis_points("cell-loss",
      connections = c(1, 8, 16), added_rtt_ms = 0, cell_loss_ratio = 1e-4,
      mean_mbit = c(2, 10, 16), elapsed_s = c(240, 100, 80), timeouts = c(100, 50, 40)
    )
  )
  rows <- rtt0_loss_rows(points)
  expect_equal(rows$connections, c(1, 16))
  expect_equal(rows$timeouts_per_transfer, c(10, 4))
  expect_equal(rows$s_per_timeout, c(2, 1))
  expect_equal(rows$gain_pct, c(700, 700))
  expect_equal(nrow(rtt0_loss_rows(dplyr::filter(points, experiment == "fig6"))), 0)
})

test_that("Table 2 shares are each aggregate over n times its series' one connection", {
  reference <- tibble::tibble(
    total_window_kbytes = c(64, 128, 64), series = c("multi", "multi", "single"),
    published_kbps = c(800, 1200, 800)
  )
  points <- analysis_points("table2-multi", connections = c(1, 2), mean_mbit = c(0.5, 1))
  rows <- table2_share_rows(points, reference)
  expect_equal(rows$n, c(1, 2))
  expect_equal(rows$published_share_pct, c(100, 75))
  expect_equal(rows$published_per_conn_kbps, c(800, 600))
  expect_equal(rows$measured_share_pct, c(100, 100))
  expect_equal(rows$measured_per_conn_kbps, c(500, 500))
  variant <- dplyr::bind_rows(
    points,
    analysis_points("table2-multi-reorder1", connections = c(1, 2), mean_mbit = c(0.5, 0.6))
  )
  bounded <- table2_share_rows(variant, reference, experiment = "table2-multi-reorder1")
  expect_equal(bounded$measured_share_pct, c(100, 60))
  expect_equal(table2_share_rows(variant, reference)$measured_share_pct, c(100, 100))
})
