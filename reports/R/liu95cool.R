# liu95cool's two setups: the Linux-stack experiments (configs/liu95cool*.yaml) and their
# twins on the Tahoe stack with 1995 host models (configs/liu95cool-tahoe.yaml), whose ids
# carry a suffix. Both are read under the paper's experiment id, so claims name one id and
# are judged once per setup (link / stack / backend / host).

liu95cool_suffixes <- c("", "-tahoe")

# The modes a loss figure draws: only UDP loses datagrams.
udp_modes <- c("udp", "udp-cooled")

# The experiment id without its setup suffix.
base_experiment <- function(experiment, suffixes = liu95cool_suffixes) {
  pattern <- paste0("(", paste(setdiff(suffixes, ""), collapse = "|"), ")$")
  sub(pattern, "", experiment)
}

# Every setup's results of the paper's experiments, under their base ids; missing lists the
# base ids that no setup measured.
read_setup_results <- function(results_dir, paper, experiments, suffixes = liu95cool_suffixes) {
  ids <- as.vector(outer(experiments, suffixes, paste0))
  results <- read_results(results_dir, paper, ids)
  data <- dplyr::mutate(results$data, experiment = base_experiment(experiment, suffixes))
  list(data = data, missing = setdiff(experiments, unique(data$experiment)))
}

# The ttcp transfers of every setup of one experiment, under its base id; NULL when none.
read_setup_ttcp <- function(results_dir, paper, experiment, suffixes = liu95cool_suffixes) {
  per_setup <- purrr::map(paste0(experiment, suffixes), function(e) {
    read_ttcp_results(results_dir, paper, e)
  })
  data <- dplyr::bind_rows(purrr::compact(per_setup))
  if (nrow(data) == 0) {
    return(NULL)
  }
  dplyr::mutate(data, experiment = base_experiment(experiment, suffixes))
}

# Share (%) of the UDP datagrams lost in transfers that the link dropped (queue, loss or
# cells): 0 when every loss happened in the receiving host. NA without a lost datagram or
# without the link's counters.
ttcp_link_loss_share <- function(transfers) {
  if (is.null(transfers) || !"link_drops" %in% names(transfers)) {
    return(NA_real_)
  }
  udp <- dplyr::filter(transfers, proto == "udp")
  lost <- sum(as.numeric(udp$datagrams_sent) - as.numeric(udp$datagrams_received), na.rm = TRUE)
  if (lost <= 0) {
    return(NA_real_)
  }
  100 * min(1, sum(as.numeric(udp$link_drops), na.rm = TRUE) / lost)
}

# The drop counters a ttcp transfer may carry (virtual time; older results lack some).
ttcp_drop_columns <- c("link_drops", "link_cells_lost", "receiver_fullsock", "receiver_ipq_drops")

# Where ttcp's UDP datagrams were lost, per setup and cooling level: sent, lost, and the
# drops counted by the link and by the receiving host's socket buffer and IP input; a counter
# no transfer recorded is NA. No rows when no transfer recorded any counter.
ttcp_drop_table <- function(transfers) {
  if (is.null(transfers) || !any(ttcp_drop_columns %in% names(transfers))) {
    return(tibble::tibble())
  }
  for (column in setdiff(ttcp_drop_columns, names(transfers))) {
    transfers[[column]] <- NA_real_
  }
  transfers |>
    dplyr::filter(proto == "udp") |>
    dplyr::mutate(dplyr::across(dplyr::all_of(ttcp_drop_columns), as.numeric)) |>
    dplyr::group_by(setup, cool_iterations) |>
    dplyr::summarise(
      sent = sum(datagrams_sent),
      lost = sum(datagrams_sent - datagrams_received),
      link_drops = sum_recorded(link_drops),
      cells_lost = sum_recorded(link_cells_lost),
      socket_full = sum_recorded(receiver_fullsock),
      ip_input = sum_recorded(receiver_ipq_drops),
      .groups = "drop"
    ) |>
    dplyr::arrange(setup, cool_iterations)
}

# The places pingx's virtual-time runs count lost datagrams at (netrepro/tools/pingx.py's
# RUN_DROPS), named by their results.csv columns. Each row of a run carries the run's totals.
echo_drop_places <- c(
  "run_drops_send_queue", "run_drops_link", "run_drops_echo_ipq", "run_drops_echo_socket",
  "run_drops_client_ipq", "run_drops_client_socket"
)

# Where the echoes of one stack on one backend (by default the era hosts in virtual time) lost
# datagrams: per setup, experiment and mode, the runs, the UDP datagrams sent and not returned
# (summed over the echoes), and each place's drops summed over the runs, one value per run and
# mode. A place is NA when no run recorded it (results from before the counters, or an emulator
# without them); recorded_runs counts the runs that recorded every place. A run whose rows
# disagree on a total is a defect of the results.
echo_drop_table <- function(echoes, on_stack = "tahoe", on_backend = "sim") {
  era <- dplyr::filter(echoes, stack == on_stack, backend == on_backend, mode %in% udp_modes)
  for (column in setdiff(echo_drop_places, names(era))) {
    era[[column]] <- NA_real_
  }
  keys <- c("setup", "experiment", "mode")
  per_run <- era |>
    dplyr::group_by(dplyr::across(dplyr::all_of(c(keys, "run_id")))) |>
    dplyr::summarise(
      sent = sum(datagrams), lost = sum(datagrams - datagrams_returned),
      dplyr::across(dplyr::all_of(echo_drop_places), run_total),
      .groups = "drop"
    )
  per_run$recorded <- stats::complete.cases(per_run[echo_drop_places])
  per_run |>
    dplyr::group_by(dplyr::across(dplyr::all_of(keys))) |>
    dplyr::summarise(
      runs = dplyr::n(),
      recorded_runs = sum(recorded),
      sent = sum(sent), lost = sum(lost),
      dplyr::across(dplyr::all_of(echo_drop_places), sum_recorded),
      .groups = "drop"
    ) |>
    dplyr::arrange(setup, experiment, mode)
}

# One run's total from its rows, which all carry it: NA when the run did not record it.
run_total <- function(x) {
  values <- unique(x[!is.na(x)])
  if (length(values) > 1) {
    stop("one run's rows disagree on a run total of drops (", paste(values, collapse = ", "),
      "); each row of a run must carry the run's totals (netrepro/tools/pingx.py)", call. = FALSE)
  }
  if (length(values) == 0) NA_real_ else as.numeric(values)
}

# The sum of the values recorded; NA when none was.
sum_recorded <- function(x) {
  if (all(is.na(x))) NA_real_ else sum(x, na.rm = TRUE)
}

# Counts for a table, "not recorded" where NA.
recorded_text <- function(x) {
  dplyr::if_else(is.na(x), "not recorded", fmt_num(x, 9))
}

# echo_drop_table() for a report: counts with "not recorded" where no run counted a place, and
# how many runs counted every place.
echo_drop_view <- function(drops) {
  dplyr::transmute(drops,
    Setup = setup, Experiment = experiment, Mode = mode,
    `Runs (counted by place)` = paste0(runs, " (", recorded_runs, ")"),
    `Datagrams sent` = fmt_num(sent, 9), `Not returned` = fmt_num(lost, 9),
    `Interface queues` = recorded_text(run_drops_send_queue), Link = recorded_text(run_drops_link),
    `Echo host: IP input` = recorded_text(run_drops_echo_ipq),
    `Echo host: socket buffer` = recorded_text(run_drops_echo_socket),
    `Client: IP input` = recorded_text(run_drops_client_ipq),
    `Client: socket buffer` = recorded_text(run_drops_client_socket)
  )
}

# The backend each link and stack is judged on (judged_backends()), from the echoes and the
# ttcp summaries (NULL: none): rows of several backends are never pooled.
liu95cool_judged <- function(echoes, ttcp) {
  judged_backends(
    dplyr::bind_rows(
      dplyr::distinct(echoes, link, stack, backend),
      if (!is.null(ttcp)) dplyr::distinct(ttcp, link, stack, backend)
    ),
    c("link", "stack")
  )
}

# liu95cool's claims judged on the echoes and ttcp transfers of tables, each on the judged
# backend of its link and stack, with Table 2 and its acceptable loss; the sensitivity section
# calls it again with a variant's rows in place of its base's. fits: the host models' fitted
# figures (read_host_fits()).
judge_liu95cool <- function(tables, claims, table2, acceptable_loss_pct, fits = no_fits()) {
  transfers <- tables$ttcp_transfers
  ttcp <- if (is.null(transfers)) NULL else summarise_ttcp(transfers)
  judged <- liu95cool_judged(tables$echoes, ttcp)
  keys <- c("link", "stack")
  evaluate_claims(claims, judged_rows(summarise_sizes(tables$echoes), judged, keys), extra = list(
    ttcp = judged_rows(ttcp, judged, keys), ttcp_transfers = judged_rows(transfers, judged, keys),
    table2 = table2, acceptable_loss_pct = acceptable_loss_pct,
    echoes = judged_rows(tables$echoes, judged, keys)
  ), fits = fits, paper = "liu95cool")
}

# Table 2 of the paper: recommended protocol per network and size class, and the acceptable loss.
read_table2 <- function(path) {
  readr::read_csv(path,
    col_types = readr::cols(
      size_min_bytes = "d", size_max_bytes = "d", acceptable_loss_pct = "d", .default = "c"
    ),
    progress = FALSE
  )
}

# The busy-wait gap each experiment's cooled UDP used.
cooling_gaps <- function(echoes) {
  echoes |>
    dplyr::filter(mode == "udp-cooled") |>
    dplyr::distinct(experiment, cool_gap_us) |>
    dplyr::arrange(experiment, cool_gap_us)
}
