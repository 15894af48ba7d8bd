# Fitted figures (R/fitted.R): host models declare what their free parameters were fitted on;
# the fixture host models are in reports/tests/hosts (the sparcstation-ipc's fit to liu95db
# Table 3's 51K/51K cell, the sun-4c-16mb's to milliner M15, and a model fitted on nothing).

fixture_hosts <- file.path(reports_dir, "tests", "hosts")
reference_dir <- file.path(reports_dir, "reference")

test_that("host models declare their fits; a model without `fitted` was fitted on nothing", {
  fits <- read_host_fits(fixture_hosts, reference_dir)
  expect_setequal(fits$host, c("sparcstation-ipc", "sun-4c-16mb"))
  ipc <- dplyr::filter(fits, host == "sparcstation-ipc")
  expect_equal(ipc$parameters, "per_packet_ns")
  expect_equal(ipc$reference, "liu95db-table3")
  expect_equal(ipc$rows[[1]]$send_buffer, "52428")
  expect_equal(ipc$rows[[1]]$recv_buffer, "52428")
  m15 <- dplyr::filter(fits, host == "sun-4c-16mb")
  expect_equal(c(m15$paper, m15$claim), c("milliner", "M15"))
  expect_equal(nrow(read_host_fits(tempfile(), reference_dir)), 0)
  expect_equal(host_fit_label(c("sparcstation-ipc", "sparcstation-20"), fits), c(
    "sparcstation-ipc (fitted: per_packet_ns)", "sparcstation-20 (nothing fitted)"
  ))
})

test_that("a malformed `fitted` block is an error naming the file and the key", {
  dir <- withr::local_tempdir()
  write_host <- function(text) writeLines(c("name: bad", text), file.path(dir, "bad.yaml"))
  write_host("fitted: [x]")
  expect_error(read_host_fits(dir, reference_dir), "bad.yaml: fitted: must be a mapping")
  write_host(c("fitted:", "  parameters: [x]"))
  expect_error(read_host_fits(dir, reference_dir), "bad.yaml: fitted.training_set")
  write_host(c("fitted:", "  parameters: [x]", "  training_set:", "    - reference: no-such-table"))
  expect_error(read_host_fits(dir, reference_dir), "bad.yaml: fitted.training_set\\[1\\].reference")
  write_host(c(
    "fitted:", "  parameters: [x]", "  training_set:",
    "    - reference: liu95db-table3", "      where: {window: 3}"
  ))
  expect_error(read_host_fits(dir, reference_dir), "where.window: .* has no such column")
  write_host(c("fitted:", "  parameters: [x]", "  training_set:", "    - claim: A1", "      reference: liu95db-table3"))
  expect_error(read_host_fits(dir, reference_dir), "exactly one of reference")
  write_host(c("fitted:", "  parameters: [x]", "  training_set:", "    - claim: A1", "      figure: 3"))
  expect_error(read_host_fits(dir, reference_dir), "unknown key\\(s\\) figure")
})

# A claim on buffer cells: one_claim() with the buffer bounds (none unless given).
cell_claim <- function(...) {
  bounds <- list(send_min_bytes = NA_real_, send_max_bytes = NA_real_, recv_min_bytes = NA_real_, recv_max_bytes = NA_real_)
  do.call(one_claim, utils::modifyList(bounds, list(...)))
}

# Four Table 3 cells of one setup on the fixture's host model, the last the fitted 51K/51K.
fitted_matrix <- function(host = "sparcstation-ipc") {
  tibble::tibble(
    setup = "s", host = host, send_buffer = c(16384, 20480, 52428, 52428),
    recv_buffer = c(16384, 20480, 49152, 52428), mean_mbit = c(10, 12, 18, 16),
    abnormal = FALSE, shaded = FALSE, published_si_mbit = c(10, 10, 20, 16)
  )
}

test_that("a cell claim that pools fitted and held-out cells is judged on the held-out ones", {
  fits <- read_host_fits(fixture_hosts, reference_dir)
  claim <- cell_claim(
    claim_id = "M08", metric = "normal_rel_error", experiments = "table3", check = "at_most",
    target = 10, tolerance = 0, partly_tolerance = 15, reference = "liu95db-table3"
  )
  pooled <- evaluate_cell_claims(claim, fitted_matrix())
  # 0, 20, 10 and 0 % off: 7.5 over all four, 10 over the three held out.
  expect_equal(pooled$measured, 7.5)
  judged <- evaluate_cell_claims(claim, fitted_matrix(), fits = fits)
  expect_equal(judged$measured, 10)
  expect_equal(judged$n, 3)
  expect_false(judged$fitted)
  expect_match(judged$note, "1 cell that sparcstation-ipc was fitted on left out")
  # Another host model's setup was fitted on nothing.
  other <- evaluate_cell_claims(claim, fitted_matrix("sparcstation-ipx"), fits = fits)
  expect_equal(other$measured, 7.5)
  # A claim on another table (comer94's Table 1) is not judged on liu95db Table 3's fit.
  table1 <- evaluate_cell_claims(dplyr::mutate(claim, reference = "comer94-table1"), fitted_matrix(), fits = fits)
  expect_equal(table1$measured, 7.5)
})

test_that("a cell claim on fitted cells only reads fitted, never reproduced", {
  fits <- read_host_fits(fixture_hosts, reference_dir)
  claim <- cell_claim(
    metric = "normal_rel_error", experiments = "table3", check = "at_most", target = 10,
    tolerance = 0, partly_tolerance = 15, send_min_bytes = 52428, recv_min_bytes = 52428,
    reference = "liu95db-table3"
  )
  judged <- evaluate_cell_claims(claim, fitted_matrix(), fits = fits)
  expect_equal(as.character(judged$verdict), "fitted")
  expect_true(judged$fitted)
  expect_equal(judged$measured, 0)
  missed <- evaluate_cell_claims(claim, dplyr::mutate(fitted_matrix(), mean_mbit = 30), fits = fits)
  # A fit that misses its own figure still shows.
  expect_equal(as.character(missed$verdict), "not reproduced")
  expect_true(missed$fitted)
})

test_that("a claim a training set names reads fitted on the setups that run that host model", {
  fits <- read_host_fits(fixture_hosts, reference_dir)
  sizes <- size_rows("udp", 1000, sent = 1000, back = 1000) |>
    dplyr::mutate(host = c("sun-4c-16mb"))
  claim <- one_claim(claim_id = "M15", target = 5)
  judged <- evaluate_claims(claim, sizes, fits = fits, paper = "milliner")
  expect_equal(as.character(judged$verdict), "fitted")
  expect_true(judged$fitted)
  expect_equal(judged$hosts, "sun-4c-16mb")
  # The same id in another paper, or on another host, is not the fitted figure.
  expect_equal(as.character(evaluate_claims(claim, sizes, fits = fits, paper = "liu95db")$verdict), "reproduced")
  other <- dplyr::mutate(sizes, host = "sparcstation-20")
  expect_equal(as.character(evaluate_claims(claim, other, fits = fits, paper = "milliner")$verdict), "reproduced")
  # A milliner setup runs two host models (host and host_b): either one's fit counts.
  both <- dplyr::mutate(sizes, host = "sun-4c-20mb", host_b = "sun-4c-16mb")
  expect_equal(as.character(evaluate_claims(claim, both, fits = fits, paper = "milliner")$verdict), "fitted")
})

test_that("liu95db's claims on Table 3 name the table, M07 both tables it compares", {
  claims <- read_claims(file.path(reference_dir, "liu95db-claims.csv"), c(liu95db_echo_metrics, cell_metrics))
  on_table3 <- claims$metric %in% names(cell_metrics)
  expect_true(all(grepl("liu95db-table3", claims$reference[on_table3], fixed = TRUE)))
  expect_equal(claims$reference[claims$claim_id == "M07"], "liu95db-table3;comer94-table1")
  comer <- read_claims(file.path(reference_dir, "comer94-claims.csv"), cell_metrics)
  expect_true(all(comer$reference[comer$experiments == "table1"] == "comer94-table1"))
})

test_that("the error table sets each host's fitted figures beside its held-out ones", {
  fits <- read_host_fits(fixture_hosts, reference_dir)
  cells <- cell_figures(fitted_matrix(), fits, "liu95db-table3", "Table 3 cells")
  expect_equal(cells$fitted, c(FALSE, FALSE, FALSE, TRUE))
  expect_equal(cells$error_pct, c(0, 20, 10, 0))
  claims <- tibble::tibble(
    claim_id = c("A", "B", "C"), setup = "s", hosts = "sparcstation-ipc", fitted = c(TRUE, FALSE, FALSE),
    measured = c(40, 110, 5), target = c(50, 100, 0), check = c("at_least", "about", "about")
  )
  table <- fitted_error_table(dplyr::bind_rows(cells, claim_figures(claims)), fits)
  expect_setequal(table$kind, c("Table 3 cells", "claims"))
  row <- table[table$kind == "Table 3 cells", ]
  expect_equal(c(row$fitted_n, row$fitted_error_pct, row$held_out_n, row$held_out_error_pct), c(1, 0, 3, 10))
  # A fitted bound (at least 50) missed by 10 is 20 % off; a target of 0 has no relative error.
  row <- table[table$kind == "claims", ]
  expect_equal(c(row$fitted_n, row$fitted_error_pct, row$held_out_n, row$held_out_error_pct), c(1, 20, 1, 10))
  expect_match(row$trained_on, "liu95db-table3 where send_buffer = 52428 and recv_buffer = 52428 \\(1 row\\)")
  expect_match(fitted_error_html(table), "per_packet_ns", fixed = TRUE)
})
