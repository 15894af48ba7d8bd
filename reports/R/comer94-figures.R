# Figures and tables of the buffer-matrix report. Every function takes data
# shaped by R/comer94.R; none reshapes.

class_colours <- c("normal" = "#2c7bb6", "abnormal" = "#d7191c")

class_factor <- function(abnormal) {
  factor(dplyr::if_else(abnormal, "abnormal", "normal"), levels = names(class_colours))
}

mbit_log_scale <- function(name = "Throughput (Mb/s, log scale)") {
  ggplot2::scale_y_log10(name, labels = scales::label_number(drop0trailing = TRUE))
}

# A buffer matrix as heat maps, one panel per matrix; abnormal cells framed.
# `published_abnormal` says where the published panel's abnormal cells come
# from.
plot_matrix_heatmap <- function(panels, title, published_abnormal = "shaded in the paper") {
  framed <- dplyr::filter(panels, abnormal %in% TRUE)
  ggplot2::ggplot(panels, ggplot2::aes(recv, send, fill = throughput_mbit)) +
    ggplot2::geom_tile(colour = "white", linewidth = 0.4) +
    ggplot2::geom_tile(data = framed, colour = "#d7191c", fill = NA, linewidth = 0.9) +
    ggplot2::geom_text(ggplot2::aes(label = label), size = 2.6, colour = "grey10") +
    ggplot2::scale_fill_viridis_c("Mb/s", trans = "log10", option = "C", begin = 0.3) +
    ggplot2::facet_wrap(ggplot2::vars(panel), ncol = 2) +
    ggplot2::labs(
      title = title, x = "Receive buffer", y = "Send buffer",
      caption = paste(
        "Colour: mean throughput (log scale). Red frame: abnormal (published:",
        paste0(published_abnormal, "; measured: by this report's rule).")
      )
    ) +
    theme_report() +
    ggplot2::theme(panel.grid = ggplot2::element_blank(), legend.position = "right")
}

# Fig 3: throughput with equal send and receive buffers.
plot_equal_buffers <- function(rows, title) {
  lines <- dplyr::mutate(rows$lines, buffer_label = buffer_factor(buffer))
  points <- dplyr::mutate(rows$points, buffer_label = factor(
    buffer_label(buffer),
    levels = levels(lines$buffer_label)
  ))
  ggplot2::ggplot(lines, ggplot2::aes(buffer_label, throughput_mbit,
    colour = source, group = source
  )) +
    ggplot2::geom_point(
      data = points, ggplot2::aes(shape = backend), size = 0.9, alpha = 0.35,
      position = ggplot2::position_jitter(width = 0.12, height = 0, seed = 1)
    ) +
    ggplot2::geom_line(linewidth = 0.8) +
    ggplot2::geom_point(size = 2) +
    ggplot2::scale_colour_manual(NULL, values = source_colours(unique(lines$source))) +
    backend_shape_scale(points$backend) +
    ggplot2::scale_y_continuous("Mean throughput (Mb/s)", limits = c(0, NA)) +
    ggplot2::labs(
      title = title, x = "Send buffer = receive buffer",
      caption = "Line: mean per buffer size; small dots: each measurement."
    ) +
    theme_report()
}

# Published first in black, then one colour per setup.
source_colours <- function(sources) {
  published <- grepl("^Published", sources)
  others <- sort(sources[!published])
  stats::setNames(
    c(rep("grey15", sum(published)), grDevices::hcl.colors(max(length(others), 2), "Dark 3")[seq_along(others)]),
    c(sources[published], others)
  )
}

# Lockstep cells: each measurement against the mechanism value +-10 %.
plot_lockstep <- function(rows, title) {
  points <- dplyr::mutate(rows$points, class = class_factor(abnormal))
  ggplot2::ggplot(rows$mechanism, ggplot2::aes(cell)) +
    ggplot2::geom_crossbar(
      ggplot2::aes(y = lockstep_mbit, ymin = low, ymax = high),
      width = 0.6, fill = "#fff1cc", colour = "#7a5400", linewidth = 0.3
    ) +
    ggplot2::geom_point(
      data = points, ggplot2::aes(y = throughput_mbit, colour = class, shape = backend),
      size = 1, alpha = 0.6,
      position = ggplot2::position_jitter(width = 0.15, height = 0, seed = 1)
    ) +
    ggplot2::scale_colour_manual("Measurement", values = class_colours, drop = FALSE) +
    backend_shape_scale(points$backend) +
    mbit_log_scale() +
    facet_setups(points) +
    ggplot2::labs(
      title = title, x = "Send/receive buffer",
      caption = paste(
        "Box: mechanism throughput (one lockstep batch per 200 ms delayed-ACK tick)",
        "with the \u00b110 % band; dots: each measurement."
      )
    ) +
    theme_report()
}

# Figs 9-13: throughput of every measurement, one panel per buffer pair.
plot_series <- function(measurements, title) {
  measurements <- dplyr::mutate(measurements,
    send = buffer_factor(send_buffer), recv = buffer_factor(recv_buffer),
    class = class_factor(abnormal)
  )
  ggplot2::ggplot(measurements, ggplot2::aes(`repeat`, throughput_mbit,
    colour = class, shape = backend
  )) +
    ggplot2::geom_point(size = 0.5) +
    ggplot2::scale_colour_manual("Measurement", values = class_colours, drop = FALSE) +
    backend_shape_scale(measurements$backend) +
    mbit_log_scale() +
    ggplot2::scale_x_continuous("Measurement", breaks = scales::breaks_extended(3)) +
    ggplot2::facet_grid(
      ggplot2::vars(send), ggplot2::vars(recv),
      labeller = ggplot2::labeller(
        send = function(x) paste("send", x), recv = function(x) paste("recv", x)
      )
    ) +
    ggplot2::labs(title = title) +
    theme_report() +
    ggplot2::theme(
      strip.text = ggplot2::element_text(size = 7),
      axis.text = ggplot2::element_text(size = 6),
      panel.spacing = ggplot2::unit(0.15, "lines")
    )
}

# Fig 6: time-sequence plot of the packet trace.
plot_trace <- function(shapes, title) {
  data <- shapes$data
  acks <- shapes$acks
  plot <- ggplot2::ggplot() +
    ggplot2::geom_segment(
      data = data,
      ggplot2::aes(x = t_ms, xend = t_ms, y = from, yend = to, colour = rule),
      linewidth = 1.4, arrow = ggplot2::arrow(length = ggplot2::unit(0.08, "inches"))
    ) +
    ggplot2::geom_text(
      data = data,
      ggplot2::aes(x = t_ms, y = to, label = paste0(rule, " ", len)),
      size = 2.6, vjust = -0.4, hjust = 0.5, colour = "grey20"
    )
  if (nrow(acks) > 0) {
    plot <- plot +
      ggplot2::geom_step(
        data = acks, ggplot2::aes(t_ms, acked, linetype = "acknowledged"),
        colour = "grey25"
      ) +
      ggplot2::geom_step(
        data = acks, ggplot2::aes(t_ms, window_edge, linetype = "window edge (ack + win)"),
        colour = "grey45"
      ) +
      ggplot2::geom_point(data = acks, ggplot2::aes(t_ms, acked, shape = backend), size = 1.8) +
      ggplot2::geom_text(
        data = acks, ggplot2::aes(t_ms, acked, label = rule),
        size = 2.4, vjust = 1.6, colour = "grey35"
      )
  }
  plot +
    backend_shape_scale(c(data$backend, acks$backend)) +
    ggplot2::facet_wrap(ggplot2::vars(backend), ncol = 1, scales = "free",
      labeller = ggplot2::labeller(backend = function(x) paste("backend:", x))
    ) +
    ggplot2::scale_linetype_manual(NULL, values = c("solid", "dashed")) +
    ggplot2::scale_colour_brewer("Sender rule", palette = "Dark2") +
    ggplot2::scale_y_continuous("Sequence (octets from the first data octet)",
      labels = scales::label_comma()
    ) +
    ggplot2::labs(
      title = title, x = "Time (ms)",
      caption = paste(
        "Arrows: data segments (label: rule and length); points and solid step: ACKs",
        "(label: receiver rule);\ndashed step: right edge of the offered window.",
        "One panel per backend."
      )
    ) +
    theme_report()
}

# One buffer matrix as an HTML table. `value` and `note` are per-cell text;
# `classes` per-cell CSS classes.
matrix_html <- function(cells, value, note, classes, caption) {
  cells <- dplyr::mutate(cells,
    send = buffer_factor(send_buffer), recv = buffer_factor(recv_buffer),
    value = value, note = note, classes = classes
  )
  recvs <- levels(cells$recv)
  rows <- purrr::map_chr(levels(cells$send), function(s) {
    row <- dplyr::filter(cells, send == s)
    tds <- purrr::map_chr(recvs, function(r) {
      cell <- dplyr::filter(row, recv == r)
      if (nrow(cell) == 0) {
        return("<td class=\"missing\">\u2013</td>")
      }
      paste0(
        "<td class=\"", cell$classes[1], "\">", escape_html(cell$value[1]),
        if (nzchar(cell$note[1])) paste0("<br><span class=\"small\">", escape_html(cell$note[1]), "</span>") else "",
        "</td>"
      )
    })
    paste0("<tr><th>", escape_html(s), "</th>", paste(tds, collapse = ""), "</tr>")
  })
  paste0(
    "<table class=\"matrix\"><caption>", caption, "</caption><thead><tr><th>send \\ recv</th>",
    paste0("<th>", escape_html(recvs), "</th>", collapse = ""),
    "</tr></thead><tbody>", paste(rows, collapse = ""), "</tbody></table>"
  )
}

# Measured matrix of one setup beside the published one, captioned
# `published_caption`.
matrix_pair_html <- function(cells, matrix, setup, published_caption) {
  here <- dplyr::filter(cells, setup == !!setup)
  disagree <- !is.na(here$shaded) & here$abnormal != here$shaded
  measured <- matrix_html(
    here,
    value = fmt_num(here$mean_mbit, 3),
    note = paste0("n=", here$measurements),
    classes = paste(
      dplyr::if_else(here$abnormal, "abnormal", "normal"),
      dplyr::if_else(disagree, "disagree", "")
    ),
    caption = paste0("Measured mean (Mb/s), ", escape_html(setup))
  )
  published <- matrix_html(
    matrix,
    value = fmt_num(matrix$throughput_mbit, 4),
    note = rep("", nrow(matrix)),
    classes = dplyr::if_else(matrix$shaded, "abnormal", "normal"),
    caption = escape_html(published_caption)
  )
  paste0("<div class=\"matrix-pair\"><div>", measured, "</div><div>", published, "</div></div>")
}

# Fig 8: each traced pair as a ladder, side by side: the sender on the left,
# the receiver on the right, time running down; data segments labelled with
# the rule that sent them and their length, ACKs with the receiver's rule.
plot_ladder <- function(rows, title) {
  rows <- dplyr::mutate(rows, kind = dplyr::if_else(direction == "data", "data segment", "ACK"))
  ggplot2::ggplot(rows, ggplot2::aes(x, y, xend = xend, yend = yend, colour = rule)) +
    ggplot2::geom_vline(xintercept = c(0, 1), colour = "grey60") +
    ggplot2::geom_segment(
      ggplot2::aes(linetype = kind),
      arrow = ggplot2::arrow(length = ggplot2::unit(0.06, "inches")), linewidth = 0.5
    ) +
    ggplot2::geom_text(
      data = dplyr::filter(rows, direction == "data"),
      ggplot2::aes(x = -0.04, y = y, label = label), hjust = 1, size = 2.4, colour = "grey15"
    ) +
    ggplot2::geom_text(
      data = dplyr::filter(rows, direction == "ack"),
      ggplot2::aes(x = 1.04, y = yend, label = label), hjust = 0, size = 2.4, colour = "grey35"
    ) +
    ggplot2::scale_y_reverse("Time from the first data segment (ms)") +
    ggplot2::scale_x_continuous(
      NULL, breaks = c(0, 1), labels = c("sender", "receiver"), limits = c(-0.45, 1.35)
    ) +
    ggplot2::scale_colour_brewer("Rule", palette = "Dark2") +
    ggplot2::scale_linetype_manual(NULL, values = c("data segment" = "solid", "ACK" = "22")) +
    ggplot2::facet_wrap(ggplot2::vars(pair), nrow = 1) +
    ggplot2::labs(
      title = title,
      caption = paste(
        "Left labels: sender rule and segment length (octets); right labels: the receiver rule",
        "behind each ACK.\nTimes are those captured at the sender's interface."
      )
    ) +
    theme_report() +
    ggplot2::theme(panel.grid = ggplot2::element_blank())
}

# Sec 5: the measured Ethernet matrix, with the pair the paper names framed
# in black and a line where the send buffer reaches 3 x MSS.
plot_ethernet_matrix <- function(panels, named, fix_octets, title) {
  sends <- sort(unique(panels$send_buffer))
  below <- sum(sends < fix_octets)
  plot_matrix_heatmap(panels, title) +
    ggplot2::geom_tile(
      data = dplyr::semi_join(panels, named, by = c("send_buffer", "recv_buffer")),
      colour = "black", fill = NA, linewidth = 1.2, linetype = "22"
    ) +
    ggplot2::geom_hline(
      yintercept = length(sends) - below + 0.5, colour = "grey10", linewidth = 0.6
    ) +
    ggplot2::annotate(
      "label", x = 0.55, y = length(sends) - below + 0.5, hjust = 0, size = 2.4,
      label = paste0("below this line: send \u2265 3 \u00d7 MSS (", fix_octets, " octets)")
    ) +
    ggplot2::labs(caption = paste(
      "Colour: mean throughput (log scale). Red frame: abnormal by this report's rule.",
      "Dashed black frame: the pair Sec 5 names."
    ))
}
