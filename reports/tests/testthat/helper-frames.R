# Hand-made per-size summaries for metric tests: one row per mode and size.
size_rows <- function(mode, bytes, rtt = NA_real_, sent = 0, back = 0,
                      q25 = rtt, q75 = rtt, experiment = "exp", setup = "s") {
  tibble::tibble(
    setup = setup, experiment = experiment, mode = mode,
    message_bytes = bytes, message_name = paste0(bytes, "B"),
    rtt_median = rtt, rtt_q25 = q25, rtt_q75 = q75,
    datagrams_sent = sent, datagrams_back = back
  ) |>
    dplyr::mutate(loss_pct = dplyr::if_else(
      datagrams_sent > 0, 100 * (1 - datagrams_back / datagrams_sent), NA_real_
    ))
}

# Hand-made per-echo rows following the results.csv contract.
echo_rows <- function(mode, bytes, rtt, datagrams = 0, returned = datagrams,
                      trial = 1, echo = seq_along(rtt), experiment = "exp") {
  tibble::tibble(
    paper = "p", experiment = experiment, mirrors = "Fig 1", link = "l",
    stack = "kernel", backend = "b", host = NA_character_, mode = mode, message_set = "sizes",
    message_name = paste0(bytes, "B"), message_bytes = bytes, trial = trial,
    echo = echo, rtt_ms = rtt, datagrams = datagrams,
    datagrams_returned = returned, complete = returned == datagrams,
    cool_gap_us = NA_real_, run_id = "r1", setup = "l / kernel / b"
  )
}

one_claim <- function(...) {
  defaults <- list(
    claim_id = "X1", figure = "Fig 9", source = "Sec 0", claim = "c",
    published = "p", experiments = "exp", metric = "max_loss", modes = "udp",
    size_min_bytes = NA_real_, size_max_bytes = NA_real_, check = "at_most",
    target = 5, tolerance = 0, partly_tolerance = 5, unit = "%",
    target_basis = "test"
  )
  tibble::as_tibble(utils::modifyList(defaults, list(...)))
}
