test_that("the index links each report with its scorecard and counts verdicts", {
  dir <- withr::local_tempdir()
  readr::write_csv(
    tibble::tibble(
      claim_id = c("C1", "C2"), figure = "Fig 1", claim = c("a <b>", "b"),
      published = "p", measured = c(1, NA), verdict = c("reproduced", "no data"),
      margin = c(1, NA), unit = "%"
    ),
    file.path(dir, "paperx-scorecard.csv")
  )
  writeLines(
    "<html><head><title>Paper X re-run</title></head><body>SYNTHETIC DATA</body></html>",
    file.path(dir, "paperx.html")
  )
  html <- index_html(read_scorecards(dir), dir)
  expect_match(html, "<a href=\"paperx.html\">Paper X re-run</a>", fixed = TRUE)
  expect_match(html, "paperx-scorecard.csv", fixed = TRUE)
  expect_match(html, "a &lt;b&gt;", fixed = TRUE)
  expect_match(html, "verdict-reproduced\">reproduced</span> 1", fixed = TRUE)
  expect_match(html, "SYNTHETIC DATA: this report", fixed = TRUE)
  expect_match(index_html(list(), dir), "No report has been rendered yet")
})

test_that("the index names every paper: run ones with their last run, others with the command", {
  dir <- withr::local_tempdir()
  results <- withr::local_tempdir()
  readr::write_csv(
    tibble::tibble(
      claim_id = c("C1", "C2", "C3"), figure = c("Fig 1", "Fig 1", NA), claim = "c",
      published = "p", measured = c(1, 2, NA), verdict = c("reproduced", "partly", "no data"),
      margin = NA, unit = "%"
    ),
    file.path(dir, "papera-scorecard.csv")
  )
  papers <- tibble::tibble(
    id = c("papera", "paperb"), title = c("Paper A", "Paper B"), specs = "configs/x.yaml",
    command = c("run a", "run b1; run b2 --config profile=paper")
  )
  run <- list(run_id = "r", git_commit = "0123456789abcdef", profile = "quick",
    backend = "sim", finished_at = "2026-01-02T03:04:05Z")
  old_run <- utils::modifyList(run, list(backend = "linkemu", finished_at = "2025-01-01T00:00:00Z"))
  dir.create(file.path(results, "papera", "e1"), recursive = TRUE)
  writeLines(
    c(jsonlite::toJSON(old_run, auto_unbox = TRUE), jsonlite::toJSON(run, auto_unbox = TRUE)),
    file.path(results, "papera", "e1", "provenance.jsonl")
  )
  runs <- list(papera = last_run(results, "papera"), paperb = last_run(results, "paperb"))
  expect_null(runs$paperb)
  expect_equal(runs$papera$backend, "sim")
  html <- index_html(read_scorecards(dir), dir, papers = papers, runs = runs)
  expect_match(html, 'id="paper-papera"', fixed = TRUE)
  expect_match(html, 'id="paper-paperb"', fixed = TRUE)
  expect_match(html, "profile <b>quick</b>, backend <b>sim</b>, 2026-01-02T03:04:05Z", fixed = TRUE)
  expect_match(html, "commit <code>0123456789ab</code> (2 runs recorded; backends: linkemu, sim)", fixed = TRUE)
  expect_match(html, "not run yet", fixed = TRUE)
  expect_match(html, "run b1\nrun b2 --config profile=paper")
  expect_match(html, "Verdicts per figure: Fig 1 1 reproduced, 1 partly; – 1 no data", fixed = TRUE)
  expect_match(html, "1 of 2 papers have a report", fixed = TRUE)
  expect_false(grepl(">NA<", html, fixed = TRUE))
})

test_that("the five papers are listed with a spec that exists", {
  papers <- read_papers(file.path(reports_dir, "reference", "papers.csv"))
  expect_setequal(papers$id, c("comer94", "liu95db", "liu95cool", "ishikura", "milliner"))
  expect_true(all(nzchar(papers$command)))
  specs <- unlist(strsplit(papers$specs, ";\\s*"))
  expect_true(all(grepl("^configs/[a-z0-9-]+\\.yaml$", specs)))
})

test_that("data text stays text: asis output becomes raw HTML, headings only on purpose", {
  text <- "<td># per_packet_ns: **x** | y |\n```\n## z</td>"
  block <- raw_html_block(text)
  expect_match(block, "````{=html}\n", fixed = TRUE)
  expect_match(block, text, fixed = TRUE)
  expect_equal(raw_html_block("  \n"), "  \n")
  with_heading <- raw_html_block(c("<p>a</p>", markdown_heading("lan *1*"), "<p>b</p>"))
  expect_match(with_heading, "\n\n## lan \\*1\\*\n\n", fixed = TRUE)
  expect_equal(lengths(regmatches(with_heading, gregexpr("{=html}", with_heading, fixed = TRUE))), 2)
  expect_equal(escape_markdown("a_b#[c]"), "a\\_b\\#\\[c\\]")
  expect_equal(figure_alt_text("fig-table1-heatmap"), "Figure: table1 heatmap")
})

test_that("a host model file is named by its first line and shown as code", {
  table <- provenance_runs(list(
    list(run_id = "a", host_model = "# Sun IPC (sun4c)\n#\n## not a heading\nper: 1"),
    list(run_id = "b", host = "ipx", host_model = "# Sun IPX\nper: 2"),
    list(run_id = "c")
  ))
  expect_equal(table$host_model, c("Sun IPC (sun4c)", "ipx", NA))
  html <- host_models_html(table)
  expect_match(html, "<pre><code># Sun IPC (sun4c)\n#\n## not a heading\nper: 1</code></pre>", fixed = TRUE)
  expect_match(html, "Host model files (2)", fixed = TRUE)
})

test_that("verdicts become badges with a CSS class", {
  expect_equal(
    verdict_badge("not reproduced"),
    '<span class="verdict verdict-not-reproduced">not reproduced</span>'
  )
  expect_equal(
    unname(verdict_counts(c("partly", "partly", "no data"))),
    c(0L, 2L, 0L, 0L, 0L, 0L, 0L, 0L, 1L)
  )
})

test_that("the index lists studies of one's own apart from the papers", {
  html_dir <- withr::local_tempdir()
  for (id in c("comer94", "my-study", "index")) {
    writeLines(paste0("<title>", id, " title</title>"), file.path(html_dir, paste0(id, ".html")))
  }
  expect_equal(study_ids(html_dir, c("comer94", "liu95db")), "my-study")
  section <- studies_section_html(html_dir, "comer94")
  expect_match(section, "<h2>Studies of your own</h2>", fixed = TRUE)
  expect_match(section, "href=\"my-study.html\"", fixed = TRUE)
  expect_false(grepl("comer94", section))
  expect_equal(studies_section_html(html_dir, c("comer94", "my-study")), "")
})

test_that("a no-wrap cell escapes its text", {
  expect_equal(nowrap_html("16K/20K"), '<span class="nowrap">16K/20K</span>')
  expect_equal(nowrap_html("a<b"), '<span class="nowrap">a&lt;b</span>')
  expect_equal(words_html("not reproduced"), '<span class="words">not reproduced</span>')
  expect_equal(words_html("a<b"), '<span class="words">a&lt;b</span>')
})

test_that("use_report_output() sets every report's chunk options, with a report's own on top", {
  chunk_options <- knitr::opts_chunk$get()
  output_hook <- knitr::knit_hooks$get("output")
  withr::defer({
    knitr::opts_chunk$restore(chunk_options)
    knitr::knit_hooks$set(output = output_hook)
    knitr::opts_hooks$restore()
  })
  use_report_output(fig.height = 4.8, dpi = 96)
  expect_false(knitr::opts_chunk$get("echo"))
  expect_equal(knitr::opts_chunk$get("fig.width"), 9)
  expect_equal(knitr::opts_chunk$get("fig.height"), 4.8)
  expect_equal(knitr::opts_chunk$get("dpi"), 96)
  hook <- knitr::knit_hooks$get("output")
  expect_match(hook("<b>x</b>", list(results = "asis")), "```{=html}", fixed = TRUE)
  use_report_output()
  expect_equal(knitr::opts_chunk$get("fig.height"), 5.2)
  expect_identical(knitr::knit_hooks$get("output"), hook)
})

test_that("the index counts the claims on the era's hosts by verdict, fitted ones apart", {
  card <- function(verdict, era, fitted) {
    tibble::tibble(claim_id = paste0("X", seq_along(verdict)), figure = "Fig 1", claim = "c",
      published = "p", measured = "1", verdict = verdict,
      era_host = as.character(era), fitted = as.character(fitted))
  }
  scorecards <- list(
    a = card(c("reproduced", "fitted", "inconclusive", "reproduced"), c(TRUE, TRUE, TRUE, FALSE), c(FALSE, TRUE, FALSE, FALSE)),
    b = card(c("reproduced", "not reproduced", "not reproduced"), TRUE, c(FALSE, FALSE, TRUE)),
    old = tibble::tibble(claim_id = "Y", figure = "Fig 1", claim = "c", published = "p", measured = "1", verdict = "reproduced")
  )
  counts <- era_host_counts(scorecards)
  expect_equal(counts$paper, c("a", "b", "old", "all papers"))
  expect_equal(counts$era_claims, c(3, 3, 0, 6))
  expect_equal(counts$on_fitted, c(1, 1, 0, 2))
  expect_equal(counts$held_out, c(2, 2, 0, 4))
  expect_equal(counts$reproduced, c(1, 1, 0, 2))
  expect_equal(counts$inconclusive, c(1, 0, 0, 1))
  expect_equal(counts$`not reproduced`, c(0, 1, 0, 1))
  expect_equal(counts$reproduced_pct, c(50, 50, NA, 50))
  html <- era_host_html(counts)
  expect_match(html, "Claims on the era's hosts", fixed = TRUE)
  # A paper's name is kept on one line, so that the table's narrow first column does not break it.
  expect_match(html, '<td><span class="nowrap">all papers</span></td><td>6</td><td>2</td><td>4</td>', fixed = TRUE)
  # Verdicts no held-out claim has are left out of a paper's row.
  expect_no_match(html, '<td><span class="nowrap">b</span></td>.*verdict-inconclusive.*</tr>\n<tr><td><span class="nowrap">old')
  expect_match(era_host_html(era_host_counts(scorecards["old"])), "No claim was judged")
  expect_match(index_html(scorecards, tempdir()), "id=\"era-hosts\"", fixed = TRUE)
})

test_that("a report's run profile is named, and a smoke run is said to be too small to judge", {
  expect_equal(run_profile_html("paper"), "Run profile: paper. ")
  expect_match(run_profile_html(c("quick", "smoke")), "Run profile: quick, smoke. <b>The smoke profile", fixed = TRUE)
  expect_false(grepl("smoke", run_profile_html("quick"), fixed = TRUE))
})
