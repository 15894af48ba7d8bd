# liu95cool on the era hosts: why the cooled datagrams are lost, and how long the sender would
# have to take per datagram for the loss the paper saw. Everything here is computed from the
# runs (their records and their links' provenance) and from IEEE 802.3's framing.

# What one Ethernet frame adds on the wire beside its IP packet (IEEE 802.3 Sec 4.4.2):
# preamble and SFD 8 octets, header 14, FCS 4, and the 96-bit interframe gap, 12.
ether_frame_extra_octets <- 38
ip_header_octets <- 20
udp_header_octets <- 8

# The Tahoe stack's LANCE transmit ring counts one descriptor per mbuf of a frame: a header mbuf
# into which lestart pulls the first 102 octets of the frame, then each 1024-octet cluster the
# rest of the data spans (tools/tahoe/tahoe_host.c, le_tmds; SunOS 4.1.3 if_le.c, MCLBYTES).
le_pullup_octets <- 102
le_cluster_octets <- 1024
ether_header_octets <- 14

# The link each run of the experiments ran on, from its provenance: one row per experiment
# (its base id) and link. No rows without provenance.
run_links <- function(runs, suffixes = liu95cool_suffixes) {
  rows <- purrr::map(runs, function(run) {
    spec <- run$link
    if (is.null(spec) || is.null(run$experiment)) {
      return(NULL)
    }
    tibble::tibble(
      experiment = base_experiment(run$experiment, suffixes),
      run_experiment = run$experiment,
      link = as_text(spec$name), framing = as_text(spec$framing),
      mtu = number_or_na(spec$mtu), rate_bps = number_or_na(spec$rate_bps),
      queue_packets = number_or_na(spec$queue_packets),
      le_tx_tmds = host_model_number(run$host_model, "le_tx_tmds")
    )
  })
  rows <- purrr::compact(rows)
  if (length(rows) == 0) {
    return(tibble::tibble(
      experiment = character(), run_experiment = character(), link = character(),
      framing = character(), mtu = numeric(), rate_bps = numeric(), queue_packets = numeric(),
      le_tx_tmds = numeric()
    ))
  }
  dplyr::distinct(dplyr::bind_rows(rows))
}

# The loop lengths a tuned experiment tried (its runs' provenance, cooling_tune): one row per
# experiment and length with the loss on the tune's message and whether the run took it. Every
# trial tunes with the same seeds, so trials that agree give one set of rows.
cooling_tunes <- function(runs, suffixes = liu95cool_suffixes) {
  rows <- purrr::map(runs, function(run) {
    tune <- run$cooling_tune
    if (is.null(tune) || is.null(run$experiment) || length(tune$levels) == 0) {
      return(NULL)
    }
    levels <- purrr::map(tune$levels, function(level) {
      tibble::tibble(iterations = number_or_na(level$iterations), loss_pct = number_or_na(level$loss_pct))
    })
    dplyr::mutate(dplyr::bind_rows(levels),
      experiment = base_experiment(run$experiment, suffixes), run_experiment = run$experiment,
      message_bytes = number_or_na(tune$message_bytes), margin_points = number_or_na(tune$margin_points),
      taken = iterations == number_or_na(tune$iterations), .before = 1
    )
  })
  rows <- purrr::compact(rows)
  if (length(rows) == 0) {
    return(tibble::tibble(
      experiment = character(), run_experiment = character(), message_bytes = numeric(),
      margin_points = numeric(), iterations = numeric(), loss_pct = numeric(), taken = logical()
    ))
  }
  dplyr::arrange(dplyr::distinct(dplyr::bind_rows(rows)), run_experiment, iterations)
}

# cooling_tunes() as a table to read: a row per loop length, a column per experiment with the
# loss, the length taken marked.
cooling_tune_view <- function(tunes) {
  tunes |>
    dplyr::mutate(cell = paste0(fmt_num(loss_pct), ifelse(taken, " (taken)", ""))) |>
    dplyr::select(run_experiment, iterations, cell) |>
    tidyr::pivot_wider(names_from = run_experiment, values_from = cell) |>
    dplyr::arrange(iterations) |>
    dplyr::rename(`Loop (iterations)` = iterations)
}

# A number a run's host model gives `key`; NA without a host model or the key. The provenance
# keeps the model's file followed by those it extends (netrepro/hostmodel.py text()), so the
# first line that sets the key is the model's own value or the one it inherits.
host_model_number <- function(text, key) {
  if (is.null(text) || !nzchar(text)) {
    return(NA_real_)
  }
  lines <- strsplit(text, "\n", fixed = TRUE)[[1]]
  prefix <- paste0(key, ":")
  hits <- lines[startsWith(lines, prefix)]
  if (length(hits) == 0) {
    return(NA_real_)
  }
  number_or_na(trimws(sub("#.*$", "", substring(hits[1], nchar(prefix) + 1))))
}

# The LANCE transmit descriptors the fragments of one UDP datagram of `bytes` data take
# together, counted as le_tmds counts them (see le_pullup_octets).
le_datagram_tmds <- function(bytes, mtu) {
  per <- fragment_data_octets(mtu)
  frames <- udp_fragments(bytes, mtu)
  starts <- (seq_len(frames) - 1) * per
  ends <- pmin(starts + per, bytes + udp_header_octets)
  first <- seq_len(frames) == 1
  # Each fragment's data as offsets into the user's data (the UDP header sits in the first).
  data_start <- ifelse(first, 0, starts - udp_header_octets)
  data_end <- ends - udp_header_octets
  header <- ether_header_octets + ip_header_octets + ifelse(first, udp_header_octets, 0)
  pulled <- pmax(0, le_pullup_octets - header)
  from <- data_start + pulled
  clusters <- ifelse(data_end > from, (data_end - 1) %/% le_cluster_octets - from %/% le_cluster_octets + 1, 0)
  sum(1 + clusters)
}

# Frames of `bytes`-octet UDP datagrams the sender's queue holds (link: a row of run_links()):
# the LANCE transmit ring's descriptors less the one the chip is on, at the datagram's
# descriptors per fragment, where the host has the ring, which the driver fills straight from
# if_snd; the link's queue (if_snd) otherwise.
sender_queue_frames <- function(link, bytes) {
  tmds <- link$le_tx_tmds
  if (is.na(tmds) || tmds <= 0 || link$framing != "ethernet") {
    return(link$queue_packets)
  }
  ring <- (tmds - 1) * udp_fragments(bytes, link$mtu) / le_datagram_tmds(bytes, link$mtu)
  min(link$queue_packets, ring)
}

# The octets of IP payload a fragment carries at an MTU (every fragment but the last carries a
# multiple of 8).
fragment_data_octets <- function(mtu) {
  floor((mtu - ip_header_octets) / 8) * 8
}

# IP fragments of one UDP datagram of `bytes` data at an MTU.
udp_fragments <- function(bytes, mtu) {
  ceiling((bytes + udp_header_octets) / fragment_data_octets(mtu))
}

# Milliseconds one UDP datagram of `bytes` data keeps a line busy: its fragments' IP octets,
# plus on Ethernet each frame's framing and gap (IEEE 802.3; no fragment here is below the
# minimum frame); framing "none" adds nothing.
# NA for any other framing (ATM's cells are not needed here).
udp_datagram_wire_ms <- function(bytes, mtu, rate_bps, framing) {
  frames <- udp_fragments(bytes, mtu)
  extra <- dplyr::case_when(
    framing == "ethernet" ~ ether_frame_extra_octets, framing == "none" ~ 0, TRUE ~ NA_real_
  )
  octets <- bytes + udp_header_octets + frames * (ip_header_octets + extra)
  octets * 8 / rate_bps * 1000
}

# Datagrams a sender faster than the line gets through before a queue of queue_packets fills:
# each datagram puts `frames` frames in and the line takes out sender_ms / wire_ms of a
# datagram's frames meanwhile. Once the queue is full each new datagram finds room for only
# some of its fragments, so none after those comes out whole. Inf when the line keeps up.
datagrams_before_full <- function(sender_ms, wire_ms, frames, queue_packets) {
  rise <- frames * (1 - sender_ms / wire_ms)
  dplyr::if_else(rise > 0, queue_packets / rise, Inf)
}

# Pooled loss (%) of messages of `datagrams` datagrams each (one value per message) when the
# first n_whole datagrams of each come out whole and none after them (datagrams_before_full()).
fluid_pooled_loss_pct <- function(datagrams, n_whole) {
  100 * (1 - sum(pmin(datagrams, n_whole)) / sum(datagrams))
}

# The fewest whole datagrams per message for which fluid_pooled_loss_pct() is at most loss_pct.
fluid_whole_needed <- function(datagrams, loss_pct) {
  if (fluid_pooled_loss_pct(datagrams, 0) <= loss_pct) {
    return(0)
  }
  stats::uniroot(
    function(n) fluid_pooled_loss_pct(datagrams, n) - loss_pct,
    c(0, max(datagrams)), tol = 1e-9
  )$root
}

# The time per datagram a sender must take for n_whole datagrams to pass before the queue
# fills (datagrams_before_full() solved for sender_ms); 0 when even a sender with no cost
# gets them through (the queue holds them).
sender_ms_for_whole <- function(n_whole, wire_ms, frames, queue_packets) {
  pmax(0, wire_ms * (1 - queue_packets / (frames * n_whole)))
}

# Per UDP cooling level of a ttcp sweep in virtual time: the sender's measured time per
# datagram (its transfer time over its datagrams, averaged over the transfers), the line's
# time, the datagrams datagrams_before_full() predicts, and the loss measured.
cooling_send_times <- function(transfers, wire_ms, frames, queue_packets) {
  udp <- dplyr::filter(transfers, proto == "udp", !is.na(cool_iterations))
  if (nrow(udp) == 0) {
    return(tibble::tibble(
      cool_iterations = numeric(), cool_gap_us = numeric(), sender_ms = numeric(),
      wire_ms = numeric(), predicted_datagrams = numeric(), loss_pct = numeric()
    ))
  }
  udp |>
    dplyr::mutate(
      bytes = as.numeric(bytes), sent = as.numeric(datagrams_sent),
      received = as.numeric(datagrams_received),
      per_datagram_ms = bytes * 8 / (as.numeric(throughput_mbit) * 1e6) / sent * 1000
    ) |>
    dplyr::group_by(cool_iterations) |>
    dplyr::summarise(
      sender_ms = mean(per_datagram_ms),
      cool_gap_us = mean(as.numeric(cool_gap_us)),
      loss_pct = pooled_loss_pct(sum(sent), sum(received)),
      .groups = "drop"
    ) |>
    dplyr::mutate(
      wire_ms = wire_ms,
      predicted_datagrams = datagrams_before_full(sender_ms, wire_ms, frames, queue_packets)
    ) |>
    dplyr::select(cool_iterations, cool_gap_us, sender_ms, wire_ms, predicted_datagrams, loss_pct) |>
    dplyr::arrange(cool_iterations)
}

# Per UDP mode and message size of one experiment on the era hosts (Tahoe, virtual time): the
# messages, the datagrams of each, the median datagrams that came back per message, and the
# pooled loss.
cooled_returns <- function(echoes, experiment_id) {
  echoes |>
    dplyr::filter(
      stack == "tahoe", backend == "sim", experiment == experiment_id, mode %in% udp_modes
    ) |>
    dplyr::group_by(mode, message_bytes) |>
    dplyr::summarise(
      messages = dplyr::n(),
      loss_pct = pooled_loss_pct(datagrams, datagrams_returned),
      returned = stats::median(datagrams_returned),
      datagrams = stats::median(datagrams),
      .groups = "drop"
    ) |>
    dplyr::arrange(mode, message_bytes)
}

# For loss claims on the era hosts' echoes (claims: their rows of the claims file, each naming
# one UDP mode), over the claim's messages (the largest size only for a claim on the largest
# loss): the loss measured; the loss datagrams_before_full() predicts from the sender's time the
# ttcp sweep measured at the same cooling gap (times: cooling_send_times(); the uncooled sender
# at level 0); the most loss the queue allows (a sender with no cost); and the sender's time per
# datagram the published loss implies on the same wire and queue (link: a row of run_links()):
# the least time for a bound from above, the time itself otherwise, NA when even the most loss
# the queue allows stays below the published one. model_sender_ms is NA where the sweep has no
# level with the echoes' gap; a claim without echoes has no row.
cooling_budget <- function(echoes, times, link, claims, datagram_bytes) {
  frames <- udp_fragments(datagram_bytes, link$mtu)
  wire <- udp_datagram_wire_ms(datagram_bytes, link$mtu, link$rate_bps, link$framing)
  fastest <- link$queue_packets / frames
  rows <- purrr::map(seq_len(nrow(claims)), function(i) {
    claim <- claims[i, ]
    mode_id <- claim$modes
    here <- dplyr::filter(
      echoes, stack == "tahoe", backend == "sim", experiment == claim$experiments,
      mode == mode_id, message_bytes >= dplyr::coalesce(claim$size_min_bytes, 0),
      message_bytes <= dplyr::coalesce(claim$size_max_bytes, Inf)
    )
    if (nrow(here) == 0) {
      return(NULL)
    }
    if (claim$metric == "max_loss") {
      here <- dplyr::filter(here, message_bytes == max(message_bytes))
    }
    gap <- if (mode_id == "udp") 0 else stats::median(as.numeric(here$cool_gap_us))
    level <- if (gap == 0) {
      dplyr::filter(times, cool_iterations == 0)
    } else {
      dplyr::filter(times, abs(cool_gap_us - gap) < 0.5)
    }
    model_ms <- if (nrow(level) == 1) level$sender_ms else NA_real_
    whole <- datagrams_before_full(model_ms, wire, frames, link$queue_packets)
    needed <- fluid_whole_needed(here$datagrams, claim$target)
    implied <- if (claim$check != "at_most" && needed < fastest) {
      NA_real_
    } else {
      sender_ms_for_whole(needed, wire, frames, link$queue_packets)
    }
    tibble::tibble(
      claim_id = claim$claim_id, mode = mode_id, sizes = dplyr::n_distinct(here$message_bytes),
      largest_only = claim$metric == "max_loss", frames = frames,
      queue_packets = link$queue_packets, wire_ms = wire, cool_gap_us = gap,
      measured_loss_pct = pooled_loss_pct(here$datagrams, here$datagrams_returned),
      model_sender_ms = model_ms,
      predicted_loss_pct = fluid_pooled_loss_pct(here$datagrams, whole),
      most_loss_pct = fluid_pooled_loss_pct(here$datagrams, fastest),
      published_loss_pct = claim$target, implied_sender_ms = implied
    )
  })
  dplyr::bind_rows(rows)
}
