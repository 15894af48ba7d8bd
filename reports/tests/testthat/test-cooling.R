test_that("an 8 KB UDP datagram is 6 Ethernet frames and 6.84 ms of a 10 Mb/s wire", {
  expect_equal(udp_fragments(8192, 1500), 6)
  expect_equal(udp_fragments(1472, 1500), 1)
  expect_equal(udp_fragments(1473, 1500), 2)
  # 8200 octets of UDP, 6 IP headers, 6 frames of framing and gap.
  expect_equal(udp_datagram_wire_ms(8192, 1500, 10e6, "ethernet"), (8200 + 6 * 58) * 8 / 1e4)
  expect_equal(udp_datagram_wire_ms(8192, 1500, 1.536e6, "none"), (8200 + 6 * 20) * 8 / 1536)
  expect_true(is.na(udp_datagram_wire_ms(8192, 9188, 155e6, "aal5-llc-snap")))
})

test_that("datagrams_before_full counts what passes before the queue fills", {
  expect_equal(datagrams_before_full(4, 6, 6, 50), 50 / (6 * (1 - 4 / 6)))
  expect_equal(datagrams_before_full(c(6, 7), 6, 6, 50), c(Inf, Inf))
})

test_that("the fluid loss pools messages, and its inverses give the whole datagrams and the sender's time", {
  datagrams <- c(38, 50, 125)
  expect_equal(fluid_pooled_loss_pct(datagrams, 15), 100 * (1 - 45 / 213))
  expect_equal(fluid_pooled_loss_pct(datagrams, 200), 0)
  n <- fluid_whole_needed(datagrams, 8)
  expect_equal(fluid_pooled_loss_pct(datagrams, n), 8, tolerance = 1e-6)
  expect_gt(n, 50)
  expect_equal(fluid_whole_needed(datagrams, 100), 0)
  ms <- sender_ms_for_whole(n, 6.84, 6, 50)
  expect_equal(datagrams_before_full(ms, 6.84, 6, 50), n)
  # A queue that holds the datagrams lets a sender of any speed through.
  expect_equal(sender_ms_for_whole(5, 6.84, 6, 50), 0)
})

test_that("cooling_send_times measures the sender's time per datagram per cooling level", {
  transfers <- tibble::tibble(
    proto = c("udp", "udp", "udp", "tcp"), cool_iterations = c(0, 0, 2000, NA),
    cool_gap_us = c(NA, NA, 880, NA),
    bytes = c("81920", "81920", "81920", "81920"),
    # 10 datagrams of 8192 octets in 40 ms, 30 ms and 70 ms.
    throughput_mbit = c(81920 * 8 / 0.04 / 1e6, 81920 * 8 / 0.03 / 1e6, 81920 * 8 / 0.07 / 1e6, 9),
    datagrams_sent = c(10, 10, 10, NA), datagrams_received = c(2, 4, 10, NA)
  )
  times <- cooling_send_times(transfers, wire_ms = 6, frames = 6, queue_packets = 12)
  expect_equal(times$cool_iterations, c(0, 2000))
  expect_equal(times$cool_gap_us, c(NA, 880))
  expect_equal(times$sender_ms, c(3.5, 7))
  expect_equal(times$loss_pct, c(70, 0))
  expect_equal(times$predicted_datagrams, c(12 / (6 * (1 - 3.5 / 6)), Inf))
  expect_equal(nrow(cooling_send_times(transfers[4, ], 6, 6, 12)), 0)
})

test_that("cooled_returns gives the median datagrams back per message of the era hosts' UDP modes", {
  echoes <- tibble::tibble(
    stack = c("tahoe", "tahoe", "tahoe", "tahoe", "linux"),
    backend = c("sim", "sim", "sim", "sim", "linkemu"),
    experiment = c("lan-very-large", "lan-very-large", "lan-very-large", "lan-large", "lan-very-large"),
    mode = c("udp-cooled", "udp-cooled", "tcp", "udp-cooled", "udp-cooled"),
    message_bytes = c(1024000, 1024000, 1024000, 8192, 1024000),
    datagrams = c(125, 125, NA, 1, 125), datagrams_returned = c(19, 21, NA, 1, 125)
  )
  got <- cooled_returns(echoes, "lan-very-large")
  expect_equal(nrow(got), 1)
  expect_equal(got$messages, 2)
  expect_equal(got$returned, 20)
  expect_equal(got$loss_pct, 100 * (1 - 40 / 250))
})

test_that("le_datagram_tmds counts a header mbuf and the clusters each fragment's data span", {
  # 8192 octets: fragments of 1472, 1480 x 4 and 808 data octets; 60 or 68 pulled up.
  expect_equal(le_datagram_tmds(8192, 1500), 3 + 3 + 4 + 3 + 4 + 2)
  expect_equal(le_datagram_tmds(9000, 1500), 22)
  # Data that fit in the pulled-up octets take the header mbuf only.
  expect_equal(le_datagram_tmds(40, 1500), 1)
})

test_that("the LANCE constants are the Tahoe stack's", {
  # cooling.R restates what tools/tahoe/tahoe_host.c counts a frame by; read the C defines.
  source_lines <- readLines(file.path(reports_dir, "..", "tools", "tahoe", "tahoe_host.c"))
  c_define <- function(name) {
    line <- grep(paste0("^#define ", name, " "), source_lines, value = TRUE)
    expect_length(line, 1)
    as.numeric(sub("^#define [A-Z0-9_]+ ([0-9]+).*$", "\\1", line))
  }
  expect_equal(le_pullup_octets, c_define("LE_PULLUP0"))
  expect_equal(le_cluster_octets, c_define("LE_MCLBYTES"))
  expect_equal(ether_header_octets, c_define("LE_ETHER_HDR"))
  expect_equal(
    ether_frame_extra_octets,
    c_define("LE_PREAMBLE") + c_define("LE_ETHER_HDR") + c_define("LE_FCS") +
      c_define("LE_GAP_NS") / c_define("LE_OCTET_NS")
  )
})

test_that("sender_queue_frames takes the ring where the host has one, the link's queue otherwise", {
  link <- tibble::tibble(framing = "ethernet", mtu = 1500, queue_packets = 50, le_tx_tmds = 128)
  expect_equal(sender_queue_frames(link, 8192), 127 * 6 / 19)
  expect_equal(sender_queue_frames(dplyr::mutate(link, le_tx_tmds = NA_real_), 8192), 50)
  expect_equal(sender_queue_frames(dplyr::mutate(link, queue_packets = 10), 8192), 10)
  expect_equal(sender_queue_frames(dplyr::mutate(link, framing = "aal5"), 8192), 50)
})

test_that("host_model_number reads a key of a host model's text", {
  expect_equal(host_model_number("name: x\nle_tx_tmds: 128\n", "le_tx_tmds"), 128)
  expect_true(is.na(host_model_number("name: x\n", "le_tx_tmds")))
  expect_true(is.na(host_model_number(NULL, "le_tx_tmds")))
})

test_that("host_model_number reads a variant's own value first and an inherited one after it", {
  variant <- "name: small\nextends: big\nle_tx_tmds: 64\n"
  base <- "# the base\nname: big\nle_tx_tmds: 128\nclock_hz: 100  # hz\n"
  expect_equal(host_model_number(paste0(variant, base), "le_tx_tmds"), 64)
  expect_equal(host_model_number(paste0(variant, base), "clock_hz"), 100)
  expect_true(is.na(host_model_number(paste0(variant, base), "le_tx")))
})

test_that("run_links reads each experiment's link from its runs' provenance once", {
  link <- list(
    name = "ethernet-10", framing = "ethernet", mtu = 1500, rate_bps = 1e7,
    queue_packets = 50
  )
  runs <- list(
    list(experiment = "lan-very-large-tahoe", link = link, host_model = "le_tx_tmds: 128\n"),
    list(experiment = "lan-very-large-tahoe", link = link, host_model = "le_tx_tmds: 128\n"),
    list(experiment = "lan-large")
  )
  links <- run_links(runs)
  expect_equal(nrow(links), 1)
  expect_equal(links$experiment, "lan-very-large")
  expect_equal(links$queue_packets, 50)
  expect_equal(links$le_tx_tmds, 128)
  expect_equal(nrow(run_links(list())), 0)
})

test_that("cooling_tunes gives each tuned experiment's levels once and marks the one taken", {
  tune <- list(
    message_bytes = 1024000, margin_points = 1, iterations = 3000,
    levels = list(list(iterations = 1000, loss_pct = 80), list(iterations = 3000, loss_pct = 0.5),
                  list(iterations = 5000, loss_pct = 0))
  )
  runs <- list(
    list(experiment = "lan-large-tahoe", cooling_tune = tune),
    list(experiment = "lan-large-tahoe", cooling_tune = tune),
    list(experiment = "wan-large-tahoe")
  )
  tunes <- cooling_tunes(runs)
  expect_equal(nrow(tunes), 3)
  expect_equal(unique(tunes$experiment), "lan-large")
  expect_equal(tunes$iterations[tunes$taken], 3000)
  expect_equal(tunes$loss_pct, c(80, 0.5, 0))
  expect_equal(nrow(cooling_tunes(list(list(experiment = "x")))), 0)
  view <- cooling_tune_view(tunes)
  expect_equal(names(view), c("Loop (iterations)", "lan-large-tahoe"))
  expect_equal(view$`lan-large-tahoe`[view$`Loop (iterations)` == 3000], "0.5 (taken)")
  expect_false(any(grepl("taken", view$`lan-large-tahoe`[view$`Loop (iterations)` != 3000])))
})

test_that("cooling_budget predicts each claim's loss from the sweep and inverts the published one", {
  echo <- function(experiment, mode, bytes, returned, gap) {
    tibble::tibble(
      stack = "tahoe", backend = "sim", experiment = experiment, mode = mode,
      message_bytes = bytes, datagrams = ceiling(bytes / 8192), datagrams_returned = returned,
      cool_gap_us = gap
    )
  }
  echoes <- dplyr::bind_rows(
    echo("lan-very-large", "udp", c(409600, 1024000), c(15, 15), NA),
    echo("lan-very-large", "udp-cooled", c(409600, 1024000), c(20, 20), 880),
    echo("lan-very-large", "udp", 51200, 6, NA),
    echo("lan-nasa", "udp", c(205747, 486430), c(15, 15), NA)
  )
  wire <- udp_datagram_wire_ms(8192, 1500, 1e7, "ethernet")
  times <- tibble::tibble(
    cool_iterations = c(0, 2000), cool_gap_us = c(NA, 880), sender_ms = c(3, 4), wire_ms = wire,
    predicted_datagrams = NA_real_, loss_pct = NA_real_
  )
  link <- tibble::tibble(mtu = 1500, rate_bps = 1e7, framing = "ethernet", queue_packets = 50)
  claims <- tibble::tibble(
    claim_id = c("U", "C", "M", "N"), modes = c("udp", "udp-cooled", "udp-cooled", "udp"),
    experiments = c("lan-very-large", "lan-very-large", "lan-very-large", "lan-nasa"),
    metric = c("pooled_loss", "pooled_loss", "max_loss", "pooled_loss"),
    check = c("about", "at_most", "at_most", "about"),
    size_min_bytes = c(204801, 204801, 51200, 204801), size_max_bytes = c(1024000, NA, 1024000, NA),
    target = c(85, 8, 8, 85)
  )
  got <- cooling_budget(echoes, times, link, claims, 8192)
  expect_equal(got$sizes, c(2, 2, 1, 2))
  expect_equal(got$largest_only, c(FALSE, FALSE, TRUE, FALSE))
  expect_equal(got$model_sender_ms, c(3, 4, 4, 3))
  expect_equal(got$measured_loss_pct[1:3], c(100 * (1 - 30 / 175), 100 * (1 - 40 / 175), 100 * (1 - 20 / 125)))
  whole <- datagrams_before_full(c(3, 4), wire, 6, 50)
  expect_equal(got$predicted_loss_pct[1:2], c(
    fluid_pooled_loss_pct(c(50, 125), whole[1]), fluid_pooled_loss_pct(c(50, 125), whole[2])
  ))
  expect_equal(got$most_loss_pct[1], fluid_pooled_loss_pct(c(50, 125), 50 / 6))
  expect_equal(
    got$implied_sender_ms[2],
    sender_ms_for_whole(fluid_whole_needed(c(50, 125), 8), wire, 6, 50)
  )
  expect_equal(got$implied_sender_ms[3], sender_ms_for_whole(0.92 * 125, wire, 6, 50))
  expect_lt(got$implied_sender_ms[1], got$implied_sender_ms[2])
  # 85 % of the two images needs fewer whole datagrams than a sender with no cost gets through.
  expect_lt(got$most_loss_pct[4], 85)
  expect_true(is.na(got$implied_sender_ms[4]))
  # A claim on an experiment with no echoes has no row.
  other <- dplyr::mutate(claims[1, ], experiments = "wan-large")
  expect_equal(nrow(cooling_budget(echoes, times, link, other, 8192)), 0)
  # No sweep level at the echoes' gap: nothing to predict from.
  expect_true(is.na(cooling_budget(echoes, times[1, ], link, claims, 8192)$model_sender_ms[2]))
})
