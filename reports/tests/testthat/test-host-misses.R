# The tables of the report sections on claims the era hosts still miss, on hand-made rows.

test_that("disk_share_rows gives each host's busy and waiting share and the sending disk's rate", {
  transfers <- tibble::tibble(
    setup = "s", connections = c(1, 1, 2), throughput_mbit = c(32, 32, 64), bytes = 16e6,
    a_disk_busy_s = 0, a_disk_wait_s = 0,
    b_disk_busy_s = c(4, 3, 1), b_disk_wait_s = c(2, 2, 0.5)
  )
  rows <- disk_share_rows(transfers, c("setup", "connections"))
  expect_equal(rows$transfers, c(2, 1))
  expect_equal(rows$mean_mbit, c(32, 64))
  expect_equal(rows$b_busy_pct, c(100 * 7 / 8, 50))
  expect_equal(rows$b_wait_pct, c(50, 25))
  expect_equal(rows$a_busy_pct, c(0, 0))
  expect_equal(rows$b_disk_mbit, c(8 * 32e6 / 7 / 1e6, 8 * 16e6 / 1e6))
})

test_that("disk_share_rows leaves out transfers that counted no disk", {
  transfers <- tibble::tibble(
    setup = "s", connections = c(1, 2), throughput_mbit = 32, bytes = 16e6,
    a_disk_busy_s = c(NA, 0), a_disk_wait_s = c(NA, 0), b_disk_busy_s = c(NA, 4), b_disk_wait_s = c(NA, 1)
  )
  expect_equal(disk_share_rows(transfers, c("setup", "connections"))$connections, 2)
  old_results <- dplyr::select(transfers, -dplyr::starts_with("a_disk"), -dplyr::starts_with("b_disk"))
  expect_equal(nrow(disk_share_rows(old_results, "setup")), 0)
})

test_that("buffer_gain_rows sets the large buffer's mean and fastest run against the small one", {
  sizes <- tibble::tibble(
    setup = "s", experiment = c("e", "e", "e", "other"), buffer = c(4096, 16384, 16384, 4096),
    message_bytes = c(65536, 65536, 131072, 65536),
    throughput_mbit = c(8, 6, 9, 1), throughput_min = c(8, 2, 9, 1), throughput_max = c(8, 10, 9, 1),
    elapsed_min = c(0.06, 0.05, 0.1, 1), elapsed_max = c(0.06, 0.25, 0.1, 1)
  )
  rows <- buffer_gain_rows(sizes, "e", 4096, 16384)
  expect_equal(nrow(rows), 1)
  expect_equal(rows$gain_pct, -25)
  expect_equal(rows$best_gain_pct, 25)
  expect_equal(rows$large_spread_s, 0.2)
})

test_that("protocol_gap_rows orders the curves as given and prices the third's missing time", {
  sizes <- tibble::tibble(
    setup = "s", experiment = c(rep("e", 6), "other"), curve = c(rep(c("u6", "u1", "tcp"), 2), "tcp"),
    message_bytes = c(rep(c(1e6, 2e7), each = 3), 1e6), throughput_mbit = c(9, 8, 10, 9, 8, 4, 1)
  )
  rows <- protocol_gap_rows(sizes, "e", c("u6", "u1", "tcp"), 1e7, 1000)
  expect_equal(nrow(rows), 1)
  expect_equal(c(rows$first_mbit, rows$second_mbit, rows$third_mbit), c(9, 8, 10))
  expect_equal(rows$third_extra_ms, 8 * (1 / 8 - 1 / 10))
  expect_equal(nrow(protocol_gap_rows(sizes, "e", c("u6", "u1", "none"), 1e7, 1000)), 0)
})

test_that("ttcp_delivered_rows gives what arrived and both rates over TCP's", {
  ttcp <- tibble::tibble(
    setup = "s", proto = c("tcp", "udp", "udp"), cool_iterations = c(NA, 0, 1000),
    throughput_mbit = c(20, 60, 40), loss_pct = c(NA, 50, 0)
  )
  rows <- ttcp_delivered_rows(ttcp)
  expect_equal(rows$cool_iterations, c(0, 1000))
  expect_equal(rows$delivered_mbit, c(30, 40))
  expect_equal(rows$sent_over_tcp, c(3, 2))
  expect_equal(rows$delivered_over_tcp, c(1.5, 2))
})

test_that("returned_per_message_rows pools a size's messages and datagrams_for_loss inverts it", {
  echoes <- tibble::tibble(
    setup = "s", experiment = "e", mode = c("udp", "udp", "udp", "tcp"),
    message_bytes = c(3e5, 3e5, 1e5, 3e5), datagrams = c(40, 40, 13, 0),
    datagrams_returned = c(10, 14, 13, 0)
  )
  rows <- returned_per_message_rows(echoes, "e", 2e5)
  expect_equal(nrow(rows), 1)
  expect_equal(rows$returned, 12)
  expect_equal(rows$loss_pct, 70)
  expect_equal(rows$sent_per_returned, 40 / 12)
  expect_equal(datagrams_for_loss(12, 85), 80)
})

test_that("window_gain_rows sets each network's 32K RTT against its 16K one", {
  echoes <- tibble::tibble(
    setup = "s", experiment = rep(c("a16", "a32", "e16", "e32"), each = 2),
    mode = "tcp-nodelay", message_bytes = 102400,
    rtt_ms = c(100, 100, 80, 80, 200, 200, 199, 201)
  )
  rows <- window_gain_rows(
    echoes, c(a16 = "16K", a32 = "32K", e16 = "16K", e32 = "32K"),
    c(a16 = "ATM", a32 = "ATM", e16 = "Ethernet", e32 = "Ethernet"), 102400, 102400
  )
  expect_equal(rows$network, c("ATM", "Ethernet"))
  expect_equal(rows$ratio, c(0.8, 1))
  expect_equal(rows$mbit_16k, c(2 * 8 * 102400 / 1e5, 2 * 8 * 102400 / 2e5))
})

test_that("lockstep_share_allowed mixes lockstep steps and streamed blocks to the published time", {
  expect_equal(lockstep_share_allowed(5, 6, 4), 0.5)
  expect_equal(lockstep_share_allowed(4, 6, 4), 0)
})

test_that("k07_share_html sets each backend's lockstep share beside the one the paper allows", {
  rows <- tibble::tibble(
    pair = "16K/20K", backend = c("sim", "linkemu"), our_share = c(0.9, 0.8), step_ms = c(6, 6.5),
    equal_pair = "16K/16K", equal_published_ms = 4, published_ms = 5, allowed_share = c(0.5, 0.4)
  )
  html <- k07_share_html(rows)
  expect_match(html, "In 16K/20K (sim) and 16K/20K (linkemu) 90 and 80 % of the segments", fixed = TRUE)
  expect_match(html, "of 6 and 6.5 ms per 8192 octets. The paper's 16K/16K took 4 ms", fixed = TRUE)
  expect_match(html, "the paper's 5 ms per 8192 octets would allow at most 50 and 40 %", fixed = TRUE)
})

test_that("k07_mechanism_html names the missing mechanism, and both pairs' means when K07 passes", {
  missing <- k07_mechanism_html("not reproduced", c(1.5, 2.25), c(3, 4))
  expect_match(missing, "<b>Missing mechanism.</b>", fixed = TRUE)
  expect_false(grepl("passes on the ratio", missing, fixed = TRUE))
  passed <- k07_mechanism_html("reproduced", c(1.5, 2.25), c(3, 4))
  expect_match(passed, "passes on the ratio it names", fixed = TRUE)
  expect_match(passed, "16K/20K are 1.5 and 2.25 Mb/s here, 3 and 4 in the paper", fixed = TRUE)
  expect_match(passed, "late_wakeup_pct", fixed = TRUE)
})

test_that("span_text gives one value when the range is one", {
  expect_equal(span_text(c(14, 14)), "14")
  expect_equal(span_text(c(14, 14.0001), " %"), "14 %")
  expect_equal(span_text(c(2, 3), " %"), "2 to 3 %")
  expect_equal(span_text(NA), "(not run)")
})
