# SYNTHETIC data for test-verdicts-can-fail.R: for any claim, rows whose metric takes a chosen
# value, built from the claim's own experiments, modes, sizes and buffer range. One generator per
# metric (claim_data_generators); a metric without one has no way to show that its claims can fail.

# A table of reports/reference/.
verdict_reference <- function(name) {
  file.path(testthat::test_path(), "..", "..", "reference", paste0(name, ".csv"))
}

# The value a claim's metric should take: inside the band of "reproduced" (agree), or beyond the
# band of "partly" (contradict), within the metric's domain [lo, hi]; NA when the domain holds
# no such value (the claim cannot be made to fail). A contradicting value is the domain's end
# on the far side when that end is finite (a share of 0 %, a correlation of -1), so that counts
# over a few sizes or cells cannot round it back into "partly"; else a step beyond the band.
# scale is the metric's typical size, for claims whose target and tolerances are all 0.
claim_value <- function(claim, want, domain, scale) {
  lo <- domain[1]
  hi <- domain[2]
  tol <- claim$tolerance
  partly <- claim$partly_tolerance
  target <- claim$target
  inside <- function(x) !is.na(x) && is.finite(x) && x >= lo && x <= hi
  if (want == "agree") {
    step <- max(0.5 * (partly - tol), 0.1 * abs(target), 0.1 * scale)
    value <- switch(claim$check,
      at_most = max(min(target + tol - step, hi), lo),
      at_least = min(max(target - tol + step, lo), hi),
      about = target
    )
    return(if (inside(value)) value else NA_real_)
  }
  beyond <- partly + max(0.5 * partly, 0.25 * abs(target), 0.5 * scale)
  candidates <- switch(claim$check,
    at_most = c(hi, target + beyond),
    at_least = c(lo, target - beyond),
    about = c(lo, hi, target + beyond, target - beyond)
  )
  far <- function(x) {
    switch(claim$check,
      at_most = x > target + partly, at_least = x < target - partly, about = abs(x - target) > partly
    )
  }
  candidates <- candidates[purrr::map_lgl(candidates, function(x) inside(x) && far(x))]
  if (length(candidates) == 0) NA_real_ else candidates[1]
}

# The verdict a claim must read on agreeing data: "reproduced", or the label its basis gives
# (claims.R's decided_bases, "not reproducible here").
agreeing_verdict <- function(claim) {
  # Every generator below makes data of the Tahoe stack, which a basis scoped to another
  # stack does not decide.
  basis <- dplyr::coalesce(basis_for_setup(claim$target_basis, "generated / tahoe / sim"), "")
  if (startsWith(basis, "not reproducible here")) {
    return("not reproducible here")
  }
  decided <- decided_bases[startsWith(basis, decided_bases)]
  if (length(decided) == 1) decided else "reproduced"
}

contradicting_verdict <- function(claim) {
  if (startsWith(dplyr::coalesce(claim$target_basis, ""), "not reproducible here")) {
    "not reproducible here"
  } else {
    "not reproduced"
  }
}

# --- Echo experiments (liu95cool, liu95db) -----------------------------------------------------

# The link an echo experiment runs on, by its name.
echo_link <- function(experiment) {
  dplyr::case_when(
    startsWith(experiment, "atm") ~ "atm-taxi-100",
    startsWith(experiment, "wan") ~ "wan-1995",
    TRUE ~ "ethernet-10"
  )
}

# Five sizes in a claim's range (one when the range is a single size).
claim_sizes <- function(claim, n = 5) {
  lo <- dplyr::coalesce(claim$size_min_bytes, 1024)
  lo <- max(lo, 64)
  hi <- dplyr::coalesce(claim$size_max_bytes, max(lo * 8, 400000))
  if (lo == hi) lo else unique(round(seq(lo, hi, length.out = n)))
}

# One spec row per experiment, mode and size: the RTT of its echoes (ms; spread: their
# relative spread), its loss (%), its share of whole echoes (%) and the share (%) of its
# returned datagrams that came back out of order.
echo_spec <- function(experiments, modes, sizes, rtt = 10, loss = 0, complete = 100, spread = 0,
                      misordered = 0) {
  tidyr::expand_grid(experiment = experiments, mode = modes, message_bytes = sizes) |>
    dplyr::mutate(rtt = rtt, loss = loss, complete = complete, spread = spread, misordered = misordered)
}

# Echo rows (results.csv's contract) of a spec: 50 echoes a row, 400 datagrams an echo for the
# UDP modes; a loss loses whole echoes first.
echo_data <- function(spec, echoes = 50, datagrams = 400) {
  purrr::map(seq_len(nrow(spec)), function(i) {
    row <- spec[i, ]
    udp <- startsWith(row$mode, "udp")
    per_echo <- if (udp) datagrams else 0
    sent <- echoes * per_echo
    lost <- round(sent * row$loss / 100)
    returned <- rep(per_echo, echoes)
    if (udp) {
      whole_lost <- lost %/% per_echo
      returned[seq_len(whole_lost)] <- 0
      if (lost %% per_echo > 0) returned[whole_lost + 1] <- per_echo - lost %% per_echo
    }
    complete <- returned == per_echo
    if (!udp) {
      complete <- seq_len(echoes) <= round(echoes * row$complete / 100)
    } else if (row$complete < 100) {
      complete <- complete & seq_len(echoes) > echoes - round(echoes * row$complete / 100)
      returned[!complete] <- pmin(returned[!complete], per_echo - 1)
    }
    rtt <- row$rtt * (1 + row$spread * seq(-1, 1, length.out = echoes))
    link <- echo_link(row$experiment)
    tibble::tibble(
      paper = "synthetic", experiment = row$experiment, mirrors = "Fig 0", link = link,
      stack = "tahoe", backend = "sim", host = "sparcstation-ipc", send_buffer = 16384,
      recv_buffer = 16384, mode = row$mode, message_set = "sizes",
      message_name = paste0(row$message_bytes, "B"), message_bytes = row$message_bytes,
      trial = 1, echo = seq_len(echoes), rtt_ms = dplyr::if_else(complete, rtt, NA_real_),
      datagrams = per_echo, datagrams_returned = returned,
      datagrams_misordered = round(returned * row$misordered / 100), complete = complete,
      cool_gap_us = NA_real_, run_id = "synthetic-run"
    )
  }) |>
    dplyr::bind_rows()
}

claim_modes <- function(claim) split_list(claim$modes)

claim_experiments <- function(claim) split_list(claim$experiments)

# Echoes where mode a's RTT at each size is rtt_a(size index) and mode b's rtt_b.
two_mode_echoes <- function(claim, rtt_a, rtt_b, sizes = claim_sizes(claim)) {
  modes <- claim_modes(claim)
  experiment <- claim_experiments(claim)[1]
  spec <- dplyr::bind_rows(
    echo_spec(experiment, modes[1], sizes) |> dplyr::mutate(rtt = rtt_a(seq_along(sizes))),
    echo_spec(experiment, modes[2], sizes) |> dplyr::mutate(rtt = rtt_b(seq_along(sizes)))
  )
  list(echoes = echo_data(spec))
}

# Losses per mode (a named list of % per size index) in the claim's first experiment, or all
# its experiments.
loss_echoes <- function(claim, loss_of_mode, experiments = claim_experiments(claim)[1],
                        sizes = claim_sizes(claim)) {
  spec <- purrr::imap(loss_of_mode, function(loss, mode) {
    echo_spec(experiments, mode, sizes) |>
      dplyr::group_by(experiment) |>
      dplyr::mutate(loss = loss(seq_along(sizes))) |>
      dplyr::ungroup()
  }) |>
    dplyr::bind_rows()
  list(echoes = echo_data(spec))
}

# Every listed mode at the same loss v at every size.
uniform_loss <- function(claim, v) {
  loss_echoes(claim, stats::setNames(
    rep(list(function(i) rep(v, length(i))), length(claim_modes(claim))), claim_modes(claim)
  ))
}

# k of the sizes (the first ones) satisfy `good`, the rest not.
first_k <- function(n, v) seq_len(n) <= round(v / 100 * n)

# The make() of a metric that compares the claim's two experiments in its first mode: echo_spec's
# `column` (rtt or loss) at base in the second experiment and v times that in the first.
experiment_ratio_echoes <- function(column, base) {
  function(claim, v) {
    at <- function(experiment, value) {
      spec <- echo_spec(experiment, claim_modes(claim)[1], claim_sizes(claim))
      spec[[column]] <- value
      spec
    }
    experiments <- claim_experiments(claim)
    list(echoes = echo_data(dplyr::bind_rows(at(experiments[1], base * v), at(experiments[2], base))))
  }
}

# The first mode's RTT v % above the second's at every size.
rtt_diff_echoes <- function(claim, v) {
  two_mode_echoes(claim, function(i) rep(10 * (1 + v / 100), length(i)), function(i) rep(10, length(i)))
}

# Sizes around the formula's boundaries on the network of an experiment, with each size's
# predicted class.
boundary_sizes <- function(experiment, formula) {
  link <- echo_link(experiment)
  sizes <- if (startsWith(link, "atm")) {
    c(16384, 16385, 24575, 24576, 28672, 28673)
  } else {
    c(5556, 5557, 7015, 7016, 8476, 8477)
  }
  tibble::tibble(
    message_bytes = sizes,
    predicted = formula_class(sizes, link_network(link, formula), formula)
  )
}

verdict_formula <- function() read_formula(verdict_reference("liu95db-formula"))

verdict_table1 <- function() read_table1(verdict_reference("liu95db-table1"))

# Table 2's classes of the claim's network: every class whose experiments the claim names.
table2_classes <- function(claim, table2) {
  named <- purrr::map_lgl(table2$experiments, function(e) {
    length(intersect(split_list(e), claim_experiments(claim))) > 0
  })
  table2[named, ]
}

# Per size class, the echoes that make our rule (derive_recommendations()) recommend `protocol`.
recommending <- function(experiment, sizes, protocol) {
  udp <- if (protocol == "UDP/TCP") 0 else 50
  cooled <- if (protocol == "TCP") 50 else 0
  dplyr::bind_rows(
    echo_spec(experiment, "udp", sizes, loss = udp, rtt = 4),
    echo_spec(experiment, "udp-cooled", sizes, loss = cooled, rtt = 5),
    echo_spec(experiment, "tcp", sizes, rtt = 10)
  )
}

# Each generator: the metric's domain and typical size, and make(claim, v), the data (a list of
# the paper's tables) on which the metric takes about v.
echo_generators <- list(
  max_loss = list(domain = c(0, 100), scale = 10, make = uniform_loss),
  pooled_loss = list(domain = c(0, 100), scale = 10, make = uniform_loss),
  min_pooled_loss = list(domain = c(0, 100), scale = 10, make = uniform_loss),
  loss_diff = list(domain = c(-100, 100), scale = 10, make = function(claim, v) {
    modes <- claim_modes(claim)
    loss_echoes(claim, stats::setNames(list(
      function(i) rep(50 + v / 2, length(i)), function(i) rep(50 - v / 2, length(i))
    ), modes[1:2]), experiments = claim_experiments(claim))
  }),
  complete_share = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    spec <- echo_spec(claim_experiments(claim)[1], claim_modes(claim), claim_sizes(claim), complete = v)
    list(echoes = echo_data(spec))
  }),
  loss_trend = list(domain = c(-1, 1), scale = 1, make = function(claim, v) {
    shape <- function(i) if (v >= 0) 10 * i else 60 - 10 * i
    loss_echoes(claim, stats::setNames(rep(list(shape), length(claim_modes(claim))), claim_modes(claim)))
  }),
  experiment_loss_ratio = list(domain = c(0, 5), scale = 1, make = experiment_ratio_echoes("loss", 20)),
  rtt_rel_diff_median = list(domain = c(-90, Inf), scale = 10, make = rtt_diff_echoes),
  rtt_abs_rel_diff_median = list(domain = c(0, Inf), scale = 10, make = rtt_diff_echoes),
  rtt_abs_rel_diff_max = list(domain = c(0, Inf), scale = 10, make = rtt_diff_echoes),
  share_faster = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    two_mode_echoes(
      claim, function(i) dplyr::if_else(first_k(length(i), v), 8, 12), function(i) rep(10, length(i))
    )
  }),
  gap_trend = list(domain = c(-1, 1), scale = 1, make = function(claim, v) {
    two_mode_echoes(claim, function(i) rep(10, length(i)), function(i) if (v >= 0) 10 + i else 20 - i)
  }),
  rtt_linearity = list(domain = c(0, 1), scale = 1, make = function(claim, v) {
    sizes <- claim_sizes(claim)
    shape <- if (v >= 0.5) 1 + sizes / 1000 else 10 + 10 * (seq_along(sizes) %% 2)
    spec <- echo_spec(claim_experiments(claim)[1], claim_modes(claim)[1], sizes) |>
      dplyr::mutate(rtt = shape)
    list(echoes = echo_data(spec))
  }),
  dispersion_ratio = list(domain = c(0, Inf), scale = 1, make = function(claim, v) {
    modes <- claim_modes(claim)
    experiment <- claim_experiments(claim)[1]
    sizes <- claim_sizes(claim)
    spec <- dplyr::bind_rows(
      echo_spec(experiment, modes[1], sizes, spread = 0.2 * v),
      echo_spec(experiment, modes[2], sizes, spread = 0.2)
    )
    list(echoes = echo_data(spec))
  }),
  table2_agreement = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    classes <- table2_classes(claim, read_table2(verdict_reference("liu95cool-table2")))
    agree <- first_k(nrow(classes), v)
    spec <- purrr::map(seq_len(nrow(classes)), function(i) {
      class <- classes[i, ]
      lo <- dplyr::coalesce(class$size_min_bytes, 1024)
      sizes <- c(lo, dplyr::coalesce(class$size_max_bytes, lo * 4))
      other <- if (class$recommended == "UDP/TCP") "TCP" else "UDP/TCP"
      protocol <- if (agree[i]) class$recommended else other
      recommending(claim_experiments(claim)[1], sizes, protocol)
    })
    list(echoes = echo_data(dplyr::bind_rows(spec)))
  }),
  rtt_mean = list(domain = c(1, Inf), scale = 10, make = function(claim, v) {
    spec <- echo_spec(claim_experiments(claim)[1], claim_modes(claim)[1], claim_sizes(claim), rtt = v)
    list(echoes = echo_data(spec))
  }),
  experiment_rtt_ratio_max = list(domain = c(0.01, Inf), scale = 1, make = experiment_ratio_echoes("rtt", 10)),
  experiment_rtt_ratio_median = list(domain = c(0.01, Inf), scale = 1, make = experiment_ratio_echoes("rtt", 10)),
  rtt_ratio_first_last = list(domain = c(0.01, Inf), scale = 1, make = function(claim, v) {
    sizes <- c(claim$size_min_bytes, claim$size_max_bytes)
    spec <- echo_spec(claim_experiments(claim)[1], claim_modes(claim)[1], sizes) |>
      dplyr::mutate(rtt = c(10 * v, 10))
    list(echoes = echo_data(spec))
  }),
  sawtooth_step = list(domain = c(-20, 20), scale = 10, make = function(claim, v) {
    spec <- echo_spec(claim_experiments(claim)[1], claim_modes(claim)[1], claim_sizes(claim), rtt = 500)
    echoes <- echo_data(spec, echoes = 20)
    list(echoes = dplyr::mutate(echoes, rtt_ms = 500 + v * (echo - 1)))
  }),
  size_class_agreement = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    experiment <- claim_experiments(claim)[1]
    sizes <- boundary_sizes(experiment, verdict_formula())
    slow <- (sizes$predicted == "abnormal") == (v >= 50)
    spec <- echo_spec(experiment, claim_modes(claim)[1], sizes$message_bytes) |>
      dplyr::mutate(rtt = dplyr::if_else(slow, 200, 10))
    list(echoes = echo_data(spec))
  }),
  table1_size_agreement = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    files <- verdict_table1()$size_bytes
    sizes <- c(files[first_k(length(files), v)], 3)
    spec <- echo_spec(claim_experiments(claim)[1], claim_modes(claim)[1], sizes)
    list(echoes = echo_data(spec))
  }),
  misorder_trend = list(domain = c(-1, 1), scale = 1, make = function(claim, v) {
    sizes <- claim_sizes(claim)
    spec <- echo_spec(claim_experiments(claim)[1], claim_modes(claim)[1], sizes) |>
      dplyr::mutate(misordered = if (v >= 0) 10 * seq_along(sizes) else 60 - 10 * seq_along(sizes))
    list(echoes = echo_data(spec))
  }),
  # A run's RTTs spread evenly over 2 x spread x rtt; its 10th to 90th percentile over 0.8 of that.
  rtt_swing_ms = list(domain = c(0, Inf), scale = 50, make = function(claim, v) {
    rtt <- 400
    spec <- echo_spec(claim_experiments(claim)[1], claim_modes(claim)[1], claim_sizes(claim),
      rtt = rtt, spread = v / (1.6 * rtt))
    list(echoes = echo_data(spec))
  }),
  rtt_trend = list(domain = c(-1, 1), scale = 1, make = function(claim, v) {
    sizes <- claim_sizes(claim)
    spec <- echo_spec(claim_experiments(claim)[1], claim_modes(claim)[1], sizes) |>
      dplyr::mutate(rtt = if (v >= 0) 10 * seq_along(sizes) else 60 - 10 * seq_along(sizes))
    list(echoes = echo_data(spec))
  }),
  # The NASA files in the claim's range: the formula's abnormal ones, the first share v at one
  # RTT and the rest each four times the one before (none near the median); normal ones fast.
  abnormal_rtt_constancy = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    experiment <- claim_experiments(claim)[1]
    formula <- verdict_formula()
    sizes <- verdict_table1()$size_bytes
    sizes <- sizes[sizes >= dplyr::coalesce(claim$size_min_bytes, 0) &
      sizes <= dplyr::coalesce(claim$size_max_bytes, Inf)]
    abnormal <- formula_class(sizes, link_network(echo_link(experiment), formula), formula) == "abnormal"
    same <- first_k(sum(abnormal), v)
    times <- rep(10, length(sizes))
    times[abnormal] <- dplyr::if_else(same, 200, 200 * 4^seq_len(sum(abnormal)))
    spec <- echo_spec(experiment, claim_modes(claim)[1], sizes) |> dplyr::mutate(rtt = times)
    list(echoes = echo_data(spec))
  }),
  abnormal_slower_share = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    experiment <- claim_experiments(claim)[1]
    formula <- verdict_formula()
    sizes <- verdict_table1()$size_bytes
    abnormal <- formula_class(sizes, link_network(echo_link(experiment), formula), formula) == "abnormal"
    slow <- abnormal & first_k(length(sizes), v)
    spec <- echo_spec(experiment, claim_modes(claim)[1], sizes) |>
      dplyr::mutate(rtt = dplyr::if_else(abnormal, dplyr::if_else(slow, 400, 1), 10 + message_bytes / 1e5))
    list(echoes = echo_data(spec))
  })
)

# ttcp transfers (liu95cool Fig 15): per cooling level the UDP loss (%) and throughput, and TCP's.
ttcp_data <- function(claim, levels, loss, throughput, tcp = 10, link_drops_pct = 0) {
  udp <- tibble::tibble(
    proto = "udp", cool_iterations = levels, throughput_mbit = throughput,
    datagrams_sent = 1000, datagrams_received = 1000 - round(10 * loss)
  )
  tcp_rows <- tibble::tibble(
    proto = "tcp", cool_iterations = NA_real_, throughput_mbit = tcp,
    datagrams_sent = 0, datagrams_received = 0
  )
  rows <- dplyr::bind_rows(udp, udp, tcp_rows, tcp_rows) |>
    dplyr::mutate(
      experiment = claim_experiments(claim)[1], link = "atm-oc3-155", stack = "tahoe",
      backend = "sim", host = "sparcstation-ipx-solaris23", `repeat` = seq_along(proto),
      bytes = 4194304, run_id = "synthetic-run",
      link_drops = round(link_drops_pct / 100 * (datagrams_sent - datagrams_received)),
      link_cells_lost = 0, receiver_fullsock = datagrams_sent - datagrams_received - link_drops,
      receiver_ipq_drops = 0
    )
  list(ttcp_transfers = add_setup(rows))
}

ttcp_levels <- c(0, 100, 200, 500, 1000)

ttcp_generators <- list(
  ttcp_loss_trend = list(domain = c(-1, 1), scale = 1, make = function(claim, v) {
    loss <- if (v < 0) c(50, 40, 30, 20, 10) else c(10, 20, 30, 40, 50)
    ttcp_data(claim, ttcp_levels, loss, rep(20, 5))
  }),
  ttcp_throughput_trend = list(domain = c(-1, 1), scale = 1, make = function(claim, v) {
    throughput <- if (v < 0) c(50, 40, 30, 20, 10) else c(10, 20, 30, 40, 50)
    ttcp_data(claim, ttcp_levels, rep(20, 5), throughput)
  }),
  ttcp_link_loss_share = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    ttcp_data(claim, ttcp_levels, rep(20, 5), rep(20, 5), link_drops_pct = v)
  }),
  ttcp_ratio_at_acceptable = list(domain = c(0.01, 10), scale = 1, make = function(claim, v) {
    ttcp_data(claim, ttcp_levels, c(50, 5, 4, 3, 2), c(90, 10 * v, 8, 6, 4), tcp = 10)
  })
)

# --- Buffer matrices (comer94, liu95db Table 3) ------------------------------------------------

# Transfers (3 per cell, the same throughput) of a matrix of cells (send_buffer, recv_buffer,
# mbit) on one setup.
matrix_transfers <- function(cells, experiment, nodelay = FALSE, link = "atm-taxi-100") {
  tidyr::expand_grid(cells, `repeat` = 1:3) |>
    dplyr::transmute(
      paper = "synthetic", experiment = experiment, mirrors = NA_character_, link = link,
      stack = "tahoe", backend = "sim", host = "sparcstation-ipc", send_buffer, recv_buffer,
      `repeat`, bytes = 4194304, throughput_mbit = mbit, receiver_throughput_mbit = mbit,
      nodelay = nodelay, run_id = "synthetic-run",
      setup = setup_label(link, stack, backend, host)
    )
}

# A published matrix as measured cells: the published values in 10^6-bit megabits.
published_cells <- function(matrix) {
  dplyr::transmute(matrix, send_buffer, recv_buffer, mbit = throughput_mbit * 1.048576, shaded)
}

# TRUE for the cells in a claim's buffer range.
in_claim_range <- function(cells, claim) {
  bound <- function(x, default) dplyr::coalesce(x, default)
  cells$send_buffer >= bound(claim$send_min_bytes, -Inf) &
    cells$send_buffer <= bound(claim$send_max_bytes, Inf) &
    cells$recv_buffer >= bound(claim$recv_min_bytes, -Inf) &
    cells$recv_buffer <= bound(claim$recv_max_bytes, Inf)
}

# The cell metrics' edits of a matrix (cells: send_buffer, recv_buffer, mbit, shaded and, for
# lockstep claims, lockstep_mbit) so that the metric over the claim's range takes v.
cell_edits <- list(
  shading_agreement = list(domain = c(0, 100), scale = 10, edit = function(cells, claim, v) {
    flip <- first_k(nrow(cells), v) == FALSE
    level <- stats::median(cells$mbit)
    cells$mbit[flip & cells$shaded] <- level
    # As share_normal: at most half the matrix abnormal.
    room <- floor((nrow(cells) - 1) / 2) - sum(cells$shaded & !flip)
    to_abnormal <- which(flip & !cells$shaded)
    cells$mbit[utils::head(to_abnormal, max(room, 0))] <- level / 100
    cells
  }),
  share_abnormal = list(domain = c(0, 100), scale = 10, edit = function(cells, claim, v) {
    range <- which(in_claim_range(cells, claim))
    abnormal <- first_k(length(range), v)
    cells$mbit[range] <- dplyr::if_else(abnormal, 0.05, 15)
    cells
  }),
  # The class rule is relative to the matrix's median cell, so no more than half the matrix is
  # made abnormal: a share of 0 % over most of the matrix would move the median itself.
  share_normal = list(domain = c(0, 100), scale = 10, edit = function(cells, claim, v) {
    range <- which(in_claim_range(cells, claim))
    room <- floor((nrow(cells) - 1) / 2) - sum(cells$shaded[-range])
    abnormal <- min(length(range) - round(v / 100 * length(range)), room)
    cells$mbit[range] <- dplyr::if_else(seq_along(range) <= abnormal, 0.05, 15)
    cells
  }),
  unnamed_agreement = list(domain = c(0, 100), scale = 10, edit = function(cells, claim, v) {
    unnamed <- which(!cells$shaded)
    room <- floor((nrow(cells) - 1) / 2) - sum(cells$shaded)
    abnormal <- min(length(unnamed) - round(v / 100 * length(unnamed)), room)
    cells$mbit[unnamed] <- dplyr::if_else(seq_along(unnamed) <= abnormal, 0.05, 15)
    cells
  }),
  row_change = list(domain = c(-99, Inf), scale = 10, edit = function(cells, claim, v) {
    range <- in_claim_range(cells, claim)
    cells$mbit[range] <- 15
    last <- range & cells$recv_buffer == max(cells$recv_buffer[range])
    cells$mbit[last] <- 15 * (1 + v / 100)
    cells
  }),
  diagonal_change = list(domain = c(-99, Inf), scale = 10, edit = function(cells, claim, v) {
    diagonal <- in_claim_range(cells, claim) & cells$send_buffer == cells$recv_buffer
    cells$mbit[diagonal] <- 15
    last <- diagonal & cells$send_buffer == max(cells$send_buffer[diagonal])
    cells$mbit[last] <- 15 * (1 + v / 100)
    cells
  }),
  lockstep_deviation = list(domain = c(-99, Inf), scale = 10, edit = function(cells, claim, v) {
    lockstep <- in_claim_range(cells, claim) & !is.na(cells$lockstep_mbit)
    cells$mbit[lockstep] <- cells$lockstep_mbit[lockstep] * (1 + v / 100)
    cells
  }),
  normal_rel_error = list(domain = c(0, 90), scale = 10, edit = function(cells, claim, v) {
    cells$mbit[!cells$shaded] <- cells$mbit[!cells$shaded] * (1 + v / 100)
    cells
  }),
  normal_trend = list(domain = c(-1, 1), scale = 1, edit = function(cells, claim, v) {
    total <- rank(cells$send_buffer + cells$recv_buffer)
    normal <- !cells$shaded
    cells$mbit[normal] <- 10 + 10 * (if (v >= 0) total[normal] else max(total) - total[normal]) / max(total)
    cells
  }),
  normal_change_vs_baseline = list(domain = c(-90, Inf), scale = 10, edit = function(cells, claim, v) {
    normal <- !cells$shaded & !cells$baseline_shaded
    cells$mbit[normal] <- cells$baseline_mbit[normal] * (1 + v / 100)
    cells
  })
)

# The published side of a matrix claim: comer94's Table 1 or liu95db's Table 3 with its lockstep
# cells and the paper's megabit (matrix_published()).
verdict_published <- function(paper) {
  table <- if (paper == "comer94") "comer94-table1" else "liu95db-table3"
  matrix <- read_matrix_reference(verdict_reference(table))
  lockstep <- read_lockstep_reference(verdict_reference(paste0(paper, "-lockstep")))
  matrix_published(matrix, lockstep, 2^20, 200)
}

# Table 1 (comer94) or Table 3 with comer94's Table 1 as its baseline (liu95db), edited by the
# claim's metric to take v: the transfers and the cells the claims are judged on.
matrix_claim_data <- function(paper, claim, v) {
  published <- verdict_published(paper)
  cells <- published_cells(published$matrix)
  lockstep <- join_reference(
    dplyr::mutate(cells, setup = "s"), published$matrix, published$lockstep, 2^20, 200
  )$lockstep_mbit
  cells$lockstep_mbit <- lockstep
  baseline <- published_cells(read_matrix_reference(verdict_reference("comer94-table1")))
  same <- match(paste(cells$send_buffer, cells$recv_buffer), paste(baseline$send_buffer, baseline$recv_buffer))
  cells$baseline_mbit <- baseline$mbit[same]
  cells$baseline_shaded <- baseline$shaded[same]
  cells <- cell_edits[[claim$metric]]$edit(cells, claim, v)
  experiment <- claim_experiments(claim)[1]
  transfers <- matrix_transfers(cells, experiment, nodelay = paper == "liu95db")
  list(transfers = transfers, baseline = matrix_transfers(baseline, "table1"), published = published)
}

# Sec 5's Ethernet matrix (comer94 K17 to K19): a grid of buffers around the claims' range.
ethernet_claim_data <- function(claim, v) {
  buffers <- c(2048, 3072, 4096, 4380, 5120, 6144, 8192)
  cells <- tidyr::expand_grid(send_buffer = buffers, recv_buffer = buffers) |>
    dplyr::mutate(mbit = 8, shaded = FALSE, lockstep_mbit = NA_real_)
  cells <- cell_edits[[claim$metric]]$edit(cells, claim, v)
  list(ethernet_transfers = matrix_transfers(cells, "ethernet", link = "ethernet-10"))
}

# Table 1 as published, its transfers carrying the stack's segment counts: 100 new data
# segments a cell, v % of them behind another in the claim's range and half elsewhere.
behind_claim_data <- function(claim, v) {
  published <- verdict_published("comer94")
  transfers <- matrix_transfers(published_cells(published$matrix), "table1")
  transfers$pair_data_segments <- 100
  transfers$pair_segments_behind <- dplyr::if_else(in_claim_range(transfers, claim), v, 50)
  list(transfers = transfers, published = published)
}

# comer94's traced pairs (Fig 8) and ftp transfers (Sec 1): the tables their metrics read.
state_pair_stats <- function(claim, column, v) {
  stats <- tibble::tibble(
    backend = "sim", setup = "atm-taxi-100/tahoe/sim/sparcstation-ipc", host = "sparcstation-ipc",
    send_buffer = 16384, recv_buffer = c(16384, 20480), pair = c("16K/16K", "16K/20K"),
    s3_octet_share = 50
  )
  stats[[column]][in_claim_range(stats, claim)] <- v
  list(state_pairs = list(stats = stats))
}

# Table 1's transfers (3 per cell) with the share v of those in the claim's range made `yes`
# and the rest `no`: a throughput function of the cells' lockstep rates (the rest of the matrix
# as published).
transfer_claim_data <- function(claim, v, yes, no) {
  published <- verdict_published("comer94")
  cells <- published_cells(published$matrix)
  cells$lockstep_mbit <- join_reference(
    dplyr::mutate(cells, setup = "s"), published$matrix, published$lockstep, 2^20, 200
  )$lockstep_mbit
  transfers <- matrix_transfers(cells, claim_experiments(claim)[1])
  lockstep <- cells$lockstep_mbit[match(
    paste(transfers$send_buffer, transfers$recv_buffer), paste(cells$send_buffer, cells$recv_buffer)
  )]
  range <- which(in_claim_range(transfers, claim))
  chosen <- first_k(length(range), v)
  transfers$throughput_mbit[range] <- dplyr::if_else(chosen, yes(lockstep[range]), no(lockstep[range]))
  list(transfers = transfers, published = published)
}

streaming_mbit <- function(lockstep) rep(15, length(lockstep))
locked_mbit <- function(lockstep) rep(0.05, length(lockstep))

# A 16K/24K trace (trace.csv's columns): three opening segments (the first `opening` of them as
# Fig 5 has them, the rest 1024 octets), the 7236-octet entry, then `cycles` 8K batches of which
# the first `following` leave one tick apart after an ACK of everything, the rest 5 ms after the
# one before without one, and a 4096-octet tail.
circular_trace <- function(opening = 3, cycles = 20, following = cycles) {
  published <- read_circular_wait_reference(verdict_reference("comer94-circular-wait"))
  lens <- published$len_octets
  first <- lens[1:3]
  first[seq_len(3) > opening] <- 1024
  len <- c(first, lens[4], rep(lens[5], cycles), 4096)
  rule <- c(published$rule[1:3], "S2", rep("S2", cycles), "fin")
  waited <- c(TRUE, TRUE, TRUE, TRUE, seq_len(cycles) <= following, FALSE)
  gap <- c(4, 4, 6, 62, dplyr::if_else(seq_len(cycles) <= following, 200, 5), 2)
  t_ms <- cumsum(gap)
  start <- 1 + cumsum(c(0, utils::head(len, -1)))
  data <- tibble::tibble(t_ms = t_ms, direction = "data", seq = start, len = len, ack = 0, win = 16384, rule = rule)
  acks <- tibble::tibble(
    t_ms = t_ms[waited] - 1, direction = "ack", seq = 0, len = 0, ack = start[waited], win = 24576,
    rule = "acknow"
  )
  dplyr::bind_rows(data, acks) |>
    dplyr::arrange(t_ms) |>
    dplyr::mutate(backend = "sim")
}

# circular_wait_stats() of a circular_trace(), keyed as the report keys the 16K/24K pair.
circular_data <- function(trace) {
  segments <- trace_segments(trace) |>
    dplyr::mutate(
      setup = "atm-taxi-100/tahoe/sim/sparcstation-ipc", host = "sparcstation-ipc",
      send_buffer = 16384, recv_buffer = 24576, pair = "16K/24K"
    )
  published <- read_circular_wait_reference(verdict_reference("comer94-circular-wait"))
  list(circular_wait = circular_wait_stats(segments, published, 200))
}

comer94_other_generators <- list(
  transfer_abnormal_share = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    transfer_claim_data(claim, v, locked_mbit, streaming_mbit)
  }),
  transfer_normal_share = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    transfer_claim_data(claim, v, streaming_mbit, locked_mbit)
  }),
  # At the mechanism's rate, or half as fast again (still abnormal, off the rate).
  transfer_lockstep_share = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    transfer_claim_data(claim, v, function(l) l, function(l) 1.5 * l)
  }),
  opening_match = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    circular_data(circular_trace(opening = round(3 * v / 100)))
  }),
  circular_wait_share = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    circular_data(circular_trace(cycles = 20, following = round(20 * v / 100)))
  }),
  s3_octet_share = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    state_pair_stats(claim, "s3_octet_share", v)
  }),
  behind_share = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    behind_claim_data(claim, v)
  }),
  atm_over_ethernet = list(domain = c(1, 1000), scale = 10, make = function(claim, v) {
    cells <- tibble::tibble(
      setup = "ftp: tahoe / sim / sparcstation-ipc", host = "sparcstation-ipc",
      link = c("atm-taxi-100", "ethernet-10"), window = 16384, transfers = 3,
      mean_mbit = c(v / 100, 1), send_buffer = 16384, recv_buffer = 16384
    )
    list(ftp_cells = cells)
  })
)

# --- ishikura's mftp sweeps ---------------------------------------------------------------------

# mftp transfers (3 per point, the same throughput) of points (experiment, connections, window,
# added_rtt_ms, cell_loss_ratio, bit_error_ratio, mbit and any recovery columns).
mftp_transfers <- function(points) {
  defaults <- list(
    window = 24576, added_rtt_ms = 200, cell_loss_ratio = 0, bit_error_ratio = 0,
    recoveries = NA_real_, recoveries_cut = NA_real_, recoveries_unfinished = NA_real_,
    recovery_s = NA_real_, recovery_rtts = NA_real_, recovery_formula_rtts = NA_real_,
    base_rtt_ms = NA_real_
  )
  for (name in names(defaults)) {
    given <- if (name %in% names(points)) points[[name]] else NA
    points[[name]] <- dplyr::coalesce(given, defaults[[name]])
  }
  tidyr::expand_grid(points, run = 1:3) |>
    dplyr::mutate(
      link = "atm-wan", stack = "tahoe", backend = "sim", host = "sparcstation-20",
      setup = setup_label(link, stack, backend, host), throughput_mbit = mbit,
      elapsed_s = 10, bytes = 1e7, retransmitted_packets = 0, retransmit_timeouts = 0,
      run_id = paste(experiment, connections, window, added_rtt_ms, cell_loss_ratio, bit_error_ratio, run)
    ) |>
    dplyr::select(-mbit, -run)
}

mftp_points <- function(experiment, ...) tibble::tibble(experiment = experiment, ...)

verdict_mftp_ref <- function() {
  list(
    table1 = readr::read_csv(verdict_reference("ishikura-table1"), col_types = "ccddcc"),
    table2 = readr::read_csv(verdict_reference("ishikura-table2"), col_types = "dcd"),
    constants = read_constants(verdict_reference("ishikura-constants"))
  )
}

mftp_connections <- c(1, 2, 4, 8, 12, 16)

# Table 2's columns: the total window in Kbytes.
table2_totals <- c(64, 128, 256, 384, 512)

# Table 2's transfers at 762 kb/s, but for one side's (multi: n connections of 64K, single: one
# of n x 64K) points, at kbps, one a column.
table2_data <- function(side, kbps) {
  flat <- rep(762, length(table2_totals))
  multi <- if (side == "multi") kbps else flat
  single <- if (side == "single") kbps else flat
  points <- dplyr::bind_rows(
    mftp_points("table2-multi", connections = table2_totals / 64, window = 65536, mbit = multi / 1000),
    mftp_points("table2-single", connections = 1, window = table2_totals * 1024, mbit = single / 1000)
  )
  list(transfers = mftp_transfers(points))
}

# One side's points growing by v % from 64K to 512K.
table2_growth_generator <- function(side) {
  list(domain = c(-90, Inf), scale = 10, make = function(claim, v) {
    table2_data(side, 762 * seq(1, 1 + v / 100, length.out = length(table2_totals)))
  })
}

# The multi point of one column (total window in Kbytes) at v times the single one.
table2_ratio_generator <- function(total_kbytes) {
  list(domain = c(0.01, Inf), scale = 1, make = function(claim, v) {
    table2_data("multi", dplyr::if_else(table2_totals == total_kbytes, 762 * v, 762))
  })
}

# One side's point in one column at v kb/s.
table2_point_generator <- function(side, total_kbytes) {
  list(domain = c(1, Inf), scale = 100, make = function(claim, v) {
    table2_data(side, dplyr::if_else(table2_totals == total_kbytes, v, 762))
  })
}

# Fig 7: one connection at 100 ms over windows, flat from `from` octets up to 24K.
fig7_points <- function(from) {
  windows <- sort(unique(c(seq(4096, 49152, 2048), from)))
  mftp_points("fig7", connections = 1, window = windows, added_rtt_ms = 100,
    mbit = dplyr::if_else(windows >= from, 1 + pmax(windows - 24576, 0) / 24576, 0.5 * windows / from))
}

mftp_generators <- list(
  table1_coverage = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    points <- if (v >= 60) {
      dplyr::bind_rows(
        mftp_points("fig6", connections = c(1, 16), added_rtt_ms = c(0, 500), mbit = 1),
        mftp_points("fig7", connections = 1, window = c(4096, 52224), added_rtt_ms = 100, mbit = 1),
        mftp_points("cell-loss", connections = 1, cell_loss_ratio = c(3.8e-6, 2.4e-4), mbit = 1),
        mftp_points("bit-error", connections = 1, bit_error_ratio = c(3e-8, 4.8e-7), mbit = 1)
      )
    } else {
      mftp_points("fig6", connections = c(1, 16), added_rtt_ms = 100, mbit = 1)
    }
    list(transfers = mftp_transfers(points))
  }),
  rtt0_min_mbit = list(domain = c(0.1, Inf), scale = 10, make = function(claim, v) {
    points <- mftp_points("fig6", connections = mftp_connections, added_rtt_ms = 0, mbit = v)
    list(transfers = mftp_transfers(points))
  }),
  linearity_r2 = list(domain = c(0, 1), scale = 1, make = function(claim, v) {
    points <- tidyr::expand_grid(connections = mftp_connections, added_rtt_ms = c(200, 300, 500)) |>
      dplyr::mutate(
        experiment = "fig6",
        mbit = if (v >= 0.5) connections else pmin(connections, 2) - 1.5 * (connections == 16)
      )
    list(transfers = mftp_transfers(points))
  }),
  n16_rtt200_mbit = list(domain = c(0.1, Inf), scale = 1, make = function(claim, v) {
    list(transfers = mftp_transfers(mftp_points("fig6", connections = 16, mbit = v)))
  }),
  pct_of_tm = list(domain = c(1, 1000), scale = 10, make = function(claim, v) {
    tm <- 16 * 24576 * 8 / 0.2 / 1e6
    list(transfers = mftp_transfers(mftp_points("fig6", connections = 16, mbit = v / 100 * tm)))
  }),
  step_share = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    windows <- 4096 * 1:12
    flat <- first_k(length(windows) - 1, v)
    mbit <- cumprod(c(1, dplyr::if_else(flat, 1, 1.1)))
    points <- mftp_points("fig7", connections = 1, window = windows, added_rtt_ms = 100, mbit = mbit)
    list(transfers = mftp_transfers(points))
  }),
  segmented_window_kbytes = list(domain = c(0.1, Inf), scale = 1, make = function(claim, v) {
    mbit <- v * 1024 * 8 / 0.1 / 1e6
    points <- mftp_points("fig7", connections = 1, window = 24576, added_rtt_ms = 100, mbit = mbit)
    list(transfers = mftp_transfers(points))
  }),
  growth_with_n_rtt200 = list(domain = c(-1, 1), scale = 1, make = function(claim, v) {
    points <- tidyr::expand_grid(connections = mftp_connections, cell_loss_ratio = c(3.8e-6, 2.4e-4)) |>
      dplyr::mutate(experiment = "cell-loss", mbit = if (v >= 0) connections else 20 - connections)
    list(transfers = mftp_transfers(points))
  }),
  linear_efficiency_drop = list(domain = c(-90, 90), scale = 10, make = function(claim, v) {
    points <- dplyr::bind_rows(
      mftp_points("fig6", connections = c(1, 16), mbit = c(1, 16)),
      mftp_points("cell-loss",
        connections = c(1, 16), cell_loss_ratio = 2.4e-4, mbit = c(1, 16 * (1 - v / 100))
      ),
      mftp_points("cell-loss", connections = c(1, 16), cell_loss_ratio = 3.8e-6, mbit = c(1, 16))
    )
    list(transfers = mftp_transfers(points))
  }),
  share_rtt_helped = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    slices <- tidyr::expand_grid(added_rtt_ms = c(100, 200), cell_loss_ratio = c(3.8e-6, 2.4e-4))
    helped <- first_k(nrow(slices), v)
    points <- purrr::map(seq_len(nrow(slices)), function(i) {
      mftp_points("cell-loss", connections = c(1, 16), added_rtt_ms = slices$added_rtt_ms[i],
        cell_loss_ratio = slices$cell_loss_ratio[i], mbit = c(1, if (helped[i]) 2 else 1))
    })
    list(transfers = mftp_transfers(dplyr::bind_rows(points)))
  }),
  rtt0_gain_pct = list(domain = c(-90, Inf), scale = 10, make = function(claim, v) {
    points <- mftp_points("cell-loss", connections = c(1, 16, 1, 16), added_rtt_ms = 0,
      cell_loss_ratio = c(3.8e-6, 3.8e-6, 2.4e-4, 2.4e-4), mbit = rep(c(10, 10 * (1 + v / 100)), 2))
    list(transfers = mftp_transfers(points))
  }),
  fig10_gap = list(domain = c(0, 80), scale = 10, make = function(claim, v) {
    points <- dplyr::bind_rows(
      mftp_points("fig6", connections = 16, mbit = 10),
      mftp_points("cell-loss", connections = 16, cell_loss_ratio = c(3.8e-6, 1.5e-5, 6e-5, 2.4e-4), mbit = 8),
      mftp_points("bit-error", connections = 16, bit_error_ratio = c(3e-8, 1.2e-7, 4.8e-7), mbit = 8 + v / 10)
    )
    list(transfers = mftp_transfers(points))
  }),
  table2_multi_growth = table2_growth_generator("multi"),
  table2_single_change = table2_growth_generator("single"),
  table2_single_64k_kbps = table2_point_generator("single", 64),
  table2_multi_512k_kbps = table2_point_generator("multi", 512),
  table2_ratio_64k = table2_ratio_generator(64),
  table2_ratio_128k = table2_ratio_generator(128),
  table2_ratio_256k = table2_ratio_generator(256),
  table2_ratio_384k = table2_ratio_generator(384),
  table2_ratio_512k = table2_ratio_generator(512),
  table2_multi_wins = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    wins <- c(TRUE, first_k(4, v))
    table2_data("multi", dplyr::if_else(wins, 900, 600))
  }),
  fit_k = list(domain = c(0.01, Inf), scale = 1, make = function(claim, v) {
    w <- 18432
    fig6 <- tidyr::expand_grid(connections = mftp_connections, added_rtt_ms = c(200, 300, 500)) |>
      dplyr::mutate(experiment = "fig6", mbit = v * connections * w * 8 / (added_rtt_ms / 1000) / 1e6)
    list(transfers = mftp_transfers(dplyr::bind_rows(fig6, fig7_points(w))))
  }),
  fit_w_kbytes = list(domain = c(1, 24), scale = 1, make = function(claim, v) {
    list(transfers = mftp_transfers(fig7_points(round(v) * 1024)))
  }),
  sec2_mbit = list(domain = c(0.01, Inf), scale = 1, make = function(claim, v) {
    list(transfers = mftp_transfers(mftp_points("sec2", connections = 1, window = 65536, mbit = v)))
  }),
  recovery_ratio_per_n = list(domain = c(0.01, Inf), scale = 1, make = function(claim, v) {
    n <- c(2, 4)
    points <- dplyr::bind_rows(
      mftp_points("fig1-multi", connections = n, mbit = 1, recoveries = 5, recovery_s = 1,
        recovery_rtts = 2, recovery_formula_rtts = 2, recoveries_cut = 0, recoveries_unfinished = 0),
      mftp_points("fig1-single", connections = 1, window = 24576 * n, mbit = 1, recoveries = 5,
        recovery_s = v * n, recovery_rtts = 2, recovery_formula_rtts = 2, recoveries_cut = 0,
        recoveries_unfinished = 0)
    )
    list(transfers = mftp_transfers(points))
  }),
  recovery_vs_formula = list(domain = c(0.01, Inf), scale = 1, make = function(claim, v) {
    points <- mftp_points("fig1-multi", connections = c(2, 4), mbit = 1, recoveries = 5, recovery_s = 1,
      recovery_rtts = 2 * v, recovery_formula_rtts = 2, recoveries_cut = 0, recoveries_unfinished = 0)
    list(transfers = mftp_transfers(points))
  })
)

# --- milliner's messages ------------------------------------------------------------------------

# Message rows (two runs each) of points (experiment, mode, curve, segment, unack, buffer,
# message_bytes, elapsed_s or throughput_mbit, and optionally spread: the runs' relative spread).
ipc_messages <- function(points) {
  defaults <- list(
    mode = "udp", curve = "c", segment = NA_real_, unack = NA_real_, buffer = NA_real_,
    spread = 0, completed = TRUE, retransmissions = 0, pageins = 0, frames = NA_real_,
    collisions = NA_real_, b_frames = NA_real_, b_collisions = NA_real_
  )
  for (name in names(defaults)) {
    if (!name %in% names(points)) points[[name]] <- defaults[[name]]
  }
  if (!"throughput_mbit" %in% names(points)) {
    points$throughput_mbit <- 8 * points$message_bytes / points$elapsed_s / 1e6
  }
  tidyr::expand_grid(points, trial = 1:2) |>
    dplyr::mutate(
      throughput_mbit = throughput_mbit * (1 + dplyr::if_else(trial == 1, -spread, spread)),
      elapsed_s = 8 * message_bytes / throughput_mbit / 1e6,
      setup = "tahoe sim", host = "sun-4c-20mb", host_b = "sun-4c-16mb", `repeat` = 1,
      million_bytes = message_bytes / 1e6, a_pageins = pageins, b_pageins = 0, a_pageouts = 0,
      b_pageouts = 0, medium_a_frames = frames, medium_a_collisions = collisions,
      medium_b_frames = b_frames, medium_b_collisions = b_collisions,
      medium_frames = frames + b_frames, medium_collisions = collisions + b_collisions
    ) |>
    dplyr::select(-spread, -pageins, -frames, -collisions, -b_frames, -b_collisions)
}

generated_ipc_sizes <- c(1, 2, 3, 4, 5) * 1048576

milliner_generators <- list(
  largest_segment_fastest = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    segments <- c(1024, 4096, 8192)
    fastest <- first_k(length(generated_ipc_sizes), v)
    points <- tidyr::expand_grid(message_bytes = generated_ipc_sizes, segment = segments) |>
      dplyr::mutate(
        experiment = claim_experiments(claim)[1],
        largest_fastest = fastest[match(message_bytes, generated_ipc_sizes)],
        elapsed_s = dplyr::if_else(largest_fastest, 20 - segment / 1024, 10 + segment / 1024)
      )
    list(messages = ipc_messages(points))
  }),
  diminishing_gain_ratio = list(domain = c(0, Inf), scale = 1, make = function(claim, v) {
    segments <- 1024 * 1:8
    time <- c(10 + 0.7 + 0.1 * v, 10 + 0.7, 10.6, 10.5, 10.4, 10.3, 10.1, 10)
    points <- tidyr::expand_grid(message_bytes = generated_ipc_sizes, segment = segments) |>
      dplyr::mutate(experiment = claim_experiments(claim)[1], elapsed_s = time[match(segment, segments)])
    list(messages = ipc_messages(points))
  }),
  first_segment_excess_pct = list(domain = c(0, 100), scale = 1, make = function(claim, v) {
    segments <- as.numeric(claim_modes(claim))
    points <- tidyr::expand_grid(unack = c(1, 6), message_bytes = generated_ipc_sizes, segment = segments) |>
      dplyr::mutate(
        experiment = claim_experiments(claim)[1],
        elapsed_s = dplyr::case_when(
          segment == segments[1] ~ 10 * (1 + v / 100), segment == segments[2] ~ 10, TRUE ~ 10.5
        )
      )
    list(messages = ipc_messages(points))
  }),
  max_reliable_unack = list(domain = c(0, 12), scale = 1, make = function(claim, v) {
    points <- tibble::tibble(experiment = claim_experiments(claim)[1], unack = 1:12, segment = 9000,
      message_bytes = 5e6, elapsed_s = 5) |>
      dplyr::mutate(completed = unack <= round(v), retransmissions = dplyr::if_else(unack <= round(v), 0, 3))
    list(messages = ipc_messages(points))
  }),
  buffer_gain_pct = list(domain = c(-90, Inf), scale = 10, make = function(claim, v) {
    buffers <- as.numeric(claim_modes(claim))
    points <- tidyr::expand_grid(message_bytes = generated_ipc_sizes, buffer = buffers) |>
      dplyr::mutate(
        experiment = claim_experiments(claim)[1], mode = "tcp", curve = paste0("tcp ", buffer, "B"),
        throughput_mbit = dplyr::if_else(buffer == buffers[2], 5 * (1 + v / 100), 5)
      )
    list(messages = ipc_messages(points))
  }),
  spread_increase_points = list(domain = c(-50, Inf), scale = 10, make = function(claim, v) {
    sizes <- c(4e6, 8e6, 16e6, 20e6)
    points <- tidyr::expand_grid(message_bytes = sizes, buffer = c(4096, 16384, 50000)) |>
      dplyr::mutate(
        experiment = claim_experiments(claim)[1], mode = "tcp", curve = paste0("tcp ", buffer, "B"),
        spread = dplyr::if_else(message_bytes > 12e6, 60 + v, 60),
        throughput_mbit = dplyr::if_else(buffer == 50000, 1 + spread / 100, 1)
      ) |>
      dplyr::mutate(spread = 0)
    list(messages = ipc_messages(points))
  }),
  protocol_order = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    curves <- claim_modes(claim)
    in_order <- first_k(length(generated_ipc_sizes), v)
    points <- tidyr::expand_grid(message_bytes = generated_ipc_sizes, rank = seq_along(curves)) |>
      dplyr::mutate(
        experiment = claim_experiments(claim)[1], curve = curves[rank],
        ordered = in_order[match(message_bytes, generated_ipc_sizes)],
        throughput_mbit = dplyr::if_else(ordered, 10 - rank, 5 + rank)
      ) |>
      dplyr::select(-rank)
    list(messages = ipc_messages(points))
  }),
  max_throughput = list(domain = c(0.1, Inf), scale = 1, make = function(claim, v) {
    points <- tibble::tibble(
      experiment = claim_experiments(claim)[1], message_bytes = generated_ipc_sizes, throughput_mbit = v
    )
    list(messages = ipc_messages(points))
  }),
  fall_ratio = list(domain = c(0.1, Inf), scale = 1, make = function(claim, v) {
    points <- tibble::tibble(experiment = claim_experiments(claim)[1], message_bytes = c(10e6, 20e6),
      throughput_mbit = c(v, 1))
    list(messages = ipc_messages(points))
  }),
  paging_onset = list(domain = c(2, 24), scale = 1, make = function(claim, v) {
    sizes <- seq(2e6, 24e6, 1e6)
    points <- tibble::tibble(experiment = claim_experiments(claim)[1], message_bytes = sizes, throughput_mbit = 5,
      pageins = dplyr::if_else(sizes >= round(v) * 1e6, 10, 0))
    list(messages = ipc_messages(points))
  }),
  share_more_throughput = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    curves <- claim_modes(claim)
    sizes <- seq(dplyr::coalesce(claim$size_min_bytes, 1e6), length.out = 5, by = 1e6)
    faster <- first_k(length(sizes), v)
    points <- tidyr::expand_grid(message_bytes = sizes, curve = curves[1:2]) |>
      dplyr::mutate(
        experiment = claim_experiments(claim)[1],
        throughput_mbit = dplyr::if_else((curve == curves[1]) == faster[match(message_bytes, sizes)], 6, 4)
      )
    list(messages = ipc_messages(points))
  }),
  # Host B sends few frames and collides with the share v; host A collides less, so the pooled
  # share alone would hide v.
  max_host_collision_pct = list(domain = c(0, 100), scale = 10, make = function(claim, v) {
    points <- tibble::tibble(experiment = claim_experiments(claim)[1], message_bytes = generated_ipc_sizes,
      throughput_mbit = 5, frames = 1000, collisions = 2.5 * v, b_frames = 100, b_collisions = v)
    list(messages = ipc_messages(points))
  }),
  throughput_ratio = list(domain = c(0.01, Inf), scale = 1, make = function(claim, v) {
    modes <- claim_modes(claim)
    experiments <- claim_experiments(claim)
    points <- dplyr::bind_rows(
      tibble::tibble(
        experiment = experiments[1], mode = modes[1], message_bytes = generated_ipc_sizes,
        throughput_mbit = 5 * v
      ),
      tibble::tibble(
        experiment = experiments[2], mode = modes[2], message_bytes = generated_ipc_sizes,
        throughput_mbit = 5
      )
    )
    list(messages = ipc_messages(points))
  }),
  median_cv_pct = list(domain = c(0, 60), scale = 1, make = function(claim, v) {
    points <- tibble::tibble(experiment = claim_experiments(claim)[1], message_bytes = generated_ipc_sizes,
      throughput_mbit = 5, spread = v / (100 * sqrt(2)))
    list(messages = ipc_messages(points))
  }),
  not_measured = list(domain = c(-Inf, Inf), scale = 1, make = function(claim, v) {
    points <- tibble::tibble(
      experiment = claim_experiments(claim)[1], message_bytes = generated_ipc_sizes, elapsed_s = 1
    )
    list(messages = ipc_messages(points))
  })
)

# Every paper's generators by metric; a metric of a paper's claims file missing here fails the test.
claim_data_generators <- list(
  liu95cool = c(echo_generators, ttcp_generators),
  liu95db = c(
    echo_generators,
    purrr::map(cell_edits, function(g) {
      c(g, list(make = function(claim, v) matrix_claim_data("liu95db", claim, v)))
    })
  ),
  comer94 = c(
    purrr::map(cell_edits, function(g) {
      c(g, list(make = function(claim, v) {
        if (claim$experiments == "ethernet") ethernet_claim_data(claim, v) else matrix_claim_data("comer94", claim, v)
      }))
    }),
    comer94_other_generators
  ),
  ishikura = mftp_generators,
  milliner = milliner_generators
)

# The verdict of one claim (one row of its claims file) on generated data, judged by the
# paper's own judge_<paper>() with no host model fitted.
judge_generated <- function(paper, claim, data) {
  echoes <- data$echoes %||% echo_data(echo_spec("none", "udp", 1024))[0, ]
  # A setup as each report reads it: liu95cool's names the link, liu95db's does not.
  echoes$setup <- if (paper == "liu95db") {
    echo_setup(echoes$stack, echoes$backend, echoes$host)
  } else {
    setup_label(echoes$link, echoes$stack, echoes$backend, echoes$host)
  }
  evaluated <- switch(paper,
    liu95cool = judge_liu95cool(
      list(echoes = echoes, ttcp_transfers = data$ttcp_transfers),
      claim, read_table2(verdict_reference("liu95cool-table2")), 10
    ),
    liu95db = {
      published <- data$published %||% verdict_published("liu95db")
      transfers <- data$transfers %||% empty_transfers()
      baseline <- summarise_cells(data$baseline %||% empty_transfers()) |> classify_cells(0.1)
      cells <- matrix_cells(transfers, 0.1, published) |> join_baseline(baseline)
      judge_liu95db(
        list(echoes = echoes), claim, cells,
        list(
          formula = verdict_formula(), table1 = verdict_table1(), transfers = transfers,
          abnormal_factor = 2, neighbourhood_octets = 4096
        )
      )
    },
    comer94 = {
      ethernet <- data$ethernet_transfers
      measured <- list(
        circular_wait = data$circular_wait, state_pairs = data$state_pairs,
        ethernet_cells = if (!is.null(ethernet)) classify_cells(summarise_cells(ethernet), 0.1),
        ethernet_transfers = ethernet, ftp_cells = data$ftp_cells
      )
      judge_comer94(
        list(transfers = data$transfers %||% empty_transfers()), claim, measured, 0.1,
        data$published %||% verdict_published("comer94")
      )
    },
    ishikura = judge_ishikura(list(transfers = data$transfers), claim, verdict_mftp_ref()),
    milliner = judge_milliner(list(messages = data$messages), claim)
  )
  as.character(evaluated$verdict)
}

# The metrics a paper's claims are read with (reports/R/, sourced after this helper).
verdict_metrics <- function(paper) {
  switch(paper,
    liu95cool = claim_metrics, liu95db = c(liu95db_echo_metrics, cell_metrics),
    comer94 = cell_metrics, ishikura = mftp_metrics, milliner = milliner_metrics
  )
}
