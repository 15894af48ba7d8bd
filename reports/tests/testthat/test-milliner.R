# milliner's metrics and report, on small hand-made summaries and the synthetic fixture.

# Per-size rows as summarise_ipc() gives them; the runs span spread (relative) around the mean.
ipc_sizes <- function(curve, message_bytes, throughput_mbit, ..., spread = 0) {
  tibble::tibble(
    setup = "tahoe sim", experiment = "x", curve = curve, message_bytes = message_bytes,
    million_bytes = message_bytes / 1e6, throughput_mbit = throughput_mbit,
    elapsed_s = message_bytes * 8 / (throughput_mbit * 1e6), ...
  ) |>
    dplyr::mutate(
      throughput_min = throughput_mbit * (1 - spread), throughput_max = throughput_mbit * (1 + spread),
      elapsed_min = elapsed_s / (1 + spread), elapsed_max = elapsed_s / (1 - spread)
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
  expect_equal(as.numeric(milliner_metrics$protocol_order(rows, c("a", "b"))), 50)
})

test_that("an order inside the runs' scatter decides nothing: its share's interval spans it", {
  # At 1M a beats b beyond the runs' spread; at 2M the runs overlap.
  rows <- dplyr::bind_rows(
    ipc_sizes(c("a", "b"), 1, c(9, 7), spread = 0.01),
    ipc_sizes(c("a", "b"), 2, c(8.0, 7.96), spread = 0.01)
  )
  share <- milliner_metrics$protocol_order(rows, c("a", "b"))
  expect_equal(as.numeric(share), 100)
  expect_equal(attr(share, "ci"), c(50, 100))
  claim <- one_claim(metric = "protocol_order", modes = "a;b", check = "at_least", target = 100,
    tolerance = 0, partly_tolerance = 50)
  expect_equal(judge_claim_row(claim, share)$verdict, "inconclusive")
  decided <- milliner_metrics$protocol_order(dplyr::mutate(rows, throughput_min = throughput_mbit, throughput_max = throughput_mbit), c("a", "b"))
  expect_equal(judge_claim_row(claim, decided)$verdict, "reproduced")
})

test_that("M04 is judged on how much longer 9000-octet segments take than the fastest of the three", {
  rows <- tidyr::expand_grid(unack = c(1, 6), segment = c(9000, 8760, 8192)) |>
    dplyr::mutate(
      message_bytes = 1e6, elapsed_s = dplyr::case_when(segment == 9000 & unack == 6 ~ 1.004, segment == 8192 ~ 1.01, TRUE ~ 1),
      elapsed_min = elapsed_s, elapsed_max = elapsed_s
    )
  excess <- milliner_metrics$first_segment_excess_pct(rows, c("9000", "8760", "8192"))
  # 0 % at 1 unack, 0.4 % at 6: the median.
  expect_equal(as.numeric(excess), 0.2)
  expect_equal(attr(excess, "n"), 2)
  claims <- read_claims(file.path(reports_dir, "reference", "milliner-claims.csv"), milliner_metrics)
  m04 <- claims[claims$claim_id == "M04", ]
  expect_equal(judge_claim_row(m04, excess)$verdict, "reproduced")
  expect_equal(judge_claim_row(m04, with_ci(8, 8, 8))$verdict, "not reproduced")
})

test_that("M18 is judged on a typical point's spread, not the largest of hundreds, and the model decides it", {
  rows <- tibble::tibble(cv_pct = c(0.5, 1, 2, 90, NA))
  typical <- milliner_metrics$median_cv_pct(rows, character())
  expect_equal(as.numeric(typical), 1.5)
  expect_equal(attr(typical, "n"), 4)
  claims <- read_claims(file.path(reports_dir, "reference", "milliner-claims.csv"), milliner_metrics)
  m18 <- claims[claims$claim_id == "M18", ]
  # No host model draws run-to-run noise: a spread within the bound is the model's, not a match.
  expect_equal(judge_claim_row(m18, typical)$verdict, "follows from the model")
  expect_equal(judge_claim_row(m18, 12)$verdict, "not reproduced")
})

test_that("summarise_ipc's coefficient of variation uses the repeats", {
  messages <- tibble::tibble(
    setup = "s", experiment = "e", mode = "tcp", curve = "c", segment = NA, unack = NA, buffer = 1,
    message_bytes = 1, million_bytes = 1e-6, completed = TRUE, elapsed_s = c(1, 1),
    throughput_mbit = c(9, 11), retransmissions = 0, a_pageins = 0, b_pageins = 0,
    a_pageouts = 0, b_pageouts = 0, trial = 1, `repeat` = 1:2, medium_frames = NA_real_,
    medium_collisions = NA_real_
  )
  expect_equal(summarise_ipc(messages)$cv_pct, 100 * stats::sd(c(9, 11)) / 10)
})

test_that("summarise_ipc leaves a transfer that never completed without a retransmission count", {
  messages <- tibble::tibble(
    setup = "s", experiment = "e", mode = "udp", curve = c("k9", "k10"), segment = 9000,
    unack = c(9, 10), buffer = NA, message_bytes = 5e6, million_bytes = 5, completed = c(TRUE, FALSE),
    elapsed_s = c(4.5, NA), throughput_mbit = c(9.3, NA), retransmissions = c(2L, NA),
    a_pageins = 0, b_pageins = 0, a_pageouts = 0, b_pageouts = 0, trial = 1, `repeat` = 1,
    medium_frames = NA_real_, medium_collisions = NA_real_
  )
  got <- dplyr::arrange(summarise_ipc(messages), unack)
  expect_equal(got$retransmissions, c(2, NA))
})

test_that("max_host_collision_pct pools each curve's runs per host and takes the worst", {
  rows <- ipc_sizes(c("tcp", "tcp", "udp"), c(1, 2, 1) * 1e6, c(6, 6, 9),
    medium_frames = c(110, 330, 1100), medium_collisions = c(10, 50, 0),
    medium_a_frames = c(100, 300, 1000), medium_a_collisions = c(2, 10, 0),
    medium_b_frames = c(10, 30, 100), medium_b_collisions = c(8, 40, 0)
  )
  expect_equal(milliner_metrics$max_host_collision_pct(rows, character()), 100 * 48 / 40)
  rows$medium_b_frames <- NA_real_
  expect_equal(milliner_metrics$max_host_collision_pct(rows, character()), 100 * 12 / 400)
  rows$medium_a_frames <- NA_real_
  bound <- milliner_metrics$max_host_collision_pct(rows, character())
  expect_equal(as.numeric(bound), 100 * 60 / 440)
  expect_equal(attr(bound, "ci"), c(100 * 60 / 440, 100))
  rows$medium_frames <- NA_real_
  expect_true(is.na(milliner_metrics$max_host_collision_pct(rows, character())))
})

test_that("M17 without per-host counts is not reproduced above the bound and inconclusive below it", {
  claims <- read_claims(file.path(reports_dir, "reference", "milliner-claims.csv"), milliner_metrics)
  m17 <- claims[claims$claim_id == "M17", ]
  judged <- function(collisions) {
    rows <- ipc_sizes("tcp", 1e6, 6, medium_frames = 1000, medium_collisions = collisions)
    judge_claim_row(m17, milliner_metrics$max_host_collision_pct(rows, character()))$verdict
  }
  expect_equal(judged(480), "not reproduced")
  expect_equal(judged(20), "inconclusive")
})

test_that("collision_rates shows each host beside both together, and NA where not counted per host", {
  rows <- ipc_sizes(c("tcp", "tcp"), c(1, 2) * 1e6, c(6, 6),
    medium_frames = c(110, 330), medium_collisions = c(10, 50)
  )
  got <- collision_rates(rows)
  expect_equal(got$collision_pct, 100 * 60 / 440)
  expect_true(is.na(got$a_collision_pct) && is.na(got$b_collision_pct))
  rows$medium_a_frames <- c(100, 300)
  rows$medium_a_collisions <- c(1, 3)
  expect_equal(collision_rates(rows)$a_collision_pct, 1)
  expect_equal(nrow(collision_rates(dplyr::mutate(rows, medium_frames = NA_real_, medium_a_frames = NA_real_))), 0)
})

test_that("summarise_ipc counts each run's collisions and drops once, whatever its messages", {
  # Runs: trial 1's first repeat (two messages), its second repeat, and trial 2's.
  messages <- tibble::tibble(
    setup = "s", experiment = "e", mode = "tcp", curve = "c", segment = NA, unack = NA, buffer = 1,
    message_bytes = 1, million_bytes = 1e-6, completed = TRUE, elapsed_s = 1,
    throughput_mbit = 9, retransmissions = 0, a_pageins = 0, b_pageins = 0,
    a_pageouts = 0, b_pageouts = 0, trial = c(1, 1, 1, 2), `repeat` = c(1, 1, 2, 1),
    medium_frames = c(50, 50, 30, 70), medium_collisions = c(5, 5, 3, 7),
    sender_drops = c(4, 4, 2, 1), receiver_frag_drops = c(6, 6, 0, 0)
  )
  messages$medium_a_frames <- c(40, 40, 20, 60)
  got <- summarise_ipc(messages)
  expect_equal(c(got$medium_frames, got$medium_collisions, got$medium_a_frames), c(150, 15, 120))
  expect_equal(c(got$sender_drops, got$receiver_frag_drops), c(7, 6))
  expect_true(is.na(got$medium_b_frames))
  expect_true(is.na(got$receiver_fullsock))
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

test_that("throughput_ratio is the median over the sizes both modes measured", {
  rows <- dplyr::bind_rows(
    ipc_sizes("rpc 4096B", c(1, 2, 3) * 1048576, c(8, 6, 9), mode = "rpc"),
    ipc_sizes("tcp 50000B", c(1, 2, 4) * 1048576, c(10, 10, 1), mode = "tcp")
  )
  # 3M has no TCP and 4M no RPC: the ratios at 1M and 2M, 0.8 and 0.6.
  expect_equal(as.numeric(milliner_metrics$throughput_ratio(rows, c("rpc", "tcp"))), 0.7)
  expect_true(is.na(milliner_metrics$throughput_ratio(rows[rows$mode == "rpc", ], c("rpc", "tcp"))))
})

test_that("M11 is reproduced when RPC is slower than TCP on the same stack, and not when faster", {
  claims <- read_claims(file.path(reports_dir, "reference", "milliner-claims.csv"), milliner_metrics)
  m11 <- claims[claims$claim_id == "M11", ]
  sizes <- function(rpc_mbit, tcp_mbit) {
    dplyr::bind_rows(
      ipc_sizes("rpc 4096B", c(1, 2) * 1048576, rpc_mbit, mode = "rpc"),
      ipc_sizes("tcp 50000B", c(1, 2) * 1048576, tcp_mbit, mode = "tcp"),
      # The Tahoe stack's TCP is another setup and never RPC's baseline.
      ipc_sizes("tcp 50000B", c(1, 2) * 1048576, c(1, 1), mode = "tcp")
    ) |>
      dplyr::mutate(
        experiment = rep(c("compare-rpc", "compare-tcp-linux", "compare-tcp"), each = 2),
        setup = ifelse(experiment == "compare-tcp", "tahoe sim", "linux linkemu")
      )
  }
  got <- evaluate_claims(m11, sizes(c(8, 9), c(9, 9.5)), metrics = milliner_metrics)
  expect_equal(got$setup, "linux linkemu")
  expect_equal(as.character(got$verdict), "reproduced")
  expect_equal(got$measured, stats::median(c(8 / 9, 9 / 9.5)))
  expect_equal(got$n, 2)
  got <- evaluate_claims(m11, sizes(c(9.5, 9.6), c(9, 9)), metrics = milliner_metrics)
  expect_equal(as.character(got$verdict), "not reproduced")
  got <- evaluate_claims(m11, sizes(c(8, 9), c(9, 9.5))[0, ], metrics = milliner_metrics)
  expect_equal(as.character(got$verdict), "no data")
  # RPC 0.1 % behind TCP, whose runs scatter by 0.5 %: inside the scatter, inconclusive.
  close <- sizes(c(8.991, 8.991), c(9, 9)) |>
    dplyr::mutate(
      throughput_min = throughput_mbit * dplyr::if_else(mode == "tcp", 0.995, 1),
      throughput_max = throughput_mbit * dplyr::if_else(mode == "tcp", 1.005, 1)
    )
  got <- evaluate_claims(m11, close, metrics = milliner_metrics)
  expect_equal(got$measured, 0.999)
  expect_equal(as.character(got$verdict), "inconclusive")
})

test_that("has_rows tells a table with rows from none", {
  expect_false(has_rows(NULL))
  expect_false(has_rows(tibble::tibble(a = numeric())))
  expect_true(has_rows(tibble::tibble(a = 1)))
})

test_that("paging_starts lists curves by their buffer, not by their names, and a curve that never paged as Inf", {
  sizes <- tibble::tibble(
    setup = "s", experiment = "tcp-buffers", curve = rep(c("tcp 16384B", "tcp 4096B", "tcp 8192B"), each = 2),
    buffer = rep(c(16384, 4096, 8192), each = 2), unack = NA_real_, million_bytes = rep(c(12, 13), 3),
    pageins = c(0, 5, 0, 0, 1, 0), pageouts = 0
  )
  got <- paging_starts(sizes)
  expect_equal(got$curve, c("tcp 4096B", "tcp 8192B", "tcp 16384B"))
  expect_equal(got$first_paging_million_bytes, c(Inf, 12, 13))
})

test_that("without messages every claim reads no data; with them it is judged per setup", {
  claims <- read_claims(file.path(reports_dir, "reference", "milliner-claims.csv"), milliner_metrics)
  # Metrics take min() and max() of no sizes on the way to no data, with R's warnings.
  none <- suppressWarnings(judge_milliner(list(messages = NULL), claims))
  expect_equal(nrow(none), nrow(claims))
  expect_true(all(none$verdict %in% c("no data", "not reproducible here")))
  dir <- withr::local_tempdir()
  make_synthetic_milliner(dir)
  messages <- read_ipc_messages(dir, "milliner")
  expect_equal(names(empty_ipc_sizes()), names(summarise_ipc(messages)))
  judged <- judge_milliner(list(messages = messages), claims)
  expect_equal(judged, evaluate_claims(claims, summarise_ipc(messages), metrics = milliner_metrics))
  expect_false(all(judged$verdict == "no data"))
})

test_that("Sec 5.1's table orders k per setup and names the setup only when there are several", {
  sizes <- tibble::tibble(
    setup = "tahoe sim", experiment = c("udp-unack-limit", "udp-unack-limit", "udp-unack"),
    unack = c(8, 2, 1), completed = c(FALSE, TRUE, TRUE), retransmissions = c(NA, 0, 0),
    throughput_mbit = c(0.12345, 4.5678, 5)
  )
  table <- unack_limit_table(sizes)
  expect_equal(table$`Unacknowledged segments (k)`, c(2, 8))
  expect_equal(table$`Message delivered`, c("yes", "no"))
  expect_equal(table$`Throughput (Mb/s)`, c(4.57, 0.123))
  expect_true(all(is.na(table$`Sender drops`)))
  counted <- unack_limit_table(dplyr::mutate(sizes, sender_drops = c(1106, 0, 0), receiver_frag_drops = c(553, 0, 0)))
  expect_equal(counted$`Sender drops`, c(0, 1106))
  expect_equal(counted$`Fragments not reassembled`, c(0, 553))
  expect_false("Setup" %in% names(table))
  two <- unack_limit_table(dplyr::mutate(sizes, setup = c("a", "b", "a")))
  expect_equal(two$Setup, c("a", "b"))
})

test_that("milliner's figures build from the per-size rows", {
  dir <- withr::local_tempdir()
  make_synthetic_milliner(dir)
  sizes <- summarise_ipc(read_ipc_messages(dir, "milliner"))
  udp <- dplyr::filter(sizes, experiment %in% c("udp-segments-1024", "udp-unack"))
  expect_no_error(ggplot2::ggplot_build(plot_segment_times(udp)))
  tcp <- dplyr::filter(sizes, experiment %in% c("tcp-buffers-small", "tcp-buffers"))
  expect_no_error(ggplot2::ggplot_build(plot_tcp_buffers(tcp)))
  compare <- dplyr::filter(sizes, experiment %in% c("compare-udp", "compare-tcp"))
  paging <- tibble::tibble(curve = compare$curve[1], first_paging_million_bytes = 12)
  plot <- plot_paging_compare(compare, paging)
  expect_equal(ggplot2::ggplot_build(plot)$data[[3]]$xintercept, 12)
  linux <- dplyr::filter(sizes, experiment %in% c("compare-rpc", "compare-tcp-linux"))
  expect_equal(plot_linux_compare(linux, "Fig 7 on Linux")$labels$title, "Fig 7 on Linux")
})
