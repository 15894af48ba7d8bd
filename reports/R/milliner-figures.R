# milliner's figures: each takes the per-size rows of summarise_ipc() it draws.

# Figs 2-4: transfer time against message size, a line per UDP segment size.
plot_segment_times <- function(rows) {
  ggplot2::ggplot(rows, ggplot2::aes(million_bytes, elapsed_s, colour = factor(segment))) +
    ggplot2::geom_line() + ggplot2::geom_point(size = 1) +
    ggplot2::facet_wrap(~ experiment + unack, labeller = ggplot2::label_both) +
    ggplot2::labs(x = "message (million bytes)", y = "transfer time (s)", colour = "segment (octets)")
}

# Figs 5 and 6: throughput against message size, a line per TCP buffer size.
plot_tcp_buffers <- function(rows) {
  ggplot2::ggplot(rows, ggplot2::aes(million_bytes, throughput_mbit, colour = factor(buffer))) +
    ggplot2::geom_line() + ggplot2::geom_point(size = 1) +
    ggplot2::facet_wrap(~experiment, scales = "free_x") +
    ggplot2::labs(x = "message (million bytes)", y = "throughput (Mb/s)", colour = "buffers (octets)")
}

# Figs 7 and 8: throughput against message size per curve, a dashed line where the curve's
# hosts began to page (paging_starts() rows with a finite start).
plot_paging_compare <- function(rows, paging) {
  ggplot2::ggplot(rows, ggplot2::aes(million_bytes, throughput_mbit, colour = curve)) +
    ggplot2::geom_line() + ggplot2::geom_point(size = 1) +
    ggplot2::geom_vline(data = paging,
                        ggplot2::aes(xintercept = first_paging_million_bytes, colour = curve),
                        linetype = "dashed") +
    ggplot2::labs(x = "message (million bytes)", y = "throughput (Mb/s)", colour = NULL,
                  caption = "dashed: the first size at which either host paged")
}

# Fig 7 on today's Linux stack: throughput against message size per curve, a panel per setup.
plot_linux_compare <- function(rows, title) {
  ggplot2::ggplot(rows, ggplot2::aes(million_bytes, throughput_mbit, colour = curve)) +
    ggplot2::geom_line() + ggplot2::geom_point(size = 1) +
    ggplot2::facet_wrap(~setup) +
    ggplot2::labs(x = "message (million bytes)", y = "throughput (Mb/s)", colour = NULL,
                  title = title)
}
