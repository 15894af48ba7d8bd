test_that("max_loss takes the worst size over the listed modes", {
  sizes <- dplyr::bind_rows(
    size_rows("udp", c(1000, 2000), sent = 10, back = c(10, 9)),
    size_rows("udp-cooled", c(1000, 2000), sent = 10, back = c(8, 10)),
    size_rows("tcp", c(1000, 2000), rtt = 1)
  )
  expect_equal(as.numeric(claim_metrics$max_loss(sizes, "udp")), 10)
  expect_equal(as.numeric(claim_metrics$max_loss(sizes, c("udp", "udp-cooled"))), 20)
  expect_true(is.na(claim_metrics$max_loss(sizes, "tcp")))
})

test_that("pooled_loss pools datagrams across sizes", {
  sizes <- size_rows("udp", c(1, 2), sent = c(10, 30), back = c(10, 10))
  expect_equal(as.numeric(claim_metrics$pooled_loss(sizes, "udp")), 50)
  expect_true(is.na(claim_metrics$pooled_loss(sizes, "udp-cooled")))
})

test_that("relative RTT differences pair modes size by size", {
  sizes <- dplyr::bind_rows(
    size_rows("a", c(1, 2, 3), rtt = c(11, 24, 39)),
    size_rows("b", c(1, 2, 3), rtt = c(10, 20, 30))
  )
  expect_equal(claim_metrics$rtt_rel_diff_median(sizes, c("a", "b")), 20)
  expect_equal(claim_metrics$rtt_abs_rel_diff_max(sizes, c("b", "a")), 100 * (1 - 30 / 39))
  expect_equal(claim_metrics$rtt_abs_rel_diff_median(sizes, c("b", "a")), 100 * (1 - 20 / 24))
})

test_that("sizes without an RTT in one mode are left out of comparisons", {
  sizes <- dplyr::bind_rows(
    size_rows("a", c(1, 2), rtt = c(12, NA)),
    size_rows("b", c(1, 2), rtt = c(10, 10))
  )
  expect_equal(claim_metrics$rtt_rel_diff_median(sizes, c("a", "b")), 20)
  only_missing <- dplyr::bind_rows(
    size_rows("a", 2, rtt = NA), size_rows("b", 2, rtt = 10)
  )
  expect_true(is.na(claim_metrics$rtt_rel_diff_median(only_missing, c("a", "b"))))
})

test_that("share_faster counts sizes where the first mode wins", {
  sizes <- dplyr::bind_rows(
    size_rows("udp", 1:4, rtt = c(1, 2, 5, 3)),
    size_rows("tcp", 1:4, rtt = c(2, 3, 4, 4))
  )
  expect_equal(claim_metrics$share_faster(sizes, c("udp", "tcp")), 75)
})

test_that("gap_trend is positive for a widening gap and negative for a closing one", {
  widening <- dplyr::bind_rows(
    size_rows("udp", 1:4, rtt = c(1, 2, 3, 4)),
    size_rows("tcp", 1:4, rtt = c(2, 4, 6, 8))
  )
  closing <- dplyr::bind_rows(
    size_rows("udp", 1:4, rtt = c(1, 2, 3, 4)),
    size_rows("tcp", 1:4, rtt = c(5, 5, 5, 5))
  )
  expect_equal(claim_metrics$gap_trend(widening, c("udp", "tcp")), 1)
  expect_equal(claim_metrics$gap_trend(closing, c("udp", "tcp")), -1)
  expect_true(is.na(claim_metrics$gap_trend(widening[c(1, 5), ], c("udp", "tcp"))))
})

test_that("rtt_linearity is 1 for a line and lower for a jagged curve", {
  line <- size_rows("c", 1:5, rtt = 2 * (1:5) + 1)
  jagged <- size_rows("c", 1:5, rtt = c(1, 9, 2, 8, 3))
  expect_equal(claim_metrics$rtt_linearity(line, "c"), 1)
  expect_lt(claim_metrics$rtt_linearity(jagged, "c"), 0.5)
})

test_that("dispersion_ratio compares relative spreads on shared sizes", {
  sizes <- dplyr::bind_rows(
    size_rows("c", 1:2, rtt = 10, q25 = 9, q75 = 11),
    size_rows("u", 1:3, rtt = 10, q25 = c(6, 6, 0), q75 = c(14, 14, 100))
  )
  expect_equal(claim_metrics$dispersion_ratio(sizes, c("c", "u")), 0.25)
})

test_that("loss_diff and min_pooled_loss compare the modes' pooled losses", {
  sizes <- dplyr::bind_rows(
    size_rows("udp-cooled", c(1, 2), sent = 10, back = c(10, 8)),
    size_rows("udp", c(1, 2), sent = 10, back = c(5, 5))
  )
  expect_equal(as.numeric(claim_metrics$loss_diff(sizes, c("udp-cooled", "udp"))), 10 - 50)
  expect_equal(as.numeric(claim_metrics$min_pooled_loss(sizes, c("udp", "udp-cooled"))), 10)
  expect_true(is.na(claim_metrics$min_pooled_loss(sizes, c("udp", "tcp"))))
})

test_that("complete_share counts echoes that came back whole", {
  sizes <- size_rows("udp", c(1, 2), sent = 10, back = 5) |>
    dplyr::mutate(echoes = c(10, 30), complete_echoes = c(1, 3))
  expect_equal(as.numeric(claim_metrics$complete_share(sizes, "udp")), 10)
  expect_true(is.na(claim_metrics$complete_share(sizes[0, ], "udp")))
})

test_that("loss_trend takes the weaker mode and needs three sizes", {
  sizes <- dplyr::bind_rows(
    size_rows("udp", 1:4, sent = 10, back = c(10, 8, 6, 4)),
    size_rows("udp-cooled", 1:4, sent = 10, back = c(10, 6, 8, 4))
  )
  expect_equal(claim_metrics$loss_trend(sizes, "udp"), 1)
  expect_equal(claim_metrics$loss_trend(sizes, c("udp", "udp-cooled")), 0.8)
  expect_true(is.na(claim_metrics$loss_trend(sizes[1:2, ], "udp")))
})

test_that("recommendations follow loss first, then cooled speed against TCP", {
  table2 <- tibble::tibble(
    network = "n", size_class = c("small", "large"), size_min_bytes = c(NA, 100),
    size_max_bytes = c(99, NA), experiments = "e", recommended = c("UDP/TCP", "TCP"),
    acceptable_loss_pct = 10
  )
  sizes <- dplyr::bind_rows(
    size_rows("udp", c(10, 200), rtt = 1, sent = 10, back = c(10, 2), experiment = "e"),
    size_rows("udp-cooled", c(10, 200), rtt = c(1, 2), sent = 10, back = c(10, 10), experiment = "e"),
    size_rows("tcp", c(10, 200), rtt = c(1, 3), experiment = "e")
  )
  derived <- derive_recommendations(sizes, table2, 10)
  expect_equal(derived$derived, c("UDP/TCP", "cooled UDP"))
  expect_equal(claim_metrics$table2_agreement(sizes, character(), extra = list(
    table2 = table2, acceptable_loss_pct = 10
  )), 50)
  slow_cooled <- dplyr::mutate(sizes, rtt_median = dplyr::if_else(mode == "udp-cooled", 9, rtt_median))
  expect_equal(derive_recommendations(slow_cooled, table2, 10)$derived, c("UDP/TCP", "TCP"))
  expect_equal(nrow(derive_recommendations(sizes[0, ], table2, 10)), 0)
})

test_that("ttcp metrics read the UDP levels and the TCP throughput", {
  ttcp <- tibble::tibble(
    setup = "s", experiment = "t", proto = c("udp", "udp", "udp", "udp", "tcp"),
    cool_iterations = c(0, 10, 20, 40, NA), transfers = 1,
    throughput_mbit = c(80, 60, 30, 18, 20), loss_pct = c(60, 30, 8, 2, NA)
  )
  extra <- list(ttcp = ttcp, acceptable_loss_pct = 10)
  expect_equal(as.numeric(claim_metrics$ttcp_loss_trend(NULL, "udp", extra = extra)), -1)
  expect_equal(as.numeric(claim_metrics$ttcp_throughput_trend(NULL, "udp", extra = extra)), -1)
  ratio <- claim_metrics$ttcp_ratio_at_acceptable(NULL, "udp", extra = extra)
  expect_equal(as.numeric(ratio), 1.5)
  # What the verdict rests on: the transfers (the UDP level's and TCP's), not message sizes.
  expect_equal(c(attr(ratio, "n"), attr(ratio, "n_of")), c("2", "transfers"))
  expect_equal(attr(claim_metrics$ttcp_loss_trend(NULL, "udp", extra = extra), "n"), 4)
  never <- list(ttcp = dplyr::mutate(ttcp, loss_pct = 50), acceptable_loss_pct = 10)
  expect_true(is.na(claim_metrics$ttcp_ratio_at_acceptable(NULL, "udp", extra = never)))
  expect_true(is.na(claim_metrics$ttcp_loss_trend(NULL, "udp", extra = list())))
})

test_that("ttcp transfers are summarised with pooled loss per cooling length", {
  transfers <- tibble::tibble(
    setup = "s", link = "l", stack = "kernel", backend = "b", experiment = "t", proto = "udp",
    cool_iterations = c(5, 5, 10),
    throughput_mbit = c(10, 20, 5), datagrams_sent = c(100, 100, 50),
    datagrams_received = c(100, 50, 50)
  )
  summary <- summarise_ttcp(transfers)
  expect_equal(summary$throughput_mbit, c(15, 5))
  expect_equal(summary$loss_pct, c(25, 0))
})
