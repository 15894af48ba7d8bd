# Tables of provenance.jsonl runs (see read_provenance()).

# A value of a parsed JSON run as one string: NA when absent, scalars as text,
# objects and arrays as compact JSON.
as_text <- function(x) {
  if (is.null(x) || length(x) == 0) {
    return(NA_character_)
  }
  if (is.list(x) || length(x) > 1) {
    return(as.character(jsonlite::toJSON(x, auto_unbox = TRUE)))
  }
  as.character(x)
}

field <- function(run, ...) {
  value <- run
  for (key in c(...)) {
    if (!is.list(value) || is.null(value[[key]])) {
      return(NA_character_)
    }
    value <- value[[key]]
  }
  as_text(value)
}

# A run's order (entries such as "udp:51200:3", the values of `fields` joined by ":")
# summarised for a reader: how many, the first field's values in order of first use, and
# how often consecutive entries switch it (0 = blocked by it). Runs recorded before the
# fields were named are pingx's (mode, size, echo).
summarise_run_order <- function(run_order, fields = NULL) {
  entries <- unlist(run_order)
  if (length(entries) == 0) {
    return("not recorded")
  }
  fields <- unlist(fields)
  if (length(fields) == 0) {
    fields <- c("mode", "message_bytes", "echo")
  }
  groups <- sub(":.*$", "", entries)
  switches <- sum(groups[-1] != groups[-length(groups)])
  shown <- utils::head(entries, 3)
  paste0(
    length(entries), " entries (", paste(fields, collapse = ":"), "); ",
    fields[[1]], " by first use: ", paste(unique(groups), collapse = ", "),
    "; ", switches, " ", fields[[1]], " switches; first: ",
    paste(shown, collapse = ", "),
    if (length(entries) > length(shown)) ", ..." else ""
  )
}

# A host model recorded as its whole YAML file is named by its first line
# (comment marks dropped); a one-line value is its own name.
host_model_title <- function(text) {
  first <- sub("\n.*$", "", text)
  trimws(sub("^#+\\s*", "", first))
}

# Each distinct host model file the runs recorded, as code under its name.
host_models_html <- function(run_table) {
  models <- dplyr::distinct(
    dplyr::filter(run_table, grepl("\n", host_model_text, fixed = TRUE)),
    host_model, host_model_text
  )
  if (nrow(models) == 0) {
    return("")
  }
  paste0(
    "<details><summary>Host model files (", nrow(models), ")</summary>",
    paste0(
      "<h4>", escape_html(models$host_model), "</h4><pre><code>",
      escape_html(models$host_model_text), "</code></pre>",
      collapse = ""
    ),
    "</details>"
  )
}

number_or_na <- function(x) {
  suppressWarnings(as.numeric(x))
}

provenance_runs <- function(runs) {
  purrr::map(runs, function(run) {
    tibble::tibble(
      run_id = field(run, "run_id"),
      experiment = field(run, "experiment"),
      git_commit = field(run, "git_commit"),
      spec_file = field(run, "spec_file"),
      spec_hash = field(run, "spec_hash"),
      kernel = field(run, "kernel"),
      hostname = field(run, "hostname"),
      cpu_model = field(run, "cpu_model"),
      host_model = dplyr::coalesce(field(run, "host"), host_model_title(field(run, "host_model"))),
      host_model_text = field(run, "host_model"),
      backend = field(run, "backend"),
      stack = field(run, "stack"),
      profile = field(run, "profile"),
      seed = field(run, "seed"),
      started_at = field(run, "started_at"),
      finished_at = field(run, "finished_at"),
      link_name = field(run, "link", "name"),
      check_passed = as.logical(field(run, "link_check", "passed")),
      goodput_expected_mbit = number_or_na(field(run, "link_check", "expected_goodput_mbit")),
      goodput_measured_mbit = number_or_na(field(run, "link_check", "measured_goodput_mbit")),
      rtt_expected_ms = number_or_na(field(run, "link_check", "expected_rtt_ms")),
      rtt_measured_ms = number_or_na(field(run, "link_check", "measured_rtt_ms")),
      run_order = summarise_run_order(run$run_order, run$run_order_fields)
    )
  }) |>
    dplyr::bind_rows()
}

# Name/value pairs of one object field (tools, sysctls, offloads, assumptions,
# link) across runs, with the experiments that reported each distinct value.
object_table <- function(runs, key) {
  rows <- purrr::map(runs, function(run) {
    object <- run[[key]]
    if (!is.list(object) || length(object) == 0) {
      return(NULL)
    }
    tibble::tibble(
      experiment = field(run, "experiment"),
      name = names(object),
      value = purrr::map_chr(object, as_text)
    )
  })
  rows <- dplyr::bind_rows(rows)
  if (nrow(rows) == 0) {
    return(tibble::tibble(name = character(), value = character(), experiments = character()))
  }
  rows |>
    dplyr::group_by(name, value) |>
    dplyr::summarise(
      experiments = paste(sort(unique(experiment)), collapse = ", "),
      .groups = "drop"
    ) |>
    dplyr::arrange(name, value)
}

kable_html <- function(table, escape = TRUE) {
  as.character(knitr::kable(table, format = "html", escape = escape))
}

# The provenance section of a report: runs, hosts, link checks, run order,
# tools, sysctls and offloads. Fields a run did not record read "–".
provenance_html <- function(run_table, runs) {
  if (nrow(run_table) == 0) {
    return(callout("No provenance.jsonl found: these results cannot be traced to a run."))
  }
  runs_html <- kable_html(dplyr::transmute(run_table,
    Run = run_id, Experiment = experiment,
    Commit = substr(git_commit, 1, 12), Spec = spec_file,
    `Spec hash` = substr(spec_hash, 1, 23), Profile = profile, Seed = seed
  ))
  hosts_html <- kable_html(dplyr::transmute(run_table,
    Run = run_id, Host = hostname, `Host model` = host_model, Kernel = kernel, CPU = cpu_model,
    `Backend / stack` = paste(dplyr::coalesce(backend, "–"), dplyr::coalesce(stack, "–"), sep = " / "),
    Started = started_at, Finished = finished_at
  ))
  order_html <- kable_html(dplyr::transmute(run_table,
    Run = escape_html(run_id),
    `Run order` = paste0("<code>", escape_html(run_order), "</code>")
  ), escape = FALSE)
  objects <- purrr::map_chr(c("tools", "sysctls", "offloads"), function(key) {
    table <- object_table(runs, key)
    body <- if (nrow(table) == 0) {
      "<p>Not recorded.</p>"
    } else {
      kable_html(dplyr::rename(table, Name = name, Value = value, Experiments = experiments))
    }
    paste0("<h4>", key, "</h4>", body)
  })
  paste0(
    runs_html, hosts_html,
    host_models_html(run_table),
    "<p><b>Link check before each emulated run</b> (does the emulated link deliver the goodput ",
    "and RTT it should?):</p>", link_check_html(run_table),
    "<p><b>Run order</b> (the order in which the measurements were taken):</p>", order_html,
    "<details><summary>Tool versions, sysctls and offloads</summary>",
    paste(objects, collapse = ""), "</details>"
  )
}

# The link checks of the emulated runs, one row each, and a warning when one did not pass or
# was not recorded; a run in virtual time (backend sim) has none to show, its link being
# netsim's own model, and is counted instead of listed.
link_check_html <- function(run_table) {
  in_sim <- dplyr::coalesce(run_table$backend, "") == "sim"
  emulated <- run_table[!in_sim, ]
  table <- if (nrow(emulated) == 0) {
    ""
  } else {
    kable_html(dplyr::transmute(emulated,
      Run = run_id, Link = link_name,
      `Goodput expected (Mb/s)` = fmt_num(goodput_expected_mbit),
      `Goodput measured (Mb/s)` = fmt_num(goodput_measured_mbit),
      `RTT expected (ms)` = fmt_num(rtt_expected_ms),
      `RTT measured (ms)` = fmt_num(rtt_measured_ms),
      Passed = dplyr::if_else(check_passed, "yes", "NO", missing = "not recorded")
    ))
  }
  note <- if (any(in_sim)) {
    paste0(
      "<p>", sum(in_sim), " run", if (sum(in_sim) == 1) "" else "s",
      " in virtual time, which need no check: netsim moves each packet at the link's rate and delay by construction.</p>"
    )
  } else {
    ""
  }
  warning <- if (any(!emulated$check_passed %in% TRUE)) {
    callout(paste(
      "At least one run's link check did not pass or was not recorded:",
      "treat its results with care."
    ))
  } else {
    ""
  }
  paste0(table, note, warning)
}

# Name/value table of one object field of the runs, or a note that none
# recorded it.
object_table_html <- function(runs, key, name_header, value_header, empty) {
  table <- object_table(runs, key)
  if (nrow(table) == 0) {
    return(callout(empty))
  }
  kable_html(stats::setNames(table, c(name_header, value_header, "Experiments")))
}

# The banner over a report rendered from the synthetic test fixtures, whose runs record the
# profile "synthetic"; empty for measured runs.
synthetic_banner_html <- function(run_table) {
  if (!"synthetic" %in% run_table$profile) {
    return("")
  }
  callout(
    paste(
      "SYNTHETIC DATA. These results were fabricated by reports/tests/synthetic-results.R",
      "to test the report. They are not measurements and say nothing about the paper."
    ),
    "danger"
  )
}

# How the page itself was made: R and package versions, reference files with
# their md5, the results folder.
render_note_html <- function(reference_files, results_dir) {
  packages <- c("rmarkdown", "knitr", "ggplot2", "dplyr", "tidyr", "readr", "jsonlite")
  paste0(
    "<p class=\"small\">Report rendered ", escape_html(format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
    " with ", escape_html(R.version.string), "; ",
    escape_html(paste(
      packages,
      purrr::map_chr(packages, function(p) as.character(utils::packageVersion(p))),
      collapse = ", "
    )),
    ". Reference files: ",
    paste0(
      "<code>", escape_html(reference_files), "</code> (md5 ",
      unname(tools::md5sum(reference_files)), ")",
      collapse = ", "
    ),
    ". Results from <code>", escape_html(results_dir), "</code>.</p>"
  )
}
