# Small HTML pieces shared by the reports and the index page.

escape_html <- function(x) {
  htmltools::htmlEscape(as.character(x))
}

# Text (escaped) that a table cell keeps on one line, e.g. a buffer pair such as 16K/20K.
nowrap_html <- function(x) {
  paste0('<span class="nowrap">', escape_html(x), "</span>")
}

# Text that may wrap between its words but never inside one (a verdict in a narrow column).
words_html <- function(x) {
  paste0('<span class="words">', escape_html(x), "</span>")
}

# Text from data files (a host model's YAML comments, claim wording, spec values)
# must never become Markdown structure: a "#" line would be a heading in the table
# of contents, "**" bold, a "|" line a table. So every results = "asis" chunk's
# output reaches pandoc as a raw HTML block (use_report_output() below); a
# chunk that must add a section to the table of contents does it with
# markdown_heading(), the one way out of the raw block.
markdown_heading_marker <- "<!--netrepro-markdown-heading-->"

# Backslash-escapes every ASCII punctuation character, so text is literal in Markdown.
escape_markdown <- function(x) {
  gsub("([][!\"#$%&'()*+,./:;<=>?@\\^_`{|}~-])", "\\\\\\1", as.character(x), perl = TRUE)
}

# A Markdown heading (in the table of contents) written from a results = "asis" chunk.
markdown_heading <- function(text, level = 2) {
  paste0("\n", markdown_heading_marker, strrep("#", level), " ", escape_markdown(text), "\n")
}

# x as a pandoc raw HTML block, fenced by more backticks than x holds in a row.
raw_html_fence <- function(x) {
  if (!nzchar(trimws(x))) {
    return(x)
  }
  runs <- regmatches(x, gregexpr("`+", x))[[1]]
  fence <- strrep("`", max(3, nchar(runs) + 1))
  paste0("\n\n", fence, "{=html}\n", x, "\n", fence, "\n\n")
}

# The output of a results = "asis" chunk: raw HTML, but for markdown_heading() lines.
raw_html_block <- function(x) {
  text <- paste(x, collapse = "\n")
  if (!nzchar(trimws(text))) {
    return(text)
  }
  lines <- strsplit(text, "\n", fixed = TRUE)[[1]]
  heading <- startsWith(lines, markdown_heading_marker)
  part <- cumsum(heading | c(FALSE, utils::head(heading, -1)))
  blocks <- purrr::map_chr(split(lines, part), function(block) {
    if (startsWith(block[1], markdown_heading_marker)) {
      paste0("\n\n", sub(markdown_heading_marker, "", block[1], fixed = TRUE), "\n\n")
    } else {
      raw_html_fence(paste(block, collapse = "\n"))
    }
  })
  paste(blocks, collapse = "")
}

# A figure's alt text when its chunk gives neither fig.alt nor fig.cap: its label
# in words, e.g. "fig-table1-heatmap" -> "Figure: table1 heatmap".
figure_alt_text <- function(label) {
  paste("Figure:", gsub("[-_.]+", " ", sub("^(fig|plot)[-_.]", "", label)))
}

# The chunk options of every report: code hidden, figures 9 x 5.2 inches at 110 dpi. A report
# whose figures want another default size passes it to use_report_output().
report_chunk_options <- list(
  echo = FALSE, message = FALSE, warning = FALSE,
  fig.width = 9, fig.height = 5.2, dpi = 110, fig.align = "center"
)

# How every report writes its output, called by its setup chunk: report_chunk_options (with
# the report's own, ...), results = "asis" output through raw_html_block(), alt text on every
# figure, and PNGs reduced to 256 colours with pngquant when it is installed (a report's figures
# stay small). Safe to call again in one R session: the output hook is set once.
use_report_output <- function(...) {
  knitr::opts_chunk$set(utils::modifyList(report_chunk_options, list(...)))
  current <- knitr::knit_hooks$get("output")
  if (isTRUE(attr(current, "netrepro_raw_html"))) {
    return(invisible())
  }
  hook <- function(x, options) {
    if (identical(options$results, "asis")) raw_html_block(x) else current(x, options)
  }
  attr(hook, "netrepro_raw_html") <- TRUE
  knitr::knit_hooks$set(output = hook)
  # A value a table lacks reads "–", never "NA".
  options(knitr.kable.NA = "–")
  # fig.width is set for every chunk, so its option hook sees every chunk.
  knitr::opts_hooks$set(fig.width = function(options) {
    if (is.null(options$fig.alt) && is.null(options$fig.cap)) {
      options$fig.alt <- figure_alt_text(options$label)
    }
    options
  })
  if (nzchar(Sys.which("pngquant"))) {
    knitr::knit_hooks$set(pngquant = knitr::hook_pngquant)
    knitr::opts_chunk$set(pngquant = "--speed=3 --skip-if-larger")
  }
  invisible()
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

# "Run profile: ..." for a report's data callout (ending in a space); a smoke run,
# which only checks the pipeline, is said to be too small to judge anything.
run_profile_html <- function(profiles) {
  paste0(
    "Run profile: ", escape_html(paste(profiles, collapse = ", ")), ". ",
    if ("smoke" %in% profiles) {
      paste0(
        "<b>The smoke profile checks the pipeline end to end: its runs are too few and too ",
        "short for the figures or the verdicts to mean anything; run profile=quick or paper.</b> "
      )
    } else {
      ""
    }
  )
}

# Counts of each of verdict_levels (R/claims.R).
verdict_counts <- function(verdicts) {
  counts <- table(factor(as.character(verdicts), levels = verdict_levels))
  stats::setNames(as.integer(counts), verdict_levels)
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
    "</td><td>", escape_html(dplyr::coalesce(scorecard$figure, "–")),
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

# The five papers (reports/reference/papers.csv): id, title, specs, command.
read_papers <- function(path) {
  readr::read_csv(path, col_types = readr::cols(.default = readr::col_character()), progress = FALSE)
}

# A paper's most recent run from results/<paper>/*/provenance.jsonl, as a
# one-row table of provenance_runs() (R/provenance.R) plus how many runs and
# which backends there are; NULL when none is recorded.
last_run <- function(results_dir, paper) {
  paths <- Sys.glob(file.path(results_dir, paper, "*", "provenance.jsonl"))
  runs <- purrr::list_flatten(purrr::map(paths, read_jsonl))
  if (length(runs) == 0) {
    return(NULL)
  }
  table <- provenance_runs(runs)
  when <- dplyr::coalesce(table$finished_at, table$started_at, "")
  dplyr::mutate(
    table[order(when, decreasing = TRUE)[1], ],
    runs = nrow(table),
    backends = paste(sort(unique(stats::na.omit(table$backend))), collapse = ", ")
  )
}

last_run_html <- function(run) {
  if (is.null(run)) {
    return('<p class="small">Last run: no provenance.jsonl found in the results folder.</p>')
  }
  value <- function(x) escape_html(dplyr::coalesce(x, "–"))
  paste0(
    '<p class="small">Last run: profile <b>', value(run$profile), "</b>, backend <b>",
    value(run$backend), "</b>, ", value(dplyr::coalesce(run$finished_at, run$started_at)),
    ", commit <code>", value(substr(run$git_commit, 1, 12)), "</code> (", run$runs,
    " runs recorded; backends: ", value(dplyr::na_if(run$backends, "")), ").</p>"
  )
}

# A small chart of verdicts per figure: one stacked bar per figure, inline SVG.
verdict_chart_svg <- function(scorecard) {
  levels <- verdict_levels
  # One colour per level of verdict_levels, in its order.
  colours <- c(
    "#3a9a5b", "#e0a800", "#c62828", "#d9822b", "#8d6e3f", "#5b73b8", "#3f8aa3", "#8e5cb0",
    "#b0b0b0"
  )
  figure <- dplyr::coalesce(scorecard$figure, "–")
  figures <- unique(figure)
  counts <- table(factor(figure, levels = figures), factor(scorecard$verdict, levels = levels))
  unit <- 170 / max(rowSums(counts))
  bars <- purrr::map_chr(seq_along(figures), function(i) {
    y <- (i - 1) * 18
    x <- cumsum(c(0, counts[i, ])) * unit
    rects <- paste0(
      '<rect x="', 150 + x[-length(x)], '" y="', y + 3, '" width="', counts[i, ] * unit,
      '" height="13" fill="', colours, '"><title>', escape_html(figures[i]), ": ",
      counts[i, ], " ", levels, "</title></rect>",
      collapse = ""
    )
    paste0(
      '<text x="145" y="', y + 14, '" text-anchor="end">',
      escape_html(substr(figures[i], 1, 24)), "</text>", rects,
      '<text x="', 155 + x[length(x)], '" y="', y + 14, '" fill="#555">',
      counts[i, "reproduced"], " of ", sum(counts[i, ]), "</text>"
    )
  })
  paste0(
    '<svg class="verdict-chart" role="img" width="380" height="', 18 * length(figures) + 4,
    '" viewBox="0 0 380 ', 18 * length(figures) + 4, '" aria-label="Verdicts per figure: ',
    escape_html(paste0(figures, " ", apply(counts, 1, function(r) {
      paste(r[r > 0], names(r)[r > 0], collapse = ", ")
    }), collapse = "; ")), '">', paste(bars, collapse = ""), "</svg>"
  )
}

# One paper's section of the index: its scorecard counts, verdicts per figure
# and last run, or, not run yet, the commands that run it.
paper_section_html <- function(paper, scorecard, html_dir, run) {
  html_file <- paste0(paper$id, ".html")
  title <- escape_html(paper$title)
  open <- paste0('<section class="report" id="paper-', escape_html(paper$id), '">\n')
  if (is.null(scorecard)) {
    commands <- strsplit(paper$command, ";\\s*")[[1]]
    return(paste0(
      open, "<h2>", title, "</h2>\n",
      '<p><span class="verdict verdict-no-data">not run yet</span> Run it with ',
      "(then <code>Rscript reports/render.R ", escape_html(paper$id), "</code>):</p>\n",
      "<pre><code>", paste(escape_html(commands), collapse = "\n"), "</code></pre>\n</section>"
    ))
  }
  synthetic <- if (report_is_synthetic(file.path(html_dir, html_file))) {
    callout(
      "SYNTHETIC DATA: this report was rendered from test fixtures, not from measurements.",
      "danger"
    )
  } else {
    ""
  }
  name <- escape_html(report_title(file.path(html_dir, html_file), paper$title))
  link <- if (file.exists(file.path(html_dir, html_file))) {
    paste0('<a href="', escape_html(html_file), '">', name, "</a>")
  } else {
    paste0(name, " (report HTML missing)")
  }
  counts <- verdict_counts(scorecard$verdict)
  paste0(
    open, "<h2>", link, "</h2>\n", '<p class="small">', title, "</p>\n", synthetic,
    '<p class="summary">', paste0(verdict_badge(names(counts)), " ", counts, collapse = " &nbsp; "),
    ' &nbsp; <a href="', escape_html(paper$id), '-scorecard.csv">scorecard CSV</a></p>\n',
    last_run_html(run),
    '<p class="small">Verdicts per figure, coloured as the badges above; "n of m": claims reproduced:</p>',
    verdict_chart_svg(scorecard), "\n",
    "<details><summary>Scorecard (", nrow(scorecard), " claims)</summary>\n",
    "<table><thead><tr><th>Claim</th><th>Figure</th><th>What the paper says</th>",
    "<th>Published</th><th>Measured</th><th>Verdict</th></tr></thead><tbody>\n",
    scorecard_rows_html(scorecard),
    "\n</tbody></table>\n</details>\n</section>"
  )
}

# Per paper (the names of scorecards) and over all: the claim rows judged on the era's hosts
# (scorecard column era_host: the Tahoe stack), how many of them are on fitted figures (counted
# apart), and the held-out ones by verdict, with the share reproduced among the held-out ones.
# A scorecard without the era_host column (an older report) counts none.
era_host_counts <- function(scorecards) {
  per_paper <- purrr::imap(scorecards, function(card, paper) {
    flag <- function(column) {
      if (!column %in% names(card)) {
        return(rep(FALSE, nrow(card)))
      }
      card[[column]] %in% c("TRUE", "true", TRUE)
    }
    era <- flag("era_host")
    fitted <- flag("fitted")
    held_out <- card$verdict[era & !fitted]
    counts <- verdict_counts(held_out)
    tibble::tibble(
      paper = paper, era_claims = sum(era), on_fitted = sum(era & fitted),
      held_out = length(held_out)
    ) |>
      dplyr::bind_cols(tibble::as_tibble(as.list(counts)))
  })
  table <- dplyr::bind_rows(per_paper)
  if (nrow(table) == 0) {
    return(table)
  }
  total <- dplyr::summarise(table, paper = "all papers", dplyr::across(-paper, sum))
  dplyr::bind_rows(table, total) |>
    dplyr::mutate(
      reproduced_pct = dplyr::if_else(held_out > 0, 100 * reproduced / held_out, NA_real_)
    )
}

# era_host_counts() as the index's table: per paper the held-out claims' verdicts as badges with
# their counts (those with none left out), so that the table fits the page.
era_host_html <- function(counts) {
  if (nrow(counts) == 0 || sum(counts$era_claims) == 0) {
    return("<p>No claim was judged on the era's hosts (the Tahoe stack) in these scorecards.</p>")
  }
  levels <- setdiff(verdict_levels, "fitted")
  rows <- purrr::map_chr(seq_len(nrow(counts)), function(i) {
    r <- counts[i, ]
    n <- purrr::map_int(levels, function(l) as.integer(r[[l]]))
    verdicts <- paste0(verdict_badge(levels[n > 0]), "&nbsp;", n[n > 0], collapse = " ")
    paste0(
      "<tr><td>", nowrap_html(r$paper), "</td><td>", r$era_claims, "</td><td>", r$on_fitted,
      "</td><td>", r$held_out, "</td><td>", verdicts, "</td><td>",
      dplyr::coalesce(fmt_num(r$reproduced_pct, 3), "–"), "</td></tr>"
    )
  })
  paste0(
    '<section id="era-hosts">\n<h2>Claims on the era\'s hosts</h2>\n',
    "<p>Claim rows judged on the Tahoe stack with a 1990s host model (a claim measured in several ",
    "setups counts once per era-host setup). Those on a figure a host model was fitted on are ",
    "counted apart (<i>on fitted figures</i>, whatever their verdict); the others, held out, by ",
    "verdict.</p>\n<table><thead><tr><th>Paper</th><th>Claims on era hosts</th>",
    "<th>On fitted figures</th><th>Held out</th><th>Held out, by verdict</th>",
    "<th>Reproduced (% of held out)</th></tr></thead><tbody>\n", paste(rows, collapse = "\n"),
    "\n</tbody></table>\n</section>\n"
  )
}

# The index: every paper of papers.csv (rendered or not), then any other
# scorecard found; runs holds each paper's last_run().
index_html <- function(scorecards, html_dir, css = "", papers = NULL, runs = list()) {
  if (is.null(papers)) {
    papers <- tibble::tibble(id = character(), title = character(), command = character())
  }
  others <- setdiff(names(scorecards), papers$id)
  papers <- dplyr::bind_rows(
    papers, tibble::tibble(id = others, title = purrr::map_chr(others, function(id) {
      report_title(file.path(html_dir, paste0(id, ".html")), id)
    }), command = NA_character_)
  )
  sections <- if (nrow(papers) == 0) {
    "<p>No report has been rendered yet.</p>"
  } else {
    paste(purrr::map_chr(seq_len(nrow(papers)), function(i) {
      id <- papers$id[i]
      paper_section_html(papers[i, ], scorecards[[id]], html_dir, runs[[id]])
    }), collapse = "\n")
  }
  rendered <- sum(papers$id %in% names(scorecards))
  sections <- paste0(sections, studies_section_html(html_dir, papers$id))
  paste0(
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
    "<title>netrepro reports</title>\n<style>\n", css, "\n</style>\n</head>\n<body>\n",
    "<main class=\"index\">\n<h1>netrepro: 1990s TCP/UDP papers, re-run</h1>\n",
    "<p>Each report re-runs one paper's experiments on emulated links or in virtual time ",
    "and sets every published claim beside what we measured. ", rendered, " of ",
    nrow(papers), " papers have a report.</p>\n",
    era_host_html(era_host_counts(scorecards[intersect(papers$id, names(scorecards))])),
    sections,
    "\n<footer>Built ", escape_html(format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
    " by reports/index.R.</footer>\n</main>\n</body>\n</html>\n"
  )
}

# Reports of studies of one's own: any report in html_dir that is not a
# paper's (a study has no scorecard).
study_ids <- function(html_dir, paper_ids) {
  ids <- sub("\\.html$", "", list.files(html_dir, pattern = "\\.html$"))
  sort(setdiff(ids, c(paper_ids, "index")))
}

studies_section_html <- function(html_dir, paper_ids) {
  ids <- study_ids(html_dir, paper_ids)
  if (length(ids) == 0) {
    return("")
  }
  items <- purrr::map_chr(ids, function(id) {
    paste0(
      "<li><a href=\"", escape_html(id), ".html\">", escape_html(id), "</a>: ",
      escape_html(report_title(file.path(html_dir, paste0(id, ".html")), id)), "</li>"
    )
  })
  paste0(
    "\n<section>\n<h2>Studies of your own</h2>\n<p>Specs whose <code>paper:</code> is none of ",
    "the five; their reports show what was measured, with no scorecard.</p>\n<ul>\n",
    paste(items, collapse = "\n"), "\n</ul>\n</section>\n"
  )
}
