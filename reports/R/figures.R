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
  unit <- dplyr::coalesce(as.character(evaluated$unit), "")
  note <- as.character(claim_column(evaluated, "note"))
  items <- paste0(
    "<li>", verdict_badge(evaluated$verdict), " <b>", escape_html(evaluated$claim_id),
    "</b> ", escape_html(evaluated$claim), setup_note,
    ". <span class=\"small\">Published: ", escape_html(evaluated$published),
    " (", escape_html(evaluated$source), "). Measured: ",
    ifelse(
      is.na(evaluated$measured),
      # A verdict without a value says why (e.g. no echo came back whole); else nothing ran.
      ifelse(
        is.na(note),
        "no data (the experiment, or the values this claim needs, are missing)",
        paste0("nothing to measure: ", escape_html(note))
      ),
      paste0(
        escape_html(fmt_num(evaluated$measured)), " ", escape_html(unit),
        escape_html(interval_text(evaluated)),
        dplyr::if_else(
          n_text(evaluated) == "–", "", paste0(" (n: ", escape_html(n_text(evaluated)), ")")
        ),
        " — ",
        escape_html(describe_margin(
          evaluated$measured, evaluated$margin, evaluated$check, evaluated$target, unit
        ))
      )
    ),
    ".</span></li>"
  )
  paste0('<ul class="claims-here">', paste(items, collapse = "\n"), "</ul>")
}

# The claims about figs with their verdicts, for under the figures.
claims_under <- function(evaluated, figs) {
  claims_list_html(claims_for_figures(evaluated, figs))
}

# The table of how every claim is judged: what is measured (measured_as, HTML, one per claim),
# the rule, what the verdict rests on, and why the target.
verdict_rules_html <- function(claims, evaluated, measured_as) {
  tibble::tibble(Claim = claims$claim_id, `Measured as` = measured_as) |>
    dplyr::bind_cols(verdict_rule_columns(claims, evaluated)) |>
    dplyr::mutate(`Why this target` = escape_html(claims$target_basis)) |>
    kable_html(escape = FALSE)
}

# A claim's experiments as words, "a, b".
claim_experiments_text <- function(experiments) {
  gsub(";", ", ", experiments, fixed = TRUE)
}

# What echo claims measure: the metric of their modes in their experiments, over their size
# range written by size_range (size_range_text(), or liu95db's size_range_label()).
echo_claims_measured_as <- function(claims, size_range = size_range_text) {
  paste0(
    "<code>", claims$metric, "</code> of ", modes_text(claims$metric, claims$modes),
    " in ", claim_experiments_text(claims$experiments),
    size_range(claims$size_min_bytes, claims$size_max_bytes)
  )
}

# What claims on whole experiments (ishikura's transfers, milliner's messages) measure.
experiment_claims_measured_as <- function(claims) {
  paste0("<code>", claims$metric, "</code> over ", claim_experiments_text(claims$experiments))
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

# experiment_note() of every experiment, named by experiment; what names what the sizes are
# (one for all, or one per experiment).
experiment_notes <- function(coverage, missing, experiments, results_dir, paper,
                             what = "message sizes") {
  notes <- purrr::map2_chr(experiments, rep_len(what, length(experiments)), function(e, w) {
    experiment_note(coverage, missing, e, results_dir, paper, w)
  })
  stats::setNames(notes, experiments)
}

# A column of the evaluated claims, or NA when a paper's claims lack it.
claim_column <- function(evaluated, name) {
  if (name %in% names(evaluated)) evaluated[[name]] else rep(NA, nrow(evaluated))
}

# What each verdict rests on, e.g. "4 sizes, 240 echoes" or "86 cells"; "–" when unknown.
n_text <- function(evaluated) {
  n <- claim_column(evaluated, "n")
  of <- dplyr::coalesce(as.character(claim_column(evaluated, "n_of")), "")
  echoes <- claim_column(evaluated, "echoes")
  # "1 size", "1 cell": the plural units the metrics name (sizes, cells, transfers) lose their s.
  of <- dplyr::if_else(!is.na(n) & n == 1, sub("s$", "", of), of)
  text <- paste(n, of)
  text <- dplyr::if_else(is.na(echoes) | echoes == 0, text, paste0(text, ", ", echoes, " echoes"))
  dplyr::if_else(is.na(n), "–", text)
}

# A note on claims that rest on a spec assumption the report scans (its other values run as
# experiments of their own, e.g. comer94's write sizes).
scanned_note <- function(evaluated) {
  scanned <- claim_column(evaluated, "scanned_assumption")
  dplyr::if_else(
    is.na(scanned) | scanned == "", "",
    paste0(
      ' <span class="small scanned">(rests on <code>', escape_html(scanned),
      "</code>, an assumption the report scans)</span>"
    )
  )
}

# The 95 % interval after a measured value, e.g. " [3.1, 9.8]"; "" without one.
interval_text <- function(evaluated) {
  low <- claim_column(evaluated, "ci_low")
  high <- claim_column(evaluated, "ci_high")
  dplyr::if_else(
    is.na(low) | is.na(high), "",
    paste0(" [", fmt_num(low), ", ", fmt_num(high), "]")
  )
}

# Why a verdict is not the rule's (claims.R's undecided(), a fitted figure), as a small note
# after how far off; "" without one.
note_html <- function(note) {
  dplyr::if_else(is.na(note), "", paste0('<br><span class="small">', escape_html(note), "</span>"))
}

# The scorecard as a compact HTML table, two rows per claim: the claim in full
# width (id, figure, setup, the paper's words and where), then its numbers
# beneath (published, measured, n, the verdict rule, verdict, how far off).
scorecard_view_html <- function(evaluated) {
  if (nrow(evaluated) == 0) {
    return("<p>No claims.</p>")
  }
  setup <- if (dplyr::n_distinct(evaluated$setup) > 1) {
    paste0(" &middot; ", escape_html(dplyr::coalesce(evaluated$setup, "no setup measured it")))
  } else {
    ""
  }
  unit <- dplyr::coalesce(as.character(evaluated$unit), "")
  rule <- rule_text(
    claim_column(evaluated, "check"), claim_column(evaluated, "target"),
    claim_column(evaluated, "tolerance"), claim_column(evaluated, "partly_tolerance"), unit
  )
  rule <- dplyr::if_else(is.na(claim_column(evaluated, "check")), "–", rule)
  n <- n_text(evaluated)
  show_n <- any(n != "–")
  columns <- if (show_n) 6 else 5
  measured <- dplyr::if_else(
    is.na(evaluated$measured), "not measured", paste(fmt_num(evaluated$measured), unit)
  )
  measured <- paste0(measured, interval_text(evaluated))
  source <- claim_column(evaluated, "source")
  rows <- paste0(
    '<tbody><tr class="claim"><td colspan="', columns, '"><b>', escape_html(evaluated$claim_id),
    '</b> <span class="small">', escape_html(dplyr::coalesce(evaluated$figure, "–")), setup, "</span> ",
    escape_html(evaluated$claim),
    dplyr::if_else(is.na(source), "", paste0(' <span class="small">(', escape_html(source), ")</span>")),
    scanned_note(evaluated),
    '</td></tr>\n<tr class="numbers"><td>', escape_html(dplyr::coalesce(evaluated$published, "–")),
    '</td><td class="num">', escape_html(measured),
    if (show_n) {
      paste0('</td><td class="num">', escape_html(n))
    } else {
      ""
    },
    "</td><td>", escape_html(rule),
    "</td><td>", verdict_badge(evaluated$verdict),
    "</td><td>", escape_html(describe_margin(
      evaluated$measured, evaluated$margin, claim_column(evaluated, "check"),
      claim_column(evaluated, "target"), unit
    )), note_html(claim_column(evaluated, "note")),
    "</td></tr></tbody>"
  )
  paste0(
    '<table class="scorecard"><thead><tr><th>Published</th><th class="num">Measured</th>',
    if (show_n) '<th class="num" title="how many measurements the verdict rests on: message sizes (and their echoes), buffer cells, transfers or recoveries">n</th>' else "",
    "<th>Verdict rule</th><th>Verdict</th><th>By how much</th></tr></thead>\n",
    paste(rows, collapse = "\n"), "</table>"
  )
}

# Verdict counts as badges.
verdict_summary_html <- function(verdicts) {
  counts <- verdict_counts(verdicts)
  paste0(
    '<p class="summary">', paste0(verdict_badge(names(counts)), " ", counts, collapse = " &nbsp; "),
    "</p>"
  )
}
