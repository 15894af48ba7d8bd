# Hand-made formula table: ATM and Ethernet as liu95db writes them.
toy_formula <- tibble::tibble(
  network = c("ATM", "Ethernet"), link_prefix = c("atm", "ethernet"),
  offset_octets = c(0, 4096), period_octets = c(12288, 2920), normal_octets = c(4096, 1460),
  first_normal_period = c(0L, 1L), lead_abnormal_octets = c(0, 1459)
)

# Hand-made per-size summaries of one setup, link and mode.
rtt_sizes <- function(bytes, rtt, mode = "tcp", experiment = "exp", link = "atm-x",
                      setup = "s") {
  size_rows(mode, bytes, rtt = rtt, experiment = experiment, setup = setup) |>
    dplyr::mutate(link = link, backend = "b", rtt_mean = rtt, rtt_n = 1)
}

test_that("the formula's classes follow its ranges on ATM and Ethernet", {
  expect_equal(
    formula_class(c(4096, 4097, 12287, 12288, 8192, 102400), "ATM", toy_formula),
    c("normal", "abnormal", "abnormal", "normal", "abnormal", "normal")
  )
  # Ethernet as the paper writes it: normal 4K+2nM to 4K+(2n+1)M only from n = 1, and 4K+1 to
  # 4K+M-1 abnormal (the text after the formula); 4K+M lies in no range it gives.
  expect_equal(
    formula_class(
      c(4096, 4097, 4096 + 1459, 4096 + 1460, 4096 + 1461, 4096 + 2920, 4096 + 4380, 4096 + 4381, 102400),
      "Ethernet", toy_formula
    ),
    c("normal", "abnormal", "abnormal", NA, "abnormal", "normal", "normal", "abnormal", "abnormal")
  )
  eth_ranges <- formula_abnormal_ranges("Ethernet", toy_formula, 4096, 9935)
  expect_equal(eth_ranges$from, c(4097, 5557, 8477))
  expect_equal(eth_ranges$to, c(5555, 7015, 9935))
  expect_true(is.na(formula_class(1, "FDDI", toy_formula)))
  expect_equal(link_network(c("atm-taxi-100", "ethernet-10", "wan"), toy_formula), c("ATM", "Ethernet", NA))
  ranges <- formula_abnormal_ranges("ATM", toy_formula, 4096, 28673)
  expect_equal(ranges$from, c(4097, 16385, 28673))
  expect_equal(ranges$to, c(12287, 24575, 36863))
})

test_that("sizes are written as the paper writes them", {
  expect_equal(
    size_label(c(4096, 4097, 12287, 102400, 1000)),
    c("4K", "4K+1", "12K-1", "100K", "1000 octets")
  )
  expect_equal(size_range_label(c(12287, 8192, NA), c(12288, 8192, NA)), c(" (12K-1 to 12K)", " (8K)", ""))
})

test_that("a size is abnormal far above its lowest neighbour, unclassified alone", {
  sizes <- rtt_sizes(c(4096, 4097, 12287, 12288, 40000), c(5, 200, 190, 12, 50))
  classified <- classify_sizes(sizes, 2, 4096)
  expect_equal(classified$abnormal, c(FALSE, TRUE, TRUE, FALSE, NA))
  expect_equal(classified$lowest_near_ms[2], 5)
  predicted <- predict_sizes(classified, toy_formula)
  expect_equal(predicted$agree, c(TRUE, TRUE, TRUE, TRUE, NA))
  sensitivity <- size_class_sensitivity(sizes, c(2, 50), 4096)
  expect_equal(sensitivity$abnormal_sizes, c(2, 0))
})

test_that("echo steps join consecutive echoes of one trial only", {
  data <- dplyr::bind_rows(
    echo_rows("tcp", 8192, c(200, 190, NA, 170, 160), trial = 1),
    echo_rows("tcp", 8192, c(50, 40), trial = 2)
  )
  steps <- echo_steps(data)
  expect_equal(steps$step_ms, c(-10, -10, -10))
  expect_equal(steps$echo, c(2, 5, 2))
  summary <- sequence_summary(data, steps)
  expect_equal(summary$echoes, 6)
  expect_equal(summary$median_step_ms, -10)
  expect_equal(summary$declining_pct, 100)
})

test_that("echo metrics answer from hand-made sizes", {
  sizes <- dplyr::bind_rows(
    rtt_sizes(c(8192, 102400), c(200, 20), experiment = "atm"),
    rtt_sizes(c(8192, 102400), c(20, 100), experiment = "eth", link = "ethernet-x"),
    rtt_sizes(c(12287, 12288), c(150, 10), experiment = "edges")
  )
  m <- liu95db_echo_metrics
  expect_equal(m$rtt_mean(dplyr::filter(sizes, experiment == "atm"), "tcp"), 110)
  expect_equal(m$experiment_rtt_ratio_max(sizes, "tcp", experiments = c("atm", "eth")), 10)
  expect_true(is.na(m$experiment_rtt_ratio_max(sizes, "tcp", experiments = "atm")))
  expect_equal(m$rtt_ratio_first_last(dplyr::filter(sizes, experiment == "edges"), "tcp"), 15)
  steps <- tibble::tibble(mode = "tcp", message_bytes = 8192, step_ms = c(-10, -9, 180, -11))
  expect_equal(m$sawtooth_step(sizes, "tcp", extra = list(steps = steps)), -9.5)
  expect_true(is.na(m$sawtooth_step(sizes, "tcp")))
  agreement <- m$size_class_agreement(
    dplyr::filter(sizes, experiment == "edges"), "tcp",
    extra = list(formula = toy_formula, abnormal_factor = 2, neighbourhood_octets = 4096)
  )
  expect_equal(agreement, 100)
})

test_that("echo and matrix claims are judged on their own setups, in file order", {
  claims <- dplyr::bind_rows(
    one_claim(claim_id = "M", metric = "share_abnormal", experiments = "table3", check = "at_least", target = 100),
    one_claim(claim_id = "E", metric = "rtt_mean", experiments = "exp", modes = "tcp", check = "about", target = 100)
  ) |>
    dplyr::mutate(
      send_min_bytes = NA_real_, send_max_bytes = NA_real_,
      recv_min_bytes = NA_real_, recv_max_bytes = NA_real_
    )
  cells <- tibble::tibble(setup = "atm / tahoe / b", send_buffer = 1, recv_buffer = 1, mean_mbit = 1, abnormal = TRUE)
  evaluated <- evaluate_liu95db_claims(claims, rtt_sizes(8192, 100, setup = "tahoe / b"), cells, list())
  expect_equal(evaluated$claim_id, c("M", "E"))
  expect_equal(evaluated$setup, c("atm / tahoe / b", "tahoe / b"))
  expect_equal(as.character(evaluated$verdict), c("reproduced", "reproduced"))
})

test_that("TCP_NODELAY is set beside TCP per size, with the formula's prediction", {
  sizes <- dplyr::bind_rows(
    rtt_sizes(c(8192, 102400), c(200, 20)),
    rtt_sizes(c(8192, 102400), c(10, 20), mode = "tcp-nodelay")
  )
  table <- nodelay_table(sizes, toy_formula)
  expect_equal(table$change_pct, c(-95, 0))
  expect_equal(table$predicted, c("abnormal", "normal"))
  only_tcp <- nodelay_table(rtt_sizes(8192, 200), toy_formula)
  expect_true(is.na(only_tcp$change_pct))
})

test_that("Table 3 is compared with the baseline over cells normal in both", {
  cells <- tibble::tibble(
    setup = "s", backend = "b", send_buffer = 1:3, recv_buffer = 1, mean_mbit = c(9, 18, 0.5),
    abnormal = c(FALSE, FALSE, TRUE)
  )
  baseline <- dplyr::mutate(cells, mean_mbit = c(10, 20, 10), abnormal = FALSE)
  joined <- join_baseline(cells, baseline)
  expect_equal(joined$baseline_mbit, c(10, 20, 10))
  expect_equal(as.numeric(cell_metrics$normal_change_vs_baseline(joined)), -10)
  expect_equal(attr(cell_metrics$normal_change_vs_baseline(joined), "n"), 2)
  expect_true(is.na(cell_metrics$normal_change_vs_baseline(cells)))
  published <- tibble::tibble(
    send_buffer = 1:2, recv_buffer = 1, throughput_mbit = c(9, 1), shaded = c(FALSE, TRUE)
  )
  before <- dplyr::mutate(published, throughput_mbit = c(10, 10), shaded = FALSE)
  change <- published_normal_change(published, before)
  expect_equal(change$change_pct, -10)
  expect_equal(change$cells, 1)
  points <- baseline_points(joined, published, before)
  expect_equal(levels(points$panel), c("Published (Table 3 against Table 2)", "Measured: s"))
})

test_that("echo results are keyed by stack, backend and host, with numeric buffers", {
  dir <- withr::local_tempdir()
  make_synthetic_liu95db(dir, list("atm-8k" = c("sim", "linkemu")), table3_backends = character(), echoes = 2)
  results <- read_echo_results(dir, "liu95db", c("atm-8k", "ethernet-8k"))
  expect_equal(results$missing, "ethernet-8k")
  expect_setequal(unique(results$data$setup), c("tahoe / sim / sparcstation-ipc", "tahoe / linkemu / sparcstation-ipc"))
  expect_type(results$data$send_buffer, "double")
  expect_false(dir.exists(file.path(dir, "liu95db", "table3")))
})

test_that("the liu95db reference files are complete and consistent", {
  ref <- function(f) file.path(reports_dir, "reference", f)
  table3 <- read_matrix_reference(ref("liu95db-table3.csv"))
  expect_equal(nrow(dplyr::distinct(table3, send_buffer, recv_buffer)), 100)
  expect_equal(sum(table3$shaded), 2)
  expect_false(anyNA(table3$throughput_mbit))
  # Which cells a host model was fitted on is the host model's to say, not the table's.
  expect_false("calibration" %in% names(table3))
  mechanism <- read_mechanism(ref("liu95db-mechanism.csv"))
  lockstep <- read_lockstep_reference(ref("liu95db-lockstep.csv"))
  printed <- per_tick_mbit(lockstep$octets_per_tick, mechanism_value(mechanism, "delayed_ack_tick_ms")) *
    1e6 / mechanism_value(mechanism, "paper_megabit_bits")
  expect_equal(printed, lockstep$published_mbit)
  shaded <- dplyr::filter(table3, shaded)
  expect_equal(shaded[c("send_buffer", "recv_buffer")], lockstep[c("send_buffer", "recv_buffer")])
  formula <- read_formula(ref("liu95db-formula.csv"))
  expect_setequal(formula$network, c("ATM", "Ethernet"))
  # Sec 3.2.2 gives the Ethernet's normal ranges for n = 1, 2, ... only and calls 4K+1 to
  # 4K+M-1 abnormal; 4K+M is in none of its ranges.
  expect_equal(
    formula_class(c(4096, 4097, 5555, 5556, 5557, 7016), "Ethernet", formula),
    c("normal", "abnormal", "abnormal", NA, "abnormal", "normal")
  )
  claims <- read_claims(ref("liu95db-claims.csv"), c(liu95db_echo_metrics, cell_metrics))
  expect_false(anyDuplicated(claims$claim_id) > 0)
  expect_true(all(nzchar(claims$source)))
  known_modes <- c("tcp-per-message", "tcp", "tcp-nodelay", "udp-cooled", "udp")
  echo_claims <- claims[!claims$metric %in% names(cell_metrics), ]
  expect_true(all(unlist(purrr::map(echo_claims$modes, split_list)) %in% known_modes))
  # Every experiment a claim names is one of the spec's.
  known_experiments <- names(yaml::read_yaml(file.path(reports_dir, "..", "configs", "liu95db.yaml"))$experiments)
  expect_true(all(unlist(purrr::map(claims$experiments, split_list)) %in% known_experiments))
})

test_that("two experiments compare by the median ratio of their RTTs over shared sizes", {
  sizes <- dplyr::bind_rows(
    rtt_sizes(c(1000, 2000, 3000), c(7, 8, 30), "tcp-nodelay", "a32"),
    rtt_sizes(c(1000, 2000, 5000), c(10, 10, 10), "tcp-nodelay", "a16")
  )
  metric <- liu95db_echo_metrics$experiment_rtt_ratio_median
  expect_equal(metric(sizes, "tcp-nodelay", experiments = c("a32", "a16")), 0.75)
  expect_true(is.na(metric(sizes, "tcp-nodelay", experiments = "a32")))
  expect_true(is.na(metric(sizes, "tcp", experiments = c("a32", "a16"))))
})

test_that("the loss ratio pools datagrams over the sizes both experiments measured", {
  sizes <- dplyr::bind_rows(
    size_rows("udp", c(8192, 16384, 99999), sent = c(10, 20, 50), back = c(10, 13, 0), experiment = "atm"),
    size_rows("udp", c(8192, 16384), sent = c(10, 20), back = c(5, 15), experiment = "eth")
  )
  # ATM lost 7 of 30 on the shared sizes, Ethernet 10 of 30; 99999 is left out.
  expect_equal(loss_ratio_between(sizes, "udp", c("atm", "eth")), 0.7)
  none <- size_rows("udp", 8192, sent = 10, back = 10, experiment = "eth")
  quiet <- size_rows("udp", 8192, sent = 10, back = 10, experiment = "atm")
  expect_equal(loss_ratio_between(dplyr::bind_rows(quiet, none), "udp", c("atm", "eth")), 1)
  lossy <- size_rows("udp", 8192, sent = 10, back = 9, experiment = "atm")
  expect_equal(loss_ratio_between(dplyr::bind_rows(lossy, none), "udp", c("atm", "eth")), Inf)
  expect_true(is.na(liu95db_echo_metrics$experiment_loss_ratio(sizes, "tcp", experiments = c("atm", "eth"))))
})

test_that("each file the formula calls abnormal is set beside a normal file's RTT at its size", {
  # ATM: 6988 and 7708 abnormal, 12288 normal; 97835 abnormal, 110592 (9 x 12K) normal; 200000
  # abnormal with no normal size above it.
  sizes <- rtt_sizes(c(6988, 7708, 12288, 97835, 110592, 200000), c(210, 190, 9, 300, 40, 900))
  pairs <- abnormal_beside_normal(sizes, toy_formula)
  expect_equal(pairs$abnormal_bytes, c(6988, 7708, 97835))
  # Below the smallest normal size: that size's RTT; between two: in proportion to size.
  expect_equal(pairs$below_bytes, c(NA, NA, 12288))
  expect_equal(pairs$above_bytes, c(12288, 12288, 110592))
  expect_equal(pairs$rtt_normal, c(9, 9, 9 + 31 * (97835 - 12288) / (110592 - 12288)))
  metric <- liu95db_echo_metrics$abnormal_slower_share
  expect_equal(metric(sizes, "tcp", extra = list(formula = toy_formula)), 100)
  # Faster than the next, larger normal file, yet slower than a normal file of its size (88.3
  # ms); and one faster than that.
  between <- rtt_sizes(c(12288, 97835, 110592), c(10, 95, 100))
  expect_equal(metric(between, "tcp", extra = list(formula = toy_formula)), 100)
  quick <- rtt_sizes(c(12288, 97835, 110592), c(10, 80, 100))
  expect_equal(metric(quick, "tcp", extra = list(formula = toy_formula)), 0)
  slow_normal <- rtt_sizes(c(6988, 12288), c(5, 9))
  expect_equal(metric(slow_normal, "tcp", extra = list(formula = toy_formula)), 0)
  expect_true(is.na(metric(sizes, "tcp")))
  # Each setup is read off its own normal files.
  two <- dplyr::bind_rows(
    rtt_sizes(c(6988, 12288), c(20, 9), setup = "a"), rtt_sizes(c(6988, 12288), c(20, 30), setup = "b")
  )
  beside <- abnormal_beside_normal(two, toy_formula)
  expect_equal(beside$setup, c("a", "b"))
  expect_equal(beside$rtt_normal, c(9, 30))
})

test_that("Table 1 agreement counts the files echoed at their exact size", {
  table1 <- tibble::tibble(size_bytes = c(6988, 7708, 17027, 29668), file = c("a", "b", "c", "d"))
  sizes <- rtt_sizes(c(6988, 7708, 17027, 29669), c(1, 2, 3, 4))
  metric <- liu95db_echo_metrics$table1_size_agreement
  expect_equal(metric(sizes, "tcp", extra = list(table1 = table1)), 75)
  expect_true(is.na(metric(sizes, "udp", extra = list(table1 = table1))))
  beside <- table1_beside(table1, dplyr::mutate(sizes, echoes = 50))
  expect_equal(beside$tcp_ms, c(1, 2, 3, NA))
  expect_equal(beside$echoes, c(50, 50, 50, NA))
  expect_true(all(is.na(beside$udp_loss_pct)))
})

test_that("UDP loss per network pools the datagrams of every size", {
  sizes <- dplyr::bind_rows(
    size_rows("udp", c(8192, 16384), sent = c(10, 30), back = c(10, 20), experiment = "atm"),
    size_rows("tcp", 8192, experiment = "atm")
  ) |>
    dplyr::mutate(link = "atm-x")
  table <- loss_by_network(sizes, "atm", "udp")
  expect_equal(table$sent, 40)
  expect_equal(table$loss_pct, 25)
})

test_that("only verdicts that differ between a Linux and a Tahoe setup are listed", {
  evaluated <- tibble::tibble(
    claim_id = c("A", "A", "B", "B", "C"), claim = "c",
    setup = c("linux / linkemu", "tahoe / sim / ipc", "linux / linkemu", "tahoe / sim / ipc", "tahoe / sim / ipc"),
    measured = c(1, 2, 3, 3, 4),
    verdict = factor(
      c("reproduced", "not reproduced", "partly", "partly", "no data"),
      levels = verdict_levels
    )
  )
  changes <- stack_verdict_changes(evaluated)
  expect_equal(changes$claim_id, "A")
  expect_equal(as.character(changes$other_verdict), "reproduced")
  expect_equal(as.character(changes$tahoe_verdict), "not reproduced")
  expect_equal(nrow(stack_verdict_changes(dplyr::filter(evaluated, grepl("tahoe", setup)))), 0)
})

test_that("Fig 1's sides are named by the print", {
  expect_equal(print_label(c("lan-print", "lan-large")), c("with a print per datagram", "without the print"))
})

test_that("the print's change pairs lan-print with lan-large size by size", {
  sizes <- dplyr::bind_rows(
    rtt_sizes(c(8192, 16384), c(10, 20), "udp", "lan-large"),
    rtt_sizes(c(8192, 16384), c(10, 25), "udp", "lan-print"),
    rtt_sizes(8192, 12, "udp-cooled", "lan-large")
  )
  change <- print_change(sizes)
  expect_equal(change$message_bytes, c(8192, 16384))
  expect_equal(change$change_pct, c(0, 25))
  expect_equal(nrow(print_change(dplyr::filter(sizes, experiment == "lan-large"))), 0)
})

test_that("M01 scores the two named cells apart from the rest; M07's rise is not a partly fall", {
  claims <- read_claims(
    file.path(reports_dir, "reference", "liu95db-claims.csv"),
    c(liu95db_echo_metrics, cell_metrics)
  )
  expect_false("M01" %in% claims$claim_id)
  m01 <- dplyr::filter(claims, claim_id %in% c("M01a", "M01b"))
  expect_equal(m01$metric, c("share_abnormal", "unnamed_agreement"))
  expect_equal(m01$send_min_bytes[1], 16384)
  expect_equal(m01$recv_min_bytes[1], 49152)
  m07 <- dplyr::filter(claims, claim_id == "M07")
  expect_equal(judge_claim_row(m07, 4.4)$verdict, "not reproduced")
  # The paper's cost is 10.8 %: a fall of 0.8 % is no longer enough, one of 8 % is.
  expect_equal(judge_claim_row(m07, -0.8)$verdict, "partly")
  expect_equal(judge_claim_row(m07, -8)$verdict, "reproduced")
  expect_equal(judge_claim_row(m07, -25)$verdict, "not reproduced")
})

test_that("liu95db's claims are judged on the echoes given, the matrix claims on the cells", {
  claims <- dplyr::bind_rows(
    one_claim(claim_id = "M", metric = "share_abnormal", experiments = "table3", check = "at_least", target = 100),
    one_claim(claim_id = "E", metric = "rtt_mean", experiments = "exp", modes = "tcp", check = "about",
      target = 100, tolerance = 5, partly_tolerance = 5, size_min_bytes = 8192, size_max_bytes = 12287)
  ) |>
    dplyr::mutate(
      send_min_bytes = 16384, send_max_bytes = NA_real_, recv_min_bytes = NA_real_, recv_max_bytes = NA_real_
    )
  cells <- tibble::tibble(setup = "atm / tahoe / b", send_buffer = 16384, recv_buffer = 1, mean_mbit = 1, abnormal = TRUE)
  echoes <- echo_rows("tcp", 8192, c(99, 101)) |> dplyr::mutate(setup = "tahoe / b")
  evaluated <- judge_liu95db(list(echoes = echoes), claims, cells, list(formula = toy_formula))
  expect_equal(evaluated$measured, c(100, 100))
  slower <- judge_liu95db(list(echoes = dplyr::mutate(echoes, rtt_ms = 200)), claims, cells, list())
  expect_equal(as.character(slower$verdict), c("reproduced", "not reproduced"))
  expect_equal(
    liu95db_claims_measured_as(claims),
    c(
      "<code>share_abnormal</code> over send \u2265 16K, receive any",
      "<code>rtt_mean</code> of tcp in exp (8K to 12K-1)"
    )
  )
})

test_that("Fig 16's rows are labelled by size, mode and network, a link by its network", {
  sizes <- dplyr::bind_rows(
    rtt_sizes(c(102400, 8192), c(5, 200), experiment = "atm-nodelay", link = "atm-taxi-100"),
    rtt_sizes(8192, 5, "tcp-nodelay", experiment = "atm-nodelay", link = "atm-taxi-100"),
    rtt_sizes(8192, 5, experiment = "lan-2k", link = "ethernet-10")
  )
  rows <- nodelay_rows(sizes, c("atm-nodelay", "ethernet-nodelay"), toy_formula)
  expect_equal(nrow(rows), 3)
  expect_equal(levels(rows$size), c("8K", "100K"))
  expect_equal(as.character(rows$mode_label), label_modes(c("tcp", "tcp", "tcp-nodelay")))
  expect_equal(unique(rows$panel), "ATM (atm-taxi-100): s")
  expect_equal(network_label(c("ethernet-10", "wan"), toy_formula), c("Ethernet (ethernet-10)", "NA (wan)"))
})

test_that("Table 3's note says whether it ran without TCP_NODELAY or not at all", {
  ran <- table3_missing_note(TRUE, "results", "liu95db", "table3")
  expect_match(ran, "Not run yet with TCP_NODELAY", fixed = TRUE)
  expect_match(ran, "results/liu95db/table3/results.csv", fixed = TRUE)
  absent <- table3_missing_note(FALSE, "results", "liu95db", "table3")
  expect_match(absent, "No data yet", fixed = TRUE)
  expect_match(absent, "Run the pipeline for experiment <code>table3</code>", fixed = TRUE)
})

test_that("the report's experiments are the spec's: its pingx ones without variants, and its matrix", {
  spec <- file.path(reports_dir, "..", "configs", "liu95db.yaml")
  echoes <- spec_experiments(spec, "pingx")
  declared <- yaml::read_yaml(spec)$experiments
  variants <- names(purrr::keep(declared, function(e) !is.null(e$variant_of)))
  expect_gt(length(variants), 0)
  expect_equal(echoes, setdiff(names(declared), c(variants, "table3")))
  expect_equal(spec_experiments(spec, "ttcp"), "table3")
  # Every experiment a claim names is one the report reads.
  claims <- read_claims(file.path(reports_dir, "reference", "liu95db-claims.csv"), c(liu95db_echo_metrics, cell_metrics))
  named <- unique(unlist(purrr::map(claims$experiments, split_list)))
  expect_equal(setdiff(named, c(echoes, "table3")), character())
})

test_that("a spec's experiments are read by tool, defaults included, and a missing spec is an error", {
  path <- withr::local_tempfile(fileext = ".yaml")
  yaml::write_yaml(list(
    defaults = list(tool = "pingx"),
    experiments = list(
      b = list(), a = list(tool = "ttcp"), c = list(tool = "pingx"), v = list(variant_of = list(experiment = "b"))
    )
  ), path)
  expect_equal(spec_experiments(path, "pingx"), c("b", "c"))
  expect_equal(spec_experiments(path, "ttcp"), "a")
  expect_equal(spec_experiments(path, "mftp"), character())
  expect_error(spec_experiments(file.path(dirname(path), "absent.yaml"), "pingx"), "absent.yaml not found")
})

test_that("a run's swing is the spread of its round trips from the 10th to the 90th percentile", {
  echoes <- dplyr::bind_rows(
    echo_rows("tcp", 102400, c(100, 100, 100, 100, 100, 100), trial = 1),
    echo_rows("tcp", 102400, seq(100, 200, length.out = 11), trial = 2),
    echo_rows("tcp", 102400, c(100, 300), trial = 3),
    echo_rows("udp", 102400, seq(1, 11), trial = 1)
  )
  swings <- rtt_swings(echoes, "tcp")
  # A run of 2 round trips is too short to have a spread.
  expect_equal(swings$trial, c("1", "2"))
  expect_equal(swings$swing_ms, c(0, 80))
  sizes <- summarise_sizes(echoes)
  expect_equal(liu95db_echo_metrics$rtt_swing_ms(sizes, "tcp", extra = list(echoes = echoes)), 40)
  expect_true(is.na(liu95db_echo_metrics$rtt_swing_ms(sizes, "tcp")))
  expect_equal(nrow(rtt_swings(echoes[0, ], "tcp")), 0)
})

test_that("the small abnormal files are near constant when their means lie near their median", {
  formula <- read_formula(file.path(reports_dir, "reference", "liu95db-formula.csv"))
  # On ATM 6988, 17027 and 97835 octets lie in abnormal ranges, 12288 and 74058 in normal ones.
  sizes <- tibble::tibble(
    setup = "s", link = "atm-taxi-100", mode = "tcp",
    message_bytes = c(6988, 12288, 17027, 74058, 97835), rtt_mean = c(190, 5, 210, 20, 400)
  )
  rows <- abnormal_constancy_rows(sizes, formula)
  expect_equal(rows$message_bytes, c(6988, 17027, 97835))
  expect_equal(rows$typical_ms, rep(210, 3))
  expect_equal(rows$near, c(TRUE, TRUE, FALSE))
  expect_equal(liu95db_echo_metrics$abnormal_rtt_constancy(sizes, "tcp", extra = list(formula = formula)), 200 / 3)
  expect_true(is.na(liu95db_echo_metrics$abnormal_rtt_constancy(sizes, "tcp")))
  # Each setup against its own median.
  two <- dplyr::bind_rows(sizes, dplyr::mutate(sizes, setup = "t", rtt_mean = 2 * rtt_mean))
  expect_equal(abnormal_constancy_rows(two, formula)$typical_ms, c(rep(210, 3), rep(420, 3)))
  expect_true(is.na(liu95db_echo_metrics$abnormal_rtt_constancy(sizes[1:2, ], "tcp", extra = list(formula = formula))))
})

test_that("size trends are rank correlations, 0 for what never changes", {
  expect_equal(size_trend(1:4, c(1, 3, 2, 4)), 0.8)
  expect_equal(size_trend(1:4, rep(0, 4)), 0)
  expect_true(is.na(size_trend(1:2, 1:2)))
  # On the mean RTT, as Fig 14 plots averages: medians that fall do not decide it.
  sizes <- dplyr::mutate(size_rows("tcp", c(1, 2, 3), rtt = c(9, 8, 7)), rtt_mean = c(1, 2, 3))
  expect_equal(liu95db_echo_metrics$rtt_trend(sizes, "tcp"), 1)
  expect_equal(liu95db_echo_metrics$rtt_trend(dplyr::mutate(sizes, rtt_mean = c(9, 8, 7)), "tcp"), -1)
})

test_that("misordering is the share of returned datagrams counted out of order, per size", {
  echoes <- dplyr::bind_rows(
    echo_rows("udp", 1000, c(1, 1), datagrams = 10, returned = c(10, 10)),
    echo_rows("udp", 2000, c(1, 1), datagrams = 10, returned = c(10, 10)),
    echo_rows("udp", 3000, c(1, 1), datagrams = 10, returned = c(10, 6))
  ) |>
    dplyr::mutate(datagrams_misordered = c(0, 0, 1, 1, 2, 2))
  sizes <- summarise_sizes(echoes)
  rows <- misorder_rows(sizes, "udp")
  expect_equal(rows$misordered_pct, c(0, 10, 25))
  expect_equal(liu95db_echo_metrics$misorder_trend(sizes, "udp"), 1)
  # Results written before pingx counted it: not recorded, no trend.
  older <- summarise_sizes(dplyr::select(echoes, -datagrams_misordered))
  expect_true(all(is.na(older$datagrams_misordered)))
  expect_true(is.na(liu95db_echo_metrics$misorder_trend(older, "udp")))
  expect_true(is.na(liu95db_echo_metrics$misorder_trend(dplyr::select(sizes, -datagrams_misordered), "udp")))
})

test_that("the misordering sentence counts per setup, or says the runs predate the count", {
  rows <- tibble::tibble(
    setup = c("a", "a", "b"), experiment = "e", message_bytes = c(1, 2, 1), returned = c(10, 20, 5),
    misordered = c(0, 3, NA), misordered_pct = c(0, 15, NA)
  )
  text <- misorder_summary_html(rows)
  expect_match(text, "(a):</b> pingx counted 3 of the 30 returned UDP datagrams out of order, at 1 of 2 sizes", fixed = TRUE)
  expect_match(text, "(b):</b> not recorded", fixed = TRUE)
  expect_equal(misorder_summary_html(rows[0, ]), "")
})

test_that("the sizes behind a near miss: which mode is faster, late echoes, loss", {
  sizes <- dplyr::bind_rows(
    size_rows("udp", c(4096, 8192, 16384), rtt = c(12, 20, 30), sent = c(10, 20, 40), back = c(10, 15, 40)),
    size_rows("tcp", c(4096, 8192, 32768), rtt = c(11, 25, 300))
  )
  gaps <- mode_gap_rows(sizes, "udp", "tcp")
  # 16384 and 32768 are measured in one mode only, so they are not compared.
  expect_equal(gaps$message_bytes, c(4096, 8192))
  expect_equal(gaps$faster, c("tcp", "udp"))
  expect_equal(gaps$mode_a, c("udp", "udp"))
  expect_equal(gaps$gap_pct, 100 * c(12 / 11 - 1, 20 / 25 - 1))
  expect_equal(mode_gap_rows(size_rows("tcp", 1, rtt = 5), "udp", "tcp")$faster, character())
  # Half the echoes of 80385 octets came back a whole 200 ms period after the others.
  echoes <- dplyr::bind_rows(
    echo_rows("tcp", 6988, c(193, 193, 194, 193)),
    echo_rows("tcp", 80385, c(193, 393, 392, 193)),
    echo_rows("udp", 80385, c(50, 50))
  )
  late <- tick_late_rows(echoes, "tcp", 200)
  expect_equal(late$message_bytes, c(6988, 80385))
  expect_equal(late$late_pct, c(0, 50))
  expect_equal(late$lowest_ms, c(193, 193))
  expect_equal(late$mean_ms[2], 292.75)
  losses <- dplyr::bind_rows(
    size_rows("udp", c(100, 200), sent = c(10, 10), back = c(9, 10), experiment = "atm"),
    size_rows("udp", c(100, 200, 300), sent = c(10, 10, 10), back = c(5, 10, 0), experiment = "eth")
  )
  pairs <- loss_pair_rows(losses, "udp", c("atm", "eth"))
  expect_equal(pairs$message_bytes, c(100, 200))
  expect_equal(pairs$loss_a, c(10, 0))
  expect_equal(pairs$loss_b, c(50, 0))
})

test_that("what TCP_NODELAY costs is pooled over the cells normal in both tables", {
  cells <- tibble::tibble(
    setup = "s", send_buffer = c(16384, 16384, 24576), recv_buffer = c(16384, 20480, 16384),
    abnormal = c(FALSE, FALSE, TRUE), baseline_abnormal = c(FALSE, FALSE, FALSE),
    mean_mbit = c(18, 17, 1), baseline_mbit = c(11, 17, 15), published_si_mbit = c(15, 14, 16)
  )
  table2 <- tibble::tibble(
    send_buffer = c(16384, 16384, 24576), recv_buffer = c(16384, 20480, 16384),
    throughput_mbit = c(15, 13, 17)
  )
  rows <- nodelay_cost_rows(cells, table2, 2e6)
  # The cell abnormal with TCP_NODELAY is left out; the paper's megabits are 2e6 bits here.
  expect_equal(rows$recv_buffer, c(16384, 20480))
  expect_equal(rows$paper_without, c(30, 26))
  summary <- nodelay_cost_summary(rows)
  expect_equal(summary$cells, 2)
  expect_equal(summary$ours_change_pct, 100 * (35 / 28 - 1))
  expect_equal(summary$paper_change_pct, 100 * (29 / 56 - 1))
  expect_equal(summary$without_vs_paper_pct, 100 * (28 / 56 - 1))
  expect_equal(summary$nodelay_vs_paper_pct, 100 * (35 / 29 - 1))
})

test_that("a size trend is read over all sizes and within each of the formula's classes", {
  # Abnormal files pay two ticks, normal ones none: each class rises, the mix does not.
  trends <- trend_by_class(
    c(100, 110, 150, 170, 200, 230), c(390, 160, 392, 230, 494, 300),
    c("abnormal", "normal", "abnormal", "normal", "abnormal", "normal")
  )
  expect_equal(trends$group, c("all", "normal", "abnormal"))
  expect_equal(trends$sizes, c(6L, 3L, 3L))
  expect_equal(trends$rho[2:3], c(1, 1))
  expect_lt(trends$rho[1], 0.5)
  expect_true(is.na(trend_by_class(c(1, 2), c(1, 2), c("normal", NA))$rho[2]))
})
