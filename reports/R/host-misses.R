# Tables for the report sections on claims the era hosts still miss (issue 35): each shows
# from the runs what the model does where the paper's hosts did otherwise, so that the report
# can name the mechanism that is missing beside the numbers that show it.

# Per group of transfers (mftp rows), the throughput and how much of the transfers' time (their
# octets at their throughput) each host's disk was busy and its process waited for it (%). A
# busy share near 100 % says the disk set the rate; b_disk_mbit is the rate the sending disk
# (host b, mftp's sender) moved the file at while busy. Transfers that counted no disk (a host
# model without one, or results from before the disk counters) are left out.
disk_share_rows <- function(transfers, by) {
  disk_columns <- c("a_disk_busy_s", "a_disk_wait_s", "b_disk_busy_s", "b_disk_wait_s")
  transfers |>
    add_missing_columns(
      stats::setNames(as.list(rep(NA_real_, length(disk_columns))), disk_columns)
    ) |>
    dplyr::filter(!is.na(a_disk_busy_s) | !is.na(b_disk_busy_s)) |>
    dplyr::mutate(transfer_s = 8 * bytes / (throughput_mbit * 1e6)) |>
    dplyr::group_by(dplyr::across(dplyr::all_of(by))) |>
    dplyr::summarise(
      transfers = dplyr::n(),
      mean_mbit = mean(throughput_mbit),
      a_busy_pct = 100 * sum(a_disk_busy_s) / sum(transfer_s),
      b_busy_pct = 100 * sum(b_disk_busy_s) / sum(transfer_s),
      a_wait_pct = 100 * sum(a_disk_wait_s) / sum(transfer_s),
      b_wait_pct = 100 * sum(b_disk_wait_s) / sum(transfer_s),
      b_disk_mbit = 8 * sum(bytes) / sum(b_disk_busy_s) / 1e6,
      .groups = "drop"
    )
}

# milliner's buffer gain per size (summarise_ipc() rows of one experiment): the small and the
# large buffer's mean throughput, the large buffer's slowest and fastest run, the gain of its
# mean and of its fastest run over the small buffer's mean (%), and how far apart (s) its
# runs of one size finished.
buffer_gain_rows <- function(sizes, experiment, small, large) {
  pick <- function(buffer_octets) {
    dplyr::filter(sizes, .data$experiment == !!experiment, buffer == buffer_octets) |>
      dplyr::select(setup, message_bytes, throughput_mbit, throughput_min, throughput_max,
        elapsed_min, elapsed_max)
  }
  dplyr::inner_join(pick(small), pick(large), by = c("setup", "message_bytes"),
    suffix = c("_small", "_large")) |>
    dplyr::transmute(
      setup, message_bytes,
      small_mbit = throughput_mbit_small,
      large_mbit = throughput_mbit_large,
      large_min_mbit = throughput_min_large,
      large_max_mbit = throughput_max_large,
      gain_pct = 100 * (large_mbit / small_mbit - 1),
      best_gain_pct = 100 * (large_max_mbit / small_mbit - 1),
      large_spread_s = elapsed_max_large - elapsed_min_large
    ) |>
    dplyr::arrange(setup, message_bytes)
}

# milliner's protocol order per size up to max_bytes in `experiments`: the mean throughput of
# each curve in `curves` (fastest first, as the claim orders them) as first_mbit, second_mbit and
# third_mbit, and the time (ms) the third curve would have to lose per segment of
# segment_bytes to fall to the second's rate (negative: it is already below).
protocol_gap_rows <- function(sizes, experiments, curves, max_bytes, segment_bytes) {
  stopifnot(length(curves) == 3)
  rows <- sizes |>
    dplyr::filter(experiment %in% experiments, curve %in% curves, message_bytes <= max_bytes) |>
    dplyr::mutate(position = c("first_mbit", "second_mbit", "third_mbit")[match(curve, curves)]) |>
    dplyr::select(setup, message_bytes, position, throughput_mbit) |>
    tidyr::pivot_wider(names_from = position, values_from = throughput_mbit)
  if (nrow(rows) == 0 || !all(c("first_mbit", "second_mbit", "third_mbit") %in% names(rows))) {
    return(tibble::tibble(
      setup = character(), message_bytes = double(), first_mbit = double(),
      second_mbit = double(), third_mbit = double(), third_extra_ms = double()
    ))
  }
  rows |>
    dplyr::filter(!is.na(first_mbit), !is.na(second_mbit), !is.na(third_mbit)) |>
    dplyr::mutate(
      third_extra_ms = segment_bytes * 8 / 1e3 * (1 / second_mbit - 1 / third_mbit)
    ) |>
    dplyr::arrange(setup, message_bytes)
}

# liu95cool's ttcp sweep (summarise_ttcp() rows): per setup and UDP cooling level, the rate the
# sender sent at, the loss, the rate the receiver took datagrams in at (sent times the share
# that arrived) and both as multiples of the same setup's TCP throughput.
ttcp_delivered_rows <- function(ttcp) {
  tcp <- dplyr::filter(ttcp, proto == "tcp") |>
    dplyr::group_by(setup) |>
    dplyr::summarise(tcp_mbit = mean(throughput_mbit), .groups = "drop")
  dplyr::filter(ttcp, proto == "udp") |>
    dplyr::inner_join(tcp, by = "setup") |>
    dplyr::transmute(
      setup, cool_iterations,
      sent_mbit = throughput_mbit, loss_pct,
      delivered_mbit = throughput_mbit * (1 - loss_pct / 100),
      tcp_mbit,
      sent_over_tcp = sent_mbit / tcp_mbit,
      delivered_over_tcp = delivered_mbit / tcp_mbit
    ) |>
    dplyr::arrange(setup, cool_iterations)
}

# Echoed UDP messages (pingx rows) per setup, experiment, mode and size from min_bytes: the
# datagrams a message sent, those that came back (mean per message) and the loss (%), with
# the sender's datagrams per datagram returned: where a fixed share gets through, the
# receiver's time per datagram over the sender's.
returned_per_message_rows <- function(echoes, experiments, min_bytes) {
  dplyr::filter(
    echoes, experiment %in% experiments, mode %in% udp_modes,
    message_bytes >= min_bytes
  ) |>
    dplyr::group_by(setup, experiment, mode, message_bytes) |>
    dplyr::summarise(
      messages = dplyr::n(),
      # Before the means, which replace the columns they summarise.
      loss_pct = pooled_loss_pct(datagrams, datagrams_returned),
      datagrams = mean(datagrams),
      returned = mean(datagrams_returned),
      .groups = "drop"
    ) |>
    dplyr::mutate(sent_per_returned = datagrams / returned) |>
    dplyr::arrange(setup, experiment, mode, message_bytes)
}

# The datagrams a message must send to lose loss_pct of them when `returned` get through.
datagrams_for_loss <- function(returned, loss_pct) {
  returned / (1 - loss_pct / 100)
}

# liu95db's Figs 17 and 18: per network (label) and buffer, the median over sizes from
# min_bytes to max_bytes of the mean TCP_NODELAY RTT, and the rate a message moved at one way
# (twice its octets over the round trip); one row per network with 32K's RTT over 16K's.
# buffers: experiment -> "16K" or "32K"; labels: experiment -> network label.
window_gain_rows <- function(echoes, buffers, labels, min_bytes, max_bytes) {
  per_buffer <- dplyr::filter(
    echoes, experiment %in% names(buffers), mode == "tcp-nodelay", !is.na(rtt_ms),
    message_bytes >= min_bytes, message_bytes <= max_bytes
  ) |>
    dplyr::mutate(buffer = unname(buffers[experiment]), network = unname(labels[experiment])) |>
    dplyr::group_by(setup, network, buffer, message_bytes) |>
    dplyr::summarise(rtt_ms = mean(rtt_ms), .groups = "drop") |>
    dplyr::mutate(mbit = 2 * 8 * message_bytes / (rtt_ms * 1e3)) |>
    dplyr::group_by(setup, network, buffer) |>
    dplyr::summarise(
      sizes = dplyr::n(), rtt_ms = stats::median(rtt_ms), mbit = stats::median(mbit),
      .groups = "drop"
    )
  small <- dplyr::filter(per_buffer, buffer == "16K")
  large <- dplyr::filter(per_buffer, buffer == "32K")
  dplyr::inner_join(small, large, by = c("setup", "network"), suffix = c("_16k", "_32k")) |>
    dplyr::transmute(
      setup, network, sizes = pmin(sizes_16k, sizes_32k),
      rtt_16k_ms = rtt_ms_16k, rtt_32k_ms = rtt_ms_32k, ratio = rtt_ms_32k / rtt_ms_16k,
      mbit_16k = mbit_16k, mbit_32k = mbit_32k
    ) |>
    dplyr::arrange(setup, network)
}

# comer94 K07: the share of a transfer's 8192-octet blocks that may be lockstep steps of
# step_ms, the rest moving at stream_ms per block, for the transfer to average published_ms
# per block.
lockstep_share_allowed <- function(published_ms, step_ms, stream_ms) {
  (published_ms - stream_ms) / (step_ms - stream_ms)
}

# comer94 K07: the lockstep share of each traced 16K/20K transfer (one row a backend, with
# our_share, step_ms, allowed_share and the paper's ms per 8192 octets of the pair and of
# 16K/16K, equal_published_ms) against the share the paper's mean would allow.
k07_share_html <- function(rows) {
  paste0(
    "<p>In ", paste0(rows$pair, " (", rows$backend, ")", collapse = " and "), " ",
    paste(fmt_num(100 * rows$our_share), collapse = " and "), " % of the segments are ",
    "lockstep steps, of ", paste(fmt_num(rows$step_ms), collapse = " and "), " ms per 8192 ",
    "octets. The paper's ", paste(unique(rows$equal_pair), collapse = " and "), " took ",
    paste(fmt_num(unique(rows$equal_published_ms)), collapse = " and "), " ms per 8192 ",
    "octets (Table 1); were the rest of a 16K/20K transfer's blocks that fast, the paper's ",
    paste(fmt_num(unique(rows$published_ms)), collapse = " and "),
    " ms per 8192 octets would allow at most ",
    paste(fmt_num(100 * rows$allowed_share), collapse = " and "),
    " % of its blocks to be steps of our length: the paper's 16K/20K transfers spent most of ",
    "their time out of state (d), ours stay in it once there.</p>"
  )
}

# comer94 K07: what the report says after the lockstep share. The paper's 16K/20K transfers
# spent most of their time out of state (d) and ours stay in it, whatever K07 reads; when K07
# passes, it passes on the two pairs' ratio, so Table 1's means of both pairs (16K/16K, then
# 16K/20K, in Mb/s of 10^6 bits) are shown beside the paper's. `verdict` is K07's.
k07_mechanism_html <- function(verdict, ours_mbit, published_mbit) {
  cause <- paste(
    "a writer that has not refilled its buffer within a round trip, because another runnable",
    "process held it off the CPU now and then. The stack models such a process (host keys",
    "<code>late_wakeup_pct</code> and <code>late_wakeup_max_ns</code>), and experiment",
    "table1-late, with a fifth of the wakeups late by up to 5 ms, shows in the sensitivity",
    "table below which verdicts it moves. The paper does not say what else ran on its IPCs",
    "during the transfers, and no source of the era gives their scheduling delays, so the",
    "delay cannot be set from sources; the IPC's training set cannot tell a short wait from",
    "none, and one fitted on the cells K07 compares would decide K07 itself."
  )
  if (!identical(verdict, "reproduced")) {
    return(paste("<p><b>Missing mechanism.</b> What took the paper's sender out of state (d):", cause, "</p>"))
  }
  paste0(
    "<p><b>K07 passes on the ratio it names.</b> Table 1's means of 16K/16K and 16K/20K are ",
    fmt_num(ours_mbit[1]), " and ", fmt_num(ours_mbit[2]), " Mb/s here, ",
    fmt_num(published_mbit[1]), " and ", fmt_num(published_mbit[2]), " in the paper ",
    "(10<sup>6</sup> bits); K07 judges their ratio, K11 the cells' rates. Still missing, what took the ",
    "paper's sender out of state (d): ", cause, "</p>"
  )
}

# A range as text, or the one value when every value is the same (range_text() otherwise).
span_text <- function(x, suffix = "") {
  x <- x[!is.na(x)]
  if (length(x) > 0 && length(unique(fmt_num(x))) == 1) {
    return(paste0(fmt_num(x[1]), suffix))
  }
  range_text(x, suffix = suffix)
}
