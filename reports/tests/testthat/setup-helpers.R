# Loads the report helpers and the synthetic-fixture maker for every test.
reports_dir <- normalizePath(file.path(testthat::test_path(), "..", ".."))
for (helper in list.files(file.path(reports_dir, "R"), pattern = "\\.R$", full.names = TRUE)) {
  source(helper, local = environment())
}
source(file.path(reports_dir, "tests", "synthetic-results.R"), local = environment())
