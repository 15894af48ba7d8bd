# Figures. Every function takes already-shaped summaries; none reshapes data.

mode_labels <- c(
  "tcp-per-message" = "Individual-connection TCP",
  "tcp" = "TCP (one connection)",
  "tcp-nodelay" = "TCP with TCP_NODELAY",
  "udp-cooled" = "Cooled UDP",
  "udp" = "UDP (uncooled)"
)

mode_colours <- c(
  "tcp-per-message" = "#7b3294",
  "tcp" = "#2c7bb6",
  "tcp-nodelay" = "#e08214",
  "udp-cooled" = "#1a9641",
  "udp" = "#d7191c"
)

# Human label for each mode; modes outside the paper's four keep their id.
label_modes <- function(modes) {
  known <- modes %in% names(mode_labels)
  out <- modes
  out[known] <- mode_labels[modes[known]]
  out
}

# Mode as an ordered factor of labels, so colours and legends stay stable.
mode_factor <- function(modes) {
  ids <- c(names(mode_labels), sort(setdiff(unique(modes), names(mode_labels))))
  factor(label_modes(modes), levels = label_modes(ids))
}

mode_scale_values <- function(modes) {
  extra <- sort(setdiff(unique(modes), names(mode_colours)))
  extra_colours <- grDevices::hcl.colors(max(length(extra), 1), "Dark 3")
  colours <- c(mode_colours, stats::setNames(extra_colours[seq_along(extra)], extra))
  stats::setNames(colours, label_modes(names(colours)))
}

theme_report <- function() {
  ggplot2::theme_minimal(base_size = 12) +
    ggplot2::theme(
      legend.position = "bottom",
      # Mode or class and backend legends stack rather than run off the side.
      legend.box = "vertical",
      panel.grid.minor = ggplot2::element_blank(),
      plot.title.position = "plot",
      plot.title = ggplot2::element_text(face = "bold"),
      plot.caption = ggplot2::element_text(colour = "grey35", hjust = 0)
    )
}

# One panel per setup, even a single one, so that every figure names the
# link, stack and backend it shows.
facet_setups <- function(data) {
  ggplot2::facet_wrap(ggplot2::vars(setup), ncol = 1)
}

# Point shape per backend, the same in every figure: filled for emulation, an
# open triangle for virtual time (so that a point both measured shows both),
# other outlines for anything else (e.g. synthetic fixtures).
backend_shapes <- c(linkemu = 16, netem = 15, htb = 18, sim = 2)

backend_shape_scale <- function(backends) {
  extra <- sort(setdiff(unique(backends), names(backend_shapes)))
  values <- c(backend_shapes, stats::setNames(rep_len(c(1, 0, 5, 6), length(extra)), extra))
  ggplot2::scale_shape_manual("Backend", values = values, breaks = sort(unique(backends)))
}

size_axis <- function(max_bytes) {
  unit <- if (max_bytes >= 8192) "KB" else "bytes"
  divisor <- if (unit == "KB") 1024 else 1
  ggplot2::scale_x_continuous(
    paste0("Message size (", unit, ")"),
    breaks = function(limits) scales::breaks_extended()(limits / divisor) * divisor,
    labels = function(x) scales::label_comma()(x / divisor)
  )
}

# RTT against size: median line, interquartile ribbon, and one small point per
# trial (that trial's median), coloured by mode.
plot_rtt <- function(sizes, trials, title, subtitle = NULL) {
  sizes <- dplyr::filter(sizes, !is.na(rtt_median))
  trials <- dplyr::filter(trials, !is.na(rtt_median))
  if (nrow(sizes) == 0) {
    return(plot_missing(title, "No message came back whole: no RTT to draw."))
  }
  sizes$mode_label <- mode_factor(sizes$mode)
  trials$mode_label <- mode_factor(trials$mode)
  ggplot2::ggplot(sizes, ggplot2::aes(message_bytes, rtt_median,
    colour = mode_label, fill = mode_label
  )) +
    ggplot2::geom_ribbon(ggplot2::aes(ymin = rtt_q25, ymax = rtt_q75),
      alpha = 0.18, colour = NA
    ) +
    ggplot2::geom_point(data = trials, ggplot2::aes(shape = backend), size = 0.9, alpha = 0.35) +
    ggplot2::geom_line(linewidth = 0.8) +
    ggplot2::geom_point(ggplot2::aes(shape = backend), size = 1.6) +
    ggplot2::scale_colour_manual(NULL, values = mode_scale_values(sizes$mode), drop = TRUE) +
    ggplot2::scale_fill_manual(NULL, values = mode_scale_values(sizes$mode), drop = TRUE) +
    backend_shape_scale(sizes$backend) +
    size_axis(max(sizes$message_bytes)) +
    ggplot2::scale_y_continuous("Round-trip time (ms)", limits = c(0, NA)) +
    facet_setups(sizes) +
    ggplot2::labs(
      title = title, subtitle = subtitle,
      caption = paste(
        "Line: median over all echoes; band: interquartile range;",
        "small dots: median of each trial."
      )
    ) +
    theme_report()
}

# UDP datagram loss against size: pooled loss per size as a line, each trial's
# loss as a dot, and the published bounds as dashed lines.
plot_loss <- function(sizes, trials, title, references = NULL, subtitle = NULL) {
  sizes <- dplyr::filter(sizes, !is.na(loss_pct))
  trials <- dplyr::filter(trials, !is.na(loss_pct))
  if (nrow(sizes) == 0) {
    return(plot_missing(title, "No UDP datagrams in these data: no loss to draw."))
  }
  sizes$mode_label <- mode_factor(sizes$mode)
  trials$mode_label <- mode_factor(trials$mode)
  plot <- ggplot2::ggplot(sizes, ggplot2::aes(message_bytes, loss_pct,
    colour = mode_label
  )) +
    ggplot2::geom_point(data = trials, ggplot2::aes(shape = backend), size = 0.9, alpha = 0.35) +
    ggplot2::geom_line(linewidth = 0.8) +
    ggplot2::geom_point(ggplot2::aes(shape = backend), size = 1.6) +
    ggplot2::scale_colour_manual(NULL, values = mode_scale_values(sizes$mode)) +
    backend_shape_scale(sizes$backend) +
    size_axis(max(sizes$message_bytes)) +
    ggplot2::scale_y_continuous("Round-trip datagram loss (%)",
      limits = c(0, 100), breaks = seq(0, 100, 20)
    ) +
    facet_setups(sizes) +
    ggplot2::labs(
      title = title, subtitle = subtitle,
      caption = loss_caption(
        "Line: loss pooled over all datagrams of that size; dots: each trial.", references
      )
    ) +
    theme_report()
  add_references(plot, references)
}

# A loss figure's caption names the dashed lines only where published values are drawn: a
# study of one's own has none.
loss_caption <- function(caption, references) {
  if (is.null(references) || nrow(references) == 0) {
    return(caption)
  }
  paste(caption, "Dashed: published values.")
}

add_references <- function(plot, references) {
  if (is.null(references) || nrow(references) == 0) {
    return(plot)
  }
  plot +
    # geom_hline() never inherits the plot's aesthetics.
    ggplot2::geom_hline(
      data = references, ggplot2::aes(yintercept = value), linetype = "dashed", colour = "grey30"
    ) +
    ggplot2::geom_text(
      data = references,
      ggplot2::aes(x = Inf, y = label_y, label = label),
      hjust = 1.02, vjust = 0, size = 3.2, colour = "grey20",
      inherit.aes = FALSE
    )
}

# Per-file figures for the NASA set: files in size order on x.
nasa_axis_labels <- function(sizes) {
  files <- dplyr::distinct(sizes, message_name, message_bytes) |>
    dplyr::arrange(message_bytes)
  stats::setNames(
    paste0(files$message_name, " (", round(files$message_bytes / 1024), " KB)"),
    files$message_name
  )
}

order_files <- function(data, labels) {
  data$file <- factor(data$message_name, levels = names(labels))
  data
}

plot_nasa_rtt <- function(sizes, trials, title) {
  sizes <- dplyr::filter(sizes, !is.na(rtt_median))
  if (nrow(sizes) == 0) {
    return(plot_missing(title, "No NASA image came back whole: no RTT to draw."))
  }
  labels <- nasa_axis_labels(sizes)
  sizes <- order_files(sizes, labels)
  trials <- order_files(dplyr::filter(trials, !is.na(rtt_median)), labels)
  sizes$mode_label <- mode_factor(sizes$mode)
  trials$mode_label <- mode_factor(trials$mode)
  dodge <- ggplot2::position_dodge(width = 0.6)
  ggplot2::ggplot(sizes, ggplot2::aes(file, rtt_median, colour = mode_label)) +
    ggplot2::geom_point(
      data = trials, ggplot2::aes(shape = backend), size = 0.8, alpha = 0.3,
      position = ggplot2::position_jitterdodge(jitter.width = 0.1, dodge.width = 0.6, seed = 1)
    ) +
    ggplot2::geom_linerange(ggplot2::aes(ymin = rtt_q25, ymax = rtt_q75),
      position = dodge, linewidth = 1.4, alpha = 0.6
    ) +
    ggplot2::geom_point(ggplot2::aes(shape = backend), position = dodge, size = 1.8) +
    ggplot2::scale_colour_manual(NULL, values = mode_scale_values(sizes$mode)) +
    backend_shape_scale(sizes$backend) +
    ggplot2::scale_x_discrete("NASA image (ordered by size)", labels = labels) +
    ggplot2::scale_y_continuous("Round-trip time (ms)", limits = c(0, NA)) +
    facet_setups(sizes) +
    ggplot2::labs(
      title = title,
      caption = paste(
        "Big dot: median over all echoes; bar: interquartile range;",
        "small dots: median of each trial."
      )
    ) +
    theme_report() +
    ggplot2::theme(axis.text.x = ggplot2::element_text(angle = 60, hjust = 1, size = 8))
}

plot_nasa_loss <- function(sizes, trials, title, references = NULL) {
  sizes <- dplyr::filter(sizes, !is.na(loss_pct))
  if (nrow(sizes) == 0) {
    return(plot_missing(title, "No UDP datagrams in these data: no loss to draw."))
  }
  labels <- nasa_axis_labels(sizes)
  sizes <- order_files(sizes, labels)
  trials <- order_files(dplyr::filter(trials, !is.na(loss_pct)), labels)
  sizes$mode_label <- mode_factor(sizes$mode)
  trials$mode_label <- mode_factor(trials$mode)
  dodge <- ggplot2::position_dodge(width = 0.75)
  plot <- ggplot2::ggplot(sizes, ggplot2::aes(file, loss_pct, fill = mode_label)) +
    ggplot2::geom_col(position = dodge, width = 0.7, alpha = 0.85) +
    ggplot2::geom_point(
      data = trials, ggplot2::aes(colour = mode_label, shape = backend), size = 0.8, alpha = 0.5,
      position = ggplot2::position_jitterdodge(jitter.width = 0.1, dodge.width = 0.75, seed = 1)
    ) +
    ggplot2::scale_fill_manual(NULL, values = mode_scale_values(sizes$mode)) +
    backend_shape_scale(sizes$backend) +
    ggplot2::guides(colour = "none") +
    ggplot2::scale_colour_manual(NULL, values = colorspace_darker(mode_scale_values(sizes$mode))) +
    ggplot2::scale_x_discrete("NASA image (ordered by size)", labels = labels) +
    ggplot2::scale_y_continuous("Round-trip datagram loss (%)",
      limits = c(0, 100), breaks = seq(0, 100, 20)
    ) +
    facet_setups(sizes) +
    ggplot2::labs(
      title = title,
      caption = loss_caption(
        "Bar: loss pooled over all datagrams of that file; dots: each trial.", references
      )
    ) +
    theme_report() +
    ggplot2::theme(axis.text.x = ggplot2::element_text(angle = 60, hjust = 1, size = 8))
  add_references(plot, references)
}

colorspace_darker <- function(colours) {
  darker <- grDevices::adjustcolor(colours, red.f = 0.6, green.f = 0.6, blue.f = 0.6)
  stats::setNames(darker, names(colours))
}

# A visible placeholder where a figure's data are missing.
plot_missing <- function(title, message) {
  ggplot2::ggplot() +
    ggplot2::annotate("rect",
      xmin = 0, xmax = 1, ymin = 0, ymax = 1,
      fill = "#fff4e5", colour = "#e69500", linetype = "dashed"
    ) +
    ggplot2::annotate("text",
      x = 0.5, y = 0.5, label = paste(strwrap(message, 60), collapse = "\n"),
      size = 5, colour = "#8a5300"
    ) +
    ggplot2::labs(title = title) +
    ggplot2::coord_cartesian(xlim = c(0, 1), ylim = c(0, 1), expand = FALSE) +
    ggplot2::theme_void(base_size = 12) +
    ggplot2::theme(plot.title = ggplot2::element_text(face = "bold"))
}

# One figure of an echo experiment against message size: kind "rtt" or "loss", or "nasa-rtt"
# and "nasa-loss" for the NASA image files; modes keeps those modes (NULL: all), references
# are the published values a loss figure marks. The placeholder when the experiment has no rows.
size_figure <- function(sizes, trials, experiment, title, kind, results_dir, paper,
                        modes = NULL, references = NULL) {
  rows <- dplyr::filter(sizes, experiment == !!experiment)
  if (nrow(rows) == 0) {
    return(plot_no_data(title, experiment, results_dir, paper))
  }
  trial_rows <- dplyr::filter(trials, experiment == !!experiment)
  if (!is.null(modes)) {
    rows <- dplyr::filter(rows, mode %in% modes)
    trial_rows <- dplyr::filter(trial_rows, mode %in% modes)
  }
  switch(kind,
    rtt = plot_rtt(rows, trial_rows, title),
    loss = plot_loss(rows, trial_rows, title, references = references),
    "nasa-rtt" = plot_nasa_rtt(rows, trial_rows, title),
    "nasa-loss" = plot_nasa_loss(rows, trial_rows, title, references = references),
    stop("size_figure: unknown kind '", kind, "'", call. = FALSE)
  )
}

# The placeholder of a figure whose experiments have no results: it names them and the folder
# they were looked for in.
plot_no_data <- function(title, experiments, results_dir, paper) {
  which <- if (length(experiments) == 1) {
    paste("experiment", experiments, "has")
  } else {
    paste("experiments", and_list(experiments), "have")
  }
  plot_missing(title, paste0(
    "No data: ", which, " no results.csv under ", file.path(results_dir, paper), "."
  ))
}

# Height (inches) of a figure that is a placeholder: a title and a few lines of text.
placeholder_height <- 2.2

# A figure's height (chunk option fig.height): its own when it has data to draw, a
# placeholder's when not.
figure_height <- function(present, height = knitr::opts_chunk$get("fig.height")) {
  if (present) height else placeholder_height
}

# Height of a figure of n panels in rows of per_row: base for title and legend, row per row.
panels_height <- function(n, per_row = 2, row = 3, base = 2.5) {
  base + row * ceiling(n / per_row)
}

# Per-transfer loss of ttcp UDP transfers, for the dots of Fig 15.
ttcp_points <- function(transfers) {
  transfers |>
    dplyr::filter(proto == "udp", !is.na(cool_iterations)) |>
    dplyr::mutate(loss_pct = dplyr::if_else(
      datagrams_sent > 0, 100 * (1 - datagrams_received / datagrams_sent), NA_real_
    ))
}

# TCP throughput per setup, the level UDP is compared with in Fig 15.
ttcp_tcp_levels <- function(ttcp) {
  ttcp |>
    dplyr::filter(proto == "tcp") |>
    dplyr::group_by(setup) |>
    dplyr::summarise(
      throughput_mbit = sum(throughput_mbit * transfers) / sum(transfers), .groups = "drop"
    )
}

# Fig 15a: UDP throughput against busy-wait iterations, TCP as a level.
plot_ttcp_throughput <- function(ttcp, points, title) {
  udp <- dplyr::filter(ttcp, proto == "udp", !is.na(cool_iterations))
  if (nrow(udp) == 0) {
    return(plot_missing(title, "No UDP transfers in these data: nothing to draw."))
  }
  tcp <- ttcp_tcp_levels(ttcp)
  plot <- ggplot2::ggplot(udp, ggplot2::aes(cool_iterations, throughput_mbit)) +
    ggplot2::geom_point(
      data = points, ggplot2::aes(shape = backend),
      size = 0.9, alpha = 0.35, colour = mode_colours[["udp"]]
    ) +
    ggplot2::geom_line(ggplot2::aes(colour = "UDP"), linewidth = 0.8) +
    ggplot2::geom_point(ggplot2::aes(colour = "UDP", shape = backend), size = 1.8)
  if (nrow(tcp) > 0) {
    plot <- plot + ggplot2::geom_hline(
      data = tcp, ggplot2::aes(yintercept = throughput_mbit, colour = "TCP"),
      linewidth = 0.8, linetype = "longdash"
    )
  }
  plot +
    ggplot2::scale_colour_manual(NULL, values = c(UDP = mode_colours[["udp"]], TCP = mode_colours[["tcp"]])) +
    backend_shape_scale(udp$backend) +
    ggplot2::scale_x_continuous("Busy-wait iterations between datagrams", labels = scales::label_comma()) +
    ggplot2::scale_y_continuous("Throughput (Mb/s)", limits = c(0, NA)) +
    facet_setups(udp) +
    ggplot2::labs(
      title = title,
      caption = "Line: mean UDP throughput per cooling length; dots: each transfer; dashed: mean TCP throughput."
    ) +
    theme_report()
}

# Fig 15b: UDP loss against busy-wait iterations, with the acceptable level.
plot_ttcp_loss <- function(ttcp, points, title, acceptable_loss_pct) {
  udp <- dplyr::filter(ttcp, proto == "udp", !is.na(cool_iterations), !is.na(loss_pct))
  if (nrow(udp) == 0) {
    return(plot_missing(title, "No UDP datagram counts in these data: no loss to draw."))
  }
  references <- tibble::tibble(
    value = acceptable_loss_pct, label_y = acceptable_loss_pct + 2,
    label = paste0("acceptable level: ", acceptable_loss_pct, " % (Sec 4.2)")
  )
  plot <- ggplot2::ggplot(udp, ggplot2::aes(cool_iterations, loss_pct)) +
    ggplot2::geom_point(
      data = dplyr::filter(points, !is.na(loss_pct)), ggplot2::aes(shape = backend),
      size = 0.9, alpha = 0.35, colour = mode_colours[["udp"]]
    ) +
    ggplot2::geom_line(colour = mode_colours[["udp"]], linewidth = 0.8) +
    ggplot2::geom_point(ggplot2::aes(shape = backend), colour = mode_colours[["udp"]], size = 1.8) +
    backend_shape_scale(udp$backend) +
    ggplot2::scale_x_continuous("Busy-wait iterations between datagrams", labels = scales::label_comma()) +
    ggplot2::scale_y_continuous("UDP datagram loss (%)", limits = c(0, 100), breaks = seq(0, 100, 20)) +
    facet_setups(udp) +
    ggplot2::labs(
      title = title,
      caption = "Line: loss pooled over the transfers of each cooling length; dots: each transfer."
    ) +
    theme_report()
  add_references(plot, references)
}

backend_colours <- c(linkemu = "#2c7bb6", netem = "#1a9641", htb = "#e08214", sim = "#d7191c")

backend_colour_scale <- function(backends) {
  extra <- sort(setdiff(unique(backends), names(backend_colours)))
  values <- c(backend_colours, stats::setNames(rep_len("grey40", length(extra)), extra))
  ggplot2::scale_colour_manual("Backend", values = values, breaks = sort(unique(backends)))
}

# Virtual time beside emulation (data from backend_plot_data()): each point
# both measured, coloured and shaped by backend, joined by a bar that is red
# where the two differ by more than the tolerance.
plot_backend_pairs <- function(data, title, x_label, y_label, tolerance_pct) {
  ggplot2::ggplot(data$points, ggplot2::aes(x, value)) +
    ggplot2::geom_linerange(
      data = data$spans, ggplot2::aes(x = x, ymin = low, ymax = high, linetype = agreement),
      colour = "grey35", linewidth = 0.6, inherit.aes = FALSE
    ) +
    ggplot2::geom_point(ggplot2::aes(colour = backend, shape = backend), size = 2.2) +
    backend_colour_scale(data$points$backend) +
    backend_shape_scale(data$points$backend) +
    ggplot2::scale_linetype_manual(
      paste0("Virtual time vs emulation (\u00b1", fmt_num(tolerance_pct), " %)"),
      values = c("within tolerance" = "solid", "outside tolerance" = "22"), drop = FALSE
    ) +
    ggplot2::scale_y_log10(y_label, labels = scales::label_number(drop0trailing = TRUE)) +
    ggplot2::facet_wrap(ggplot2::vars(panel),
      scales = "free_x", labeller = ggplot2::label_wrap_gen(40)
    ) +
    ggplot2::labs(
      title = title, x = x_label,
      caption = "Points: each backend's value; bar: the span between them (dashed where they disagree)."
    ) +
    theme_report() +
    ggplot2::theme(
      axis.text.x = ggplot2::element_text(angle = 60, hjust = 1, size = 7)
    )
}
