# Sensitivity of the verdicts to the assumptions: a spec's experiment may declare itself a
# variant of another (`variant_of`: the base experiment, the assumption it moves, and how far).
# The report judges the base's claims again with the variant's rows in the base's place and
# lists the verdicts that change.

# The variants a spec declares: one row per variant, with ids passed through rename (a report
# that reads experiments under other ids, e.g. liu95cool's base_experiment()); none when the
# spec is not there (a report rendered away from its checkout).
read_variants <- function(spec_path, rename = identity) {
  spec <- if (file.exists(spec_path)) yaml::read_yaml(spec_path) else list()
  declared <- purrr::keep(spec$experiments, function(e) !is.null(e$variant_of))
  tibble::tibble(
    experiment = rename(as.character(names(declared))),
    base = rename(unname(purrr::map_chr(declared, function(e) e$variant_of$experiment))),
    assumption = unname(purrr::map_chr(declared, function(e) e$variant_of$assumption)),
    moved = unname(purrr::map_chr(declared, function(e) e$variant_of$moved))
  )
}

# Columns that say where rows were measured; the variant's rows take the base's values, so that
# they stand in the base's setup (a moved host model or link would otherwise make a new one).
setup_columns <- c("setup", "link", "stack", "backend", "host")

# The tables cut to the variant's stack and backend, with the base's rows there replaced by the
# variant's, relabelled as the base's, and the setup they stand in (NA without a setup column);
# NULL when either has no rows there.
swap_variant <- function(tables, variant, base) {
  has <- function(table, id) is.data.frame(table) && "experiment" %in% names(table) && any(table$experiment == id)
  first_of <- function(id) purrr::detect(tables, function(table) has(table, id))
  variant_table <- first_of(variant)
  if (is.null(variant_table)) {
    return(NULL)
  }
  variant_rows <- variant_table[variant_table$experiment == variant, , drop = FALSE]
  # Rows on the variant's stack and backend. Only that setup is judged again, so the other
  # setups' rows are left out of the swapped tables (sparing their evaluation and bootstrap).
  variant_place <- function(table) {
    keep <- rep(TRUE, nrow(table))
    for (key in intersect(c("stack", "backend"), names(table))) {
      keep <- keep & table[[key]] %in% unique(variant_rows[[key]])
    }
    keep
  }
  same_place <- function(table) table$experiment == base & variant_place(table)
  base_rows <- purrr::detect(tables, function(table) has(table, base) && any(same_place(table)))
  if (is.null(base_rows)) {
    return(NULL)
  }
  place <- base_rows[which(same_place(base_rows))[1], intersect(setup_columns, names(base_rows))]
  swapped <- purrr::map(tables, function(table) {
    if (!is.data.frame(table) || !"experiment" %in% names(table)) {
      return(table)
    }
    replaced <- same_place(table)
    if ("setup" %in% names(table) && "setup" %in% names(place)) {
      replaced <- table$experiment == base & table$setup == place$setup
    }
    table <- table[!replaced, , drop = FALSE]
    moved <- table$experiment == variant
    table$experiment[moved] <- base
    for (column in intersect(names(place), names(table))) {
      table[[column]][moved] <- place[[column]]
    }
    table[which(variant_place(table)), , drop = FALSE]
  })
  list(tables = swapped, setup = if ("setup" %in% names(place)) place$setup else NA_character_)
}

# Claims that name the experiment among theirs.
claims_naming <- function(claims, experiment) {
  named <- purrr::map_lgl(claims$experiments, function(e) experiment %in% split_list(e))
  claims[named, , drop = FALSE]
}

# Per claim id, a note naming the other experiments the claim rests on, which the variant does not
# rerun, so they stay at the base's assumption: its change mixes the two ("" when it names only
# the base).
unrun_note <- function(claims, ids, base) {
  purrr::map_chr(ids, function(id) {
    others <- setdiff(split_list(claims$experiments[match(id, claims$claim_id)]), base)
    if (length(others) == 0) {
      return("")
    }
    paste0(" (", paste(others, collapse = ", "), " at the base's assumption)")
  })
}

# One row per variant: the assumption, what moved, the claims judged again and the verdicts that
# changed ("id: before -> after"), per setup the base was judged in. tables: the data the
# baseline evaluation used, a named list whose tables with an `experiment` column hold the base's
# and the variants' rows; evaluate(tables, claims, ...): the report's own evaluation, which gave
# baseline (its evaluated table), with the report's other data in `...`. A variant or base
# without rows reads "not run".
sensitivity_table <- function(variants, tables, evaluate, baseline, claims, ...) {
  rows <- purrr::map(seq_len(nrow(variants)), function(i) {
    v <- variants[i, ]
    named <- claims_naming(claims, v$base)
    swapped <- if (nrow(named) > 0) swap_variant(tables, v$experiment, v$base)
    row <- tibble::tibble(
      variant = v$experiment, base = v$base, assumption = v$assumption, moved = v$moved,
      judged = NA_integer_, changed = NA_character_, status = "not run"
    )
    if (nrow(named) == 0) {
      row$status <- "no claim names the base"
      return(row)
    }
    if (is.null(swapped)) {
      return(row)
    }
    after <- evaluate(swapped$tables, named, ...)
    before <- dplyr::filter(baseline, claim_id %in% named$claim_id)
    key <- c("claim_id", intersect("setup", intersect(names(before), names(after))))
    # Only the setup the variant stands in can change; the others are left out of the count.
    if ("setup" %in% key && !is.na(swapped$setup)) {
      before <- dplyr::filter(before, setup == swapped$setup)
      after <- dplyr::filter(after, setup == swapped$setup)
    }
    compared <- dplyr::inner_join(
      dplyr::distinct(dplyr::select(before, dplyr::all_of(c(key, "verdict")))),
      dplyr::distinct(dplyr::select(after, dplyr::all_of(c(key, "verdict")))),
      by = key, suffix = c("_before", "_after")
    ) |>
      dplyr::mutate(dplyr::across(dplyr::starts_with("verdict"), as.character))
    flipped <- dplyr::filter(compared, verdict_before != verdict_after)
    row$judged <- nrow(compared)
    row$changed <- if (nrow(flipped) == 0) {
      "none"
    } else {
      paste0(
        flipped$claim_id, ": ", flipped$verdict_before, " -> ", flipped$verdict_after,
        unrun_note(named, flipped$claim_id, v$base), collapse = "; "
      )
    }
    row$status <- "judged"
    row
  })
  empty <- tibble::tibble(
    variant = character(), base = character(), assumption = character(), moved = character(),
    judged = integer(), changed = character(), status = character()
  )
  dplyr::bind_rows(empty, rows)
}

# The section's opening paragraph (Markdown), the same in every report but for the spec, what of
# a variant is put in its base's place, and a note of the report's own.
sensitivity_intro <- function(spec, swapped, note = "") {
  paste0(
    "Some choices the paper leaves open are made in the spec (`", spec, "`, `assumptions`). ",
    "An experiment declared there as a variant (`variant_of`) runs its base experiment with one ",
    "assumption moved within its stated uncertainty, or where none is stated by the amount its ",
    "`moved` text gives; its ", swapped, " are put in the place of the base's, the base's claims ",
    "are judged again by the same rules, and the table lists every verdict that changes. A ",
    "variant without results reads *not run*: nothing is judged for it. A variant draws the same ",
    "random numbers as its base (tick phases, mode order, link draws), so a verdict that changes ",
    "does so with the assumption, not with another sample. A claim that also rests on experiments ",
    "the variant does not rerun is judged with those at the base's assumption, and its change names ",
    "them.",
    if (nzchar(note)) paste0(" ", note) else ""
  )
}

# The sensitivity table as HTML, or a note when the spec declares no variant.
sensitivity_html <- function(table, spec_name) {
  if (nrow(table) == 0) {
    return(paste0("<p>", escape_html(spec_name), " declares no variant experiment.</p>"))
  }
  shown <- tibble::tibble(
    Assumption = paste0("<code>", nowrap_html(table$assumption), "</code>"),
    Moved = escape_html(gsub(" -> ", " \u2192 ", table$moved, fixed = TRUE)),
    Variant = paste0("<code>", escape_html(table$variant), "</code> for <code>", escape_html(table$base), "</code>"),
    `Claims judged` = dplyr::if_else(is.na(table$judged), "–", as.character(table$judged)),
    `Verdicts changed` = dplyr::if_else(
      table$status == "judged", escape_html(gsub(" -> ", " \u2192 ", table$changed, fixed = TRUE)),
      paste0("<i>", escape_html(table$status), "</i>")
    )
  )
  knitr::kable(shown, format = "html", escape = FALSE)
}
