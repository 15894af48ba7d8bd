# Fitted figures. A host model (configs/hosts/<host>.yaml) may declare which of its values were
# fitted and on which published figures:
#
#   fitted:
#     parameters: [per_packet_ns]
#     training_set:
#       - reference: liu95db-table3          # rows of reports/reference/liu95db-table3.csv ...
#         where: {send_buffer: 52428}        # ... whose columns hold these values
#       - claim: I02                         # or a claim's published figure (paper: optional)
#
# A claim judged on a fitted figure, in a setup that runs that host model, reads "fitted", never
# "reproduced": the figure was an input. A claim that pools fitted and held-out cells is judged
# on the held-out ones. A model without `fitted` was fitted on nothing.

# Where the host models are read from: configs/hosts beside the reports, or NETREPRO_HOSTS_DIR.
host_models_dir <- function() {
  Sys.getenv("NETREPRO_HOSTS_DIR", file.path("..", "configs", "hosts"))
}

# No fits: the table read_host_fits() gives for models that declare none.
no_fits <- function() {
  tibble::tibble(
    host = character(), parameters = character(), reference = character(),
    where = list(), paper = character(), claim = character(), rows = list()
  )
}

# One row per training entry of every host model in dir: the host (its `name`), the fitted
# parameters ("a, b"), and either a reference table with its `where` (a named list) and the
# table's matching rows (rows, read from reference_dir), or a claim with its paper (NA: any
# paper). A malformed block is an error naming the file and the key.
read_host_fits <- function(dir = host_models_dir(), reference_dir = "reference") {
  paths <- sort(list.files(dir, pattern = "\\.ya?ml$", full.names = TRUE))
  fits <- purrr::map(paths, function(path) read_model_fits(path, reference_dir))
  dplyr::bind_rows(no_fits(), fits)
}

read_model_fits <- function(path, reference_dir) {
  model <- tryCatch(yaml::read_yaml(path), error = function(e) {
    stop(path, ": not readable as YAML: ", conditionMessage(e), call. = FALSE)
  })
  fitted <- model$fitted
  if (is.null(fitted)) {
    return(NULL)
  }
  bad <- function(key, what) stop(path, ": fitted.", key, ": ", what, call. = FALSE)
  if (!is.list(fitted) || is.null(names(fitted))) {
    stop(path, ": fitted: must be a mapping with parameters and training_set", call. = FALSE)
  }
  if (!is.character(unlist(fitted$parameters)) || length(fitted$parameters) == 0) {
    bad("parameters", "must list the names of the fitted values")
  }
  if (!is.list(fitted$training_set) || length(fitted$training_set) == 0) {
    bad("training_set", "must list the published figures the parameters were fitted on")
  }
  host <- if (is.character(model$name)) model$name else sub("\\.ya?ml$", "", basename(path))
  entries <- purrr::imap(fitted$training_set, function(entry, i) {
    key <- paste0("training_set[", i, "]")
    if (!is.list(entry) || (is.null(entry$reference) == is.null(entry$claim))) {
      bad(key, "needs exactly one of reference (a table of reports/reference/) or claim")
    }
    unknown <- setdiff(names(entry), c("reference", "where", "claim", "paper"))
    if (length(unknown) > 0) {
      bad(key, paste0("unknown key(s) ", paste(unknown, collapse = ", ")))
    }
    reference <- entry$reference %||% NA_character_
    rows <- if (!is.na(reference)) {
      fit_reference_rows(reference_dir, reference, entry$where, path, key)
    }
    tibble::tibble(
      host = host, parameters = paste(unlist(fitted$parameters), collapse = ", "),
      reference = reference, where = list(entry$where),
      paper = entry$paper %||% NA_character_, claim = entry$claim %||% NA_character_,
      rows = list(rows)
    )
  })
  dplyr::bind_rows(entries)
}

# The rows of reference table `name` whose columns hold the values of `where` (numbers compared
# as numbers); every row without `where`.
fit_reference_rows <- function(reference_dir, name, where, path, key) {
  file <- file.path(reference_dir, paste0(name, ".csv"))
  if (!grepl("^[a-z0-9][a-z0-9_-]*$", name) || !file.exists(file)) {
    stop(path, ": fitted.", key, ".reference: no table ", file, call. = FALSE)
  }
  table <- readr::read_csv(file, col_types = readr::cols(.default = "c"), progress = FALSE)
  keep <- rep(TRUE, nrow(table))
  for (column in names(where)) {
    if (!column %in% names(table)) {
      stop(
        path, ": fitted.", key, ".where.", column, ": ", file, " has no such column",
        call. = FALSE
      )
    }
    wanted <- as.character(where[[column]])
    number <- suppressWarnings(as.numeric(c(wanted, table[[column]])))
    keep <- keep & if (!anyNA(number)) {
      number[-1] == number[1]
    } else {
      table[[column]] == wanted
    }
  }
  table[keep, , drop = FALSE]
}

# The host models each setup ran (both ends: host and host_b), from every table that has a setup
# and an experiment, restricted to the experiments given.
setup_hosts <- function(tables, experiments) {
  rows <- purrr::map(tables, function(table) {
    if (!is.data.frame(table) || !all(c("setup", "experiment") %in% names(table))) {
      return(NULL)
    }
    table <- table[table$experiment %in% experiments, , drop = FALSE]
    ends <- intersect(c("host", "host_b"), names(table))
    purrr::map(ends, function(end) {
      tibble::tibble(setup = table$setup, host = as.character(table[[end]]))
    })
  })
  none <- tibble::tibble(setup = character(), host = character())
  dplyr::bind_rows(none, purrr::list_flatten(rows)) |>
    dplyr::filter(!is.na(host), host != "") |>
    dplyr::distinct()
}

# The training entries of the given host models that name claim_id (of paper, or of any paper
# when an entry names none).
claim_fits <- function(fits, hosts, claim_id, paper = NA_character_) {
  rows_where(fits, fits$host %in% hosts & !is.na(fits$claim) & fits$claim == claim_id &
    (is.na(fits$paper) | is.na(paper) | fits$paper == paper))
}

# The cells (send_buffer, recv_buffer) the given host models were fitted on in the reference
# tables a claim names (its `reference` column, "a; b").
fitted_cells <- function(fits, hosts, references) {
  keys <- c("send_buffer", "recv_buffer")
  hit <- rows_where(fits, fits$host %in% hosts & fits$reference %in% references)
  cells <- purrr::map(hit$rows, function(rows) {
    if (!all(keys %in% names(rows))) {
      return(NULL)
    }
    tibble::tibble(
      send_buffer = as.numeric(rows$send_buffer), recv_buffer = as.numeric(rows$recv_buffer)
    )
  })
  none <- tibble::tibble(send_buffer = numeric(), recv_buffer = numeric())
  dplyr::distinct(dplyr::bind_rows(none, cells))
}

# The reference tables a claim's cells are published in (its optional `reference` column).
claim_references <- function(claim) {
  if (!"reference" %in% names(claim) || is.na(claim$reference)) {
    return(character())
  }
  split_list(claim$reference)
}

# A judged row of a claim listed in a training set: reproduced or partly read "fitted" (the
# figure was an input, so agreement proves nothing; a fit that missed still shows).
fitted_verdict <- function(verdict, fitted) {
  verdict <- as.character(verdict)
  dplyr::if_else(fitted & verdict %in% c("reproduced", "partly"), "fitted", verdict)
}

# Marks the judged rows (one claim in one setup) the hosts' fits name: column fitted, and the
# verdict and note when they are.
mark_claim_fits <- function(judged, claim, hosts, fits, paper = NA_character_) {
  named <- claim_fits(fits, hosts, claim$claim_id, paper)
  fitted <- nrow(named) > 0
  judged$fitted <- fitted
  if (fitted) {
    judged$verdict <- fitted_verdict(judged$verdict, TRUE)
    judged$note <- paste0(
      "fitted: ", paste(unique(paste0(named$host, " (", named$parameters, ")")), collapse = "; "),
      " was fitted on this figure"
    )
  }
  judged
}

# Splits a claim's cells into those fitted (keys in `fitted`) and the held-out rest.
split_fitted_cells <- function(rows, fitted) {
  key <- paste(rows$send_buffer, rows$recv_buffer)
  is_fitted <- key %in% paste(fitted$send_buffer, fitted$recv_buffer)
  list(fitted = rows[is_fitted, , drop = FALSE], held_out = rows[!is_fitted, , drop = FALSE])
}

# The error of each figure against the published one, for fitted_error_table(): matrix cells
# (mean_mbit against published_si_mbit, fitted when in `fitted` for their setup's host).
cell_figures <- function(cells, fits, references, kind) {
  cells <- rows_where(cells, !is.na(cells$published_si_mbit) & !is.na(cells$mean_mbit))
  purrr::map(unique(cells$setup), function(s) {
    here <- rows_where(cells, cells$setup == s)
    hosts <- unique(stats::na.omit(here$host))
    split <- split_fitted_cells(here, fitted_cells(fits, hosts, references))
    tibble::tibble(
      host = paste(hosts, collapse = ", "), setup = s, kind = kind,
      fitted = paste(here$send_buffer, here$recv_buffer) %in%
        paste(split$fitted$send_buffer, split$fitted$recv_buffer),
      error_pct = 100 * abs(here$mean_mbit / here$published_si_mbit - 1)
    )
  }) |>
    dplyr::bind_rows(tibble::tibble(
      host = character(), setup = character(), kind = character(), fitted = logical(),
      error_pct = numeric()
    ))
}

# Claims as figures: those that state a number ("about") and those a host model was fitted on;
# the relative distance (%) of the measured value from the published target, or beyond the
# published bound (0 within it). Claims with a target of 0 have no relative distance.
claim_figures <- function(evaluated) {
  fitted <- claim_column(evaluated, "fitted") %in% TRUE
  rows <- rows_where(evaluated, !is.na(evaluated$measured) & is.finite(evaluated$measured) &
    !is.na(evaluated$target) & evaluated$target != 0 & !is.na(claim_column(evaluated, "hosts")) &
    (evaluated$check == "about" | fitted))
  beyond <- dplyr::case_when(
    rows$check == "about" ~ abs(rows$measured - rows$target),
    rows$check == "at_most" ~ pmax(rows$measured - rows$target, 0),
    TRUE ~ pmax(rows$target - rows$measured, 0)
  )
  tibble::tibble(
    host = rows$hosts, setup = rows$setup, kind = "claims", fitted = rows$fitted %in% TRUE,
    error_pct = 100 * beyond / abs(rows$target)
  )
}

# Per host model of the report's data and kind of figure: the parameters fitted and what on, how
# many figures were fitted and held out, and the mean error on each. figures: cell_figures() and
# claim_figures() rows (host may name both ends, "a, b"); fits: read_host_fits().
fitted_error_table <- function(figures, fits) {
  figures <- tidyr::separate_longer_delim(figures, host, ", ")
  trained_on <- function(host) {
    entries <- rows_where(fits, fits$host == host)
    if (nrow(entries) == 0) {
      return("nothing fitted")
    }
    texts <- purrr::map_chr(seq_len(nrow(entries)), function(i) fit_entry_text(entries[i, ]))
    paste(texts, collapse = "; ")
  }
  mean_or_na <- function(x) if (length(x) == 0) NA_real_ else mean(x)
  figures |>
    dplyr::group_by(host, kind) |>
    dplyr::summarise(
      fitted_n = sum(fitted), fitted_error_pct = mean_or_na(error_pct[fitted]),
      held_out_n = sum(!fitted), held_out_error_pct = mean_or_na(error_pct[!fitted]),
      .groups = "drop"
    ) |>
    dplyr::mutate(
      parameters = purrr::map_chr(host, function(h) {
        p <- unique(fits$parameters[fits$host == h])
        if (length(p) == 0) "none" else p
      }),
      trained_on = purrr::map_chr(host, trained_on),
      .after = host
    )
}

# One training entry in words: "liu95db-table3 where send_buffer = 52428 (10 rows)" or "claim
# A05 (liu95cool)".
fit_entry_text <- function(entry) {
  if (!is.na(entry$reference)) {
    where <- entry$where[[1]]
    condition <- if (length(where) == 0) "" else {
      paste0(" where ", paste(names(where), "=", unlist(where), collapse = " and "))
    }
    rows <- nrow(entry$rows[[1]])
    return(paste0(entry$reference, condition, " (", rows, if (rows == 1) " row)" else " rows)"))
  }
  paste0("claim ", entry$claim, if (is.na(entry$paper)) "" else paste0(" (", entry$paper, ")"))
}

# fitted_error_table() as HTML, or a note when the data ran no host model.
fitted_error_html <- function(table) {
  if (nrow(table) == 0) {
    return(callout("No host model in these data.", "info"))
  }
  kable_html(dplyr::transmute(table,
    `Host model` = nowrap_html(host), `Fitted values` = escape_html(parameters),
    `Fitted on` = escape_html(trained_on), Figures = escape_html(kind),
    `Fitted` = fitted_n,
    `Mean error on the fitted (%)` = fmt_num(fitted_error_pct, 3),
    `Held out` = held_out_n, `Mean error on the held out (%)` = fmt_num(held_out_error_pct, 3)
  ), escape = FALSE)
}

# A host model's name with what was fitted in it, e.g. "sparcstation-ipc (fitted: per_packet_ns)".
host_fit_label <- function(hosts, fits) {
  purrr::map_chr(hosts, function(host) {
    parameters <- unique(fits$parameters[fits$host == host])
    what <- if (length(parameters) == 0) "nothing fitted" else paste("fitted:", parameters)
    paste0(host, " (", what, ")")
  })
}

# The paragraph above each report's table of fitted and held-out figures.
fitted_intro_html <- function() {
  paste0(
    "<p>A host model's costs come from the era's published speeds, but a few of its values may ",
    "be fitted: the model's file (<code>configs/hosts/&lt;host&gt;.yaml</code>) then names them ",
    "and the published figures they were fitted on (<code>fitted</code>: parameters and ",
    "training set). A claim judged on such a figure, in a setup that runs that host model, reads ",
    "<i>fitted</i>, never <i>reproduced</i>: the figure was an input. A claim that pools fitted ",
    "and held-out cells is judged on the held-out ones. The table sets, per host model and kind ",
    "of figure, the error on the fitted figures beside the error on the held-out ones: a model ",
    "that only matches what it was fitted on would show it here. Error is the mean relative ",
    "distance from the published value (a cell's throughput, a claim's number), or beyond a ",
    "published bound for a fitted claim that states one.</p>"
  )
}
