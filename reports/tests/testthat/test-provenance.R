test_that("run order is summarised with counts and switches of its first field", {
  text <- summarise_run_order(list("udp:1:1", "tcp:1:1", "udp:2:1", "udp:3:1"))
  expect_match(text, "^4 entries \\(mode:message_bytes:echo\\)")
  expect_match(text, "mode by first use: udp, tcp")
  expect_match(text, "2 mode switches")
  expect_match(text, "first: udp:1:1, tcp:1:1, udp:2:1, \\.\\.\\.$")
  expect_equal(summarise_run_order(list()), "not recorded")
  ttcp <- summarise_run_order(list("8192:1", "8192:2", "4096:1"), list("recv_buffer", "repeat"))
  expect_match(ttcp, "^3 entries \\(recv_buffer:repeat\\); recv_buffer by first use: 8192, 4096")
  expect_match(ttcp, "; 1 recv_buffer switches; first: 8192:1, 8192:2, 4096:1$")
})

test_that("runs with missing fields still give a row", {
  runs <- list(
    list(run_id = "a", experiment = "e1", link_check = list(passed = TRUE, measured_rtt_ms = 0.2)),
    list(run_id = "b")
  )
  table <- provenance_runs(runs)
  expect_equal(table$run_id, c("a", "b"))
  expect_equal(table$check_passed, c(TRUE, NA))
  expect_equal(table$rtt_measured_ms, c(0.2, NA))
  expect_true(is.na(table$git_commit[2]))
})

test_that("object fields are tabulated by distinct value with their experiments", {
  runs <- list(
    list(experiment = "e1", tools = list(tc = "6.1", nrping = "1")),
    list(experiment = "e2", tools = list(tc = "6.1", nrping = "2")),
    list(experiment = "e3")
  )
  table <- object_table(runs, "tools")
  expect_equal(nrow(table), 3)
  expect_equal(table$experiments[table$name == "tc"], "e1, e2")
  expect_equal(nrow(object_table(list(), "tools")), 0)
})

test_that("nested values become compact JSON", {
  expect_equal(as_text(list(packets = 50)), "{\"packets\":50}")
  expect_true(is.na(as_text(NULL)))
})

test_that("only a report of synthetic runs carries the synthetic-data banner", {
  synthetic <- provenance_runs(list(list(run_id = "a", profile = "synthetic"), list(run_id = "b")))
  expect_match(synthetic_banner_html(synthetic), "SYNTHETIC DATA", fixed = TRUE)
  expect_match(synthetic_banner_html(synthetic), "callout-danger", fixed = TRUE)
  measured <- provenance_runs(list(list(run_id = "a", profile = "paper")))
  expect_equal(synthetic_banner_html(measured), "")
})

test_that("link_check_html lists emulated runs' checks and counts the virtual-time runs", {
  run_table <- tibble::tibble(
    run_id = c("p/e/trial-1", "p/s/trial-1", "p/s/trial-2"), backend = c("linkemu", "sim", "sim"),
    link_name = "ethernet-10", goodput_expected_mbit = c(9.5, NA, NA), goodput_measured_mbit = c(9.4, NA, NA),
    rtt_expected_ms = c(0.2, NA, NA), rtt_measured_ms = c(0.21, NA, NA), check_passed = c(TRUE, NA, NA)
  )
  html <- link_check_html(run_table)
  expect_match(html, "p/e/trial-1")
  expect_false(grepl("p/s/trial-1", html, fixed = TRUE))
  expect_match(html, "2 runs in virtual time")
  expect_false(grepl("virtual time", link_check_html(run_table[1, ]), fixed = TRUE))
  expect_false(grepl("<table", link_check_html(run_table[2, ]), fixed = TRUE))
  expect_false(grepl("did not pass", html, fixed = TRUE))
  expect_match(link_check_html(dplyr::mutate(run_table, check_passed = c(FALSE, NA, NA))), "did not pass")
})
