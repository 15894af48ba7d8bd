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
    host_model = "synthetic",
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
    write_fixture(
      file.path(out_dir, "comer94", "circular-wait"), synthetic_trace_rows(),
      list(synthetic_provenance("comer94", "circular-wait", list(),
        link = "atm-taxi-100", backend = "sim", stack = "tahoe"
      )),
      file = "trace.csv"
    )
  }
  invisible(out_dir)
}

# Toy liu95db echo experiments: link, modes and message sizes.
liu95db_echo_specs <- list(
  "atm-8k" = list(mirrors = "Fig 12", link = "atm-taxi-100", modes = c("tcp", "udp"), sizes = 8192),
  "ethernet-8k" = list(
    mirrors = "Fig 12", link = "ethernet-10", modes = c("tcp", "udp"), sizes = 8192
  ),
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
toy_echo_rtt <- function(link, mode, bytes, echo, backend) {
  rate_mbit <- if (startsWith(link, "atm")) 100 else 10
  base <- 0.4 + 2 * bytes * 8 / (rate_mbit * 1000) + 2 * bytes * 0.0004
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
  rtt <- unlist(purrr::pmap(list(grid$mode, grid$size, grid$echo), function(m, b, e) {
    toy_echo_rtt(spec$link, m, b, e, backend)
  }))
  udp <- grid$mode == "udp"
  data.frame(
    paper = "liu95db", experiment = experiment, mirrors = spec$mirrors, link = spec$link,
    stack = "tahoe", backend = backend, host = "sparcstation-ipc",
    send_buffer = 16384, recv_buffer = 16384, mode = grid$mode, message_set = "toy",
    message_name = "", message_bytes = grid$size, trial = 1, echo = grid$echo,
    rtt_ms = round(rtt, 3), datagrams = ifelse(udp, ceiling(grid$size / 8192), 0),
    datagrams_returned = ifelse(udp, ceiling(grid$size / 8192), 0), complete = TRUE,
    cool_gap_us = NA, run_id = paste0("synthetic-", experiment, "-", backend)
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

synthetic_targets <- c(names(synthetic_experiments), "atm-ttcp-cooling", "comer94", "liu95db")

if (sys.nframe() == 0) {
  args <- commandArgs(trailingOnly = TRUE)
  if (length(args) < 1) {
    stop(
      "usage: Rscript reports/tests/synthetic-results.R <out_dir> [experiment ...]\n",
      "  experiments: ", paste(synthetic_targets, collapse = ", "), " (default: all)",
      call. = FALSE
    )
  }
  targets <- if (length(args) > 1) args[-1] else synthetic_targets
  unknown <- setdiff(targets, synthetic_targets)
  if (length(unknown) > 0) {
    stop("unknown synthetic experiment(s): ", paste(unknown, collapse = ", "), call. = FALSE)
  }
  make_synthetic_results(args[1], intersect(targets, names(synthetic_experiments)))
  if ("atm-ttcp-cooling" %in% targets) make_synthetic_ttcp(args[1])
  if ("comer94" %in% targets) make_synthetic_comer94(args[1])
  if ("liu95db" %in% targets) {
    both <- purrr::map(liu95db_echo_specs, function(spec) c("sim", "linkemu"))
    make_synthetic_liu95db(args[1], both)
  }
  message("SYNTHETIC results written to ", args[1])
}
