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
  never_whole <- dplyr::mutate(evaluated[2, ], verdict = "not reproduced", note = "no echo came back <whole>")
  expect_match(claims_list_html(never_whole), "Measured: nothing to measure: no echo came back &lt;whole&gt;", fixed = TRUE)
})

test_that("modes read as a comparison only for two-mode metrics", {
  expect_equal(
    modes_text(c("max_loss", "share_faster"), c("udp;udp-cooled", "udp;tcp")),
    c("udp and udp-cooled", "udp vs tcp")
  )
})

# The text a placeholder figure shows.
placeholder_text <- function(plot) {
  ggplot2::ggplot_build(plot)$data[[2]]$label
}

test_that("a figure without data names its experiments and where they were looked for", {
  one <- plot_no_data("Fig 6", "fig6", "results", "ishikura")
  expect_equal(placeholder_text(one), "No data: experiment fig6 has no results.csv under\nresults/ishikura.")
  several <- plot_no_data("Fig 10", c("cell-loss", "bit-error", "fig6"), "r", "p")
  expect_match(placeholder_text(several), "experiments cell-loss, bit-error and fig6 have no", fixed = TRUE)
  expect_equal(and_list(c("a", "b")), "a and b")
  expect_equal(and_list("a"), "a")
})

test_that("a figure is its own height with data, a placeholder's without", {
  expect_equal(figure_height(TRUE, 6), 6)
  expect_equal(figure_height(FALSE, 6), placeholder_height)
  withr::defer(knitr::opts_chunk$restore(knitr::opts_chunk$get()))
  knitr::opts_chunk$set(fig.height = 4.4)
  expect_equal(figure_height(TRUE), 4.4)
  expect_equal(panels_height(3, per_row = 2, row = 3, base = 2.5), 8.5)
  expect_equal(panels_height(3, per_row = 1, row = 2, base = 0), 6)
})

test_that("a size figure draws the experiment's modes of its kind, or the placeholder", {
  data <- dplyr::bind_rows(
    echo_rows("udp", c(1000, 2000), c(1, 2), datagrams = 2, returned = c(2, 1), experiment = "lan"),
    echo_rows("tcp", c(1000, 2000), c(3, 4), experiment = "lan")
  )
  sizes <- summarise_sizes(data)
  trials <- summarise_trials(data)
  missing <- size_figure(sizes, trials, "wan", "t", "rtt", "results", "liu95cool")
  expect_match(placeholder_text(missing), "experiment wan has no results.csv", fixed = TRUE)
  rtt <- size_figure(sizes, trials, "lan", "t", "rtt", "results", "liu95cool")
  expect_setequal(as.character(unique(rtt$data$mode)), c("udp", "tcp"))
  udp <- size_figure(sizes, trials, "lan", "t", "rtt", "results", "liu95cool", modes = "udp")
  expect_equal(as.character(unique(udp$data$mode)), "udp")
  references <- tibble::tibble(value = 5, label_y = 7, label = "C01: < 5 %")
  loss <- size_figure(sizes, trials, "lan", "t", "loss", "r", "p", references = references)
  expect_no_error(ggplot2::ggplot_build(loss))
  expect_true(any(purrr::map_lgl(loss$layers, function(l) inherits(l$geom, "GeomHline"))))
  expect_match(loss$labels$caption, "Dashed: published values.", fixed = TRUE)
  study <- size_figure(sizes, trials, "lan", "t", "loss", "r", "p")
  expect_false(grepl("published", study$labels$caption, fixed = TRUE))
  expect_error(size_figure(sizes, trials, "lan", "t", "speed", "r", "p"), "unknown kind 'speed'")
})

test_that("claims under a figure are those that name it", {
  evaluated <- dplyr::bind_rows(
    one_claim(claim_id = "A", figure = "Fig 2"), one_claim(claim_id = "B", figure = "Fig 3")
  ) |>
    dplyr::mutate(setup = "s", measured = 1, margin = 4, verdict = "reproduced")
  html <- claims_under(evaluated, c("Fig 2a", "Fig 2b"))
  expect_match(html, "<b>A</b>", fixed = TRUE)
  expect_false(grepl("<b>B</b>", html, fixed = TRUE))
  expect_equal(claims_under(evaluated, "Fig 9"), "")
})

test_that("the verdict rules say what each claim measures, its rule and why its target", {
  claims <- dplyr::bind_rows(
    one_claim(claim_id = "A", modes = "udp;tcp", metric = "share_faster", experiments = "e1;e2",
      size_min_bytes = 1024, size_max_bytes = 8192, target_basis = "the paper's <5 %"),
    one_claim(claim_id = "B", experiments = "e1")
  )
  measured_as <- echo_claims_measured_as(claims)
  expect_equal(measured_as[1], "<code>share_faster</code> of udp vs tcp in e1, e2 (1 KB to 8 KB)")
  expect_equal(measured_as[2], "<code>max_loss</code> of udp in e1")
  expect_equal(
    experiment_claims_measured_as(claims), c("<code>share_faster</code> over e1, e2", "<code>max_loss</code> over e1")
  )
  evaluated <- dplyr::mutate(claims, setup = "s", measured = 1, margin = 0, verdict = "reproduced")
  html <- verdict_rules_html(claims, evaluated, measured_as)
  headers <- regmatches(html, gregexpr("<th[^>]*>[^<]*</th>", html))[[1]]
  expect_equal(
    trimws(gsub("<[^>]+>", "", headers)),
    c("Claim", "Measured as", "Rule", "n", "95 % interval", "Why this target")
  )
  expect_match(html, "<code>share_faster</code> of udp vs tcp", fixed = TRUE)
  expect_match(html, "the paper's &lt;5 %", fixed = TRUE)
})

test_that("experiment notes are named by experiment, each saying what its sizes are", {
  data <- dplyr::bind_rows(
    echo_rows("udp", c(1000, 2000), c(1, 2), experiment = "lan-nasa"),
    echo_rows("udp", c(1000, 2000), c(1, 2), experiment = "lan-2k")
  )
  notes <- experiment_notes(
    summarise_coverage(data), "wan-1k", c("lan-nasa", "lan-2k", "wan-1k"), "results", "p",
    what = c("image files", "message sizes", "message sizes")
  )
  expect_named(notes, c("lan-nasa", "lan-2k", "wan-1k"))
  expect_match(notes[["lan-nasa"]], "We ran 2 image files", fixed = TRUE)
  expect_match(notes[["lan-2k"]], "We ran 2 message sizes", fixed = TRUE)
  expect_match(notes[["wan-1k"]], "results/p/wan-1k/results.csv", fixed = TRUE)
})

test_that("a range for prose leaves NA out and says when there is nothing", {
  expect_equal(range_text(c(0.5, NA, 1.25)), "0.5 to 1.25")
  expect_equal(range_text(c(85, 100), "-", " %"), "85-100 %")
  expect_equal(range_text(c(NA_real_)), "(not run)")
  expect_equal(range_text(c(100, 100), " to ", " %"), "100 %")
})
