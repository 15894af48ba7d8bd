# Run digests in the reports' provenance (R/digest.R), read from the digest.json
# netrepro/digest.py writes beside each experiment's results.

write_digest_json <- function(results, paper, experiment, text) {
  dir <- file.path(results, paper, experiment)
  dir.create(dir, recursive = TRUE)
  writeLines(text, file.path(dir, "digest.json"))
}

digest_a <- paste0("sha256:", strrep("ab", 32))

make_digest_tree <- function() {
  results <- withr::local_tempdir(.local_envir = parent.frame())
  write_digest_json(results, "p", "sim-and-emulated", paste0(
    '{"form": "netrepro-records/1", "digest": "', digest_a, '", ',
    '"runs": [{"run": "runs/quick/sim/trial-1", "records": 3, "capture": false, "digest": "sha256:1"}, ',
    '{"run": "runs/quick/sim/trial-2", "records": 4, "segments": 9, "capture": true, "digest": "sha256:2"}], ',
    '"not_digested": [{"run": "runs/quick/linkemu/trial-1", "backend": "linkemu"}]}'
  ))
  write_digest_json(results, "p", "emulated",
    '{"form": "netrepro-records/1", "digest": null, "runs": [], "not_digested": [{"run": "r", "backend": "htb"}]}'
  )
  write_digest_json(results, "p", "variant", paste0(
    '{"form": "netrepro-records/1", "digest": "sha256:', strrep("ef", 32), '", ',
    '"runs": [{"run": "runs/quick/sim/trial-1", "records": 5, "capture": false, "digest": "sha256:4"}], ',
    '"not_digested": []}'
  ))
  write_digest_json(results, "other", "baseline", paste0(
    '{"form": "netrepro-records/1", "digest": "sha256:', strrep("cd", 32), '", ',
    '"runs": [{"run": "runs/quick/sim/trial-1", "records": 1, "capture": false, "digest": "sha256:3"}], ',
    '"not_digested": []}'
  ))
  results
}

test_that("the runs' experiments come first, in the order met, then the paper's others with a digest", {
  results <- make_digest_tree()
  runs <- list(
    list(paper = "p", experiment = "sim-and-emulated"),
    list(paper = "p", experiment = "emulated"),
    list(paper = "p", experiment = "sim-and-emulated"),
    list(paper = "p", experiment = "before-digests"),
    list(paper = "other", experiment = "baseline"),
    list(run_id = "no paper recorded")
  )
  digests <- read_digests(results, "p", runs)
  expect_equal(
    paste(digests$paper, digests$experiment, sep = "/"),
    c("p/sim-and-emulated", "p/emulated", "p/before-digests", "other/baseline", "p/variant")
  )
  expect_equal(
    digests$digest,
    c(digest_a, NA, NA, paste0("sha256:", strrep("cd", 32)), paste0("sha256:", strrep("ef", 32)))
  )
  expect_equal(digests$runs, c(2, 0, 0, 1, 1))
  expect_equal(digests$records, c(7, 0, 0, 1, 5))
  expect_equal(digests$not_digested, c(1, 1, 0, 0, 0))
  expect_equal(digests$recorded, c(TRUE, TRUE, FALSE, TRUE, TRUE))
})

test_that("the table shows every digest whole and says why one is missing", {
  results <- make_digest_tree()
  runs <- list(
    list(paper = "p", experiment = "sim-and-emulated"),
    list(paper = "p", experiment = "emulated"),
    list(paper = "p", experiment = "before-digests")
  )
  html <- digests_html(read_digests(results, "p", runs))
  expect_match(html, paste0("<code>", digest_a, "</code>"), fixed = TRUE)
  expect_match(html, "<code>netrepro-records/1</code>", fixed = TRUE)
  expect_match(html, "1 emulated run(s) left out", fixed = TRUE)
  expect_match(html, "no run in virtual time", fixed = TRUE)
  expect_match(html, "not recorded: aggregated before digests were kept", fixed = TRUE)
  # The command as a reader copies it from the page: pandoc would set a literal "--" as a dash.
  expect_match(html, "python -m netrepro.digest results/&lt;paper&gt; &#45;&#45;report", fixed = TRUE)
  expect_match(html, paste0("<code>sha256:", strrep("ef", 32), "</code>"), fixed = TRUE)
  empty <- withr::local_tempdir()
  expect_match(digests_html(read_digests(empty, "p", list())), "No experiments, so no run digests.", fixed = TRUE)
})

test_that("the note names the reason of each case", {
  expect_equal(
    digest_note(c(TRUE, TRUE, TRUE, FALSE), c("sha256:a", "sha256:a", NA, NA), c(0, 2, 1, 0)),
    c(
      "", "2 emulated run(s) left out",
      "no run in virtual time: emulated runs are timed by the host's clock",
      "not recorded: aggregated before digests were kept; run the workflow again"
    )
  )
})

test_that("every report prints the run digests in its provenance section", {
  for (path in Sys.glob(file.path(reports_dir, "*.Rmd"))) {
    lines <- readLines(path, warn = FALSE)
    provenance <- grep("^## Provenance", lines)
    calls <- grep("digests_html(read_digests(results_dir, paper, runs))", lines, fixed = TRUE)
    expect_length(provenance, 1)
    expect_length(calls, 1)
    expect_gt(calls, provenance, label = path)
  }
})
