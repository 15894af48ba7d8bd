# comer94 Fig 8 (claims K13, K14): what the receiver's window updates offered
# in a traced pair, and which of the sender's rules sent the segment after
# each, so that the report can show which updates keep 16K/16K out of its S3
# stream.

# The class of an update offering `win` octets of a `recv_buffer`-octet
# buffer: the whole buffer (the reader's loop ended with the buffer empty),
# half of it or more (enough for S3's half of the largest window, but sent
# while part of a segment was still unread), or less than half (sent from
# tcp_input while the reader was still copying: too little for an 8K segment).
update_class <- function(win, recv_buffer) {
  dplyr::case_when(
    win >= recv_buffer ~ "the whole buffer",
    win >= recv_buffer / 2 ~ "half or more, not all",
    TRUE ~ "less than half"
  )
}

# Every ACK of a traced pair (the trace of read_state_pairs() with the pair's
# recv_buffer joined) from the first data segment on, with its class, the
# time from the newest data segment it acknowledges to its arrival at the
# sender (both at the sender's interface), and the rule of the sender's next
# data segment (NA where the trace ends first).
window_updates <- function(trace) {
  trace |>
    dplyr::group_by(pair, backend) |>
    dplyr::arrange(t_ms, .by_group = TRUE) |>
    dplyr::group_modify(function(rows, key) {
      data <- dplyr::filter(rows, direction == "data", len > 0)
      acks <- dplyr::filter(rows, direction == "ack", t_ms > min(data$t_ms), ack > min(data$seq))
      newest <- purrr::map2_dbl(acks$t_ms, acks$ack, function(t, edge) {
        hit <- which(data$t_ms <= t & data$seq + data$len <= edge)
        if (length(hit) == 0) NA_real_ else data$t_ms[max(hit)]
      })
      following <- findInterval(acks$t_ms, data$t_ms) + 1
      tibble::tibble(
        t_ms = acks$t_ms,
        win = acks$win,
        class = update_class(acks$win, acks$recv_buffer),
        since_segment_ms = acks$t_ms - newest,
        next_rule = dplyr::if_else(following <= nrow(data), data$rule[pmin(following, nrow(data))], NA_character_)
      )
    }) |>
    dplyr::ungroup()
}

# Per pair, backend and class: the updates, the median time from the newest
# segment each acknowledges to its arrival, and how many of the sender's next
# segments went by S1, S2 and S3.
update_summary <- function(updates) {
  updates |>
    dplyr::group_by(pair, backend, class) |>
    dplyr::summarise(
      updates = dplyr::n(),
      windows = paste(sort(unique(win)), collapse = ", "),
      since_segment_ms = stats::median(since_segment_ms, na.rm = TRUE),
      next_s1 = sum(next_rule == "S1", na.rm = TRUE),
      next_s2 = sum(next_rule == "S2", na.rm = TRUE),
      next_s3 = sum(next_rule == "S3", na.rm = TRUE),
      .groups = "drop"
    ) |>
    dplyr::mutate(class = factor(class, levels = c(
      "the whole buffer", "half or more, not all", "less than half"
    ))) |>
    dplyr::arrange(pair, backend, class)
}
