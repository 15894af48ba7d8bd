# Hand-made MFTP points of one setup and host, as summarise_points() gives them; ...
# overrides the sweep columns.
mftp_points <- function(experiment, ..., mean_mbit, setup = "s", host = "h") {
  sweep <- utils::modifyList(
    list(connections = 1, window = 24576, added_rtt_ms = 100, cell_loss_ratio = 0, bit_error_ratio = 0),
    list(...)
  )
  tibble::tibble(
    experiment = experiment, setup = setup, host = host, !!!sweep,
    mean_mbit = mean_mbit, elapsed_s = 1, bytes = 1e6, retransmitted = 0, runs = 1
  )
}

test_that("W' is the smallest window on the 24K window's step", {
  fig7 <- mftp_points("fig7", window = c(8, 16, 18, 20, 24, 28) * 1024, mean_mbit = c(0.7, 1.4, 1.5, 1.5, 1.51, 2.2))
  expect_equal(fit_segmented_window(fig7), 18 * 1024)
  expect_true(is.na(fit_segmented_window(dplyr::filter(fig7, window != 24576))))
})

test_that("k is recovered from points built as k*N*W'/D", {
  grid <- tidyr::expand_grid(connections = 1:4, added_rtt_ms = c(200, 500))
  fig6 <- mftp_points("fig6",
    connections = grid$connections, added_rtt_ms = grid$added_rtt_ms,
    mean_mbit = 0.6 * grid$connections * 18432 * 8 / (grid$added_rtt_ms / 1000) / 1e6
  )
  expect_equal(fit_k(fig6, 18432), 0.6)
  expect_equal(fit_k(fig6, 2 * 18432), 0.3)
})

test_that("table 1 coverage counts only ranges whose both ends were swept", {
  table1 <- tibble::tibble(column = c("connections", "added_rtt_ms"), low = c(1, 0), high = c(16, 500))
  points <- mftp_points("fig6", connections = c(1, 16), added_rtt_ms = c(0, 500), mean_mbit = 1)
  expect_equal(as.numeric(mftp_metrics$table1_coverage(points, list(table1 = table1))), 100)
  short <- dplyr::mutate(points, added_rtt_ms = c(0, 300))
  expect_equal(as.numeric(mftp_metrics$table1_coverage(short, list(table1 = table1))), 50)
})

test_that("packet error rate converts cells and bits of one packet", {
  constants <- c(cells_per_packet = 2, bits_per_packet = 10)
  expect_equal(packet_error_rate(0.5, 0, constants), 0.75)
  expect_equal(packet_error_rate(0, 0.1, constants), 1 - 0.9^10)
})

test_that("Table 2's shape metrics read multi growth and single change", {
  ref <- list(table2 = tibble::tibble(
    total_window_kbytes = c(64, 512, 64, 512), series = c("multi", "multi", "single", "single"),
    published_kbps = NA_real_
  ))
  points <- dplyr::bind_rows(
    mftp_points("table2-multi", connections = c(1, 8), window = 65535, mean_mbit = c(0.5, 1)),
    mftp_points("table2-single", window = c(65535, 524288), mean_mbit = c(0.5, 0.45))
  )
  expect_equal(as.numeric(mftp_metrics$table2_multi_growth(points, ref)), 100)
  expect_equal(as.numeric(mftp_metrics$table2_single_change(points, ref)), -10)
  expect_equal(as.numeric(mftp_metrics$table2_multi_wins(points, ref)), 100)
  expect_equal(as.numeric(mftp_metrics$table2_multi_512k_kbps(points, ref)), 1000)
  expect_equal(as.numeric(mftp_metrics$table2_single_64k_kbps(points, ref)), 500)
})

test_that("each Table 2 column sets the connections against the one window-scaled connection", {
  points <- dplyr::bind_rows(
    mftp_points("table2-multi", connections = c(1, 8), window = 65535, mean_mbit = c(0.5, 1)),
    mftp_points("table2-single", window = c(65535, 524288), mean_mbit = c(0.5, 0.4))
  )
  expect_equal(as.numeric(mftp_metrics$table2_ratio_64k(points, list())), 1)
  expect_equal(as.numeric(mftp_metrics$table2_ratio_512k(points, list())), 2.5)
  expect_equal(attr(mftp_metrics$table2_ratio_512k(points, list()), "n"), 2)
  expect_true(is.na(mftp_metrics$table2_ratio_128k(points, list())))
  reference <- tibble::tibble(
    total_window_kbytes = c(64, 512, 64, 512), series = c("multi", "multi", "single", "single"),
    published_kbps = c(762, 1465, 762, 747)
  )
  rows <- table2_ratio_rows(dplyr::mutate(points, setup = "s"), reference)
  expect_equal(rows$published_ratio, c(1, 1465 / 747))
  expect_equal(rows$measured_ratio, c(1, 2.5))
  expect_equal(nrow(table2_ratio_rows(dplyr::mutate(points, setup = "s")[0, ], reference)), 2)
})

test_that("claims are judged per setup that ran them, and say no data otherwise", {
  claims <- tibble::tibble(
    claim_id = c("A", "B"), figure = "Sec 2", source = "", claim = "", published = "",
    experiments = c("sec2", "fig7"), metric = c("sec2_mbit", "sec2_mbit"), check = "about",
    target = 2, tolerance = 0.2, partly_tolerance = 0.5, unit = "Mb/s", target_basis = ""
  )
  points <- dplyr::bind_rows(
    mftp_points("sec2", mean_mbit = 2.1, setup = "atm"),
    mftp_points("other", mean_mbit = 9, setup = "eth")
  )
  evaluated <- evaluate_mftp_claims(claims, points, list())
  expect_equal(as.character(evaluated$verdict), c("reproduced", "no data"))
  expect_equal(evaluated$setup, c("atm", NA))
})

test_that("max_or_na and weighted_or_na give NA where there is nothing to take", {
  expect_equal(max_or_na(c(3, 7)), 7)
  expect_true(is.na(max_or_na(double())))
  expect_equal(weighted_or_na(c(1, 3, NA), c(1, 3, 5)), 2.5)
  expect_true(is.na(weighted_or_na(c(1, 2), c(0, NA))))
})

test_that("experiments not run summarise to no points", {
  dir <- withr::local_tempdir()
  none <- read_mftp(dir, "ishikura", c("table2-multi-reorder1", "fig6-reorder1"))
  expect_equal(nrow(none), 0)
  expect_true(all(recovery_keys %in% names(none)))
  expect_equal(nrow(summarise_points(none)), 0)
})

test_that("the report's synthetic fixture renders with a verdict for every claim", {
  dir <- withr::local_tempdir()
  make_synthetic_ishikura(dir, repeats = 2)
  transfers <- read_mftp(dir, "ishikura", c("fig6", "table2-multi", "table2-single"))
  expect_setequal(unique(transfers$experiment), c("fig6", "table2-multi", "table2-single"))
  expect_false(anyNA(transfers$cell_loss_ratio))
  points <- summarise_points(transfers)
  expect_equal(nrow(dplyr::filter(points, experiment == "fig6")), 80)
  claims <- tibble::tibble(
    claim_id = "N", figure = "Fig 6", source = "", claim = "", published = "",
    experiments = "fig6", metric = "n16_rtt200_mbit", check = "at_least",
    target = 0, tolerance = 0, partly_tolerance = 0, unit = "Mb/s", target_basis = ""
  )
  judged <- judge_ishikura(list(transfers = transfers), claims, list())
  expect_equal(judged, evaluate_mftp_claims(claims, points, list()))
  expect_false(is.na(judged$measured))
  without <- judge_ishikura(list(transfers = dplyr::filter(transfers, experiment != "fig6")), claims, list())
  expect_equal(as.character(without$verdict), "no data")
})

test_that("the report renders from synthetic data with a verdict for every claim and ends with provenance", {
  results <- withr::local_tempdir()
  out <- withr::local_tempdir()
  make_synthetic_ishikura(results, repeats = 2)
  output <- suppressWarnings(system2(
    file.path(R.home("bin"), "Rscript"), c(file.path(reports_dir, "render.R"), "ishikura", results, out),
    stdout = TRUE, stderr = TRUE
  ))
  expect_null(attr(output, "status"), info = paste(output, collapse = "\n"))
  html <- paste(readLines(file.path(out, "ishikura.html"), warn = FALSE), collapse = "\n")
  expect_match(html, "SYNTHETIC DATA", fixed = TRUE)
  headings <- regmatches(html, gregexpr("<h2>[^<]+</h2>", html, perl = TRUE))[[1]]
  expect_equal(utils::tail(headings, 1), "<h2>Provenance</h2>")
  card <- readr::read_csv(file.path(out, "ishikura-scorecard.csv"), show_col_types = FALSE)
  claims <- read_claims(file.path(reports_dir, "reference", "ishikura-claims.csv"), mftp_metrics)
  expect_setequal(card$claim_id, claims$claim_id)
  expect_false(any(card$verdict == "no data"))
})

test_that("a point counts its receiver's stalls per transfer and the most it held ahead", {
  transfers <- tibble::tibble(
    experiment = "table2-multi-reorder1", setup = "s", run_id = c("a", "a", "b"), connections = 4,
    window = 65535, added_rtt_ms = 200, cell_loss_ratio = 0, bit_error_ratio = 3e-7,
    throughput_mbit = 1, elapsed_s = 1, bytes = 1, retransmitted_packets = 0, retransmit_timeouts = 0,
    recoveries = NA_real_, recoveries_cut = NA_real_, recoveries_unfinished = NA_real_,
    recovery_s = NA_real_, recovery_rtts = NA_real_, recovery_formula_rtts = NA_real_,
    reorder_stalls = c(2, 4, 9), held_ahead_max = c(32768, 16384, 24576)
  )
  point <- summarise_points(transfers)
  expect_equal(point$stalls_per_transfer, 5)
  expect_equal(point$held_ahead_max, 32768)
  # Results from before mftp counted them: no count, not a zero.
  older <- summarise_points(dplyr::select(transfers, -reorder_stalls, -held_ahead_max))
  expect_true(is.na(older$stalls_per_transfer) && is.na(older$held_ahead_max))
})

test_that("Fig 1 pairs n connections of W with one of n*W and weighs Tr by recoveries", {
  transfers <- tibble::tibble(
    experiment = c("fig1-multi", "fig1-multi", "fig1-single", "fig1-single"),
    setup = "s", run_id = c("m1", "m1", "s1", "s2"), connections = c(4, 4, 1, 1),
    window = c(24576, 24576, 98304, 98304), added_rtt_ms = 200, cell_loss_ratio = 1.5e-5,
    bit_error_ratio = 0, throughput_mbit = 1, elapsed_s = 1, bytes = 1,
    retransmitted_packets = 0, retransmit_timeouts = 0,
    recoveries = c(4, 4, 1, 3), recoveries_cut = c(0, 0, 2, 0), recoveries_unfinished = c(0, 0, 1, 1),
    recovery_s = c(0.4, 0.4, 2, 4),
    recovery_rtts = c(2, 2, 10, 20), recovery_formula_rtts = c(1.77, 1.77, 7.8, 7.8)
  )
  points <- summarise_points(transfers)
  single <- dplyr::filter(points, experiment == "fig1-single")
  # One row per session: s1's one recovery at 2 s, s2's three at 4 s.
  expect_equal(single$recoveries, 4)
  expect_equal(single$recoveries_cut, 2)
  expect_equal(single$recoveries_unfinished, 2)
  expect_equal(single$recovery_s, 3.5)
  expect_equal(dplyr::filter(points, experiment == "fig1-multi")$recoveries, 4)
  pairs <- recovery_pairs(points)
  expect_equal(pairs$n, 4)
  expect_equal(pairs$measured_ratio, 3.5 / 0.4)
  ratio <- mftp_metrics$recovery_ratio_per_n(points, list())
  expect_equal(as.numeric(ratio), 3.5 / 0.4 / 4)
  expect_equal(attr(ratio, "n"), 8)
  expect_equal(as.numeric(mftp_metrics$recovery_vs_formula(points, list())), 2 / 1.77)
  # No recovery completed by one n*W connection: no ratio, not a zero.
  none <- dplyr::mutate(points, recoveries = dplyr::if_else(experiment == "fig1-single", 0, recoveries))
  expect_true(is.na(mftp_metrics$recovery_ratio_per_n(none, list())))
  panels <- recovery_panels(points)
  expect_equal(unique(panels$panel), "cell loss 1.5e-05")
  labels <- recovery_labels(panels)
  one <- labels$case == "one connection of n*W"
  expect_equal(labels$label[one], "4 done\n2 cut, 2 unfinished")
  expect_equal(labels$top[one], max(panels$rtts[panels$case == "one connection of n*W"]))
  expect_no_error(ggplot2::ggplot_build(plot_recovery(panels, labels, "Fig 1")))
  two_setups <- recovery_panels(dplyr::bind_rows(points, dplyr::mutate(points, setup = "t")))
  expect_setequal(unique(two_setups$panel), c("s\ncell loss 1.5e-05", "t\ncell loss 1.5e-05"))
})

test_that("a claim whose basis is an assumption is not counted as reproduced, and shows its n", {
  claims <- tibble::tibble(
    claim_id = "A", figure = "Sec 2", source = "", claim = "", published = "",
    experiments = "sec2", metric = "sec2_mbit", check = "about",
    target = 2, tolerance = 0.2, partly_tolerance = 0.5, unit = "Mb/s",
    target_basis = c("paper", "follows from assumption: x")
  )
  points <- dplyr::mutate(mftp_points("sec2", mean_mbit = 2.1, setup = "atm"), runs = 10)
  evaluated <- evaluate_mftp_claims(claims, points, list())
  expect_equal(as.character(evaluated$verdict), c("reproduced", "follows from assumption"))
  expect_equal(evaluated$n, c(10, 10))
  expect_equal(evaluated$n_of, c("transfers", "transfers"))
})

test_that("each figure's points are shaped for its plot, lines in the order of their values", {
  fig6 <- mftp_points("fig6", connections = c(1, 2, 1, 2), added_rtt_ms = c(1000, 1000, 200, 200), mean_mbit = 1:4)
  rows <- fig6_rows(dplyr::bind_rows(fig6, mftp_points("fig7", mean_mbit = 1)))
  expect_equal(nrow(rows), 4)
  expect_equal(levels(rows$series), c("200 ms", "1000 ms"))
  expect_no_error(ggplot2::ggplot_build(plot_connections(rows, "added RTT", "Fig 6")))
  fig7 <- fig7_rows(mftp_points("fig7", window = c(8192, 24576), mean_mbit = c(1, 2)))
  expect_equal(fig7$window_kbytes, c(8, 24))
  expect_no_error(ggplot2::ggplot_build(plot_window_steps(fig7, "Fig 7")))
  cells <- mftp_points("cell-loss",
    connections = c(1, 16, 16), added_rtt_ms = c(200, 200, 500), cell_loss_ratio = c(1e-5, 1e-5, 1e-4),
    mean_mbit = 1:3
  )
  fig8 <- fig8_rows(cells)
  expect_equal(fig8$connections, c(1, 16))
  expect_equal(levels(fig8$series), "1e-05")
  fig9 <- fig9_rows(cells)
  expect_equal(levels(fig9$series), c("1", "16"))
  expect_no_error(ggplot2::ggplot_build(plot_cell_loss_rtt(fig9, "Fig 9")))
  curves <- tibble::tibble(
    setup = "s", error = "cell loss", error_ratio = 1e-5, packet_error_rate = 2e-3, normalised = 0.5
  )
  fig10 <- fig10_rows(curves)
  expect_equal(fig10$x, c(1e-5, 2e-3))
  expect_equal(fig10$axis, c("error ratio (Fig 10a, 10b)", "packet error rate (converted)"))
  expect_no_error(ggplot2::ggplot_build(plot_error_curves(fig10, "Fig 10")))
})

test_that("Table 1 sets the paper's ranges beside the values swept, and auto-N its choices", {
  table1 <- tibble::tibble(
    parameter = c("connections", "cell loss"), column = c("connections", "cell_loss_ratio"),
    low = c(1, 1e-6), high = c(16, 1e-4), unit = c("", "ratio")
  )
  swept <- table1_swept(table1, mftp_points("fig6", connections = c(4, 1, NA), mean_mbit = 1))
  expect_equal(swept$`Our values`, c("1, 4", "0"))
  expect_equal(swept$`Paper (low .. high)`[2], "1e-06 .. 1e-04 ratio")
  expect_equal(table1_swept(table1, mftp_points("fig6", mean_mbit = 1)[0, ])$`Our values`, rep("not swept", 2))
  transfers <- tibble::tibble(
    experiment = c("auto-n", "auto-n", "fig6"), setup = "s", added_rtt_ms = 200,
    rtt_measured_ms = c(201, 203, NA), formula_connections = c(7.2, 7.4, NA), connections = c(8, 8, 1),
    throughput_mbit = c(20, 22, 1)
  )
  auto <- auto_n_rows(transfers)
  expect_equal(nrow(auto), 1)
  expect_equal(auto$`Measured RTT (ms)`, "202")
  expect_equal(auto$`N chosen`, 8)
  expect_equal(auto$`Throughput (Mb/s)`, "21")
})
