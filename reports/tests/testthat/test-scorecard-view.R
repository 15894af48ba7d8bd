test_that("the scorecard puts each claim in full width and its numbers beneath", {
  evaluated <- tibble::tibble(
    claim_id = c("A1", "A2"), figure = c("Fig 2", NA), claim = c("UDP is *fast* <here>", "b"),
    source = c("Sec 3", NA), published = c("fast", NA), measured = c(2.5, NA),
    verdict = factor(c("reproduced", "no data"), levels = verdict_levels), margin = c(0.5, NA),
    unit = c("ms", NA), check = "at_most", target = 3, tolerance = 0, partly_tolerance = 1,
    setup = c("lan/sim", NA), n = c(4, NA), n_of = c("sizes", NA), echoes = c(240, NA),
    ci_low = c(2.1, NA), ci_high = c(2.9, NA)
  )
  html <- scorecard_view_html(evaluated)
  expect_match(html, '<tr class="claim"><td colspan="6"><b>A1</b>', fixed = TRUE)
  expect_match(html, "UDP is *fast* &lt;here&gt; <span class=\"small\">(Sec 3)</span>", fixed = TRUE)
  expect_match(html, "lan/sim", fixed = TRUE)
  expect_match(html, "no setup measured it", fixed = TRUE)
  expect_match(html, '<tr class="numbers"><td>fast</td><td class="num">2.5 ms [2.1, 2.9]</td><td class="num">4 sizes, 240 echoes</td>', fixed = TRUE)
  expect_match(html, "not measured", fixed = TRUE)
  expect_false(grepl("\\bNA\\b", gsub("<[^>]+>", " ", html)))
  expect_equal(lengths(regmatches(html, gregexpr("<tbody>", html, fixed = TRUE))), 2)

  cells <- dplyr::mutate(evaluated, n = NULL, n_of = NULL, echoes = NULL)
  html <- scorecard_view_html(cells)
  expect_match(html, 'colspan="5"', fixed = TRUE)
  expect_false(grepl(">n</th>", html, fixed = TRUE))
})

test_that("n names one measurement in the singular and several in the plural", {
  evaluated <- tibble::tibble(
    n = c(1, 5, 1, NA), n_of = c("sizes", "sizes", "transfers", "cells"), echoes = c(50, 250, NA, NA)
  )
  expect_equal(n_text(evaluated), c("1 size, 50 echoes", "5 sizes, 250 echoes", "1 transfer", "–"))
})
