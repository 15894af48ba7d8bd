test_that("claims are judged on the preferred backend of each link and stack", {
  expect_equal(preferred_backend(c("htb", "linkemu")), "linkemu")
  expect_equal(preferred_backend(c("htb", "netem")), "netem")
  expect_equal(preferred_backend(c("sim", "htb")), "htb")
  expect_equal(preferred_backend(c("zeta", "alpha")), "alpha")
  runs <- tibble::tibble(
    link = c("lan", "lan", "lan", "wan"), stack = "linux",
    backend = c("htb", "linkemu", "htb", "htb")
  )
  judged <- judged_backends(runs, c("link", "stack"))
  expect_equal(judged$backend, c("linkemu", "htb"))
  expect_equal(judged$others, c("htb", ""))
  rows <- dplyr::mutate(runs, value = 1:4)
  expect_equal(judged_rows(rows, judged, c("link", "stack"))$value, c(2, 4))
  expect_null(judged_rows(NULL, judged, c("link", "stack")))
  html <- judged_backends_html(judged)
  expect_match(html, "judged on <b>linkemu</b>; also ran on htb", fixed = TRUE)
  expect_equal(judged_backends_html(judged[0, ]), "")
})

test_that("virtual time is set beside each emulated backend on shared points only", {
  summary <- tibble::tibble(
    link = "l", size = c(1, 2, 1, 2, 3, 1),
    backend = c("sim", "sim", "linkemu", "linkemu", "linkemu", "htb"),
    value = c(10.4, 20, 10, 25, 30, NA)
  )
  comparison <- compare_backends(summary, c("link", "size"), "value", 5)
  expect_equal(comparison$size, c(1, 2))
  expect_equal(comparison$rel_diff_pct, c(4, -20))
  expect_equal(comparison$within, c(TRUE, FALSE))
  agreement <- backend_agreement(comparison, "link")
  expect_equal(agreement$points, 2)
  expect_equal(agreement$within_pct, 50)
  expect_equal(agreement$max_abs_diff_pct, 20)
  expect_equal(agreement$agree, "no")
  expect_equal(backend_agreement(comparison[1, ], "link")$agree, "yes")
  html <- backend_agreement_html(agreement, c(link = "Link"), 5)
  expect_match(html, "Agree within 5 %", fixed = TRUE)
  expect_match(html, "> NO <", fixed = TRUE)
  data <- backend_plot_data(comparison, "size", "link")
  expect_equal(nrow(data$points), 4)
  expect_equal(as.character(data$spans$agreement), c("within tolerance", "outside tolerance"))
  expect_s3_class(plot_backend_pairs(data, "t", "x", "y", 5), "ggplot")
})

test_that("the backend note says what ran and what is missing", {
  empty <- compare_backends(
    tibble::tibble(k = 1, backend = "sim", value = 1), "k", "value", 5
  )
  expect_match(backend_status_html("sim", empty), "Missing: emulation", fixed = TRUE)
  expect_match(backend_status_html(c("htb", "htb"), empty), "Missing: virtual time", fixed = TRUE)
  expect_match(backend_status_html(character(), empty), "Not run yet", fixed = TRUE)
})

test_that("every figure shapes points by backend, with fixed shapes", {
  data <- echo_rows("udp", c(1, 2), c(1, 2), datagrams = 1)
  plot <- plot_rtt(summarise_sizes(data), summarise_trials(data), "t")
  built <- ggplot2::ggplot_build(plot)
  expect_true("shape" %in% names(built$data[[2]]))
  expect_equal(plot$scales$get_scales("shape")$name, "Backend")
  expect_s3_class(backend_shape_scale(c("sim", "other")), "ScaleDiscrete")
})
