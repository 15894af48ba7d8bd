# comer94 Sec 4.2 (claims K07, K08): where the time of each exchange goes in
# Fig 8's traced pairs, so that the report can show which part of a lockstep
# step the host model makes longer than the paper's throughput allows.

# Every data segment of a traced pair (the trace of read_state_pairs(): pair,
# backend, t_ms, direction, seq, len, ack) with the time from its capture to
# the first ACK that covers it, and from that ACK to the next data segment
# (NA where the trace ends first). A segment is a lockstep step when nothing
# was outstanding as it left and the next one waited for its ACK.
segment_steps <- function(trace) {
  trace |>
    dplyr::group_by(pair, backend) |>
    dplyr::arrange(t_ms, .by_group = TRUE) |>
    dplyr::group_modify(function(rows, key) {
      acks <- dplyr::filter(rows, direction == "ack")
      acked <- cummax(dplyr::coalesce(acks$ack, 0))
      data <- dplyr::filter(rows, direction == "data", len > 0)
      end <- data$seq + data$len
      ack_t <- purrr::map2_dbl(data$t_ms, end, function(t, last) {
        hit <- which(acks$t_ms >= t & acked >= last)
        if (length(hit) == 0) NA_real_ else acks$t_ms[hit[1]]
      })
      before <- findInterval(data$t_ms, acks$t_ms, left.open = TRUE)
      acked_before <- c(0, acked)[before + 1]
      next_t <- dplyr::lead(data$t_ms)
      tibble::tibble(
        t_ms = data$t_ms,
        len = data$len,
        to_ack_ms = ack_t - data$t_ms,
        ack_to_next_ms = next_t - ack_t,
        lockstep = acked_before >= data$seq & !is.na(next_t) & !is.na(ack_t) & next_t >= ack_t
      )
    }) |>
    dplyr::ungroup()
}

# Per pair and backend: the transfer's time per `block` octets (first to last
# data segment), and over its lockstep steps the median time from a segment to
# its ACK and from the ACK to the next segment.
step_summary <- function(steps, block = 8192) {
  steps |>
    dplyr::group_by(pair, backend) |>
    dplyr::arrange(t_ms, .by_group = TRUE) |>
    dplyr::summarise(
      data_segments = dplyr::n(),
      ms_per_block = block * (max(t_ms) - min(t_ms)) / (sum(len) - dplyr::last(len)),
      lockstep_steps = sum(lockstep),
      lockstep_octets = stats::median(len[lockstep]),
      to_ack_ms = stats::median(to_ack_ms[lockstep]),
      ack_to_next_ms = stats::median(ack_to_next_ms[lockstep]),
      .groups = "drop"
    ) |>
    dplyr::mutate(step_ms = to_ack_ms + ack_to_next_ms)
}

# The time the published throughput of a buffer pair allows for `block`
# octets, in ms, with the paper's megabit of `megabit_bits` bits.
published_ms_per_block <- function(table1, send_buffer, recv_buffer, megabit_bits, block = 8192) {
  rows <- dplyr::left_join(
    tibble::tibble(send_buffer = send_buffer, recv_buffer = recv_buffer),
    dplyr::select(table1, send_buffer, recv_buffer, throughput_mbit),
    by = c("send_buffer", "recv_buffer")
  )
  1e3 * block * 8 / (rows$throughput_mbit * megabit_bits)
}
