# Hand-made formula table: ATM and Ethernet as liu95db writes them.
toy_formula <- tibble::tibble(
  network = c("ATM", "Ethernet"), link_prefix = c("atm", "ethernet"),
  offset_octets = c(0, 4096), period_octets = c(12288, 2920), normal_octets = c(4096, 1460)
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
  # 4K + M + 1 is the first abnormal size; 4K + 2M the next normal one.
  expect_equal(
    formula_class(c(4096, 4096 + 1460, 4096 + 1461, 4096 + 2920, 8192, 102400), "Ethernet", toy_formula),
    c("normal", "normal", "abnormal", "normal", "normal", "abnormal")
  )
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
  expect_equal(cell_metrics$normal_change_vs_baseline(joined), -10)
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
  mechanism <- read_mechanism(ref("liu95db-mechanism.csv"))
  lockstep <- read_lockstep_reference(ref("liu95db-lockstep.csv"))
  printed <- per_tick_mbit(lockstep$octets_per_tick, mechanism_value(mechanism, "delayed_ack_tick_ms")) *
    1e6 / mechanism_value(mechanism, "paper_megabit_bits")
  expect_equal(printed, lockstep$published_mbit)
  shaded <- dplyr::filter(table3, shaded)
  expect_equal(shaded[c("send_buffer", "recv_buffer")], lockstep[c("send_buffer", "recv_buffer")])
  formula <- read_formula(ref("liu95db-formula.csv"))
  expect_setequal(formula$network, c("ATM", "Ethernet"))
  claims <- read_claims(ref("liu95db-claims.csv"), c(liu95db_echo_metrics, cell_metrics), liu95db_claim_columns)
  expect_false(anyDuplicated(claims$claim_id) > 0)
  expect_true(all(nzchar(claims$source)))
  known_modes <- c("tcp", "tcp-nodelay", "udp")
  echo_claims <- claims[!claims$metric %in% names(cell_metrics), ]
  expect_true(all(unlist(purrr::map(echo_claims$modes, split_list)) %in% known_modes))
  known_experiments <- c("atm-8k", "ethernet-8k", "atm-boundaries", "atm-nodelay", "ethernet-nodelay", "table3")
  expect_true(all(unlist(purrr::map(claims$experiments, split_list)) %in% known_experiments))
})
