# Figures of the liu95db report. Every function takes data shaped by
# R/liu95db.R or by the report; none reshapes.

rtt_log_scale <- function(name = "Round-trip time (ms, log scale)") {
  ggplot2::scale_y_log10(name, labels = scales::label_number(drop0trailing = TRUE))
}

# RTT of every echo in send order (Figs 12 and 15): one line per trial and
# series (`series`: what is compared, e.g. the link or the message size),
# one panel per `panel`, shapes by backend.
plot_echo_sequence <- function(echoes, title, series_name) {
  ggplot2::ggplot(echoes, ggplot2::aes(echo, rtt_ms, colour = series)) +
    ggplot2::geom_line(ggplot2::aes(group = interaction(series, trial, backend)),
      linewidth = 0.4, alpha = 0.6
    ) +
    ggplot2::geom_point(ggplot2::aes(shape = backend), size = 1.3) +
    ggplot2::scale_colour_brewer(series_name, palette = "Set1") +
    backend_shape_scale(echoes$backend) +
    ggplot2::scale_x_continuous("Echo (in send order)", breaks = scales::breaks_extended(6)) +
    rtt_log_scale() +
    ggplot2::facet_wrap(ggplot2::vars(panel), ncol = min(2, dplyr::n_distinct(echoes$panel))) +
    ggplot2::labs(
      title = title,
      caption = paste(
        "Each point one echo; lines join the echoes of one trial.",
        "Echoes that did not come back whole are left out."
      )
    ) +
    theme_report()
}

# Median RTT per tested size (Fig 15 and the formula): shaded bands are the
# formula's abnormal ranges, colour the class our data give, shape the
# backend.
plot_size_classes <- function(predicted, bands, title) {
  classes <- c(normal = "#2c7bb6", abnormal = "#d7191c", "not classified" = "grey45")
  predicted <- dplyr::mutate(predicted,
    class = factor(dplyr::coalesce(measured, "not classified"), levels = names(classes))
  )
  ggplot2::ggplot(predicted, ggplot2::aes(message_bytes / 1024, rtt_median)) +
    ggplot2::geom_rect(
      data = bands,
      ggplot2::aes(
        xmin = from / 1024, xmax = to / 1024, ymin = 0, ymax = Inf,
        fill = "abnormal by the formula"
      ),
      alpha = 0.5, inherit.aes = FALSE
    ) +
    ggplot2::geom_linerange(
      ggplot2::aes(ymin = rtt_q25, ymax = rtt_q75, colour = class),
      linewidth = 1
    ) +
    ggplot2::geom_point(ggplot2::aes(colour = class, shape = backend), size = 2.4) +
    ggplot2::geom_text(ggplot2::aes(label = size_label(message_bytes)),
      size = 2.8, vjust = -1.1, colour = "grey20"
    ) +
    ggplot2::scale_fill_manual(NULL, values = c("abnormal by the formula" = "#fde0dd")) +
    ggplot2::scale_colour_manual("Class from our data", values = classes, drop = FALSE) +
    backend_shape_scale(predicted$backend) +
    ggplot2::scale_x_continuous("Message size (KB of 1024 octets)", breaks = seq(0, 128, 4)) +
    rtt_log_scale("Median round-trip time (ms, log scale)") +
    ggplot2::coord_cartesian(xlim = range(predicted$message_bytes / 1024) + c(-1, 1)) +
    facet_setups(predicted) +
    ggplot2::labs(
      title = title,
      caption = paste(
        "Point: median RTT over all echoes; bar: interquartile range;",
        "band: the sizes the paper's formula calls abnormal."
      )
    ) +
    theme_report()
}

# Median RTT with and without TCP_NODELAY per size (Fig 16): one panel per
# link and setup, colour by mode, shape by backend, small points per trial.
plot_nodelay <- function(sizes, trials, title) {
  sizes <- dplyr::filter(sizes, !is.na(rtt_median))
  if (nrow(sizes) == 0) {
    return(plot_missing(title, "No message came back whole: no RTT to draw."))
  }
  dodge <- ggplot2::position_dodge(width = 0.5)
  ggplot2::ggplot(sizes, ggplot2::aes(size, rtt_median, colour = mode_label)) +
    ggplot2::geom_point(
      data = trials, ggplot2::aes(shape = backend), size = 0.9, alpha = 0.4,
      position = ggplot2::position_jitterdodge(jitter.width = 0.08, dodge.width = 0.5, seed = 1)
    ) +
    ggplot2::geom_linerange(ggplot2::aes(ymin = rtt_q25, ymax = rtt_q75),
      position = dodge, linewidth = 1.2, alpha = 0.6
    ) +
    ggplot2::geom_point(ggplot2::aes(shape = backend), position = dodge, size = 2.4) +
    ggplot2::scale_colour_manual(NULL, values = mode_scale_values(sizes$mode)) +
    backend_shape_scale(sizes$backend) +
    rtt_log_scale("Median round-trip time (ms, log scale)") +
    ggplot2::facet_wrap(ggplot2::vars(panel)) +
    ggplot2::labs(
      title = title, x = "Message size",
      caption = paste(
        "Big point: median over all echoes; bar: interquartile range;",
        "small points: median of each trial."
      )
    ) +
    theme_report()
}

# Table 3 (with TCP_NODELAY) against Table 2 (without), cell by cell: below
# the diagonal TCP_NODELAY is slower.
plot_baseline_change <- function(points, title) {
  ggplot2::ggplot(points, ggplot2::aes(without, with_nodelay)) +
    ggplot2::geom_abline(slope = 1, intercept = 0, colour = "grey50", linetype = "dashed") +
    ggplot2::geom_point(ggplot2::aes(colour = class, shape = backend), size = 1.8, alpha = 0.8) +
    ggplot2::scale_colour_manual(NULL, values = c(
      "normal in both" = "#2c7bb6", "abnormal in either" = "#d7191c"
    ), drop = FALSE) +
    backend_shape_scale(points$backend) +
    ggplot2::scale_x_log10("Without TCP_NODELAY: Table 2 (Mb/s, log scale)",
      labels = scales::label_number(drop0trailing = TRUE)
    ) +
    ggplot2::scale_y_log10("With TCP_NODELAY: Table 3 (Mb/s, log scale)",
      labels = scales::label_number(drop0trailing = TRUE)
    ) +
    ggplot2::facet_wrap(ggplot2::vars(panel), ncol = 2) +
    ggplot2::labs(
      title = title,
      caption = paste(
        "Each point one buffer pair.",
        "Dashed: equal throughput; below it TCP_NODELAY is slower."
      )
    ) +
    theme_report()
}
