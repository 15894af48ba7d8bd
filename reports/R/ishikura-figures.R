# ishikura's figures: each takes the rows its shaping function (R/ishikura.R) gives.

mbit_axis <- function() {
  ggplot2::scale_y_continuous("throughput (Mb/s)", limits = c(0, NA))
}

# Throughput against the number of connections, a line per `series` (Figs 6 and 8).
plot_connections <- function(rows, series_name, title) {
  ggplot2::ggplot(rows, ggplot2::aes(connections, mean_mbit, colour = series)) +
    ggplot2::geom_line() +
    ggplot2::geom_point() +
    ggplot2::facet_wrap(~setup) +
    mbit_axis() +
    ggplot2::labs(x = "connections N", colour = series_name, title = title)
}

# Fig 7: throughput of one connection against its window, in steps.
plot_window_steps <- function(rows, title) {
  ggplot2::ggplot(rows, ggplot2::aes(window_kbytes, mean_mbit)) +
    ggplot2::geom_step(colour = "grey60") +
    ggplot2::geom_point() +
    ggplot2::facet_wrap(~setup) +
    mbit_axis() +
    ggplot2::labs(x = "window per connection (Kbytes)", title = title)
}

# Fig 9: throughput against added RTT, a line per number of connections, a panel per setup
# and cell loss ratio.
plot_cell_loss_rtt <- function(rows, title) {
  ggplot2::ggplot(rows, ggplot2::aes(added_rtt_ms, mean_mbit, colour = series)) +
    ggplot2::geom_line() +
    ggplot2::geom_point() +
    ggplot2::facet_grid(setup ~ cell_loss_ratio, labeller = ggplot2::label_both) +
    mbit_axis() +
    ggplot2::labs(x = "added RTT (ms)", colour = "N", title = title)
}

# Fig 10: normalised throughput against each error's ratio and its packet error rate.
plot_error_curves <- function(rows, title) {
  ggplot2::ggplot(rows, ggplot2::aes(x, normalised, colour = error)) +
    ggplot2::geom_line() +
    ggplot2::geom_point() +
    ggplot2::scale_x_log10() +
    ggplot2::facet_grid(setup ~ axis, scales = "free_x") +
    ggplot2::labs(x = NULL, y = "normalised throughput", colour = NULL, title = title)
}

# Fig 1: recovery time per n, measured and by the formula, with the recoveries behind each
# bar written above it.
plot_recovery <- function(rows, labels, title) {
  ggplot2::ggplot(rows, ggplot2::aes(factor(n), rtts)) +
    ggplot2::geom_col(
      ggplot2::aes(fill = source),
      position = ggplot2::position_dodge(width = 0.8), width = 0.75, na.rm = TRUE
    ) +
    ggplot2::geom_text(
      data = labels, ggplot2::aes(y = top, label = label),
      vjust = -0.2, size = 2.8, lineheight = 0.9
    ) +
    ggplot2::scale_y_continuous(expand = ggplot2::expansion(mult = c(0, 0.3))) +
    ggplot2::facet_grid(panel ~ case) +
    ggplot2::labs(x = "n", y = "Tr (base RTTs)", fill = NULL, title = title)
}
