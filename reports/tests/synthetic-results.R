# SYNTHETIC FIXTURES ONLY. Fabricates a results tree that follows the data
# contract, for rendering and unit tests of the reports. The numbers come from
# a toy model, not from any run; never write them under results/.
#
# Usage: Rscript reports/tests/synthetic-results.R <out_dir> [experiment ...]

nasa_files <- c(
  "earth-round.gif" = 6988, "earth1.gif" = 7708, "gal_line.gif" = 17027,
  "gal_green.gif" = 29668, "comet.gif" = 35543, "mars.gif" = 60379,
  "surface.gif" = 74058, "jupiter.gif" = 80385, "gal_blue.gif" = 97835,
  "hubble.costar.gif" = 104365, "earth_detail.gif" = 114323,
  "eclipse2.gif" = 135701, "4gal_red.gif" = 153634, "sf.gif" = 175405,
  "ast_spray.gif" = 205747, "mitwave1.gif" = 236199,
  "earth_highres.gif" = 279786, "text+image.gif" = 406851,
  "eclipse1.gif" = 486430
)

very_large_sizes <- c(50, 100, 150, 200, 250, 300, 400, 500, 600, 700, 800, 900, 1000) * 1024
large_sizes <- c(4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 80) * 1024

synthetic_experiments <- list(
  "lan-512b" = list(mirrors = "Fig 1a", network = "lan", sizes = c(16, 64, 128, 256, 384, 500)),
  "lan-2k" = list(mirrors = "Fig 1b", network = "lan", sizes = c(512, 768, 1024, 1280, 1536, 2000)),
  "lan-large" = list(mirrors = "Fig 2a; Fig 2b", network = "lan", sizes = large_sizes),
  "lan-very-large" = list(mirrors = "Fig 3a; Fig 3b; Fig 4", network = "lan", sizes = very_large_sizes),
  "lan-nasa" = list(mirrors = "Fig 5a; Fig 5b", network = "lan", sizes = nasa_files),
  "wan-1k" = list(mirrors = "Fig 6a; Fig 6b", network = "wan", sizes = c(16, 64, 256, 512, 768, 1000)),
  "wan-large" = list(mirrors = "Fig 7a; Fig 7b", network = "wan", sizes = large_sizes),
  "wan-very-large" = list(mirrors = "Fig 8a; Fig 8b", network = "wan", sizes = very_large_sizes),
  "wan-nasa" = list(mirrors = "Fig 9a; Fig 9b", network = "wan", sizes = nasa_files),
  "atm-small" = list(mirrors = "Fig 11", network = "atm", sizes = c(64, 256, 512, 1024, 1536, 2000)),
  "atm-large" = list(mirrors = "Fig 12a; Fig 12b", network = "atm", sizes = large_sizes),
  "atm-very-large" = list(mirrors = "Fig 13a; Fig 13b", network = "atm", sizes = very_large_sizes),
  "atm-nasa" = list(mirrors = "Fig 14a; Fig 14b", network = "atm", sizes = nasa_files)
)

synthetic_links <- c(lan = "ethernet-10", wan = "wan-1995", atm = "atm-oc3-155")

# Toy per-datagram loss probability of each UDP mode at a message size.
toy_datagram_loss <- function(mode, bytes, network = "lan") {
  cooled <- mode == "udp-cooled"
  switch(network,
    lan = if (cooled) {
      0.004 + 0.04 * min(1, bytes / 1e6)
    } else {
      min(0.97, 0.9 * max(0, bytes - 40000) / (bytes + 60000))
    },
    wan = (if (cooled) 0.8 else 1) * (0.02 + 0.6 * min(1, bytes / 150000)),
    atm = (if (cooled) 0.92 else 1) * min(0.97, 0.95 * max(0, bytes - 8000) / (bytes + 15000))
  )
}

# Toy RTT in ms: two passes over the wire plus per-mode overheads.
toy_rtt <- function(mode, bytes, n, network = "lan") {
  rate_kbit_per_ms <- c(lan = 10, wan = 1.2, atm = 60)[[network]]
  base_ms <- c(lan = 0, wan = 70, atm = 0.3)[[network]]
  wire <- 2 * bytes * 8 / 1000 / rate_kbit_per_ms
  slow_tcp <- if (network == "lan") 1.3 else 1.02
  cooled_factor <- c(lan = 1.08, wan = 1.25, atm = 1.01)[[network]]
  connect <- c(lan = 2.2, wan = 140, atm = 1.5)[[network]]
  base <- base_ms + switch(mode,
    "tcp-per-message" = slow_tcp * wire + connect,
    "tcp" = slow_tcp * wire + 0.9,
    "udp-cooled" = cooled_factor * wire + 0.7,
    "udp" = wire + 0.6
  )
  spread <- if (mode == "udp") 0.12 else 0.04
  base * exp(stats::rnorm(n, 0, spread))
}

synthetic_rows <- function(experiment, trials, echoes) {
  spec <- synthetic_experiments[[experiment]]
  sizes <- spec$sizes
  names <- if (is.null(names(sizes))) paste0(sizes, "B") else names(sizes)
  modes <- c("tcp-per-message", "tcp", "udp-cooled", "udp")
  grid <- expand.grid(
    echo = seq_len(echoes), trial = seq_len(trials), size = seq_along(sizes),
    mode = modes, stringsAsFactors = FALSE
  )
  grid$message_bytes <- unname(sizes[grid$size])
  grid$message_name <- names[grid$size]
  udp <- grid$mode %in% c("udp", "udp-cooled")
  grid$datagrams <- ifelse(udp, ceiling(grid$message_bytes / 8192), 0)
  network <- spec$network
  p <- mapply(toy_datagram_loss, grid$mode, grid$message_bytes, network)
  grid$datagrams_returned <- ifelse(
    udp, stats::rbinom(nrow(grid), grid$datagrams, 1 - p), 0
  )
  grid$complete <- grid$datagrams_returned == grid$datagrams
  rtt <- unlist(lapply(seq_len(nrow(grid)), function(i) {
    toy_rtt(grid$mode[i], grid$message_bytes[i], 1, network)
  }))
  data.frame(
    paper = "liu95cool",
    experiment = experiment,
    mirrors = spec$mirrors,
    link = synthetic_links[[network]],
    stack = "kernel",
    backend = "synthetic",
    mode = grid$mode,
    message_set = if (grepl("nasa", experiment)) "nasa" else "sizes",
    message_name = grid$message_name,
    message_bytes = grid$message_bytes,
    trial = grid$trial,
    echo = grid$echo,
    rtt_ms = ifelse(grid$complete, round(rtt, 3), NA),
    datagrams = grid$datagrams,
    datagrams_returned = grid$datagrams_returned,
    complete = grid$complete,
    cool_gap_us = ifelse(grid$mode == "udp-cooled", 400, NA),
    run_id = paste0("synthetic-", experiment)
  )
}

# A host model as provenance records it: the whole YAML file, comments and all, so
# the reports are rendered with text that would become Markdown if left raw.
synthetic_host_model <- paste(
  "# SYNTHETIC host model (toy values).",
  "#",
  "# per_packet_ns: work per packet; **not** fitted to any paper.",
  "## A second-level comment | with a pipe | and `code`",
  "",
  "per_packet_ns: 1000",
  "per_byte_ps: 200   # * a starred note",
  sep = "\n"
)

# A provenance record of a synthetic run; `order` is the run order to record.
synthetic_provenance <- function(paper, experiment, order, link = "ethernet-10",
                                 backend = "synthetic", stack = "kernel", run_id = NULL) {
  list(
    run_id = run_id %||% paste0("synthetic-", experiment),
    paper = paper,
    experiment = experiment,
    git_commit = "0000000000000000000000000000000000000000",
    spec_file = paste0("configs/", paper, ".yaml"),
    spec_hash = "sha256:synthetic",
    kernel = "synthetic",
    hostname = "synthetic-fixture",
    cpu_model = "none (synthetic fixture)",
    host_model = synthetic_host_model,
    sysctls = list(net.core.rmem_default = 212992, net.ipv4.tcp_sack = 0),
    offloads = list(tso = "off", gso = "off", gro = "off"),
    link = list(name = link, delay_s = 0, queue = list(packets = 50)),
    link_check = list(
      expected_goodput_mbit = 9.57, measured_goodput_mbit = 9.49,
      expected_rtt_ms = 0.1, measured_rtt_ms = 0.12, passed = TRUE
    ),
    backend = backend,
    stack = stack,
    tools = list(nrping = "synthetic", ttcp = "synthetic", tc = "iproute2 6.1.0"),
    seed = 1,
    run_order = as.list(order),
    profile = "synthetic",
    started_at = "2000-01-01T00:00:00Z",
    finished_at = "2000-01-01T00:00:01Z",
    assumptions = list(
      fixture = "SYNTHETIC DATA from reports/tests/synthetic-results.R; not a measurement.",
      cooling_gap = "400 us busy wait between 8 KB datagrams (toy value).",
      queue = "50-packet drop-tail queue (BSD IFQ_MAXLEN)."
    )
  )
}

`%||%` <- function(a, b) if (is.null(a)) b else a

write_fixture <- function(dir, rows, provenance, file = "results.csv") {
  dir.create(dir, recursive = TRUE, showWarnings = FALSE)
  utils::write.csv(rows, file.path(dir, file), row.names = FALSE, na = "NA")
  lines <- purrr::map_chr(provenance, function(p) {
    as.character(jsonlite::toJSON(p, auto_unbox = TRUE, digits = NA))
  })
  writeLines(lines, file.path(dir, "provenance.jsonl"))
}

# Toy ttcp transfers of Fig 15: UDP slows and loses less as cooling grows;
# TCP runs uncooled.
synthetic_ttcp_rows <- function(repeats) {
  iterations <- c(0, 25, 50, 100, 200, 400, 800, 1600)
  udp <- expand.grid(repeat_no = seq_len(repeats), cool_iterations = iterations)
  udp$proto <- "udp"
  tcp <- data.frame(repeat_no = seq_len(repeats), cool_iterations = NA, proto = "tcp")
  grid <- rbind(udp, tcp)
  udp_rows <- grid$proto == "udp"
  sent <- ifelse(udp_rows, 4096, NA)
  loss <- ifelse(udp_rows, 0.7 * exp(-grid$cool_iterations / 250), 0)
  received <- ifelse(udp_rows, stats::rbinom(nrow(grid), 4096, 1 - loss), NA)
  throughput <- ifelse(
    udp_rows, 70 / (1 + grid$cool_iterations / 150), 21
  ) * exp(stats::rnorm(nrow(grid), 0, 0.03))
  data.frame(
    paper = "liu95cool", experiment = "atm-ttcp-cooling", mirrors = "Fig 15a; Fig 15b",
    link = "atm-oc3-155", stack = "kernel", backend = "synthetic", proto = grid$proto,
    cool_iterations = grid$cool_iterations,
    cool_gap_us = ifelse(udp_rows, grid$cool_iterations * 0.05, NA),
    `repeat` = grid$repeat_no, bytes = 16777216, throughput_mbit = round(throughput, 4),
    datagrams_sent = sent, datagrams_received = received,
    run_id = "synthetic-atm-ttcp-cooling", check.names = FALSE
  )
}

comer94_buffers <- c(seq(16, 48, 4) * 1024, 52428)

# Toy lockstep batch (octets per 200 ms tick) of a buffer pair, or NA when
# the pair streams. The pattern is a fixture, loosely after the paper's
# mechanism; backend "linkemu" deliberately streams at 24K/51K so that the
# report has a disagreement to show.
toy_lockstep_octets <- function(send, recv, backend) {
  dplyr::case_when(
    send == 16384 & recv >= 36864 ~ 12288,
    send == 16384 & recv >= 24576 ~ 8192,
    send == 20480 & recv >= 40960 ~ 26000,
    send == 24576 & recv >= 49152 & !(backend == "linkemu" & recv == 52428) ~ 19000,
    TRUE ~ NA_real_
  )
}

# Toy comer94 Table 1 transfers for two backends, plus one nodelay cell that
# the report must leave out.
synthetic_comer94_rows <- function(repeats, backends = c("sim", "linkemu")) {
  grid <- expand.grid(
    repeat_no = seq_len(repeats), recv_buffer = comer94_buffers,
    send_buffer = comer94_buffers, backend = backends, stringsAsFactors = FALSE
  )
  lockstep <- toy_lockstep_octets(grid$send_buffer, grid$recv_buffer, grid$backend)
  streaming <- 12 + 9 * (1 - exp(-(grid$send_buffer + grid$recv_buffer - 32768) / 30000)) -
    1.5 * (grid$send_buffer == 16384 & grid$recv_buffer == 20480)
  if_lockstep <- lockstep * 8 / 0.2 / 1e6
  throughput <- dplyr::if_else(is.na(lockstep), streaming, if_lockstep) *
    exp(stats::rnorm(nrow(grid), 0, 0.03))
  rows <- data.frame(
    paper = "comer94", experiment = "table1", mirrors = "Table 1; Fig 3; Figs 9-13",
    link = "atm-taxi-100", stack = "tahoe", backend = grid$backend, host = "sparcstation-ipc",
    send_buffer = grid$send_buffer, recv_buffer = grid$recv_buffer,
    `repeat` = grid$repeat_no, bytes = 33554432,
    throughput_mbit = round(throughput, 4),
    receiver_throughput_mbit = round(throughput * 0.99, 4),
    nodelay = FALSE,
    run_id = paste0("synthetic-table1-", grid$backend), check.names = FALSE
  )
  # The stack's counts, in virtual time only: streaming cells send nearly every segment behind
  # another, lockstep cells and 16K/20K (Fig 8's state d) almost none.
  waits <- !is.na(lockstep) | (grid$send_buffer == 16384 & grid$recv_buffer == 20480)
  sim <- grid$backend == "sim"
  rows$pair_data_segments <- dplyr::if_else(sim, 4000, NA_real_)
  rows$pair_segments_behind <- dplyr::if_else(sim, dplyr::if_else(waits, 100, 3800), NA_real_)
  nodelay <- rows[rows$send_buffer == 16384 & rows$recv_buffer == 24576, ]
  nodelay$nodelay <- TRUE
  nodelay$throughput_mbit <- 99
  rbind(rows, nodelay)
}

# Toy packet trace of the circular wait: idle first write, S1, S2, then the
# receiver's timer breaking each wait.
synthetic_trace_rows <- function() {
  data.frame(
    t_ms = c(0, 0.4, 0.9, 1.2, 1.6, 200, 200.4, 201, 400, 400.4, 401),
    direction = c("data", "data", "ack", "data", "ack", "ack", "data", "ack", "ack", "data", "ack"),
    seq = c(1, 4097, 1, 13245, 1, 1, 16385, 1, 1, 24577, 1),
    len = c(4096, 9148, 0, 3140, 0, 0, 8192, 0, 0, 8192, 0),
    ack = c(1, 1, 13245, 1, 16385, 16385, 1, 16385, 24577, 1, 24577),
    win = c(24576, 24576, 24576, 24576, 15000, 24576, 24576, 16384, 24576, 24576, 16384),
    rule = c("S2", "S1", "R2", "S2", "delayed", "timer", "S2", "delayed", "timer", "S2", "delayed")
  )
}

# Toy trace of the 16K/24K circular wait as Figs 5 and 6 draw it: 4096 (S2), 9148 (S1), 3140
# (S2), then the 7236-octet segment the receiver holds for its timer, three 8K batches a tick
# apart and a 4096-octet tail.
synthetic_circular_rows <- function() {
  len <- c(4096, 9148, 3140, 7236, 8192, 8192, 8192, 4096)
  start <- 1 + cumsum(c(0, utils::head(len, -1)))
  t_data <- c(4, 8, 14, 76, 268, 468, 668, 670)
  data <- data.frame(
    t_ms = t_data, direction = "data", seq = start, len = len, ack = 1, win = 16384,
    rule = c("S2", "S1", "S2", "S2", "S2", "S2", "S2", "fin")
  )
  acked <- c(1, 13245, 16385, 23621, 31813, 40005)
  acks <- data.frame(
    t_ms = c(3, 12.6, 74, 266, 466, 666), direction = "ack", seq = 1, len = 0, ack = acked,
    win = 24576, rule = c("ctl", "R2", "R2", "acknow", "acknow", "acknow")
  )
  trace <- rbind(data, acks)
  trace <- trace[order(trace$t_ms), ]
  trace$backend <- "sim"
  trace
}

make_synthetic_results <- function(out_dir, experiments = names(synthetic_experiments),
                                   trials = 3, echoes = 5, seed = 42) {
  set.seed(seed)
  for (experiment in experiments) {
    rows <- synthetic_rows(experiment, trials, echoes)
    order <- unique(paste(rows$mode, rows$message_bytes, rows$trial, sep = ":"))
    link <- synthetic_links[[synthetic_experiments[[experiment]]$network]]
    write_fixture(
      file.path(out_dir, "liu95cool", experiment), rows,
      list(synthetic_provenance("liu95cool", experiment, order, link = link))
    )
  }
  invisible(out_dir)
}

make_synthetic_ttcp <- function(out_dir, repeats = 3, seed = 42) {
  set.seed(seed)
  rows <- synthetic_ttcp_rows(repeats)
  order <- unique(paste(rows$proto, rows$cool_iterations, rows$`repeat`, sep = ":"))
  write_fixture(
    file.path(out_dir, "liu95cool", "atm-ttcp-cooling"), rows,
    list(synthetic_provenance("liu95cool", "atm-ttcp-cooling", order, link = "atm-oc3-155"))
  )
  invisible(out_dir)
}

# The same toy experiments as liu95cool's Tahoe-stack setup (configs/liu95cool-tahoe.yaml):
# ids with "-tahoe", stack tahoe in virtual time, and ttcp rows with the link's and the
# receiving host's drop counters.
make_synthetic_tahoe <- function(out_dir, experiments = names(synthetic_experiments),
                                 trials = 3, echoes = 5, seed = 43) {
  set.seed(seed)
  tahoe_rows <- function(rows, id) {
    dplyr::mutate(rows, experiment = id, stack = "tahoe", backend = "sim", run_id = paste0("synthetic-", id))
  }
  for (experiment in experiments) {
    id <- paste0(experiment, "-tahoe")
    # The run's drops by place, its totals on each of its rows: every datagram lost at the echo
    # host's socket buffer.
    rows <- tahoe_rows(synthetic_rows(experiment, trials, echoes), id) |>
      dplyr::group_by(mode) |>
      dplyr::mutate(
        run_drops_send_queue = 0, run_drops_link = 0, run_drops_echo_ipq = 0,
        run_drops_echo_socket = sum(datagrams - datagrams_returned), run_drops_client_ipq = 0,
        run_drops_client_socket = 0
      ) |>
      dplyr::ungroup()
    order <- unique(paste(rows$mode, rows$message_bytes, rows$trial, sep = ":"))
    link <- synthetic_links[[synthetic_experiments[[experiment]]$network]]
    write_fixture(
      file.path(out_dir, "liu95cool", id), rows,
      list(synthetic_provenance("liu95cool", id, order, link = link, backend = "sim", stack = "tahoe"))
    )
  }
  # Fig 15 on the ATM LAN, and the Ethernet's cooling sweep beyond the paper.
  for (ttcp_id in c("atm-ttcp-cooling-tahoe", "lan-ttcp-cooling-tahoe")) {
    link <- if (startsWith(ttcp_id, "atm")) "atm-oc3-155" else "ethernet-10"
    ttcp <- dplyr::mutate(tahoe_rows(synthetic_ttcp_rows(3), ttcp_id), link = link)
    lost <- dplyr::coalesce(ttcp$datagrams_sent - ttcp$datagrams_received, 0)
    ttcp$link_drops <- 0
    ttcp$link_cells_lost <- 0
    ttcp$receiver_fullsock <- lost
    ttcp$receiver_ipq_drops <- 0
    write_fixture(
      file.path(out_dir, "liu95cool", ttcp_id), ttcp,
      list(synthetic_provenance("liu95cool", ttcp_id, list(), link = link, backend = "sim", stack = "tahoe"))
    )
  }
  invisible(out_dir)
}

make_synthetic_comer94 <- function(out_dir, repeats = 4, backends = c("sim", "linkemu"),
                                   trace = TRUE, seed = 42) {
  set.seed(seed)
  rows <- synthetic_comer94_rows(repeats, backends)
  provenance <- purrr::map(backends, function(b) {
    here <- rows[rows$backend == b, ]
    order <- unique(paste(here$send_buffer, here$recv_buffer, here$`repeat`, sep = ":"))
    synthetic_provenance("comer94", "table1", order,
      link = "atm-taxi-100", backend = b, stack = "tahoe", run_id = paste0("synthetic-table1-", b)
    )
  })
  write_fixture(file.path(out_dir, "comer94", "table1"), rows, provenance)
  if (trace) {
    provenance <- list(synthetic_provenance("comer94", "circular-wait", list(),
      link = "atm-taxi-100", backend = "sim", stack = "tahoe"
    ))
    transfer <- data.frame(paper = "comer94", experiment = "circular-wait", link = "atm-taxi-100",
      stack = "tahoe", backend = "sim", host = "sparcstation-ipc", send_buffer = 16384,
      recv_buffer = 24576, `repeat` = 1, bytes = 65536, throughput_mbit = 0.78,
      run_id = "synthetic-circular-wait", check.names = FALSE
    )
    write_fixture(file.path(out_dir, "comer94", "circular-wait"), transfer, provenance)
    write_fixture(
      file.path(out_dir, "comer94", "circular-wait"), synthetic_circular_rows(), provenance,
      file = "trace.csv"
    )
  }
  make_synthetic_comer94_extra(out_dir)
  invisible(out_dir)
}

# Toy rows of comer94's Fig 8 traces, Sec 5 Ethernet matrix and Sec 1 ftp
# transfers: the circular-wait trace relabelled as both traced pairs, a
# lockstep row and column on Ethernet, and a slower ATM ftp.
make_synthetic_comer94_extra <- function(out_dir) {
  base <- list(paper = "comer94", stack = "tahoe", backend = "sim", host = "sparcstation-ipc")
  for (recv in c(16384, 20480)) {
    experiment <- paste0("fig8-16k", recv / 1024, "k")
    trace <- synthetic_trace_rows()
    trace$backend <- "sim"
    trace$rule[trace$direction == "data" & recv == 16384] <- "S3"
    transfer <- data.frame(base, experiment = experiment, link = "atm-taxi-100",
      send_buffer = 16384, recv_buffer = recv, `repeat` = 1, bytes = 262144,
      throughput_mbit = if (recv == 16384) 15 else 13, run_id = paste0("synthetic-", experiment),
      check.names = FALSE
    )
    provenance <- list(synthetic_provenance("comer94", experiment, list(),
      link = "atm-taxi-100", backend = "sim", stack = "tahoe"
    ))
    write_fixture(file.path(out_dir, "comer94", experiment), transfer, provenance)
    write_fixture(file.path(out_dir, "comer94", experiment), trace, provenance, file = "trace.csv")
  }
  grid <- expand.grid(send_buffer = c(2048, 3072, 4096, 4380, 5120, 6144, 8192),
    recv_buffer = c(4096, 6144, 8192, 12288, 16384))
  lockstep <- grid$send_buffer <= 3072 & grid$recv_buffer >= 6144
  ethernet <- data.frame(base, experiment = "ethernet", link = "ethernet-10", grid,
    `repeat` = 1, bytes = 1048576, throughput_mbit = ifelse(lockstep, 0.082, 6 + grid$send_buffer / 4096),
    run_id = "synthetic-ethernet", check.names = FALSE
  )
  write_fixture(file.path(out_dir, "comer94", "ethernet"), ethernet,
    list(synthetic_provenance("comer94", "ethernet", list(), link = "ethernet-10", backend = "sim", stack = "tahoe"))
  )
  for (link in c("ethernet-10", "atm-taxi-100")) {
    experiment <- if (link == "ethernet-10") "ftp-ethernet" else "ftp-atm"
    ftp <- data.frame(base, experiment = experiment, link = link, window = 16384, `repeat` = 1:2,
      bytes = 4400000, throughput_mbit = if (link == "ethernet-10") 1.3 else 0.37,
      run_id = paste0("synthetic-", experiment), check.names = FALSE
    )
    write_fixture(file.path(out_dir, "comer94", experiment), ftp,
      list(synthetic_provenance("comer94", experiment, list(), link = link, backend = "sim", stack = "tahoe"))
    )
  }
}

# Toy liu95db echo experiments: link, modes and message sizes.
liu95db_echo_specs <- list(
  "atm-8k" = list(mirrors = "Fig 12", link = "atm-taxi-100", modes = c("tcp", "udp"), sizes = 8192),
  "ethernet-8k" = list(
    mirrors = "Fig 12", link = "ethernet-10", modes = c("tcp", "udp"), sizes = 8192
  ),
  "atm-100k" = list(mirrors = "Fig 13", link = "atm-taxi-100", modes = "tcp", sizes = 102400),
  "ethernet-100k" = list(mirrors = "Fig 13", link = "ethernet-10", modes = "tcp", sizes = 102400),
  "atm-boundaries" = list(
    mirrors = "Fig 15", link = "atm-taxi-100", modes = "tcp",
    sizes = c(4096, 4097, 12287, 12288, 16384, 16385, 24575, 24576, 28672, 28673)
  ),
  "atm-nodelay" = list(
    mirrors = "Fig 16", link = "atm-taxi-100", modes = c("tcp", "tcp-nodelay"),
    sizes = c(8192, 102400)
  ),
  "ethernet-nodelay" = list(
    mirrors = "Fig 16", link = "ethernet-10", modes = c("tcp", "tcp-nodelay"),
    sizes = c(8192, 102400)
  )
)
# The experiments of Secs 2 and 3.2 beyond Figs 12, 15 and 16: virtual time
# only, as udp-cooled runs there.
toy_nasa_sizes <- c(
  6988, 7708, 17027, 29668, 35543, 60379, 74058, 80385, 97835, 104365, 114323, 135701,
  153634, 175405, 205747, 236199, 279786, 406851, 486430
)
toy_all_modes <- c("tcp-per-message", "tcp-nodelay", "tcp", "udp-cooled", "udp")
toy_lan_modes <- c("tcp-per-message", "tcp", "udp-cooled", "udp")
toy_spec <- function(mirrors, link, modes, sizes) {
  list(mirrors = mirrors, link = link, modes = modes, sizes = sizes, backends = "sim")
}
liu95db_echo_specs <- c(liu95db_echo_specs, list(
  "lan-512b" = toy_spec("Fig 2a", "ethernet-10", toy_all_modes, c(16, 128, 256, 511)),
  "lan-2k" = toy_spec("Fig 2b", "ethernet-10", toy_all_modes, c(256, 1024, 1460, 2047)),
  "lan-large" = toy_spec("Fig 3", "ethernet-10", toy_lan_modes, c(4096, 16384, 40960, 81920)),
  "lan-print" = toy_spec("Fig 1", "ethernet-10", c("tcp", "udp"), c(4096, 16384, 40960, 81920)),
  "lan-very-large" = toy_spec(
    "Fig 4", "ethernet-10", toy_lan_modes, c(51200, 204800, 512000, 1024000)
  ),
  "lan-nasa" = toy_spec("Fig 5", "ethernet-10", toy_all_modes, toy_nasa_sizes),
  "ethernet-boundaries" = toy_spec(
    "Sec 3.2.2", "ethernet-10", "tcp",
    c(4096, 4097, 5556, 5557, 7015, 7016, 8476, 8477, 9935, 9936)
  ),
  "wan-1k" = toy_spec("Fig 6", "wan-1995", toy_all_modes, c(16, 256, 512, 1023)),
  "wan-large" = toy_spec("Fig 7", "wan-1995", toy_lan_modes, c(4096, 16384, 40960, 81920)),
  "wan-very-large" = toy_spec("Fig 8", "wan-1995", toy_lan_modes, c(51200, 204800, 512000)),
  "wan-nasa" = toy_spec("Fig 9", "wan-1995", toy_lan_modes, toy_nasa_sizes),
  "atm-1k" = toy_spec("Fig 11", "atm-taxi-100", c("tcp", "udp"), 1024),
  "ethernet-1k" = toy_spec("Fig 11", "ethernet-10", c("tcp", "udp"), 1024),
  "atm-nasa" = toy_spec("Fig 14", "atm-taxi-100", c("tcp", "tcp-nodelay", "udp"), toy_nasa_sizes),
  "atm-100k-32k" = toy_spec("Fig 17", "atm-taxi-100", "tcp-nodelay", 102400),
  "ethernet-100k-32k" = toy_spec("Fig 17", "ethernet-10", "tcp-nodelay", 102400),
  "atm-nasa-32k" = toy_spec("Fig 18", "atm-taxi-100", "tcp-nodelay", toy_nasa_sizes),
  "ethernet-nasa-32k" = toy_spec("Fig 18", "ethernet-10", "tcp-nodelay", toy_nasa_sizes)
))

# Toy share of a UDP message's datagrams that come back: losses grow with
# size, cooling halves them, ATM loses less than Ethernet and the WAN more.
toy_returned <- function(link, mode, datagrams) {
  lost <- pmin(0.9, datagrams / 150) * dplyr::case_when(
    startsWith(link, "atm") ~ 0.7, startsWith(link, "wan") ~ 3, TRUE ~ 1
  ) * (if (mode == "udp-cooled") 0.5 else 1)
  datagrams - pmin(datagrams, floor(datagrams * pmin(lost, 1)))
}

# Toy: a size waits for the delayed-ACK timer when its last segment cannot
# be sent at once, loosely after liu95db's ranges (ATM: 12K periods with a
# 4K normal stretch; Ethernet: 2 x 1460 periods after 4K).
toy_waits_for_timer <- function(bytes, link) {
  if (startsWith(link, "atm")) {
    bytes %% 12288 > 4096
  } else {
    bytes > 4096 & (bytes - 4096) %% 2920 > 1460
  }
}

# Toy echo RTT in ms: two passes over the wire and the hosts, plus, for TCP
# without TCP_NODELAY at a waiting size, a timer wait that falls 10 ms per
# echo (the saw-tooth). Backend "sim" is noiseless.
toy_echo_rtt <- function(link, mode, bytes, echo, backend, buffer = 16384, printed = FALSE) {
  rate_mbit <- if (startsWith(link, "atm")) 100 else if (startsWith(link, "wan")) 1.5 else 10
  base <- 0.4 + 2 * bytes * 8 / (rate_mbit * 1000) * (16384 / buffer)^0.3 + 2 * bytes * 0.0004 +
    if (mode == "tcp-per-message") 3 else 0
  base <- base * if (startsWith(mode, "udp")) 0.8 else 1
  base <- base + if (printed && mode == "udp") 2 * ceiling(bytes / 8192) else 0
  wait <- if (mode == "tcp" && toy_waits_for_timer(bytes, link)) {
    100 + (190 - 10 * (echo - 1)) %% 200
  } else {
    0
  }
  noise <- if (backend == "sim") 1 else exp(stats::rnorm(length(echo), 0, 0.03))
  (base + wait) * noise
}

synthetic_liu95db_echo_rows <- function(experiment, backend, echoes) {
  spec <- liu95db_echo_specs[[experiment]]
  grid <- expand.grid(
    echo = seq_len(echoes), size = spec$sizes, mode = spec$modes, stringsAsFactors = FALSE
  )
  buffer <- if (grepl("32k", experiment)) 32768 else 16384
  rtt <- unlist(purrr::pmap(list(grid$mode, grid$size, grid$echo), function(m, b, e) {
    toy_echo_rtt(spec$link, m, b, e, backend, buffer, experiment == "lan-print")
  }))
  udp <- startsWith(grid$mode, "udp")
  sent <- ifelse(udp, ceiling(grid$size / 8192), 0)
  returned <- unlist(purrr::pmap(list(grid$mode, sent), function(m, d) {
    toy_returned(spec$link, m, d)
  }))
  returned <- ifelse(udp & spec$link != "atm-taxi-100" & grid$size <= 2047, sent, returned)
  complete <- returned == sent
  data.frame(
    paper = "liu95db", experiment = experiment, mirrors = spec$mirrors, link = spec$link,
    stack = "tahoe", backend = backend, host = "sparcstation-ipc",
    send_buffer = buffer, recv_buffer = buffer, mode = grid$mode, message_set = "toy",
    message_name = ifelse(grid$size %in% toy_nasa_sizes, paste0("file-", grid$size, ".gif"), ""),
    message_bytes = grid$size, trial = 1, echo = grid$echo,
    rtt_ms = ifelse(complete, round(rtt, 3), NA), datagrams = sent,
    datagrams_returned = returned,
    # Toy: uncooled UDP's messages over 200 KB come back with a twentieth out of order.
    datagrams_misordered = ifelse(grid$mode == "udp" & grid$size > 204800, floor(returned / 20), 0),
    complete = complete, cool_gap_us = ifelse(grid$mode == "udp-cooled", 880, NA),
    run_id = paste0("synthetic-", experiment, "-", backend)
  )
}

# Toy Table 3 transfers with TCP_NODELAY: every pair streams a little slower
# than the comer94 toy, except a 16K send buffer with receive buffers of 48K
# or more, which moves 16K per 200 ms tick. Backend "linkemu" runs 20 % faster
# at 28K/28K so that the backend comparison has a disagreement to show.
synthetic_table3_rows <- function(repeats, backends) {
  grid <- expand.grid(
    repeat_no = seq_len(repeats), recv_buffer = comer94_buffers,
    send_buffer = comer94_buffers, backend = backends, stringsAsFactors = FALSE
  )
  streaming <- 0.9 * (12 + 9 * (1 - exp(-(grid$send_buffer + grid$recv_buffer - 32768) / 30000)))
  lockstep <- grid$send_buffer == 16384 & grid$recv_buffer >= 49152
  off <- grid$backend == "linkemu" & grid$send_buffer == 28672 & grid$recv_buffer == 28672
  throughput <- dplyr::if_else(lockstep, 16384 * 8 / 0.2 / 1e6, streaming) *
    dplyr::if_else(off, 1.2, 1) *
    dplyr::if_else(grid$backend == "sim", 1, exp(stats::rnorm(nrow(grid), 0, 0.01)))
  data.frame(
    paper = "liu95db", experiment = "table3", mirrors = "Table 3", link = "atm-taxi-100",
    stack = "tahoe", backend = grid$backend, host = "sparcstation-ipc",
    send_buffer = grid$send_buffer, recv_buffer = grid$recv_buffer, nodelay = TRUE, trial = 1,
    `repeat` = grid$repeat_no, bytes = 1048576, throughput_mbit = round(throughput, 4),
    receiver_throughput_mbit = round(throughput * 0.99, 4),
    run_id = paste0("synthetic-table3-", grid$backend), check.names = FALSE
  )
}

# A liu95db results tree: each echo experiment with the backends named for
# it in `echo_backends` (experiments not named are not written), and Table 3
# with `table3_backends` (none: not written).
make_synthetic_liu95db <- function(out_dir, echo_backends, table3_backends = c("sim", "linkemu"),
                                   echoes = 20, repeats = 2, seed = 42) {
  set.seed(seed)
  for (experiment in names(echo_backends)) {
    rows <- dplyr::bind_rows(purrr::map(echo_backends[[experiment]], function(b) {
      synthetic_liu95db_echo_rows(experiment, b, echoes)
    }))
    provenance <- purrr::map(echo_backends[[experiment]], function(b) {
      here <- rows[rows$backend == b, ]
      synthetic_provenance("liu95db", experiment,
        unique(paste(here$mode, here$message_bytes, here$trial, sep = ":")),
        link = liu95db_echo_specs[[experiment]]$link, backend = b, stack = "tahoe",
        run_id = paste0("synthetic-", experiment, "-", b)
      )
    })
    write_fixture(file.path(out_dir, "liu95db", experiment), rows, provenance)
  }
  if (length(table3_backends) > 0) {
    rows <- synthetic_table3_rows(repeats, table3_backends)
    provenance <- purrr::map(table3_backends, function(b) {
      synthetic_provenance("liu95db", "table3", list(),
        link = "atm-taxi-100", backend = b, stack = "tahoe", run_id = paste0("synthetic-table3-", b)
      )
    })
    write_fixture(file.path(out_dir, "liu95db", "table3"), rows, provenance)
  }
  invisible(out_dir)
}

# Toy ishikura MFTP transfers: N windows of whole 9148-octet segments per RTT, a toy host
# limit, and throughput falling with the packet error rate; every experiment of
# configs/ishikura.yaml, one setup.
toy_mftp_mbit <- function(n, window, rtt_ms, per, limit = 30) {
  in_flight <- pmax(floor(window / 9148), 1) * 9148
  ideal <- n * in_flight * 8 / (pmax(rtt_ms, 1) / 1000) / 1e6
  pmin(limit, 0.8 * ideal) * (1 - per)^(1 + 8 / n)
}

make_synthetic_ishikura <- function(out_dir, repeats = 3) {
  per <- function(clr, ber) 1 - (1 - clr)^188 * (1 - ber)^72000
  grids <- list(
    fig6 = tidyr::expand_grid(added_rtt_ms = c(0, 100, 200, 300, 500), connections = 1:16),
    fig7 = tidyr::expand_grid(added_rtt_ms = 100, window = c(4, 8, 12, 16, 18, 20, 24, 28, 32, 36, 40, 44, 48, 51) * 1024),
    `cell-loss` = tidyr::expand_grid(
      cell_loss_ratio = c(3.8e-6, 1.5e-5, 6e-5, 2.4e-4), added_rtt_ms = c(0, 100, 200, 300, 500),
      connections = c(1, 2, 4, 8, 12, 16)
    ),
    `bit-error` = tidyr::expand_grid(bit_error_ratio = c(3e-8, 6e-8, 1.2e-7, 2.4e-7, 4.8e-7), added_rtt_ms = 200, connections = c(1, 4, 16)),
    `table2-multi` = tidyr::expand_grid(connections = c(1, 2, 4, 6, 8), window = 65535, link = "ethernet-bridged"),
    `table2-single` = tidyr::expand_grid(window = c(65535, 131072, 262144, 393216, 524288), link = "ethernet-bridged"),
    sec2 = tidyr::expand_grid(added_rtt_ms = 200, window = 65535),
    `auto-n` = tidyr::expand_grid(added_rtt_ms = c(100, 200, 300, 500)),
    `fig1-multi` = tidyr::expand_grid(cell_loss_ratio = c(3.8e-6, 1.5e-5), connections = c(4, 16)),
    `fig1-single` = tidyr::expand_grid(cell_loss_ratio = c(3.8e-6, 1.5e-5), window = c(4, 16) * 24576)
  )
  for (id in names(grids)) {
    has <- names(grids[[id]])
    traced <- startsWith(id, "fig1")
    rows <- grids[[id]] |>
      tidyr::expand_grid(`repeat` = seq_len(repeats)) |>
      dplyr::mutate(
        paper = "ishikura", experiment = id, mirrors = "synthetic",
        link = if ("link" %in% has) link else "atm-wan-emulator",
        stack = "tahoe", backend = "sim", host = "sparcstation-20", trial = 1L,
        connections = if ("connections" %in% has) connections else 1,
        window = if ("window" %in% has) window else 24576,
        added_rtt_ms = if ("added_rtt_ms" %in% has) added_rtt_ms else 200,
        cell_loss_ratio = if ("cell_loss_ratio" %in% has) cell_loss_ratio else 0,
        bit_error_ratio = if ("bit_error_ratio" %in% has) bit_error_ratio else
          ifelse(link == "ethernet-bridged", 3e-7 / 48, 0),
        connections_chosen_by = "override", window_in_force = window, window_scale = window > 65535,
        block_size = 32768, bytes = 16 * 2^20,
        throughput_mbit = toy_mftp_mbit(connections, window, added_rtt_ms, per(cell_loss_ratio, bit_error_ratio)) *
          (1 + 0.01 * `repeat`),
        elapsed_s = bytes * 8 / (throughput_mbit * 1e6), rtt_measured_ms = added_rtt_ms + 0.2,
        formula_connections = NA_real_, retransmitted_packets = round(2e4 * per(cell_loss_ratio, bit_error_ratio)),
        retransmit_timeouts = round(retransmitted_packets / 10),
        run_id = paste0("synthetic-", id, "-", connections, "-", window, "-", cell_loss_ratio),
        # Toy recoveries of the Fig 1 runs: the formula's Tr, a little slower.
        recovery_formula_rtts = if (traced) log2(window / 18296) + window / 18296 else NA_real_,
        recovery_rtts = 1.2 * recovery_formula_rtts, recovery_s = 0.2 * recovery_rtts,
        recoveries = if (traced) 5 else NA_real_, recoveries_cut = if (traced) 1 else NA_real_,
        recoveries_unfinished = if (traced) 1 else NA_real_,
        base_rtt_ms = if (traced) 200.5 else NA_real_
      )
    write_fixture(
      file.path(out_dir, "ishikura", id), rows,
      list(synthetic_provenance("ishikura", id, list(), link = rows$link[1], backend = "sim", stack = "tahoe"))
    )
  }
  invisible(out_dir)
}

# Toy ipcbench messages of every milliner experiment: throughput near the toy
# line rate, falling once the toy message passes the toy memory (paging).
synthetic_milliner_rows <- function(experiment, curves, sizes, repeats, stack = "tahoe") {
  grid <- tidyr::expand_grid(curves, message_bytes = sizes, repeat_no = seq_len(repeats))
  toy_mbit <- 9 - 2 / pmax(dplyr::coalesce(grid$segment, grid$buffer) / 1024, 1)
  paged <- grid$message_bytes > 12.5e6
  shared <- startsWith(experiment, "collisions")
  thr <- toy_mbit / ifelse(paged, 4, 1) * stats::runif(nrow(grid), 0.99, 1.01)
  tibble::tibble(
    paper = "milliner", experiment = experiment, mirrors = "synthetic", link = "ethernet-10",
    stack = stack, backend = "synthetic", host = "sun-4c-20mb", host_b = "sun-4c-16mb",
    trial = 1, `repeat` = grid$repeat_no, mode = grid$mode, curve = grid$curve,
    segment = grid$segment, unack = grid$unack, buffer = grid$buffer,
    message_bytes = grid$message_bytes, elapsed_s = grid$message_bytes * 8 / (thr * 1e6),
    throughput_mbit = thr, echo_s = NA, echo_equal = NA, completed = !(grid$unack %in% 8:10),
    segments = NA, acks = NA, retransmissions = ifelse(grid$unack %in% 8:10, 5, 0),
    a_pageins = ifelse(paged, 100, 0), a_pageouts = ifelse(paged, 100, 0), b_pageins = 0,
    b_pageouts = 0, sender_drops = 0, link_drops = 0, receiver_fullsock = 0, receiver_ipq_drops = 0,
    receiver_frag_drops = 0,
    medium_a_frames = if (shared) round(grid$message_bytes / 1500) else NA,
    medium_a_collisions = if (shared) round(grid$message_bytes / 60000) else NA,
    medium_b_frames = if (shared) round(grid$message_bytes / 3000) else NA,
    medium_b_collisions = if (shared) round(grid$message_bytes / 300000) else NA,
    medium_frames = if (shared) medium_a_frames + medium_b_frames else NA,
    medium_collisions = if (shared) medium_a_collisions + medium_b_collisions else NA,
    collision_pct = if (shared) 2 else NA, run_id = paste0("synthetic-", experiment)
  )
}

make_synthetic_milliner <- function(out_dir, repeats = 2, seed = 42) {
  set.seed(seed)
  udp <- function(segments, unack) {
    tidyr::expand_grid(segment = segments, unack = unack) |>
      dplyr::mutate(mode = "udp", buffer = NA_real_, curve = paste0("udp ", segment, "B ", unack, "UnAck"))
  }
  tcp <- function(buffers) {
    tibble::tibble(mode = "tcp", segment = NA_real_, unack = NA_real_, buffer = buffers,
                   curve = paste0("tcp ", buffers, "B"))
  }
  # ONC RPC: its record buffers; the toy throughput of a small buffer puts it below TCP.
  rpc <- function(buffers) dplyr::mutate(tcp(buffers), mode = "rpc", curve = paste0("rpc ", buffers, "B"))
  # On the Linux stack, emulated (configs/milliner.yaml).
  linux <- c("compare-rpc", "compare-tcp-linux")
  mb <- 1048576
  specs <- list(
    "udp-segments-1024" = list(udp(1024 * 1:8, 1), mb * 1:5),
    "udp-segments-1460" = list(udp(1460 * 1:6, 1), mb * 1:5),
    "udp-unack" = list(udp(c(8192, 8760, 9000), c(1, 6)), mb * 1:5),
    "udp-unack-limit" = list(udp(9000, 1:10), 5 * mb),
    "tcp-buffers-small" = list(tcp(c(4096, 16384, 50000)), c(65536, mb)),
    "tcp-buffers" = list(tcp(c(4096, 16384, 50000)), mb * 1:24),
    "compare-udp" = list(udp(9000, c(1, 6)), mb * 1:24),
    "compare-tcp" = list(tcp(50000), mb * 1:24),
    "compare-rpc" = list(rpc(4096), mb * 1:24),
    "compare-tcp-linux" = list(tcp(50000), mb * 1:24),
    "collisions-tcp" = list(tcp(50000), mb * 1:5),
    "collisions-udp" = list(udp(9000, c(1, 6)), mb * 1:5)
  )
  for (experiment in names(specs)) {
    stack <- if (experiment %in% linux) "linux" else "tahoe"
    rows <- synthetic_milliner_rows(experiment, specs[[experiment]][[1]], specs[[experiment]][[2]], repeats, stack)
    write_fixture(
      file.path(out_dir, "milliner", experiment), rows,
      list(synthetic_provenance("milliner", experiment, unique(rows$curve), backend = "synthetic", stack = stack))
    )
  }
  invisible(out_dir)
}

synthetic_targets <- c(
  names(synthetic_experiments), "atm-ttcp-cooling", "liu95cool-tahoe", "comer94", "liu95db",
  "ishikura", "milliner"
)

# Each report's test data: a report reports/<id>.Rmd and the targets above that
# together feed it. tests/test_browser.py renders every report listed here from
# these fixtures and opens it in a browser; a new report adds its line.
synthetic_reports <- list(
  liu95cool = c(names(synthetic_experiments), "atm-ttcp-cooling", "liu95cool-tahoe"),
  comer94 = "comer94",
  liu95db = c("liu95db", "comer94"),
  ishikura = "ishikura",
  milliner = "milliner"
)

if (sys.nframe() == 0) {
  args <- commandArgs(trailingOnly = TRUE)
  if (identical(args, "--reports")) {
    writeLines(names(synthetic_reports))
    quit(status = 0)
  }
  if (length(args) < 1) {
    stop(
      "usage: Rscript reports/tests/synthetic-results.R <out_dir> [experiment or report ...]\n",
      "       Rscript reports/tests/synthetic-results.R --reports   (the reports with test data)\n",
      "  experiments: ", paste(synthetic_targets, collapse = ", "), " (default: all)\n",
      "  reports: ", paste(names(synthetic_reports), collapse = ", "),
      call. = FALSE
    )
  }
  targets <- if (length(args) > 1) args[-1] else synthetic_targets
  targets <- unique(unlist(purrr::map(targets, function(t) synthetic_reports[[t]] %||% t)))
  unknown <- setdiff(targets, synthetic_targets)
  if (length(unknown) > 0) {
    stop("unknown synthetic experiment(s): ", paste(unknown, collapse = ", "), call. = FALSE)
  }
  make_synthetic_results(args[1], intersect(targets, names(synthetic_experiments)))
  if ("atm-ttcp-cooling" %in% targets) make_synthetic_ttcp(args[1])
  if ("liu95cool-tahoe" %in% targets) make_synthetic_tahoe(args[1])
  if ("comer94" %in% targets) make_synthetic_comer94(args[1])
  if ("ishikura" %in% targets) make_synthetic_ishikura(args[1])
  if ("milliner" %in% targets) make_synthetic_milliner(args[1])
  if ("liu95db" %in% targets) {
    both <- purrr::map(liu95db_echo_specs, function(spec) spec$backends %||% c("sim", "linkemu"))
    make_synthetic_liu95db(args[1], both)
  }
  message("SYNTHETIC results written to ", args[1])
}
