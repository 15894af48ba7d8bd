# A study of one's own (a spec whose `paper:` has no report of its own):
# which experiments it has, what kind of results each holds, and its settings.

# The experiments of a study that have results: when the spec is known, only
# its own (the ones the workflow declared), in its order; a results folder of an
# experiment since removed from the spec is left out. Else alphabetically.
study_experiments <- function(results_dir, paper, spec = NULL) {
  found <- basename(dirname(Sys.glob(file.path(results_dir, paper, "*", "results.csv"))))
  if (is.null(spec)) {
    return(sort(found))
  }
  intersect(names(spec$experiments), found)
}

# What an experiment's results.csv holds, judged by its columns: echoes
# (pingx), a buffer matrix (ttcp), curves of messages by size (ipcbench), or
# transfers against other settings (mftp).
results_kind <- function(columns) {
  if ("rtt_ms" %in% columns) {
    return("echoes")
  }
  if (all(c("send_buffer", "recv_buffer", "throughput_mbit") %in% columns)) {
    return("buffers")
  }
  if (all(c("curve", "message_bytes", "throughput_mbit") %in% columns)) {
    return("curves")
  }
  if ("throughput_mbit" %in% columns) {
    return("transfers")
  }
  "unknown"
}

# The sweep's columns (the results contract's) whose values differ between an
# experiment's rows: the settings its figures draw against and keep apart. Beyond
# what each kind is drawn by (sizes, buffer pairs, curves), only a sweep varies a
# setting within an experiment; the other columns are measured.
swept_columns <- function(data, schema = results_schema()) {
  columns <- intersect(schema$sweep$columns$name, names(data))
  purrr::keep(columns, function(column) dplyr::n_distinct(data[[column]], na.rm = TRUE) > 1)
}

# Each row's setup with the values of `columns` appended ("... / added_rtt_ms 10,
# loss_pct 1"), so that rows measured under other settings are grouped apart; a
# factor whose levels follow the values as numbers (10 after 5, not before).
with_settings_label <- function(data, columns) {
  if (length(columns) == 0) {
    return(data)
  }
  numbers <- purrr::map(columns, function(column) as.numeric(data[[column]]))
  shown <- purrr::map2(columns, numbers, function(column, values) {
    paste(column, vapply(values, format, character(1), digits = 6, trim = TRUE))
  })
  label <- paste(data$setup, do.call(paste, c(shown, sep = ", ")), sep = " / ")
  in_order <- do.call(order, c(list(as.character(data$setup)), numbers))
  data$setup <- factor(label, levels = unique(label[in_order]))
  data
}

# Mean throughput per value of one setting, per setup and per combination of
# the other settings that vary (`others`), which are never pooled.
throughput_by_setting <- function(data, setting, others = character()) {
  with_settings_label(data, others) |>
    dplyr::mutate(
      value = as.numeric(.data[[setting]]),
      throughput_mbit = as.numeric(throughput_mbit)
    ) |>
    dplyr::group_by(setup, value) |>
    summarise_throughput("transfers")
}

# Per group: how many rows (a column named `count`), and their mean, lowest and
# highest throughput.
summarise_throughput <- function(grouped, count) {
  dplyr::summarise(
    grouped,
    !!count := dplyr::n(),
    mean_mbit = mean(throughput_mbit, na.rm = TRUE),
    min_mbit = min(throughput_mbit, na.rm = TRUE),
    max_mbit = max(throughput_mbit, na.rm = TRUE),
    .groups = "drop"
  )
}

# One figure per setting that varies: throughput against it, a line for each
# combination of the others.
throughput_figures <- function(data, settings, experiment) {
  purrr::map(settings, function(setting) {
    plot_throughput_by_setting(
      throughput_by_setting(data, setting, setdiff(settings, setting)), setting,
      paste0(experiment, ": throughput against ", setting)
    )
  })
}

# Mean throughput per curve (e.g. 'udp 8192B 6UnAck') and message size, per setup.
curve_points <- function(data) {
  data |>
    dplyr::mutate(
      message_bytes = as.numeric(message_bytes), throughput_mbit = as.numeric(throughput_mbit)
    ) |>
    dplyr::group_by(setup, curve, message_bytes) |>
    summarise_throughput("messages")
}

plot_curves <- function(points, title) {
  ggplot2::ggplot(points, ggplot2::aes(message_bytes / 1e6, mean_mbit, colour = curve)) +
    ggplot2::geom_linerange(ggplot2::aes(ymin = min_mbit, ymax = max_mbit), alpha = 0.5) +
    ggplot2::geom_line() +
    ggplot2::geom_point() +
    facet_setups(points) +
    ggplot2::labs(
      title = title, x = "Message (million bytes)", y = "Throughput (Mb/s)", colour = NULL,
      caption = "Line: mean over messages; bar: lowest to highest."
    ) +
    ggplot2::guides(colour = ggplot2::guide_legend(ncol = 2)) +
    theme_report()
}

plot_throughput_by_setting <- function(points, setting, title) {
  ggplot2::ggplot(points, ggplot2::aes(value, mean_mbit, colour = setup)) +
    ggplot2::geom_linerange(ggplot2::aes(ymin = min_mbit, ymax = max_mbit), alpha = 0.5) +
    ggplot2::geom_line() +
    ggplot2::geom_point() +
    ggplot2::labs(
      title = title, x = setting, y = "Throughput (Mb/s)", colour = NULL,
      caption = "Line: mean over transfers; bar: lowest to highest."
    ) +
    # A line's label names its setup and the other settings' values: one a row, so none is cut.
    ggplot2::guides(colour = ggplot2::guide_legend(ncol = 1)) +
    theme_report()
}

# The buffer matrix of a ttcp experiment as heat-map panels, one per setup.
study_matrix_panels <- function(transfers) {
  summarise_cells(transfers) |>
    dplyr::transmute(
      panel = factor(setup), send_buffer, recv_buffer,
      throughput_mbit = mean_mbit, abnormal = FALSE,
      send = factor(buffer_label(send_buffer), levels = rev(unique(buffer_label(sort(unique(send_buffer)))))),
      recv = buffer_factor(recv_buffer),
      label = fmt_num(mean_mbit, 2)
    )
}

# The spec's settings of one experiment as netrepro.spec resolves them (its own over
# its base's where it is a variant, over the defaults), one row per leaf setting,
# values as text.
experiment_settings <- function(spec, experiment) {
  own <- spec$experiments[[experiment]] %||% list()
  base <- own$variant_of$experiment
  inherited <- if (is.null(base)) list() else spec$experiments[[base]] %||% list()
  merged <- merge_settings(merge_settings(spec$defaults %||% list(), inherited), own)
  merged$description <- NULL
  flat <- unlist(merged)
  if (length(flat) == 0) {
    return(tibble::tibble(setting = character(), value = character()))
  }
  grouped <- split(unname(flat), sub("[0-9]+$", "", names(flat)))
  tibble::tibble(
    setting = names(grouped),
    value = unname(purrr::map_chr(grouped, function(values) paste(values, collapse = ", ")))
  )
}

# top's settings over base's, key by key in nested settings, but `cooling` and
# `sweep` replaced whole, as netrepro.spec merges them.
merge_settings <- function(base, top) {
  base[intersect(c("cooling", "sweep"), names(top))] <- NULL
  utils::modifyList(base, top)
}

# The figures an experiment's results call for (ggplot objects; none when its
# results.csv is of no kind drawn here). Echoes: RTT and UDP loss against size, a
# panel per sweep point. A buffer matrix: a heat map, or, swept, throughput
# against each setting that varies. Curves: throughput against message size, a
# line per curve. Other transfers: throughput against each swept setting.
study_figures <- function(results_dir, paper, experiment) {
  path <- file.path(experiment_dir(results_dir, paper, experiment), "results.csv")
  kind <- results_kind(csv_header(path))
  if (kind == "echoes") {
    data <- read_results(results_dir, paper, experiment)$data
    data <- with_settings_label(data, swept_columns(data))
    sizes <- summarise_sizes(data)
    trials <- summarise_trials(data)
    figures <- list(plot_rtt(sizes, trials, paste0(experiment, ": round-trip time by message size")))
    udp <- dplyr::filter(sizes, grepl("^udp", mode))
    if (nrow(udp) == 0) {
      return(figures)
    }
    return(c(figures, list(plot_loss(
      udp, dplyr::filter(trials, grepl("^udp", mode)),
      paste0(experiment, ": UDP datagram loss by message size")
    ))))
  }
  if (kind == "buffers") {
    transfers <- read_transfers(results_dir, paper, experiment)
    swept <- swept_columns(transfers)
    if (length(swept) == 0) {
      return(list(plot_matrix_heatmap(
        study_matrix_panels(transfers),
        paste0(experiment, ": mean throughput per buffer pair"),
        published_abnormal = "none: no paper"
      )))
    }
    buffers <- purrr::keep(c("send_buffer", "recv_buffer"), function(column) {
      dplyr::n_distinct(transfers[[column]]) > 1
    })
    return(throughput_figures(transfers, c(swept, buffers), experiment))
  }
  if (kind == "curves") {
    data <- add_setup(read_contract_csv(
      path, c("curve", "message_bytes", "throughput_mbit", "link", "stack", "backend")
    ))
    data <- with_settings_label(data, swept_columns(data))
    return(list(plot_curves(curve_points(data), paste0(experiment, ": throughput by message size"))))
  }
  if (kind == "transfers") {
    data <- add_setup(read_contract_csv(path, c("throughput_mbit", "link", "stack", "backend")))
    return(throughput_figures(data, swept_columns(data), experiment))
  }
  list()
}

# One experiment's section for a results = "asis" chunk: its heading, the
# figures its results call for, and (with the spec) its settings.
study_experiment_section <- function(results_dir, paper, experiment, spec = NULL) {
  cat(markdown_heading(experiment))
  description <- spec$experiments[[experiment]]$description
  if (!is.null(description)) {
    cat("<p>", escape_html(description), "</p>\n\n", sep = "")
  }
  path <- file.path(experiment_dir(results_dir, paper, experiment), "results.csv")
  figures <- study_figures(results_dir, paper, experiment)
  if (length(figures) == 0) {
    cat(callout(paste0(
      "No figure for ", escape_html(path), ": no setting varies across its transfers, or its ",
      "columns are of no kind this report draws."
    )))
  }
  purrr::walk(figures, print)
  if (!is.null(spec)) {
    cat("\n\n<p>Settings (the spec's defaults with this experiment's own):</p>\n")
    cat(kable_html(experiment_settings(spec, experiment)))
  }
}

`%||%` <- function(x, y) if (is.null(x)) y else x
