# liu95cool's two setups (reports/R/liu95cool.R).

test_that("base_experiment strips only the setup suffix", {
  expect_equal(
    base_experiment(c("lan-2k-tahoe", "lan-2k", "atm-ttcp-cooling-tahoe", "tahoe-lan")),
    c("lan-2k", "lan-2k", "atm-ttcp-cooling", "tahoe-lan")
  )
})

test_that("read_setup_results reads both setups under the paper's ids", {
  dir <- withr::local_tempdir()
  make_synthetic_results(dir, "lan-2k", trials = 1, echoes = 2)
  make_synthetic_tahoe(dir, c("lan-2k", "wan-1k"), trials = 1, echoes = 2)
  got <- read_setup_results(dir, "liu95cool", c("lan-2k", "wan-1k", "atm-small"))
  expect_setequal(unique(got$data$experiment), c("lan-2k", "wan-1k"))
  expect_equal(got$missing, "atm-small")
  expect_setequal(unique(got$data$stack[got$data$experiment == "lan-2k"]), c("kernel", "tahoe"))
  expect_equal(unique(got$data$stack[got$data$experiment == "wan-1k"]), "tahoe")
})

test_that("read_setup_ttcp joins the setups' transfers, NULL when none", {
  dir <- withr::local_tempdir()
  expect_null(read_setup_ttcp(dir, "liu95cool", "atm-ttcp-cooling"))
  make_synthetic_ttcp(dir)
  make_synthetic_tahoe(dir, character())
  got <- read_setup_ttcp(dir, "liu95cool", "atm-ttcp-cooling")
  expect_equal(unique(got$experiment), "atm-ttcp-cooling")
  expect_setequal(unique(got$stack), c("kernel", "tahoe"))
})

transfers <- function(link_drops) {
  tibble::tibble(
    setup = "s", proto = c("udp", "udp", "tcp"), cool_iterations = c(0, 100, NA),
    datagrams_sent = c(100, 100, NA), datagrams_received = c(60, 90, NA),
    link_drops = link_drops, link_cells_lost = 0, receiver_fullsock = c(40, 10, 0),
    receiver_ipq_drops = 0
  )
}

test_that("ttcp_link_loss_share is the link's share of the lost datagrams", {
  expect_equal(ttcp_link_loss_share(transfers(c(0, 0, 0))), 0)
  expect_equal(ttcp_link_loss_share(transfers(c(25, 0, 0))), 50)
  expect_true(is.na(ttcp_link_loss_share(NULL)))
  none_lost <- dplyr::mutate(transfers(c(0, 0, 0)), datagrams_received = datagrams_sent)
  expect_true(is.na(ttcp_link_loss_share(none_lost)))
  expect_true(is.na(ttcp_link_loss_share(dplyr::select(transfers(0), -link_drops))))
})

test_that("the host-bottleneck claim is judged from the link's counters", {
  claims <- read_claims(file.path(reports_dir, "reference", "liu95cool-claims.csv"))
  f04 <- dplyr::filter(claims, claim_id == "F04")
  judge <- function(t) evaluate_claim(f04, tibble::tibble(experiment = character(), message_bytes = numeric()), list(ttcp_transfers = t))$verdict
  # No link drop by construction: agreement is the model's, a dropping link still disagrees.
  expect_equal(judge(transfers(c(0, 0, 0))), "follows from the model")
  expect_equal(judge(transfers(c(30, 0, 0))), "not reproduced")
  n <- evaluate_claim(f04, tibble::tibble(experiment = character(), message_bytes = numeric()), list(ttcp_transfers = transfers(c(0, 0, 0))))
  expect_equal(c(n$n, n$n_of), c(nrow(dplyr::filter(transfers(c(0, 0, 0)), proto == "udp")), "transfers"))
})

test_that("ttcp_drop_table splits UDP loss by where it happened", {
  got <- ttcp_drop_table(transfers(c(0, 5, 0)))
  expect_equal(got$cool_iterations, c(0, 100))
  expect_equal(got$lost, c(40, 10))
  expect_equal(got$link_drops, c(0, 5))
  expect_equal(got$socket_full, c(40, 10))
  expect_equal(nrow(ttcp_drop_table(NULL)), 0)
})

test_that("ttcp_drop_table leaves a counter no transfer recorded NA, and has no rows without any", {
  got <- ttcp_drop_table(dplyr::select(transfers(c(0, 5, 0)), -receiver_ipq_drops))
  expect_equal(got$link_drops, c(0, 5))
  expect_true(all(is.na(got$ip_input)))
  expect_equal(recorded_text(got$ip_input), rep("not recorded", 2))
  expect_equal(recorded_text(1234), "1,234")
  bare <- dplyr::select(transfers(0), -dplyr::any_of(ttcp_drop_columns))
  expect_equal(nrow(ttcp_drop_table(bare)), 0)
})

test_that("an RTT claim on a mode that never came back whole is not reproduced", {
  claim <- one_claim(metric = "share_faster", modes = "udp-cooled;tcp", check = "at_least",
                     target = 100, tolerance = 10, partly_tolerance = 50)
  rows <- dplyr::bind_rows(
    size_rows("udp-cooled", c(2e5, 4e5), rtt = NA_real_, sent = 50, back = 10),
    size_rows("tcp", c(2e5, 4e5), rtt = c(300, 600))
  ) |>
    dplyr::mutate(echoes = 5, complete_echoes = dplyr::if_else(mode == "tcp", 5, 0))
  got <- evaluate_claim(claim, rows)
  expect_true(is.na(got$measured))
  expect_equal(got$verdict, "not reproduced")
  # Without any echo of the mode, the claim stays unmeasured.
  expect_equal(evaluate_claim(claim, dplyr::filter(rows, mode == "tcp"))$verdict, "no data")
  # A loss metric that finds nothing is never turned into a verdict.
  expect_false(never_whole("max_loss", rows, c("udp-cooled", "tcp"), NA_real_))
})

test_that("dispersion_ratio cannot tell which of two echo series that never vary is the more predictable", {
  flat <- function(mode, spread) size_rows(mode, 5e4, rtt = 10, q25 = 10 - spread, q75 = 10 + spread)
  ratio <- claim_metrics$dispersion_ratio
  neither <- ratio(dplyr::bind_rows(flat("udp-cooled", 0), flat("udp", 0)), c("udp-cooled", "udp"))
  expect_true(is.na(neither))
  expect_match(attr(neither, "undecided"), "both spreads 0")
  claims <- read_claims(file.path(reports_dir, "reference", "liu95cool-claims.csv"))
  c11 <- dplyr::filter(claims, claim_id == "C11")
  rows <- dplyr::bind_rows(flat("udp-cooled", 0), flat("udp", 0)) |>
    dplyr::mutate(experiment = "lan-very-large", message_bytes = 2e5, echoes = 5, complete_echoes = 5)
  expect_equal(evaluate_claim(c11, rows)$verdict, "inconclusive")
  expect_equal(ratio(dplyr::bind_rows(flat("udp-cooled", 1), flat("udp", 0)), c("udp-cooled", "udp")), Inf)
  expect_equal(ratio(dplyr::bind_rows(flat("udp-cooled", 1), flat("udp", 2)), c("udp-cooled", "udp")), 0.5)
})

test_that("claims the cooling gap or the queue decide say so, and W02 is two-sided", {
  claims <- read_claims(file.path(reports_dir, "reference", "liu95cool-claims.csv"))
  basis <- stats::setNames(claims$target_basis, claims$claim_id)
  expect_true(all(startsWith(basis[c("C08", "C12", "C15")], "follows from assumption")))
  # The Linux setup's gap decides them there; the era hosts' loop is found by trial, so there
  # the data judge them.
  expect_true(all(startsWith(basis[c("C08", "C12", "C15")], "follows from assumption (stack linux)")))
  expect_true(all(grepl("cooling_gap (configs/liu95cool.yaml)", basis[c("C08", "C12", "C15")], fixed = TRUE)))
  expect_true(all(grepl("found by trial", basis[c("C08", "C12", "C15")], fixed = TRUE)))
  era <- basis_for_setup(basis[["C08"]], "ethernet-10 / tahoe / sim / sparcstation-ipc")
  expect_equal(basis_verdict(era, "reproduced"), "reproduced")
  linux <- basis_for_setup(basis[["C08"]], "ethernet-10 / linux / linkemu")
  expect_equal(basis_verdict(linux, "reproduced"), "follows from assumption")
  expect_true(all(grepl("assumption queue", basis[c("C07", "C13", "C14")], fixed = TRUE)))
  c08 <- dplyr::filter(claims, claim_id == "C08")
  expect_equal(judge_claim_row(c08, with_ci(0, 0, 0))$verdict, "follows from assumption")
  expect_equal(judge_claim_row(c08, with_ci(40, 35, 45))$verdict, "not reproduced")
  w02 <- dplyr::filter(claims, claim_id == "W02")
  # Cooled UDP 30 % slower than TCP is not "the same level"; the old one-sided rule passed it.
  expect_equal(judge_claim_row(w02, 30)$verdict, "not reproduced")
  expect_equal(judge_claim_row(w02, 5)$verdict, "reproduced")
  expect_equal(judge_claim_row(w02, -20)$verdict, "partly")
})

test_that("claims are judged on one backend per link and stack, echoes and ttcp alike", {
  echoes <- dplyr::bind_rows(
    echo_rows("udp", 8192, 1, datagrams = 1, returned = 1, experiment = "lan-2k") |>
      dplyr::mutate(link = "ethernet-10", stack = "tahoe", backend = "sim"),
    echo_rows("udp", 8192, 1, datagrams = 10, returned = 1, experiment = "lan-2k") |>
      dplyr::mutate(link = "ethernet-10", stack = "tahoe", backend = "linkemu")
  ) |>
    dplyr::mutate(setup = paste(link, stack, backend, sep = " / "))
  judged <- liu95cool_judged(echoes, NULL)
  expect_equal(judged$backend, "linkemu")
  ttcp <- tibble::tibble(link = "atm-oc3-155", stack = "tahoe", backend = "sim")
  expect_equal(nrow(liu95cool_judged(echoes, ttcp)), 2)
  claims <- one_claim(experiments = "lan-2k", target = 5, partly_tolerance = 5)
  table2 <- read_table2(file.path(reports_dir, "reference", "liu95cool-table2.csv"))
  evaluated <- judge_liu95cool(list(echoes = echoes), claims, table2, 10)
  expect_equal(evaluated$setup, "ethernet-10 / tahoe / linkemu")
  expect_equal(evaluated$measured, 90)
  without_emulation <- judge_liu95cool(list(echoes = echoes[1, ]), claims, table2, 10)
  expect_equal(without_emulation$measured, 0)
})

test_that("Table 2 reads its bounds and loss as numbers, and cooling gaps per experiment", {
  table2 <- read_table2(file.path(reports_dir, "reference", "liu95cool-table2.csv"))
  expect_type(table2$size_min_bytes, "double")
  expect_type(table2$acceptable_loss_pct, "double")
  expect_type(table2$recommended, "character")
  echoes <- dplyr::bind_rows(
    echo_rows("udp-cooled", c(1, 2), c(1, 1), experiment = "wan-1k"),
    echo_rows("udp-cooled", 1, 1, experiment = "lan-2k"),
    echo_rows("udp", 1, 1, experiment = "atm-small")
  ) |>
    dplyr::mutate(cool_gap_us = c(900, 900, 250, 0))
  gaps <- cooling_gaps(echoes)
  expect_equal(gaps$experiment, c("lan-2k", "wan-1k"))
  expect_equal(gaps$cool_gap_us, c(250, 900))
})

# Echo rows of the Tahoe stack in virtual time: two runs of udp, each row with its run's totals.
era_echoes <- function(...) {
  tibble::tibble(
    setup = "ethernet-10 / tahoe / sim / h", experiment = "lan-large", stack = "tahoe",
    backend = "sim", mode = "udp", run_id = c("r1", "r1", "r2"), datagrams = c(10, 10, 20),
    datagrams_returned = c(8, 10, 15), ...
  )
}

test_that("echo_drop_table takes each run's totals once and sums them over the runs", {
  echoes <- era_echoes(
    run_drops_send_queue = c(1, 1, 0), run_drops_link = c(0, 0, 3),
    run_drops_echo_ipq = c(4, 4, 2), run_drops_echo_socket = c(0, 0, 1),
    run_drops_client_ipq = 0, run_drops_client_socket = c(2, 2, 0)
  )
  got <- echo_drop_table(echoes)
  expect_equal(nrow(got), 1)
  expect_equal(c(got$runs, got$recorded_runs, got$sent, got$lost), c(2, 2, 40, 7))
  expect_equal(
    unlist(got[echo_drop_places], use.names = FALSE), c(1, 3, 6, 1, 0, 2)
  )
})

test_that("echo_drop_table leaves out other setups and TCP, and says not recorded without the columns", {
  echoes <- dplyr::bind_rows(
    era_echoes(),
    dplyr::mutate(era_echoes(), stack = "linux", backend = "linkemu"),
    dplyr::mutate(era_echoes(), mode = "tcp")
  )
  got <- echo_drop_table(echoes)
  expect_equal(nrow(got), 1)
  expect_true(all(is.na(unlist(got[echo_drop_places]))))
  expect_equal(got$recorded_runs, 0)
  view <- echo_drop_view(got)
  expect_equal(view$Link, "not recorded")
  expect_equal(view$`Runs (counted by place)`, "2 (0)")
})

test_that("echo_drop_table takes another stack and backend when asked, the emulated Linux hosts", {
  echoes <- dplyr::bind_rows(
    era_echoes(run_drops_echo_socket = 1),
    dplyr::mutate(era_echoes(run_drops_echo_socket = 5), stack = "linux", backend = "linkemu")
  )
  for (column in setdiff(echo_drop_places, "run_drops_echo_socket")) echoes[[column]] <- 0
  expect_equal(echo_drop_table(echoes)$run_drops_echo_socket, 2)
  linux <- echo_drop_table(echoes, on_stack = "linux", on_backend = "linkemu")
  expect_equal(c(nrow(linux), linux$run_drops_echo_socket, linux$recorded_runs), c(1, 10, 2))
})

test_that("echo_drop_table counts a run without a place's total as not recorded, and refuses rows that disagree", {
  echoes <- era_echoes(
    run_drops_send_queue = c(1, 1, NA), run_drops_link = 0, run_drops_echo_ipq = 0,
    run_drops_echo_socket = 0, run_drops_client_ipq = 0, run_drops_client_socket = 0
  )
  got <- echo_drop_table(echoes)
  expect_equal(c(got$recorded_runs, got$run_drops_send_queue), c(1, 1))
  echoes$run_drops_link <- c(0, 5, 0)
  expect_error(echo_drop_table(echoes), "disagree")
})

test_that("echo_drop_table reads the Tahoe setup's drops from results beside an emulated setup without them", {
  dir <- withr::local_tempdir()
  make_synthetic_results(dir, "lan-2k", trials = 1, echoes = 2)
  make_synthetic_tahoe(dir, "lan-2k", trials = 2, echoes = 2)
  got <- echo_drop_table(read_setup_results(dir, "liu95cool", "lan-2k")$data)
  expect_setequal(got$mode, udp_modes)
  expect_true(all(grepl("tahoe", got$setup)))
  # The synthetic runs lose every datagram at the echo host's socket buffer.
  expect_equal(got$run_drops_echo_socket, got$lost)
  expect_equal(got$recorded_runs, got$runs)
})
