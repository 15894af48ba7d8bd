# Backends: the same experiment measured in emulation (linkemu, netem, htb;
# real time over Mininet) and in virtual time (sim). Rows of different
# backends are never pooled: reports either compare them side by side or
# judge claims on one named backend.

emulated_backends <- c("linkemu", "netem", "htb")
virtual_backends <- "sim"

# Which backend a report judges claims on when several measured the same
# link and stack: the project's emulator first, then the kernel's netem, then
# htb (rate and queue only), then virtual time; any other backend last.
backend_preference <- c("linkemu", "netem", "htb", "sim")

preferred_backend <- function(backends) {
  backends <- unique(backends)
  ranked <- c(intersect(backend_preference, backends), sort(setdiff(backends, backend_preference)))
  ranked[1]
}

# Per combination of `keys` (e.g. link and stack): the backend claims are
# judged on and the other backends that also ran.
judged_backends <- function(runs, keys) {
  runs |>
    dplyr::distinct(dplyr::across(dplyr::all_of(c(keys, "backend")))) |>
    dplyr::group_by(dplyr::across(dplyr::all_of(keys))) |>
    dplyr::summarise(
      others = paste(sort(setdiff(backend, preferred_backend(backend))), collapse = ", "),
      backend = preferred_backend(backend),
      .groups = "drop"
    )
}

# The judged backends in words, for the scorecard: which backend each link
# and stack is judged on, and which others ran there.
judged_backends_html <- function(judged) {
  if (nrow(judged) == 0) {
    return("")
  }
  items <- paste0(
    "<li><b>", escape_html(judged$link), " / ", escape_html(judged$stack), "</b>: judged on <b>",
    escape_html(judged$backend), "</b>",
    dplyr::if_else(
      nzchar(judged$others),
      paste0(
        "; also ran on ", escape_html(judged$others),
        ", shown in the figures (one panel per backend) but not judged"
      ),
      ""
    ),
    ".</li>"
  )
  paste0(
    "<p>Claims are judged on one backend per link and stack, never on rows of several pooled. ",
    "The preference is ", paste(backend_preference, collapse = " over "), ".</p><ul>",
    paste(items, collapse = ""), "</ul>"
  )
}

# Rows of `data` measured by the judged backend of their keys; NULL for no table.
judged_rows <- function(data, judged, keys) {
  if (is.null(data)) {
    return(NULL)
  }
  dplyr::semi_join(data, judged, by = c(keys, "backend"))
}

# Each point (`keys`) measured both in virtual time and by an emulated
# backend, with both values and the relative difference of virtual time from
# emulation in percent.
compare_backends <- function(summary, keys, value, tolerance_pct) {
  side <- function(backends, prefix) {
    summary |>
      dplyr::filter(backend %in% backends, !is.na(.data[[value]])) |>
      dplyr::select(dplyr::all_of(keys), backend, value = dplyr::all_of(value)) |>
      dplyr::rename_with(function(x) paste0(prefix, x), c(backend, value))
  }
  dplyr::inner_join(
    side(virtual_backends, "sim_"), side(emulated_backends, "emulated_"),
    by = keys
  ) |>
    dplyr::mutate(
      rel_diff_pct = 100 * (sim_value / emulated_value - 1),
      within = abs(rel_diff_pct) <= tolerance_pct
    )
}

# Per group and pair of backends: how many points both measured, the share
# within the tolerance, the largest difference, and the verdict "agree within
# the tolerance": yes only when every point does.
backend_agreement <- function(comparison, groups) {
  comparison |>
    dplyr::group_by(dplyr::across(dplyr::all_of(c(groups, "emulated_backend", "sim_backend")))) |>
    dplyr::summarise(
      points = dplyr::n(),
      within_pct = 100 * mean(within),
      median_abs_diff_pct = stats::median(abs(rel_diff_pct)),
      max_abs_diff_pct = max(abs(rel_diff_pct)),
      agree = dplyr::if_else(all(within), "yes", "no"),
      .groups = "drop"
    )
}

# Points of a comparison as long rows, one per backend, for plotting both.
backend_long <- function(comparison, keys) {
  dplyr::bind_rows(
    dplyr::transmute(comparison, dplyr::across(dplyr::all_of(keys)),
      backend = sim_backend, value = sim_value
    ),
    dplyr::transmute(comparison, dplyr::across(dplyr::all_of(keys)),
      backend = emulated_backend, value = emulated_value
    )
  ) |>
    dplyr::distinct()
}

# What ran, in words, when there is nothing (or something) to compare.
backend_status_html <- function(backends, comparison) {
  backends <- sort(unique(stats::na.omit(backends)))
  if (length(backends) == 0) {
    return(callout("<b>Not run yet.</b> No backend has measured these experiments."))
  }
  ran <- paste0("Backends that ran: <b>", escape_html(paste(backends, collapse = ", ")), "</b>. ")
  if (nrow(comparison) > 0) {
    return(callout(paste0(
      ran, nrow(comparison), " points were measured both in virtual time and in emulation."
    ), "info"))
  }
  missing <- c(
    if (!any(backends %in% virtual_backends)) "virtual time (backend sim)",
    if (!any(backends %in% emulated_backends)) "emulation (linkemu, netem or htb)"
  )
  callout(paste0(
    ran, "<b>Only one side ran</b>: nothing to compare yet. ",
    if (length(missing) > 0) {
      paste0("Missing: ", escape_html(paste(missing, collapse = " and ")), ".")
    } else {
      "Virtual time and emulation measured no common point."
    }
  ))
}

# The agreement table as HTML.
backend_agreement_html <- function(agreement, group_names, tolerance_pct) {
  groups <- stats::setNames(names(group_names), group_names)
  table <- agreement |>
    dplyr::transmute(
      dplyr::across(dplyr::all_of(names(group_names))),
      `Virtual time` = sim_backend, Emulation = emulated_backend, Points = points,
      `Share of points within ±tolerance` = paste(fmt_num(within_pct), "%"),
      `Median |difference| (%)` = fmt_num(median_abs_diff_pct, 2),
      `Largest |difference| (%)` = fmt_num(max_abs_diff_pct, 2),
      `Agree within tolerance` = dplyr::if_else(agree == "yes", "yes", "NO")
    ) |>
    dplyr::rename(dplyr::all_of(groups))
  names(table) <- sub("tolerance", paste0(fmt_num(tolerance_pct), " %"), names(table))
  kable_html(table)
}

# Both backends' values at every point both measured, for
# plot_backend_pairs(): `x` and `panel` are the columns of the comparison
# that name a point's position and panel. Spans join the two values of a
# point and say whether they agree.
backend_plot_data <- function(comparison, x, panel) {
  comparison <- dplyr::mutate(comparison,
    x = .data[[x]], panel = .data[[panel]],
    agreement = factor(
      dplyr::if_else(within, "within tolerance", "outside tolerance"),
      levels = c("within tolerance", "outside tolerance")
    )
  )
  list(
    points = backend_long(comparison, c("panel", "x", "emulated_backend", "agreement")),
    spans = dplyr::transmute(comparison,
      panel, x, emulated_backend, agreement,
      low = pmin(sim_value, emulated_value), high = pmax(sim_value, emulated_value)
    )
  )
}
