# Glue between claims and figure sections of a report.

# TRUE for each claim whose figure list names one of figs; "Fig 1" names both
# "Fig 1a" and "Fig 1b".
claim_mentions <- function(figure, figs) {
  purrr::map_lgl(figure, function(f) {
    tokens <- split_list(f)
    any(purrr::map_lgl(tokens, function(t) {
      any(grepl(paste0("^", t, "[a-z]?$"), figs))
    }))
  })
}

claims_for_figures <- function(evaluated, figs) {
  dplyr::filter(evaluated, claim_mentions(figure, figs))
}

# Label heights for reference lines: each label sits just above its line, and
# at least min_gap above the previous label so that close bounds stay legible.
spread_labels <- function(values, min_gap = 6, lift = 2) {
  ordering <- order(values)
  heights <- numeric(length(values))
  previous <- -Inf
  for (i in ordering) {
    heights[i] <- max(values[i] + lift, previous + min_gap)
    previous <- heights[i]
  }
  heights
}

size_range_text <- function(size_min, size_max) {
  dplyr::case_when(
    !is.na(size_min) & size_min > 0 & !is.na(size_max) ~
      paste0(" (", fmt_bytes(size_min), " to ", fmt_bytes(size_max), ")"),
    !is.na(size_min) & size_min > 0 ~ paste0(" (over ", fmt_bytes(size_min - 1), ")"),
    !is.na(size_max) ~ paste0(" (up to ", fmt_bytes(size_max), ")"),
    TRUE ~ ""
  )
}

# Dashed reference lines for the loss figures: the published loss values of
# the claims about these figures.
loss_references <- function(claims, figs) {
  claims |>
    dplyr::filter(
      claim_mentions(figure, figs),
      metric %in% c("max_loss", "pooled_loss", "min_pooled_loss")
    ) |>
    dplyr::distinct(claim_id, .keep_all = TRUE) |>
    dplyr::transmute(
      value = target,
      label_y = spread_labels(target),
      label = paste0(claim_id, ": ", published, size_range_text(size_min_bytes, size_max_bytes))
    )
}

# The modes a claim compares, as words: "a vs b" for metrics of two modes.
modes_text <- function(metric, modes) {
  separator <- dplyr::if_else(metric %in% pair_metrics, " vs ", " and ")
  purrr::map2_chr(modes, separator, function(m, sep) paste(split_list(m), collapse = sep))
}

# A bullet list of claims with verdicts, for under a figure.
claims_list_html <- function(evaluated) {
  if (nrow(evaluated) == 0) {
    return("")
  }
  setup_note <- if (dplyr::n_distinct(evaluated$setup) > 1) {
    paste0(" [", escape_html(evaluated$setup), "]")
  } else {
    ""
  }
  items <- paste0(
    "<li>", verdict_badge(evaluated$verdict), " <b>", escape_html(evaluated$claim_id),
    "</b> ", escape_html(evaluated$claim), setup_note,
    ". <span class=\"small\">Published: ", escape_html(evaluated$published),
    " (", escape_html(evaluated$source), "). Measured: ",
    ifelse(
      is.na(evaluated$measured),
      "no data (the experiment, or the values this claim needs, are missing)",
      paste0(
        escape_html(fmt_num(evaluated$measured)), " ", escape_html(evaluated$unit), " — ",
        escape_html(describe_margin(
          evaluated$measured, evaluated$margin, evaluated$check, evaluated$target, evaluated$unit
        ))
      )
    ),
    ".</span></li>"
  )
  paste0('<ul class="claims-here">', paste(items, collapse = "\n"), "</ul>")
}

# What was run for one experiment, or a visible note that nothing was.
experiment_note <- function(coverage, missing, experiment, results_dir, paper,
                            what = "message sizes") {
  if (experiment %in% missing) {
    return(callout(paste0(
      "<b>No data yet.</b> <code>",
      escape_html(file.path(results_dir, paper, experiment, "results.csv")),
      "</code> was not found, so the panels below are empty. ",
      "Run the pipeline for experiment <code>",
      escape_html(experiment), "</code>."
    )))
  }
  rows <- dplyr::filter(coverage, experiment == !!experiment)
  modes <- paste(label_modes(unique(rows$mode)), collapse = ", ")
  paste0(
    "<p>We ran ", max(rows$sizes), " ", what, " from ", fmt_bytes(min(rows$smallest_bytes)),
    " to ", fmt_bytes(max(rows$largest_bytes)), ", ", max(rows$trials), " trials × ",
    max(rows$echoes_per_trial), " echoes per size and mode (", escape_html(modes),
    "); ", fmt_num(100 - sum(rows$complete_pct * rows$echoes) / sum(rows$echoes), 2),
    " % of echoes did not come back whole and have no RTT.</p>"
  )
}

# The scorecard as an HTML table: claim, the paper's words and source,
# published, measured, verdict and how far off; a setup column when claims
# were measured in several setups.
scorecard_view_html <- function(evaluated) {
  view <- evaluated |>
    dplyr::transmute(
      Claim = paste0(
        "<b>", escape_html(claim_id), '</b><br><span class="small">', escape_html(figure), "</span>"
      ),
      `The paper says` = paste0(
        escape_html(claim), '<br><span class="small">', escape_html(source), "</span>"
      ),
      Published = escape_html(published),
      Measured = escape_html(paste(fmt_num(measured), unit)),
      Verdict = verdict_badge(verdict),
      `By how much` = escape_html(describe_margin(measured, margin, check, target, unit))
    )
  if (dplyr::n_distinct(evaluated$setup) > 1) {
    view <- dplyr::mutate(view, Setup = escape_html(evaluated$setup), .after = Claim)
  }
  knitr::kable(view, format = "html", escape = FALSE, table.attr = 'class="scorecard"')
}

# Verdict counts as badges.
verdict_summary_html <- function(verdicts) {
  counts <- verdict_counts(verdicts)
  paste0(
    '<p class="summary">', paste0(verdict_badge(names(counts)), " ", counts, collapse = " &nbsp; "),
    "</p>"
  )
}
