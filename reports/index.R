# Builds index.html: every paper of reference/papers.csv with its scorecard counts,
# verdicts per figure and last run, or, for a paper not run yet, the command that runs it.
#
# Usage: Rscript reports/index.R [html_dir] [results_dir]
#   html_dir     where the reports and their *-scorecard.csv are (default: reports/html)
#   results_dir  the pipeline's results tree, for each paper's last run (default: results)

usage <- "usage: Rscript reports/index.R [html_dir] [results_dir]   (defaults: reports/html results)"
args <- commandArgs(trailingOnly = TRUE)
if (length(args) > 2 || any(args %in% c("-h", "--help"))) {
  message(usage)
  quit(status = 1)
}
html_dir <- if (length(args) >= 1) args[1] else file.path("reports", "html")
results_dir <- if (length(args) >= 2) args[2] else "results"
dir.create(html_dir, recursive = TRUE, showWarnings = FALSE)

file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
reports_dir <- if (length(file_arg) > 0) {
  dirname(normalizePath(sub("^--file=", "", file_arg[1])))
} else {
  normalizePath("reports")
}
for (helper in c("html.R", "format.R", "read.R", "provenance.R", "claims.R")) {
  source(file.path(reports_dir, "R", helper))
}

papers <- read_papers(file.path(reports_dir, "reference", "papers.csv"))
scorecards <- read_scorecards(html_dir)
runs <- stats::setNames(purrr::map(papers$id, function(id) last_run(results_dir, id)), papers$id)
css <- paste(readLines(file.path(reports_dir, "netrepro.css")), collapse = "\n")
writeLines(index_html(scorecards, html_dir, css, papers, runs), file.path(html_dir, "index.html"))
message(
  "index.R: wrote ", file.path(html_dir, "index.html"), " (", nrow(papers), " papers, ",
  sum(papers$id %in% names(scorecards)), " with a report)"
)
