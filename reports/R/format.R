# Number formatting for tables and prose.

# Three significant digits, element by element, "–" for NA.
fmt_num <- function(x, digits = 3) {
  vapply(x, function(v) {
    if (is.na(v)) {
      return("–")
    }
    format(signif(v, digits), big.mark = ",", scientific = FALSE, trim = TRUE)
  }, character(1), USE.NAMES = FALSE)
}

# Sizes the way the paper writes them: bytes below 1 KB, else KB of 1024 bytes.
fmt_bytes <- function(x) {
  ifelse(x < 1024, paste0(fmt_num(x, 4), " B"), paste0(fmt_num(x / 1024), " KB"))
}

# Words joined as in prose: "a", "a and b", "a, b and c".
and_list <- function(x) {
  if (length(x) <= 1) {
    return(as.character(x))
  }
  paste(paste(utils::head(x, -1), collapse = ", "), "and", utils::tail(x, 1))
}

# "lowest to highest" of x (NA left out) for a report's prose, one value when they are equal, or
# "(not run)" when none.
range_text <- function(x, separator = " to ", suffix = "") {
  x <- x[!is.na(x)]
  if (length(x) == 0) {
    return("(not run)")
  }
  ends <- unique(fmt_num(range(x)))
  paste0(paste(ends, collapse = separator), suffix)
}
