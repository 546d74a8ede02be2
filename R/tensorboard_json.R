# JSON for the native tensorboard()'s endpoints, written without a JSON
# package and vectorized over the records: strings escaped with gsub(),
# numbers with 15 significant digits, or 17 where 15 do not read back as
# the same double,
# NaN and infinities as TensorBoard writes them (the strings "NaN",
# "Infinity", "-Infinity") and NA as null.

json_control_chars <- vapply(1:31, function(i) rawToChar(as.raw(i)), "")
json_control_escapes <- c("\\b" = 8L, "\\t" = 9L, "\\n" = 10L, "\\f" = 12L, "\\r" = 13L)

# Strings as JSON; each distinct string is escaped once (runs and tags
# repeat over every record).
json_str <- function(x) {
  if (!length(x)) return(character())
  x <- enc2utf8(as.character(x))
  u <- unique(x)
  json_str_unique(u)[match(x, u)]
}

json_str_unique <- function(x) {
  x <- gsub("\\", "\\\\", x, fixed = TRUE)
  x <- gsub("\"", "\\\"", x, fixed = TRUE)
  ctrl <- grepl("[\001-\037]", x, useBytes = TRUE)
  if (any(ctrl)) {
    y <- x[ctrl]
    for (i in 1:31) {
      esc <- names(json_control_escapes)[json_control_escapes == i]
      if (!length(esc)) esc <- sprintf("\\u%04x", i)
      y <- gsub(json_control_chars[[i]], esc, y, fixed = TRUE)
    }
    x[ctrl] <- y
  }
  out <- paste0("\"", x, "\"")
  out[is.na(x)] <- "null"
  out
}

json_num <- function(x) {
  x <- as.numeric(x)
  out <- character(length(x))
  fin <- is.finite(x)
  whole <- fin & x == trunc(x) & abs(x) < 1e15
  out[whole] <- sprintf("%.0f", x[whole])
  frac <- which(fin & !whole)
  if (length(frac)) {
    short <- sprintf("%.15g", x[frac])
    inexact <- as.numeric(short) != x[frac]
    short[inexact] <- sprintf("%.17g", x[frac][inexact])
    out[frac] <- short
  }
  out[is.na(x)] <- "null"
  out[is.nan(x)] <- "\"NaN\""
  out[!is.na(x) & x == Inf] <- "\"Infinity\""
  out[!is.na(x) & x == -Inf] <- "\"-Infinity\""
  out
}

json_array <- function(items) paste0("[", paste(items, collapse = ","), "]")

# An object from a named list of values already written as JSON.
json_object <- function(fields) {
  paste0("{", paste0(json_str(names(fields)), ":", unlist(fields, use.names = FALSE), collapse = ","), "}")
}

# A scalar R value (number, string, flag, NULL) as JSON.
json_scalar <- function(x) {
  if (is.null(x)) return("null")
  if (is.logical(x)) return(if (is.na(x)) "null" else if (x) "true" else "false")
  if (is.character(x)) return(json_str(x))
  json_num(x)
}

# A data frame as an object of columns (arrays).
json_columns <- function(df) {
  cols <- lapply(df, function(col) json_array(if (is.character(col)) json_str(col) else json_num(col)))
  json_object(cols)
}
