test_that("a claim looks only at its experiments and size range", {
  sizes <- dplyr::bind_rows(
    size_rows("udp", c(1000, 5000), sent = 1000, back = c(500, 1000), experiment = "exp"),
    size_rows("udp", 2000, sent = 10, back = 0, experiment = "other")
  )
  whole <- evaluate_claim(one_claim(target = 5, partly_tolerance = 10), sizes)
  expect_equal(whole$measured, 50)
  expect_equal(whole$verdict, "not reproduced")
  ranged <- evaluate_claim(one_claim(size_min_bytes = 2000), sizes)
  expect_equal(ranged$measured, 0)
  expect_equal(ranged$verdict, "reproduced")
})

test_that("a claim on a missing experiment reads no data", {
  sizes <- size_rows("udp", 1000, sent = 1000, back = 1000, experiment = "exp")
  result <- evaluate_claim(one_claim(experiments = "absent"), sizes)
  expect_equal(result$verdict, "no data")
})

test_that("claims are evaluated per setup and never pooled across setups", {
  sizes <- dplyr::bind_rows(
    size_rows("udp", 1000, sent = 1000, back = 1000, setup = "s1"),
    size_rows("udp", 1000, sent = 10, back = 0, setup = "s2")
  )
  evaluated <- evaluate_claims(one_claim(), sizes)
  expect_equal(nrow(evaluated), 2)
  expect_equal(as.character(evaluated$verdict), c("reproduced", "not reproduced"))
  card <- scorecard_table(evaluated)
  expect_equal(card$claim_id, c("X1@s1", "X1@s2"))
})

test_that("with no data at all every claim reads no data", {
  evaluated <- evaluate_claims(one_claim(), size_rows("udp", numeric(0)))
  expect_equal(as.character(evaluated$verdict), "no data")
})

test_that("the scorecard has the contract's columns", {
  sizes <- size_rows("udp", 1000, sent = 1000, back = 1000)
  card <- scorecard_table(evaluate_claims(one_claim(), sizes))
  expect_equal(
    names(card),
    c(
      "claim_id", "figure", "claim", "published", "measured", "verdict", "margin", "unit",
      "n", "n_of", "echoes", "ci_low", "ci_high",
      "scanned_assumption", "setup", "hosts", "era_host", "fitted", "note"
    )
  )
})

test_that("each verdict carries its n: sizes of the claim's modes, their echoes, and a loss interval", {
  sizes <- dplyr::bind_rows(
    size_rows("udp", c(1000, 2000, 4000), sent = 2, back = c(2, 2, 1)),
    size_rows("tcp", 8000, sent = 0, back = 0)
  ) |>
    dplyr::mutate(echoes = 2)
  got <- evaluate_claim(one_claim(target = 7, partly_tolerance = 7), sizes)
  expect_equal(got$measured, 50)
  expect_equal(got$n, 3)
  expect_equal(got$n_of, "sizes")
  expect_equal(got$echoes, 6)
  expect_equal(as.character(got$verdict), "inconclusive")
  card <- scorecard_table(evaluate_claims(one_claim(target = 7, partly_tolerance = 7), sizes))
  expect_equal(card$n, 3)
  expect_equal(card$echoes, 6)
  expect_equal(card$ci_low, 1.258, tolerance = 1e-3)
  many <- size_rows("udp", 1000, sent = 200, back = 100) |> dplyr::mutate(echoes = 200)
  expect_equal(as.character(evaluate_claim(one_claim(target = 7, partly_tolerance = 7), many)$verdict), "not reproduced")
})

test_that("an RTT comparison of two modes counts only the sizes where both came back whole", {
  sizes <- dplyr::bind_rows(
    size_rows("udp-cooled", c(1000, 2000, 4000), rtt = c(10, NA, NA)),
    size_rows("tcp", c(1000, 2000, 4000), rtt = c(20, 30, 40))
  )
  claim <- one_claim(
    metric = "rtt_rel_diff_median", modes = "udp-cooled;tcp", target = -20, partly_tolerance = 20
  )
  got <- evaluate_claim(claim, sizes)
  expect_equal(got$measured, -50)
  expect_equal(c(got$n, got$n_of), c("1", "sizes"))
})

test_that("read_claims rejects unknown metrics and inconsistent tolerances", {
  path <- withr::local_tempfile(fileext = ".csv")
  readr::write_csv(one_claim(metric = "guess"), path)
  expect_error(read_claims(path), "unknown metric")
  readr::write_csv(one_claim(tolerance = 5, partly_tolerance = 1), path)
  expect_error(read_claims(path), "partly_tolerance")
})

test_that("read_claims names a column it does not know and one a claim needs", {
  path <- withr::local_tempfile(fileext = ".csv")
  readr::write_csv(dplyr::mutate(one_claim(), colour = "red"), path)
  expect_error(read_claims(path), "unknown column\\(s\\) colour")
  readr::write_csv(dplyr::select(one_claim(), -check), path)
  expect_error(read_claims(path), "missing column\\(s\\) check")
})

test_that("read_claims refuses a row an unquoted comma has shifted", {
  path <- withr::local_tempfile(fileext = ".csv")
  readr::write_csv(one_claim(), path)
  lines <- readLines(path)
  columns <- strsplit(lines[1], ",", fixed = TRUE)[[1]]
  fields <- strsplit(lines[2], ",", fixed = TRUE)[[1]]
  # A comma inside the first text field, unquoted: every later field moves one column right.
  fields[1] <- paste0(fields[1], ",  as the paper reads it")
  writeLines(c(lines[1], paste(fields, collapse = ",")), path)
  expect_error(read_claims(path), paste0("line 2, column ", length(columns) + 1, ".*quote a field"))
})

test_that("every claims file reads with the one column table, numbers as numbers", {
  metrics <- c(claim_metrics, liu95db_echo_metrics, cell_metrics, mftp_metrics, milliner_metrics)
  paths <- Sys.glob(file.path(reports_dir, "reference", "*-claims.csv"))
  expect_length(paths, 5)
  for (path in paths) {
    claims <- read_claims(path, metrics)
    header <- names(readr::read_csv(path, n_max = 0, show_col_types = FALSE))
    expect_equal(names(claims), header, info = path)
    numeric <- names(claim_column_types)[claim_column_types == "d"]
    expect_true(all(purrr::map_lgl(claims[intersect(header, numeric)], is.double)), info = path)
    expect_true(all(purrr::map_lgl(claims[setdiff(header, numeric)], is.character)), info = path)
  }
})

test_that("the liu95cool claims file is well formed", {
  claims <- read_claims(file.path(reports_dir, "reference", "liu95cool-claims.csv"))
  expect_gt(nrow(claims), 0)
  expect_false(anyDuplicated(claims$claim_id) > 0)
  expect_true(all(nzchar(claims$source)))
  expect_true(all(!is.na(claims$target)))
  known_modes <- c("tcp-per-message", "tcp", "udp-cooled", "udp")
  expect_true(all(unlist(purrr::map(claims$modes, split_list)) %in% known_modes))
  pairs <- claims$metric %in% pair_metrics
  expect_true(all(purrr::map_int(claims$modes[pairs], function(m) length(split_list(m))) == 2))
})

test_that("a claim is judged only in the setups that ran its experiments", {
  sizes <- dplyr::bind_rows(
    size_rows("udp", 1000, sent = 1000, back = 1000, experiment = "lan", setup = "ethernet"),
    size_rows("udp", 1000, sent = 10, back = 0, experiment = "wan", setup = "wan")
  )
  claims <- dplyr::bind_rows(
    one_claim(claim_id = "L", experiments = "lan"),
    one_claim(claim_id = "W", experiments = "wan"),
    one_claim(claim_id = "N", experiments = "atm")
  )
  evaluated <- evaluate_claims(claims, sizes)
  expect_equal(evaluated$claim_id, c("L", "W", "N"))
  expect_equal(evaluated$setup, c("ethernet", "wan", NA))
  expect_equal(as.character(evaluated$verdict), c("reproduced", "not reproduced", "no data"))
  expect_equal(scorecard_table(evaluated)$claim_id, c("L", "W", "N"))
})

test_that("the scorecard file is written even when every claim has no data", {
  dir <- withr::local_tempdir()
  evaluated <- evaluate_claims(one_claim(), size_rows("udp", numeric(0)))
  path <- write_scorecard(evaluated, dir, "paperx")
  card <- readr::read_csv(path, show_col_types = FALSE)
  expect_equal(card$verdict, "no data")
  expect_true(is.na(card$measured))
})

test_that("the liu95cool recommendation table is well formed", {
  table2 <- readr::read_csv(file.path(reports_dir, "reference", "liu95cool-table2.csv"),
    show_col_types = FALSE
  )
  expect_equal(nrow(table2), 9)
  expect_setequal(table2$recommended, c("UDP/TCP", "TCP", "cooled UDP"))
  expect_length(unique(table2$acceptable_loss_pct), 1)
  claims <- read_claims(file.path(reports_dir, "reference", "liu95cool-claims.csv"))
  table2_experiments <- unlist(purrr::map(table2$experiments, split_list))
  claim_experiments <- unlist(purrr::map(claims$experiments, split_list))
  expect_true(all(setdiff(claim_experiments, "atm-ttcp-cooling") %in% table2_experiments))
})

test_that("a claim an assumption decides never reads reproduced", {
  sizes <- size_rows("udp", 1000, sent = 1000, back = 1000)
  fitted <- evaluate_claim(one_claim(target_basis = "follows from assumption x, fitted"), sizes)
  expect_equal(fitted$verdict, "follows from assumption")
  missed <- evaluate_claim(
    one_claim(target_basis = "follows from assumption x", target = -5, partly_tolerance = 0), sizes
  )
  expect_equal(missed$verdict, "not reproduced")
  absent <- evaluate_claim(one_claim(target_basis = "not reproducible here: no TLI"), sizes)
  expect_equal(absent$verdict, "not reproducible here")
  counts <- verdict_counts(c("follows from assumption", "reproduced"))
  expect_equal(unname(counts[c("reproduced", "follows from assumption")]), c(1L, 1L))
  model <- evaluate_claim(one_claim(target_basis = "follows from the model: nothing drops it"), sizes)
  expect_equal(model$verdict, "follows from the model")
  against <- evaluate_claim(
    one_claim(target_basis = "follows from the model: x", target = -5, partly_tolerance = 0), sizes
  )
  expect_equal(against$verdict, "not reproduced")
})

test_that("a value the data cannot decide reads inconclusive, with its reason as a note", {
  judged <- judge_claim_row(one_claim(), undecided(NA_real_, "both spreads 0"))
  expect_equal(judged$verdict, "inconclusive")
  expect_equal(judged$note, "both spreads 0")
  expect_true(is.na(judge_claim_row(one_claim(), 3)$note))
})

test_that("the scorecard says which setups ran on the era's hosts", {
  expect_equal(
    era_host_setup(c(
      "ethernet-10/tahoe/sim/sparcstation-ipc", "tahoe / sim / sparcstation-ipc", "tahoe sim",
      "ethernet-10/linux/linkemu", "linux linkemu", NA, "tahoeish/x"
    )),
    c(TRUE, TRUE, TRUE, FALSE, FALSE, FALSE, FALSE)
  )
})

test_that("RTT verdicts carry a bootstrap interval over echoes, reproducible by its seed", {
  echoes <- dplyr::bind_rows(
    echo_rows("udp", 1000, c(10, 11, 12, 30, 9)),
    echo_rows("tcp", 1000, c(10, 10, 10, 10, 10))
  ) |>
    dplyr::mutate(setup = "s")
  sizes <- summarise_sizes(echoes)
  claim <- one_claim(
    metric = "rtt_rel_diff_median", modes = "udp;tcp", check = "at_most", target = 5,
    partly_tolerance = 20
  )
  got <- evaluate_claim(claim, sizes, extra = list(echoes = echoes))
  expect_equal(got$measured, 10)
  # Five echoes, one of them 30 ms: a resampled median runs from 9 to 30 ms.
  expect_equal(c(got$ci_low, got$ci_high), c(-10, 200))
  expect_equal(as.character(got$verdict), "inconclusive")
  again <- evaluate_claim(claim, sizes, extra = list(echoes = echoes))
  expect_identical(c(again$ci_low, again$ci_high), c(got$ci_low, got$ci_high))
  # Without echoes no interval, and the point value decides.
  plain <- evaluate_claim(claim, sizes)
  expect_true(is.na(plain$ci_low))
  expect_equal(as.character(plain$verdict), "partly")
  # Echoes that never vary (virtual time) give a zero-width interval.
  still <- dplyr::mutate(echoes, rtt_ms = dplyr::if_else(mode == "udp", 11, 10))
  flat <- evaluate_claim(claim, summarise_sizes(still), extra = list(echoes = still))
  expect_equal(c(flat$ci_low, flat$ci_high), c(10, 10))
})

test_that("the sizes no echo came back whole from are listed with what came back", {
  sizes <- size_rows("udp", c(8192, 24576, 32768), rtt = c(6, NA, NA), sent = c(10, 30, 40), back = c(10, 20, 20)) |>
    dplyr::mutate(echoes = 10, complete_echoes = c(10, 0, 0))
  lost <- never_whole_sizes(sizes, "udp")
  expect_equal(lost$message_bytes, c(24576, 32768))
  expect_equal(lost$sent_per_echo, c(3, 4))
  expect_equal(lost$back_per_echo, c(2, 2))
  expect_equal(nrow(never_whole_sizes(sizes, "tcp")), 0)
})

test_that("basis_for_setup keeps a basis scoped to a stack for that stack's setups only", {
  scoped <- "follows from assumption (stack linux): a 7 ms gap"
  expect_equal(basis_for_setup(scoped, "ethernet-10 / linux / linkemu"), scoped)
  expect_true(is.na(basis_for_setup(scoped, "ethernet-10 / tahoe / sim / sparcstation-ipc")))
  plain <- "follows from assumption: the queue"
  expect_equal(basis_for_setup(plain, "ethernet-10 / tahoe / sim / sparcstation-ipc"), plain)
  expect_true(is.na(basis_for_setup(NA_character_, "x / linux / linkemu")))
  expect_equal(basis_verdict(basis_for_setup(scoped, "x / tahoe / sim"), "reproduced"), "reproduced")
  expect_equal(basis_verdict(basis_for_setup(scoped, "x / linux / linkemu"), "reproduced"), "follows from assumption")
})
