# What a paper's report reads from its spec (configs/<paper>.yaml): the spec, not the report,
# says which experiments there are.

# The experiments the spec runs with tool (an experiment's own `tool:`, else the spec's
# defaults), in the spec's order. Variants (`variant_of`) are left out: they stand in for their
# base only in the sensitivity section (read_variants()).
spec_experiments <- function(spec_path, tool) {
  if (!file.exists(spec_path)) {
    stop(
      "spec ", spec_path, " not found: the report reads its experiments from it",
      call. = FALSE
    )
  }
  spec <- yaml::read_yaml(spec_path)
  runs_tool <- purrr::map_lgl(spec$experiments, function(experiment) {
    identical(experiment$tool %||% spec$defaults$tool, tool) && is.null(experiment$variant_of)
  })
  names(spec$experiments)[runs_tool]
}
