# Renders one report to self-contained HTML plus its scorecard CSV.
#
# Usage: Rscript reports/render.R <report_id> [results_dir] [output_dir] [spec]
#   report_id    e.g. liu95cool (reports/<report_id>.Rmd); an id without a report of its
#                own is a study of one's own and renders with reports/study.Rmd
#   results_dir  default: results
#   output_dir   default: reports/html
#   spec         the spec a study's settings and assumptions are read from
# Relative paths are taken from the current directory.

usage <- paste(
  "usage: Rscript reports/render.R <report_id> [results_dir] [output_dir] [spec]",
  "  report_id    a report in reports/, e.g. liu95cool, or a study's name (reports/study.Rmd)",
  "  results_dir  the pipeline's results tree (default: results)",
  "  output_dir   where the HTML and scorecard go (default: reports/html)",
  "  spec         a study's spec, for its settings and assumptions (default: none)",
  sep = "\n"
)

fail <- function(...) {
  message("render.R: ", ..., "\n", usage)
  quit(status = 1)
}

script_dir <- function() {
  file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(file_arg) == 0) {
    return(normalizePath("reports"))
  }
  dirname(normalizePath(sub("^--file=", "", file_arg[1])))
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1 || length(args) > 4 || args[1] %in% c("-h", "--help")) {
  fail("expected 1 to 4 arguments, got ", length(args), ".")
}
report_id <- args[1]
results_dir <- if (length(args) >= 2) args[2] else "results"
output_dir <- if (length(args) >= 3) args[3] else file.path("reports", "html")
spec <- if (length(args) >= 4) normalizePath(args[4], mustWork = FALSE) else ""

reports_dir <- script_dir()
if (!grepl("^[a-z0-9][a-z0-9-]*$", report_id) || report_id == "study") {
  fail("'", report_id, "' is not a paper or study name (lower case, digits, hyphens).")
}
input <- file.path(reports_dir, paste0(report_id, ".Rmd"))
study <- !file.exists(input)
if (study) {
  input <- file.path(reports_dir, "study.Rmd")
}
if (!dir.exists(results_dir)) {
  fail("results directory '", results_dir, "' does not exist. Run the pipeline first.")
}
# Now: render() evaluates its params after moving to knit_root_dir, where a relative path fails.
results_dir <- normalizePath(results_dir)
paper_dir <- file.path(results_dir, report_id)
found <- list.files(paper_dir, pattern = "^(results|trace)\\.csv$", recursive = TRUE)
if (length(found) == 0) {
  fail(
    "no data for ", report_id, ": no ", file.path(paper_dir, "<experiment>", "results.csv"),
    " exists. Run the pipeline for ", report_id, " first."
  )
}

dir.create(output_dir, recursive = TRUE, showWarnings = FALSE)
output_dir <- normalizePath(output_dir)
scratch <- tempfile("netrepro-render-")
dir.create(scratch)
on.exit(unlink(scratch, recursive = TRUE), add = TRUE)

study_params <- if (study) list(paper = report_id, spec = spec) else list()
# Every report's output format, set here once rather than in each report's front matter. A
# report stays light (under 1.5 MB): no Bootstrap theme (netrepro.css styles the page; the
# theme adds about 600 KB) and figures at their stated dpi, not doubled for high-density
# screens (a quarter of the pixels).
output_format <- rmarkdown::html_document(
  self_contained = TRUE, mathjax = NULL, toc = TRUE, toc_depth = 2,
  css = file.path(reports_dir, "netrepro.css"), highlight = NULL,
  md_extensions = "-autolink_bare_uris", theme = NULL, fig_retina = 1
)
rmarkdown::render(
  input,
  output_format = output_format,
  output_file = paste0(report_id, ".html"),
  output_dir = output_dir,
  intermediates_dir = scratch,
  knit_root_dir = reports_dir,
  params = c(study_params, list(
    results_dir = normalizePath(results_dir),
    out_dir = output_dir
  )),
  envir = new.env(),
  quiet = TRUE
)
message(
  "render.R: wrote ", file.path(output_dir, paste0(report_id, ".html")),
  if (study) " (a study: no scorecard)" else paste0(" and ", file.path(output_dir, paste0(report_id, "-scorecard.csv")))
)
