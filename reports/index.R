# Builds index.html linking every rendered report with its scorecard.
#
# Usage: Rscript reports/index.R [html_dir]   (default: reports/html)

args <- commandArgs(trailingOnly = TRUE)
html_dir <- if (length(args) >= 1) args[1] else file.path("reports", "html")
if (length(args) > 1) {
  message("usage: Rscript reports/index.R [html_dir]   (default: reports/html)")
  quit(status = 1)
}
dir.create(html_dir, recursive = TRUE, showWarnings = FALSE)

file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
reports_dir <- if (length(file_arg) > 0) {
  dirname(normalizePath(sub("^--file=", "", file_arg[1])))
} else {
  normalizePath("reports")
}
source(file.path(reports_dir, "R", "html.R"))

scorecards <- read_scorecards(html_dir)
css <- paste(readLines(file.path(reports_dir, "netrepro.css")), collapse = "\n")
writeLines(index_html(scorecards, html_dir, css), file.path(html_dir, "index.html"))
message(
  "index.R: wrote ", file.path(html_dir, "index.html"), " (",
  length(scorecards), " report(s))"
)
