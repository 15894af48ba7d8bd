# comer94 K01 (issue 35): the rounds of a traced buffer pair, so that the report can show why
# a cell the paper leaves unshaded waits for the delayed-ACK timer in our runs.

# The rounds of one traced pair on one backend: the data octets the sender sent between two
# of the receiver's ACKs, each with the time the closing ACK reached the sender, how long
# after the round's last segment it came, the rule that sent it, and the octets the reader
# had left unread when the ACK before the round was sent (recv_buffer less its window).
# Rounds without data (two ACKs in a row) and the last, unclosed one are left out.
sender_rounds <- function(trace, recv_buffer) {
  rows <- dplyr::arrange(dplyr::filter(trace, direction == "ack" | len > 0), t_ms)
  first_data <- match("data", rows$direction)
  if (is.na(first_data)) {
    return(tibble::tibble(
      round = integer(), octets = numeric(), ack_ms = numeric(), wait_ms = numeric(),
      rule = character(), unread_before = numeric()
    ))
  }
  rows <- rows[seq(first_data, nrow(rows)), ]
  is_ack <- rows$direction == "ack"
  rows$round <- cumsum(is_ack) - is_ack
  rounds <- rows |>
    dplyr::group_by(round) |>
    dplyr::summarise(
      octets = sum(len[direction == "data"]),
      last_data_ms = if (any(direction == "data")) max(t_ms[direction == "data"]) else NA_real_,
      ack_ms = t_ms[direction == "ack"][1],
      rule = rule[direction == "ack"][1],
      unread_after = recv_buffer - win[direction == "ack"][1],
      .groups = "drop"
    ) |>
    dplyr::mutate(unread_before = dplyr::lag(unread_after, default = 0))
  rounds |>
    dplyr::filter(!is.na(ack_ms), octets > 0) |>
    dplyr::transmute(round, octets, ack_ms, wait_ms = ack_ms - last_data_ms, rule, unread_before)
}

# What the rounds show against the receiver's rules: the round whose ACK first came at least
# half a delayed-ACK tick after its last segment (a wait for the timer), the sizes of the last
# `keep` rounds before it and of the last `keep` before the transfer's final round (which
# carries only what was left), how many rounds waited, and the sizes of those that waited with
# the octets left unread before them, beside the two thresholds an ACK needs without the timer:
# R2's share of the receive buffer (whole octets, as the stack's integer test) and R1's 2 MSS.
round_summary <- function(rounds, recv_buffer, mss, r2_share_pct, tick_ms, keep = 4) {
  waited <- rounds$wait_ms >= tick_ms / 2
  first <- match(TRUE, waited)
  sizes <- function(x) and_list(fmt_num(unique(x), 6))
  before <- if (is.na(first)) rounds$octets else rounds$octets[seq_len(first - 1)]
  list(
    rounds = nrow(rounds),
    waited = sum(waited),
    first_wait_ms = if (is.na(first)) NA_real_ else rounds$ack_ms[first],
    before = sizes(utils::tail(before, keep)),
    after = sizes(utils::tail(utils::head(rounds$octets, -1), keep)),
    short = sizes(rounds$octets[waited]),
    short_with_unread = sizes(rounds$octets[waited] + rounds$unread_before[waited]),
    r2_octets = ceiling(r2_share_pct / 100 * recv_buffer),
    r1_octets = 2 * mss
  )
}

# The K01 paragraph: the traced pair's rounds (round_summary()) beside the cell's mean in
# Table 1 and the paper's, and, where rounds wait for the timer in a cell the paper leaves
# unshaded, what is missing.
k01_rounds_html <- function(summary, pair, backend, ours_mbit, published_mbit, shaded) {
  cell <- paste0(
    pair, " runs at ", fmt_num(ours_mbit), " Mb/s in Table 1 here and at ",
    fmt_num(published_mbit), " in the paper (10<sup>6</sup> bits), which ",
    if (isTRUE(shaded)) "shades the cell" else "leaves the cell unshaded"
  )
  if (summary$waited == 0) {
    return(paste0(
      "<p>", cell, ". In its traced transfer (", backend, ") no round of the sender waits for ",
      "the delayed-ACK timer: the rounds end at ", summary$after, " octets.</p>"
    ))
  }
  rounds <- paste0(
    "In its traced transfer (", backend, "), a round being the data sent between two of the ",
    "receiver's ACKs, the rounds carried ", summary$before, " octets until ",
    fmt_num(summary$first_wait_ms, 4), " ms, when a round first waited for the delayed-ACK ",
    "timer; at the end they carry ", summary$after, ". ", fmt_num(summary$waited), " of ",
    fmt_num(summary$rounds), " rounds waited for the timer, rounds of ", summary$short,
    " octets (", summary$short_with_unread, " with what the reader had left unread before ",
    "them): less than both R2's share of the receive buffer (", fmt_num(summary$r2_octets, 6),
    " octets) and R1's 2 × MSS (", fmt_num(summary$r1_octets, 6), ")."
  )
  if (isTRUE(shaded)) {
    return(paste0("<p>", cell, ". ", rounds, "</p>"))
  }
  paste0(
    "<p><b>Missing mechanism.</b> ", cell, ". ", rounds, " How the sender's two segments a ",
    "round split its buffer is set by where the timer's ticks fell in earlier rounds, and once ",
    "a round falls short every later one repeats the split, since the sender's buffer is full ",
    "whenever the timer's ACK arrives. The paper's transfers kept a split in which every round ",
    "frees enough; what held them there, or took them out of the wait, is not in the paper, ",
    "and no source of the era times the IPC's sender and reader finely enough to set it.</p>"
  )
}

# The K01 paragraphs of a traced pair (read_state_pairs()), one per backend that traced it,
# each beside the pair's cell of `setup` in Table 1's `cells`.
k01_section_html <- function(traced, cells, setup, mss, r2_share_pct, tick_ms) {
  vapply(unique(traced$stats$backend), function(b) {
    keys <- dplyr::filter(traced$stats, backend == b)[1, ]
    cell <- cells[cells$setup == setup & cells$send_buffer == keys$send_buffer &
      cells$recv_buffer == keys$recv_buffer, ]
    rounds <- sender_rounds(dplyr::filter(traced$trace, backend == b), keys$recv_buffer)
    k01_rounds_html(
      round_summary(rounds, keys$recv_buffer, mss, r2_share_pct, tick_ms),
      keys$pair, b, cell$mean_mbit[1], cell$published_si_mbit[1], cell$shaded[1]
    )
  }, character(1), USE.NAMES = FALSE)
}
