test_that("a figure id names its panels but not other figures", {
  expect_true(claim_mentions("Fig 1", "Fig 1a"))
  expect_true(claim_mentions("Fig 2b; Fig 3b", "Fig 3b"))
  expect_false(claim_mentions("Fig 1", "Fig 10a"))
  expect_false(claim_mentions("Fig 3a", "Fig 3b"))
})

test_that("reference labels keep apart", {
  heights <- spread_labels(c(5, 4.5, 90), min_gap = 6, lift = 2)
  expect_equal(heights[2], 6.5)
  expect_equal(heights[1], 12.5)
  expect_equal(heights[3], 92)
})

test_that("loss references come only from loss claims of the figure", {
  claims <- dplyr::bind_rows(
    one_claim(claim_id = "L", figure = "Fig 2b", target = 4.5, published = "< 4.5 %"),
    one_claim(claim_id = "R", figure = "Fig 2b", metric = "share_faster"),
    one_claim(claim_id = "O", figure = "Fig 3b")
  )
  refs <- loss_references(claims, "Fig 2b")
  expect_equal(refs$value, 4.5)
  expect_match(refs$label, "^L: < 4.5 %")
})

test_that("sizes are written as the paper writes them", {
  expect_equal(fmt_bytes(c(500, 4096, 204800)), c("500 B", "4 KB", "200 KB"))
  expect_equal(fmt_num(c(0, 0.97912, 100, NA)), c("0", "0.979", "100", "–"))
})

test_that("a missing experiment gets a visible note and placeholder", {
  note <- experiment_note(tibble::tibble(), "lan-2k", "lan-2k", "results", "liu95cool")
  expect_match(note, "No data yet")
  expect_match(note, "results/liu95cool/lan-2k/results.csv")
  placeholder <- plot_missing("Fig 1b", "No data")
  expect_s3_class(placeholder, "ggplot")
})

test_that("plots build from summaries, including modes outside the paper's four", {
  data <- dplyr::bind_rows(
    echo_rows("udp", c(1, 2), c(1, 2), datagrams = 1),
    echo_rows("quic", c(1, 2), c(3, 4))
  )
  plot <- plot_rtt(summarise_sizes(data), summarise_trials(data), "t")
  expect_no_error(ggplot2::ggplot_build(plot))
  expect_setequal(levels(plot$data$mode_label), c(unname(mode_labels), "quic"))
})

test_that("claims under a figure say when they have no data", {
  evaluated <- dplyr::bind_rows(
    one_claim(claim_id = "A"), one_claim(claim_id = "B")
  ) |>
    dplyr::mutate(
      setup = "s", measured = c(3, NA), margin = c(2, NA),
      verdict = c("reproduced", "no data")
    )
  html <- claims_list_html(evaluated)
  expect_match(html, "Measured: 3 % — 2 points under the target 5 %", fixed = TRUE)
  expect_match(html, "Measured: no data", fixed = TRUE)
  expect_match(html, "verdict-no-data", fixed = TRUE)
})

test_that("modes read as a comparison only for two-mode metrics", {
  expect_equal(
    modes_text(c("max_loss", "share_faster"), c("udp;udp-cooled", "udp;tcp")),
    c("udp and udp-cooled", "udp vs tcp")
  )
})
