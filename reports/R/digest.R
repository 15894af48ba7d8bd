# Run digests: per experiment, the SHA-256 netrepro/digest.py computes over the
# records of its virtual-time runs, read from
# results/<paper>/<experiment>/digest.json.

# One row per experiment of the report: those the runs (read_provenance()) come
# from, in the order first met, then the paper's other experiments with a
# digest (variants that feed the sensitivity table, say). Each has its digest as
# the pipeline stored it (NA without one), the runs and records it covers, and
# the runs left out (emulated).
read_digests <- function(results_dir, paper, runs) {
  stored <- Sys.glob(file.path(experiment_dir(results_dir, paper, "*"), "digest.json"))
  pairs <- dplyr::distinct(tibble::tibble(
    paper = c(purrr::map_chr(runs, field, "paper"), rep(paper, length(stored))),
    experiment = c(purrr::map_chr(runs, field, "experiment"), sort(basename(dirname(stored))))
  ))
  pairs <- dplyr::filter(pairs, !is.na(paper), !is.na(experiment))
  rows <- purrr::map2(pairs$paper, pairs$experiment, function(paper, experiment) {
    path <- file.path(experiment_dir(results_dir, paper, experiment), "digest.json")
    record <- if (file.exists(path)) jsonlite::read_json(path) else NULL
    tibble::tibble(
      paper = paper,
      experiment = experiment,
      recorded = !is.null(record),
      form = field(record, "form"),
      digest = field(record, "digest"),
      runs = length(record$runs),
      records = sum(purrr::map_dbl(record$runs, function(run) run$records %||% 0)),
      not_digested = length(record$not_digested)
    )
  })
  dplyr::bind_rows(rows)
}

# Why an experiment's digest reads as it does, for a reader comparing it.
digest_note <- function(recorded, digest, not_digested) {
  dplyr::case_when(
    !recorded ~ "not recorded: aggregated before digests were kept; run the workflow again",
    is.na(digest) ~ "no run in virtual time: emulated runs are timed by the host's clock",
    not_digested > 0 ~ paste(not_digested, "emulated run(s) left out"),
    TRUE ~ ""
  )
}

# The provenance section's table of digests, with how to check a rerun
# against it.
digests_html <- function(digests) {
  if (nrow(digests) == 0) {
    return(callout("No experiments, so no run digests."))
  }
  forms <- unique(stats::na.omit(digests$form))
  # The option's dashes as entities: pandoc's smart punctuation would set "--" as a dash.
  intro <- paste0(
    "<p><b>Run digests</b>: each experiment's SHA-256 over the records of its runs in ",
    "virtual time (records, segment logs, packet captures), in run order and canonical form",
    if (length(forms) > 0) paste0(" <code>", escape_html(paste(forms, collapse = ", ")), "</code>"),
    ". They leave out what differs between two runs of the same spec (the host's clock, ",
    "paths, host, commit), so a rerun of this report's spec and profile with ",
    "<code>backend=sim</code> gives the same digests. Check one with ",
    "<code>python -m netrepro.digest results/&lt;paper&gt; &#45;&#45;report &lt;this page&gt;</code> ",
    "(docs/results.md, Run digests).</p>"
  )
  table <- dplyr::transmute(digests,
    Experiment = escape_html(paste(paper, experiment, sep = "/")),
    Digest = dplyr::if_else(is.na(digest), "–", paste0("<code>", escape_html(digest), "</code>")),
    `Runs digested` = runs,
    Records = records,
    Note = escape_html(digest_note(recorded, digest, not_digested))
  )
  paste0(intro, kable_html(table, escape = FALSE))
}
