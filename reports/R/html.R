# Small HTML pieces shared by the reports and the index page.

escape_html <- function(x) {
  htmltools::htmlEscape(as.character(x))
}

verdict_badge <- function(verdict) {
  verdict <- as.character(verdict)
  css <- gsub(" ", "-", verdict, fixed = TRUE)
  paste0('<span class="verdict verdict-', css, '">', escape_html(verdict), "</span>")
}

# A highlighted box, e.g. for data that are missing.
callout <- function(text, kind = "warning") {
  paste0('<div class="callout callout-', kind, '">', text, "</div>")
}

verdict_counts <- function(verdicts) {
  levels <- c("reproduced", "partly", "not reproduced", "no data")
  counts <- table(factor(as.character(verdicts), levels = levels))
  stats::setNames(as.integer(counts), levels)
}

# Scorecards found in an output folder, keyed by report id.
read_scorecards <- function(html_dir) {
  paths <- sort(list.files(html_dir, pattern = "-scorecard\\.csv$", full.names = TRUE))
  ids <- sub("-scorecard\\.csv$", "", basename(paths))
  stats::setNames(
    purrr::map(paths, readr::read_csv,
      col_types = readr::cols(.default = readr::col_character()),
      progress = FALSE
    ),
    ids
  )
}

# The <title> of a rendered report, or its id when unreadable.
report_title <- function(html_path, fallback) {
  if (!file.exists(html_path)) {
    return(fallback)
  }
  head <- paste(readLines(html_path, n = 200, warn = FALSE), collapse = " ")
  title <- regmatches(head, regexpr("<title>[^<]*</title>", head))
  if (length(title) == 0) {
    return(fallback)
  }
  trimws(gsub("</?title>", "", title))
}

scorecard_rows_html <- function(scorecard) {
  cells <- paste0(
    "<tr><td>", escape_html(scorecard$claim_id),
    "</td><td>", escape_html(scorecard$figure),
    "</td><td>", escape_html(scorecard$claim),
    "</td><td>", escape_html(scorecard$published),
    "</td><td>", escape_html(dplyr::coalesce(scorecard$measured, "")),
    "</td><td>", verdict_badge(scorecard$verdict),
    "</td></tr>"
  )
  paste(cells, collapse = "\n")
}

# TRUE when a rendered report carries the synthetic-data banner.
report_is_synthetic <- function(html_path) {
  file.exists(html_path) &&
    any(grepl("SYNTHETIC DATA", readLines(html_path, warn = FALSE), fixed = TRUE))
}

report_section_html <- function(id, scorecard, html_dir) {
  html_file <- paste0(id, ".html")
  title <- report_title(file.path(html_dir, html_file), id)
  synthetic <- if (report_is_synthetic(file.path(html_dir, html_file))) {
    callout(
      "SYNTHETIC DATA: this report was rendered from test fixtures, not from measurements.",
      "danger"
    )
  } else {
    ""
  }
  counts <- verdict_counts(scorecard$verdict)
  summary <- paste0(
    verdict_badge(names(counts)), " ", counts,
    collapse = " &nbsp; "
  )
  link <- if (file.exists(file.path(html_dir, html_file))) {
    paste0('<a href="', escape_html(html_file), '">', escape_html(title), "</a>")
  } else {
    paste0(escape_html(title), " (report HTML missing)")
  }
  paste0(
    '<section class="report">\n<h2>', link, "</h2>\n", synthetic,
    '<p class="summary">', summary, ' &nbsp; <a href="', escape_html(id),
    '-scorecard.csv">scorecard CSV</a></p>\n',
    "<details><summary>Scorecard (", nrow(scorecard), " claims)</summary>\n",
    "<table><thead><tr><th>Claim</th><th>Figure</th><th>What the paper says</th>",
    "<th>Published</th><th>Measured</th><th>Verdict</th></tr></thead><tbody>\n",
    scorecard_rows_html(scorecard),
    "\n</tbody></table>\n</details>\n</section>"
  )
}

index_html <- function(scorecards, html_dir, css = "") {
  sections <- if (length(scorecards) == 0) {
    "<p>No report has been rendered yet.</p>"
  } else {
    paste(purrr::imap_chr(scorecards, function(s, id) {
      report_section_html(id, s, html_dir)
    }), collapse = "\n")
  }
  paste0(
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
    "<title>netrepro reports</title>\n<style>\n", css, "\n</style>\n</head>\n<body>\n",
    "<main class=\"index\">\n<h1>netrepro: 1990s TCP/UDP papers, re-run</h1>\n",
    "<p>Each report re-runs one paper's experiments on emulated links and sets every ",
    "published claim beside what we measured.</p>\n",
    sections,
    "\n<footer>Built ", escape_html(format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
    " by reports/index.R.</footer>\n</main>\n</body>\n</html>\n"
  )
}
