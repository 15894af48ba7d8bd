# Variant experiments judged in their base's place (R/sensitivity.R).

placed <- function(rows, stack = "tahoe", backend = "sim", host = "ipc") {
  dplyr::mutate(rows, link = "l", stack = stack, backend = backend, host = host,
    setup = paste(link, stack, backend, host, sep = " / "))
}

# The base "exp" loses nothing; claim X1 says loss stays at most 5 %, X2 is on another experiment.
base_tables <- function(...) {
  list(sizes = dplyr::bind_rows(
    placed(size_rows("udp", c(1000, 2000), sent = 100, back = 100, experiment = "exp")),
    placed(size_rows("udp", 1000, sent = 100, back = 100, experiment = "other")),
    ...
  ))
}
two_claims <- dplyr::bind_rows(one_claim(claim_id = "X1"), one_claim(claim_id = "X2", experiments = "other"))
by_sizes <- function(tables, claims) evaluate_claims(claims, tables$sizes)
variant <- function(experiment = "exp-v", assumption = "queue", moved = "queue 50 -> 25 packets") {
  tibble::tibble(experiment = experiment, base = "exp", assumption = assumption, moved = moved)
}

test_that("a variant that loses more flips the base's claim, and only that one", {
  tables <- base_tables(placed(size_rows("udp", 1000, sent = 100, back = 50, experiment = "exp-v")))
  baseline <- by_sizes(tables, two_claims)
  table <- sensitivity_table(variant(), tables, by_sizes, baseline, two_claims)
  expect_equal(table$status, "judged")
  expect_equal(table$judged, 1)
  expect_equal(table$changed, "X1: reproduced -> not reproduced")
  expect_equal(table$assumption, "queue")
})

test_that("a variant that agrees changes no verdict", {
  tables <- base_tables(placed(size_rows("udp", 1000, sent = 1000, back = 995, experiment = "exp-v")))
  baseline <- by_sizes(tables, two_claims)
  table <- sensitivity_table(variant(), tables, by_sizes, baseline, two_claims)
  expect_equal(table$judged, 1)
  expect_equal(table$changed, "none")
})

test_that("a variant without results reads not run, with no verdict", {
  tables <- base_tables()
  baseline <- by_sizes(tables, two_claims)
  table <- sensitivity_table(variant(), tables, by_sizes, baseline, two_claims)
  expect_equal(table$status, "not run")
  expect_true(is.na(table$judged))
  expect_true(is.na(table$changed))
})

test_that("a variant on another host stands in the base's setup, on its stack only", {
  linux <- placed(size_rows("udp", 1000, sent = 100, back = 0, experiment = "exp"), stack = "linux", host = NA)
  moved_host <- placed(size_rows("udp", 1000, sent = 100, back = 50, experiment = "exp-v"), host = "ipc-uncal")
  tables <- base_tables(linux, moved_host)
  baseline <- by_sizes(tables, two_claims)
  swapped <- swap_variant(tables, "exp-v", "exp")
  expect_equal(swapped$setup, "l / tahoe / sim / ipc")
  moved <- dplyr::filter(swapped$tables$sizes, experiment == "exp")
  expect_equal(moved$setup, "l / tahoe / sim / ipc")
  expect_equal(moved$host, "ipc")
  # The other stack's rows, of every experiment, are left out: only the variant's setup is judged.
  expect_equal(unique(swapped$tables$sizes$stack), "tahoe")
  expect_setequal(swapped$tables$sizes$experiment, c("exp", "other"))
  table <- sensitivity_table(variant(), tables, by_sizes, baseline, two_claims)
  # The Linux setup's verdict (not reproduced either way) is not counted.
  expect_equal(table$judged, 1)
  expect_equal(table$changed, "X1: reproduced -> not reproduced")
})

test_that("a base that no claim names, or that has no rows, gives no verdict", {
  tables <- base_tables(placed(size_rows("udp", 1000, sent = 100, back = 50, experiment = "exp-v")))
  claims <- one_claim(experiments = "other")
  table <- sensitivity_table(variant(), tables, by_sizes, by_sizes(tables, claims), claims)
  expect_equal(table$status, "no claim names the base")
  only_variant <- list(sizes = dplyr::filter(tables$sizes, experiment != "exp"))
  table <- sensitivity_table(variant(), only_variant, by_sizes, by_sizes(only_variant, two_claims), two_claims)
  expect_equal(table$status, "not run")
})

test_that("variants are read from the spec, with ids renamed as the report reads them", {
  path <- tempfile(fileext = ".yaml")
  writeLines(c(
    "paper: p", "experiments:", "  a-tahoe: {}",
    "  a-q25-tahoe:", "    variant_of: {experiment: a-tahoe, assumption: queue, moved: 'queue 25'}",
    "assumptions: {queue: q}"
  ), path)
  variants <- read_variants(path, function(id) sub("-tahoe$", "", id))
  expect_equal(variants$experiment, "a-q25")
  expect_equal(variants$base, "a")
  expect_equal(variants$moved, "queue 25")
  writeLines(c("paper: p", "experiments:", "  a: {}"), path)
  expect_equal(nrow(read_variants(path)), 0)
})

test_that("the table's HTML escapes the spec's text and marks rows without a verdict", {
  tables <- base_tables(placed(size_rows("udp", 1000, sent = 100, back = 50, experiment = "exp-v")))
  variants <- dplyr::bind_rows(variant(moved = "queue <50> & *25*"), variant(experiment = "exp-w"))
  table <- sensitivity_table(variants, tables, by_sizes, by_sizes(tables, two_claims), two_claims)
  html <- as.character(sensitivity_html(table, "spec.yaml"))
  expect_match(html, "queue &lt;50&gt; &amp; *25*", fixed = TRUE)
  expect_match(html, "X1: reproduced \u2192 not reproduced", fixed = TRUE)
  expect_match(html, "<i>not run</i>", fixed = TRUE)
  expect_match(sensitivity_html(table[0, ], "spec.yaml"), "declares no variant")
})

test_that("a spec that is not there declares no variant", {
  expect_equal(nrow(read_variants(file.path(tempdir(), "absent.yaml"))), 0)
})

test_that("without a setup column, the base's rows on the variant's stack give way, the others are left out", {
  echoes <- tibble::tibble(
    experiment = c("exp", "exp", "exp-v", "other", "other"),
    stack = c("tahoe", "linux", "tahoe", "tahoe", "linux"),
    backend = "sim", rtt_ms = c(1, 2, 3, 4, 5)
  )
  swapped <- swap_variant(list(echoes = echoes), "exp-v", "exp")
  expect_true(is.na(swapped$setup))
  kept <- swapped$tables$echoes
  expect_equal(kept$stack, c("tahoe", "tahoe"))
  expect_equal(kept$experiment, c("exp", "other"))
  expect_equal(kept$rtt_ms, c(3, 4))
})

test_that("the section's opening names the spec and what is swapped, and adds the report's note", {
  intro <- sensitivity_intro("configs/x.yaml", "echoes", "A note.")
  expect_match(intro, "(`configs/x.yaml`, `assumptions`)", fixed = TRUE)
  expect_match(intro, "its echoes are put in the place of the base's", fixed = TRUE)
  expect_match(intro, "at the base's assumption, and its change names them. A note.$")
  expect_match(sensitivity_intro("s.yaml", "transfers"), "its change names them.$")
})

test_that("a claim that also rests on an experiment the variant does not rerun says so", {
  both <- one_claim(claim_id = "X3", experiments = "exp;other")
  claims <- dplyr::bind_rows(two_claims, both)
  tables <- base_tables(placed(size_rows("udp", 1000, sent = 100, back = 50, experiment = "exp-v")))
  table <- sensitivity_table(variant(), tables, by_sizes, by_sizes(tables, claims), claims)
  expect_equal(table$judged, 2)
  expect_equal(
    table$changed,
    "X1: reproduced -> not reproduced; X3: reproduced -> not reproduced (other at the base's assumption)"
  )
})

test_that("the report's own data reach its evaluation beside the swapped tables", {
  tables <- base_tables(placed(size_rows("udp", 1000, sent = 100, back = 50, experiment = "exp-v")))
  with_bound <- function(tables, claims, bound) {
    evaluate_claims(dplyr::mutate(claims, target = bound), tables$sizes)
  }
  baseline <- with_bound(tables, two_claims, 90)
  table <- sensitivity_table(variant(), tables, with_bound, baseline, two_claims, 90)
  expect_equal(table$changed, "none")
  table <- sensitivity_table(variant(), tables, with_bound, baseline, two_claims, 10)
  expect_equal(table$changed, "X1: reproduced -> not reproduced")
})
