# End-to-end: render.R and index.R on a SYNTHETIC results tree.

rscript <- function(...) {
  # Intervals are tested in test-claims.R; here a few resamples keep the renders quick.
  withr::local_envvar(NETREPRO_BOOTSTRAP_REPS = "20")
  output <- suppressWarnings(system2(
    file.path(R.home("bin"), "Rscript"), c(...), stdout = TRUE, stderr = TRUE
  ))
  list(status = attr(output, "status") %||% 0L, output = paste(output, collapse = "\n"))
}

`%||%` <- function(a, b) if (is.null(a)) b else a

test_that("render.R fails with a clear message when there are no data", {
  empty <- withr::local_tempdir()
  out <- withr::local_tempdir()
  run <- rscript(file.path(reports_dir, "render.R"), "liu95cool", empty, out)
  expect_false(run$status == 0)
  expect_match(run$output, "no data for liu95cool")
  run <- rscript(file.path(reports_dir, "render.R"), "my-study", empty, out)
  expect_false(run$status == 0)
  expect_match(run$output, "no data for my-study")
  run <- rscript(file.path(reports_dir, "render.R"), shQuote("Bad Name"), empty, out)
  expect_false(run$status == 0)
  expect_match(run$output, "'Bad Name' is not a paper or study name")
})

test_that("the report renders offline with a missing experiment shown, then the index", {
  results <- withr::local_tempdir()
  out <- withr::local_tempdir()
  make_synthetic_results(
    results,
    experiments = c("lan-512b", "lan-2k", "lan-large", "lan-very-large"),
    trials = 2, echoes = 3
  )
  # html/ is left out: make reproduce writes there, and pytest's browser test saves its
  # screenshots there while these tests run beside it.
  sources <- function() grep("^html/", list.files(reports_dir, recursive = TRUE), value = TRUE, invert = TRUE)
  before <- sources()
  run <- rscript(file.path(reports_dir, "render.R"), "liu95cool", results, out)
  expect_equal(run$status, 0, info = run$output)
  expect_setequal(list.files(out), c("liu95cool.html", "liu95cool-scorecard.csv"))
  expect_setequal(sources(), before)

  html <- paste(readLines(file.path(out, "liu95cool.html"), warn = FALSE), collapse = "\n")
  expect_match(html, "SYNTHETIC DATA", fixed = TRUE)
  expect_match(html, "No data yet", fixed = TRUE)
  expect_match(html, "lan-nasa/results.csv", fixed = TRUE)
  expect_false(grepl("<script[^>]+src=\"https?:", html, perl = TRUE))
  expect_false(grepl("<link[^>]+href=\"https?:", html, perl = TRUE))
  expect_false(grepl("mathjax", html, ignore.case = TRUE, perl = TRUE))
  headings <- regmatches(html, gregexpr("<h2>[^<]+</h2>", html, perl = TRUE))[[1]]
  expect_equal(utils::tail(headings, 1), "<h2>Provenance</h2>")

  card <- readr::read_csv(file.path(out, "liu95cool-scorecard.csv"), show_col_types = FALSE)
  claims <- read_claims(file.path(reports_dir, "reference", "liu95cool-claims.csv"))
  expect_equal(card$claim_id, claims$claim_id)
  nasa_only <- grepl("Fig 5", card$figure) & !grepl("Fig 3", card$figure)
  expect_true(all(card$verdict[nasa_only] == "no data"))
  unmeasurable <- startsWith(claims$target_basis, "not reproducible here")
  wan_atm <- grepl("^[WAFT]", card$claim_id) & card$claim_id != "T01" & !unmeasurable
  expect_true(all(card$verdict[wan_atm] == "no data"))
  expect_true(all(card$verdict[unmeasurable] == "not reproducible here"))
  expect_match(html, "atm-ttcp-cooling/results.csv", fixed = TRUE)
  expect_match(html, "wan-very-large/results.csv", fixed = TRUE)
  expect_true(all(card$verdict %in% verdict_levels))

  run <- rscript(file.path(reports_dir, "index.R"), out)
  expect_equal(run$status, 0, info = run$output)
  index <- paste(readLines(file.path(out, "index.html"), warn = FALSE), collapse = "\n")
  expect_match(index, "href=\"liu95cool.html\"", fixed = TRUE)
  expect_match(index, "UDP cooling and TCP", fixed = TRUE)
  expect_match(index, "C01", fixed = TRUE)
})

test_that("comer94 renders both backends side by side, without nodelay rows or trace", {
  results <- withr::local_tempdir()
  out <- withr::local_tempdir()
  make_synthetic_comer94(results, repeats = 2, trace = FALSE)
  run <- rscript(file.path(reports_dir, "render.R"), "comer94", results, out)
  expect_equal(run$status, 0, info = run$output)
  expect_setequal(list.files(out), c("comer94.html", "comer94-scorecard.csv"))
  html <- paste(readLines(file.path(out, "comer94.html"), warn = FALSE), collapse = "\n")
  expect_match(html, "SYNTHETIC DATA", fixed = TRUE)
  expect_match(html, "circular-wait/trace.csv", fixed = TRUE)
  expect_match(html, "transfers\\s+with\\s+TCP_NODELAY\\s+set</b>\\s+were\\s+left\\s+out")
  expect_match(html, "atm-taxi-100 / tahoe / linkemu", fixed = TRUE)
  expect_match(html, "atm-taxi-100 / tahoe / sim", fixed = TRUE)
  # The host model's YAML comments are shown as code, never as headings.
  toc <- regmatches(html, regexpr('(?s)<div id="TOC">.*?</div>', html, perl = TRUE))
  expect_length(toc, 1)
  expect_false(grepl("host model", toc, fixed = TRUE))
  expect_lte(lengths(regmatches(toc, gregexpr("<li>", toc, fixed = TRUE))), 40)
  expect_match(html, "<pre><code># SYNTHETIC host model (toy values).", fixed = TRUE)
  expect_false(grepl("<h[1-6][^>]*>[^<]*per_packet_ns", html, perl = TRUE))
  expect_false(grepl("<script[^>]+src=\"https?:", html, perl = TRUE))
  headings <- regmatches(html, gregexpr("<h2>[^<]+</h2>", html, perl = TRUE))[[1]]
  expect_equal(utils::tail(headings, 1), "<h2>Provenance</h2>")

  card <- readr::read_csv(file.path(out, "comer94-scorecard.csv"), show_col_types = FALSE)
  claims <- read_claims(file.path(reports_dir, "reference", "comer94-claims.csv"),
    cell_metrics
  )
  # Table 1's claims are judged on both backends; Fig 8, Sec 5 and ftp ran in virtual time only.
  on_table1 <- sub("@.*$", "", card$claim_id) %in% claims$claim_id[claims$experiments == "table1"]
  expect_equal(sum(on_table1), 2 * sum(claims$experiments == "table1"))
  expect_true(all(grepl("@atm-taxi-100/tahoe/(sim|linkemu)/sparcstation-ipc$", card$claim_id[on_table1])))
  # Without the trace, only the claims on it (Figs 5 and 6) have no data, and those on the
  # stack's counts (Fig 8's K14, K16) on the emulated backend, which records none.
  on_trace <- sub("@.*$", "", card$claim_id) %in% claims$claim_id[claims$experiments == "circular-wait"]
  expect_equal(sum(on_trace), 2)
  on_counts <- sub("@.*$", "", card$claim_id) %in% claims$claim_id[claims$metric == "behind_share"] &
    grepl("/linkemu/", card$claim_id)
  expect_equal(sum(on_counts), 2)
  expect_equal(card$verdict == "no data", on_trace | on_counts)
  # The toy data disagree with the shading on one cell of one setup; K01 is judged on the cells
  # no host model was fitted on (n), whichever the host files name.
  k01 <- card[startsWith(card$claim_id, "K01@"), ]
  expect_equal(sort(round(k01$measured * k01$n / 100)), sort(k01$n) - c(1, 0))

  run <- rscript(file.path(reports_dir, "index.R"), out)
  expect_equal(run$status, 0, info = run$output)
  index <- paste(readLines(file.path(out, "index.html"), warn = FALSE), collapse = "\n")
  expect_match(index, "href=\"comer94.html\"", fixed = TRUE)
})

test_that("comer94 with only the packet trace still renders and writes a no-data scorecard", {
  results <- withr::local_tempdir()
  out <- withr::local_tempdir()
  make_synthetic_comer94(results, repeats = 1)
  unlink(file.path(results, "comer94", "table1"), recursive = TRUE)
  run <- rscript(file.path(reports_dir, "render.R"), "comer94", results, out)
  expect_equal(run$status, 0, info = run$output)
  card <- readr::read_csv(file.path(out, "comer94-scorecard.csv"), show_col_types = FALSE)
  claims <- readr::read_csv(file.path(reports_dir, "reference", "comer94-claims.csv"), show_col_types = FALSE)
  on_table1 <- sub("@.*$", "", card$claim_id) %in% claims$claim_id[claims$experiments == "table1"]
  expect_true(any(on_table1))
  expect_true(all(card$verdict[on_table1] == "no data"))
  html <- paste(readLines(file.path(out, "comer94.html"), warn = FALSE), collapse = "\n")
  expect_match(html, "comer94/table1/results.csv", fixed = TRUE)
  expect_match(html, "14\\s+packets\\s+\\(8\\s+data\\s+segments")
  # The trace is judged against Figs 5 and 6 even without Table 1.
  on_trace <- sub("@.*$", "", card$claim_id) %in% claims$claim_id[claims$experiments == "circular-wait"]
  expect_equal(card$verdict[on_trace], c("reproduced", "reproduced"))
})

test_that("liu95db renders both backends side by side, with missing experiments shown", {
  results <- withr::local_tempdir()
  out <- withr::local_tempdir()
  make_synthetic_liu95db(
    results,
    list("atm-8k" = c("sim", "linkemu"), "ethernet-8k" = "sim", "atm-boundaries" = c("sim", "linkemu")),
    table3_backends = c("sim", "linkemu"), echoes = 4, repeats = 1
  )
  make_synthetic_comer94(results, repeats = 1, backends = "sim", trace = FALSE)
  run <- rscript(file.path(reports_dir, "render.R"), "liu95db", results, out)
  expect_equal(run$status, 0, info = run$output)
  expect_setequal(list.files(out), c("liu95db.html", "liu95db-scorecard.csv"))
  html <- paste(readLines(file.path(out, "liu95db.html"), warn = FALSE), collapse = "\n")
  expect_match(html, "SYNTHETIC DATA", fixed = TRUE)
  expect_match(html, "liu95db/atm-nodelay/results.csv", fixed = TRUE)
  expect_match(html, "liu95db/ethernet-nodelay/results.csv", fixed = TRUE)
  expect_match(html, "<h2>Virtual time against emulation</h2>", fixed = TRUE)
  expect_match(html, "Agree within 5 %", fixed = TRUE)
  expect_match(html, "Buffer pairs where the backends differ", fixed = TRUE)
  expect_false(grepl("<script[^>]+src=\"https?:", html, perl = TRUE))
  headings <- regmatches(html, gregexpr("<h2>[^<]+</h2>", html, perl = TRUE))[[1]]
  expect_equal(utils::tail(headings, 1), "<h2>Provenance</h2>")

  card <- readr::read_csv(file.path(out, "liu95db-scorecard.csv"), show_col_types = FALSE)
  claims <- read_claims(file.path(reports_dir, "reference", "liu95db-claims.csv"),
    c(liu95db_echo_metrics, cell_metrics)
  )
  ids <- sub("@.*$", "", card$claim_id)
  expect_setequal(unique(ids), claims$claim_id)
  expect_true(all(card$verdict[startsWith(ids, "Y")] == "no data"))
  expect_true(all(grepl("@tahoe/(sim|linkemu)/sparcstation-ipc$", card$claim_id[ids == "D01"])))
  expect_true(all(grepl("@atm-taxi-100/tahoe/(sim|linkemu)/sparcstation-ipc$", card$claim_id[ids == "M01"])))
  expect_true(all(card$verdict[ids == "B02"] != "no data"))
  # Table 2 (comer94's Table 1) ran only in virtual time.
  m07 <- card$verdict[ids == "M07"]
  expect_equal(m07[grepl("/sim/", card$claim_id[ids == "M07"])], "reproduced")
  expect_equal(m07[grepl("/linkemu/", card$claim_id[ids == "M07"])], "no data")
  expect_true(all(card$verdict %in% verdict_levels))
})

test_that("the milliner report renders from synthetic data with a verdict for every claim", {
  results <- withr::local_tempdir()
  out <- withr::local_tempdir()
  make_synthetic_milliner(results)
  run <- rscript(file.path(reports_dir, "render.R"), "milliner", results, out)
  expect_equal(run$status, 0, info = run$output)
  card <- readr::read_csv(file.path(out, "milliner-scorecard.csv"), show_col_types = FALSE)
  claims <- readr::read_csv(file.path(reports_dir, "reference", "milliner-claims.csv"), show_col_types = FALSE)
  expect_setequal(card$claim_id, claims$claim_id)
  expect_equal(card$verdict[card$claim_id == "M12"], "not reproducible here")
  # RPC is measured on the Linux stack only: the toy RPC is slower than the toy TCP.
  expect_equal(card$verdict[card$claim_id == "M11"], "reproduced")
  html <- paste(readLines(file.path(out, "milliner.html"), warn = FALSE), collapse = "\n")
  expect_match(html, "not reproducible here", fixed = TRUE)
  expect_match(html, "SYNTHETIC DATA", fixed = TRUE)
  expect_match(html, "<b>Data in this report:</b>\\s+12\\s+of\\s+12\\s+experiments")
  headings <- regmatches(html, gregexpr("<h2>[^<]+</h2>", html, perl = TRUE))[[1]]
  expect_equal(headings[1], "<h2>What this report is</h2>")
  expect_equal(utils::tail(headings, 1), "<h2>Provenance</h2>")
})

test_that("the milliner report renders with only some experiments run, their claims no data", {
  results <- withr::local_tempdir()
  out <- withr::local_tempdir()
  make_synthetic_milliner(results)
  kept <- c("compare-rpc", "compare-tcp-linux")
  unlink(setdiff(list.dirs(file.path(results, "milliner"), recursive = FALSE),
                 file.path(results, "milliner", kept)), recursive = TRUE)
  run <- rscript(file.path(reports_dir, "render.R"), "milliner", results, out)
  expect_equal(run$status, 0, info = run$output)
  card <- readr::read_csv(file.path(out, "milliner-scorecard.csv"), show_col_types = FALSE)
  expect_equal(card$verdict[card$claim_id == "M11"], "reproduced")
  expect_true("no data" %in% card$verdict)
  html <- paste(readLines(file.path(out, "milliner.html"), warn = FALSE), collapse = "\n")
  expect_match(html, "<b>Missing\\s+experiments:</b>\\s+udp-segments-1024")
})
