# The generic report of a study of one's own: what it draws for which results.

test_that("results are told apart by their columns", {
  expect_equal(results_kind(c("mode", "rtt_ms", "message_bytes")), "echoes")
  expect_equal(results_kind(c("send_buffer", "recv_buffer", "throughput_mbit")), "buffers")
  expect_equal(results_kind(c("connections", "delay_ms", "throughput_mbit")), "transfers")
  expect_equal(results_kind(c("curve", "message_bytes", "throughput_mbit")), "curves")
  expect_equal(results_kind(c("a", "b")), "unknown")
})

test_that("only swept settings that vary become axes, never what was measured", {
  data <- tibble::tibble(
    connections = c(1, 2, 4), delay_ms = c(200, 200, 200), link = c("x", "x", "x"),
    throughput_mbit = c(1, 2, 3), rtt_measured_ms = c(200, 201, 203), b_disk_busy_s = c(1, 2, 3)
  )
  expect_equal(swept_columns(data), "connections")
})

test_that("throughput is summarised per setting value and setup", {
  data <- tibble::tibble(
    setup = "s", connections = c("1", "1", "4"), throughput_mbit = c("1", "3", "8")
  )
  points <- throughput_by_setting(data, "connections")
  expect_equal(points$value, c(1, 4))
  expect_equal(points$mean_mbit, c(2, 8))
  expect_equal(points$transfers, c(2L, 1L))
})

test_that("throughput against one setting keeps the other settings' points apart", {
  data <- tibble::tibble(
    setup = "s", added_rtt_ms = c(0, 0, 40, 40), loss_pct = c(0, 1, 0, 1),
    throughput_mbit = c(9, 5, 3, 1)
  )
  points <- throughput_by_setting(data, "added_rtt_ms", "loss_pct")
  expect_setequal(as.character(points$setup), c("s / loss_pct 0", "s / loss_pct 1"))
  expect_equal(points$mean_mbit[points$setup == "s / loss_pct 1"], c(5, 1))
})

test_that("a sweep's points are the contract's sweep columns that vary", {
  data <- tibble::tibble(
    setup = "s", added_rtt_ms = c(0, 10), loss_pct = c(1, 1), cell_loss_ratio = c(3.8e-6, 3.8e-6),
    send_buffer = c(16384, 24576), throughput_mbit = c(1, 2)
  )
  expect_equal(swept_columns(data), "added_rtt_ms")
  expect_equal(with_settings_label(data, character())$setup, c("s", "s"))
  labelled <- with_settings_label(data, c("added_rtt_ms", "cell_loss_ratio"))
  expect_equal(as.character(labelled$setup), c(
    "s / added_rtt_ms 0, cell_loss_ratio 3.8e-06", "s / added_rtt_ms 10, cell_loss_ratio 3.8e-06"
  ))
  numeric_order <- with_settings_label(tibble::tibble(setup = "s", added_rtt_ms = c(200, 50, 5)), "added_rtt_ms")
  expect_equal(levels(numeric_order$setup), paste("s / added_rtt_ms", c(5, 50, 200)))
})

test_that("a swept buffer matrix is drawn against its settings, an unswept one as a heat map", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "study", "e")
  dir.create(path, recursive = TRUE)
  rows <- tibble::tibble(
    experiment = "e", link = "l", stack = "tahoe", backend = "sim", send_buffer = 24576,
    recv_buffer = 24576, `repeat` = 1, bytes = 1e6, throughput_mbit = c(9, 5, 3, 1),
    added_rtt_ms = c(0, 0, 40, 40), loss_pct = c(0, 1, 0, 1), run_id = "r"
  )
  readr::write_csv(rows, file.path(path, "results.csv"))
  swept <- study_figures(dir, "study", "e")
  expect_equal(
    purrr::map_chr(swept, function(p) p$labels$title),
    c("e: throughput against added_rtt_ms", "e: throughput against loss_pct")
  )
  expect_equal(nrow(swept[[1]]$data), 4)
  readr::write_csv(dplyr::select(rows[1, ], -added_rtt_ms, -loss_pct), file.path(path, "results.csv"))
  expect_equal(study_figures(dir, "study", "e")[[1]]$labels$title, "e: mean throughput per buffer pair")
})

test_that("curves are drawn by message size, a line per curve", {
  data <- tibble::tibble(
    setup = "s", curve = c("udp 1024B 1UnAck", "udp 1024B 1UnAck", "udp 1024B 1UnAck", "tcp 4096B"),
    message_bytes = c("1000000", "1000000", "2000000", "1000000"), throughput_mbit = c("4", "6", "7", "9")
  )
  points <- curve_points(data)
  expect_equal(nrow(points), 3)
  expect_equal(points$mean_mbit[points$curve == "udp 1024B 1UnAck"], c(5, 7))
  expect_no_error(ggplot2::ggplot_build(plot_curves(points, "t")))
})

test_that("an experiment's settings are its own over the spec's defaults", {
  spec <- list(
    defaults = list(link = "ethernet-10", stack = "tahoe", ttcp = list(write_size = "4K")),
    experiments = list(e = list(description = "d", link = "atm-oc3-155", messages = list("1K", "2K")))
  )
  settings <- experiment_settings(spec, "e")
  expect_equal(settings$value[settings$setting == "link"], "atm-oc3-155")
  expect_equal(settings$value[settings$setting == "messages"], "1K, 2K")
  expect_equal(settings$value[settings$setting == "ttcp.write_size"], "4K")
  expect_false("description" %in% settings$setting)
})

test_that("a variant's settings are its own over its base's, cooling and sweep whole", {
  spec <- list(
    defaults = list(link = "ethernet-10", ttcp = list(write_size = "4K")),
    experiments = list(
      base = list(
        description = "b", host = "h", ttcp = list(send_buffers = list("16K")),
        sweep = list(connections = list(1, 2), added_rtt = list("0ms"))
      ),
      moved = list(
        description = "m", ttcp = list(write_size = "8K"), sweep = list(connections = list(4)),
        variant_of = list(experiment = "base", assumption = "a", moved = "x")
      )
    )
  )
  settings <- experiment_settings(spec, "moved")
  value <- function(setting) settings$value[settings$setting == setting]
  expect_equal(value("host"), "h")
  expect_equal(value("ttcp.send_buffers"), "16K")
  expect_equal(value("ttcp.write_size"), "8K")
  expect_equal(value("sweep.connections"), "4")
  expect_false(any(startsWith(settings$setting, "sweep.added_rtt")))
  expect_equal(
    merge_settings(
      list(cooling = list(gap = 1, loop = 2), x = list(y = 1, z = 2)),
      list(cooling = list(gap = 3), x = list(y = 5))
    ),
    list(x = list(y = 5, z = 2), cooling = list(gap = 3))
  )
})

test_that("a study's experiments follow the spec's order and leave out what it no longer has", {
  results <- withr::local_tempdir()
  for (experiment in c("b", "a", "c")) {
    dir.create(file.path(results, "s", experiment), recursive = TRUE)
    writeLines("x", file.path(results, "s", experiment, "results.csv"))
  }
  spec <- list(experiments = list(c = list(), b = list()))
  expect_equal(study_experiments(results, "s", spec), c("c", "b"))
  expect_equal(study_experiments(results, "s"), c("a", "b", "c"))
})
