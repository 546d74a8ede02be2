#' @rdname categorical_columns
#' @export
column_categorical_with_vocabulary_list <- function(..., vocabulary_list, dtype = NULL,
                                                    default_value = -1L, num_oov_buckets = 0L) {
  check_named_after_dots(missing(vocabulary_list), "vocabulary_list", "column_categorical_with_vocabulary_list", ...)
  names <- capture_names(...)
  vocab <- check_vocabulary(vocabulary_list, "vocabulary_list", dtype)
  categorical_columns(names, "vocabulary_list", list(
    vocabulary = vocab, dtype = vocab_dtype(vocab),
    default_value = check_default(default_value, num_oov_buckets, length(vocab)),
    num_oov_buckets = check_whole(num_oov_buckets, "num_oov_buckets", min = 0, null_ok = FALSE,
                                  max = .Machine$integer.max - length(vocab))
  ))
}

#' @rdname categorical_columns
#' @export
column_categorical_with_vocabulary_file <- function(..., vocabulary_file, vocabulary_size = NULL,
                                                    num_oov_buckets = 0L, default_value = NULL,
                                                    dtype = "string") {
  check_named_after_dots(missing(vocabulary_file), "vocabulary_file", "column_categorical_with_vocabulary_file", ...)
  names <- capture_names(...)
  check_path(vocabulary_file, "vocabulary_file", exists = "file")
  lines <- readLines(vocabulary_file, warn = FALSE, encoding = "UTF-8")
  vocabulary_size <- check_whole(vocabulary_size, "vocabulary_size")
  if (!is.null(vocabulary_size)) {
    if (length(lines) < vocabulary_size) {
      abort(sprintf("`vocabulary_file` '%s' has %d lines but `vocabulary_size` is %d.",
                    vocabulary_file, length(lines), as.integer(vocabulary_size)))
    }
    lines <- lines[seq_len(vocabulary_size)]
  }
  dtype <- check_dtype(dtype %||% "string")
  vocab <- if (dtype == "string") lines else suppressWarnings(as.numeric(lines))
  if (anyNA(vocab)) {
    abort(sprintf("`vocabulary_file` '%s' holds values that are not integers (dtype \"%s\").",
                  vocabulary_file, dtype))
  }
  vocab <- check_vocabulary(vocab, sprintf("the vocabulary in '%s'", vocabulary_file), dtype)
  categorical_columns(names, "vocabulary_file", list(
    vocabulary = vocab, vocabulary_file = normalizePath(vocabulary_file),
    vocabulary_size = length(vocab), dtype = dtype,
    default_value = check_default(default_value %||% -1L, num_oov_buckets, length(vocab)),
    num_oov_buckets = check_whole(num_oov_buckets, "num_oov_buckets", min = 0, null_ok = FALSE,
                                  max = .Machine$integer.max - length(vocab))
  ))
}

#' @export
column_repr.cppestimators_column_vocabulary_list <- function(x, ...) {
  if (is_data_vocabulary(x)) {
    return(repr_call("_VocabularyListCategoricalColumn",
                     sprintf("key=%s, vocabulary_list=<read from the training data>", repr_value(x$key))))
  }
  repr_call("_VocabularyListCategoricalColumn",
            sprintf("key=%s, vocabulary_list=%s, dtype=tf.%s, default_value=%s, num_oov_buckets=%d",
                    repr_value(x$key), repr_tuple(x$vocabulary, quote = is.character(x$vocabulary)),
                    x$dtype %||% "string", repr_value(x$default_value), as.integer(x$num_oov_buckets)))
}

#' @export
column_repr.cppestimators_column_vocabulary_file <- function(x, ...) {
  repr_call("_VocabularyFileCategoricalColumn",
            sprintf(paste0("key=%s, vocabulary_file=%s, vocabulary_size=%d, num_oov_buckets=%d, dtype=tf.%s, ",
                           "default_value=%s"),
                    repr_value(x$key), repr_value(x$vocabulary_file),
                    as.integer(x$vocabulary_size %||% length(x$vocabulary)), as.integer(x$num_oov_buckets),
                    x$dtype %||% "string", repr_value(x$default_value)))
}

# The categorical column of a feature whose vocabulary is read from the
# training data (column_indicator("am")): a vocabulary list without its
# vocabulary until the estimator's first train() completes it
# (complete_data_columns()).
data_vocabulary_column <- function(name) {
  new_column("vocabulary_list", name, list(key = name, vocabulary = NULL, dtype = NULL, default_value = -1L,
                                           num_oov_buckets = 0L, from_data = TRUE), categorical = TRUE)
}

is_data_vocabulary <- function(col) is_vocabulary_column(col) && is.null(col[["vocabulary"]])

vocab_dtype <- function(vocab) if (is.character(vocab)) "string" else "int64"

check_vocabulary <- function(vocab, what, dtype = NULL) {
  if (is.factor(vocab)) vocab <- as.character(vocab)
  if (length(vocab) == 0L) abort(sprintf("%s must not be empty.", what))
  if (!is.character(vocab) && !(is.numeric(vocab) && all(vocab == floor(vocab), na.rm = TRUE))) {
    abort(sprintf("%s must be strings or whole numbers, not %s.", what, describe(vocab)))
  }
  if (anyNA(vocab)) abort(sprintf("%s must not contain NA.", what))
  dup <- vocab[duplicated(vocab)]
  if (length(dup)) {
    abort(sprintf("Duplicate keys in %s: %s.", what, paste0("'", unique(dup), "'", collapse = ", ")))
  }
  if (!is.null(dtype)) {
    dtype <- check_dtype(dtype)
    if ((dtype == "string") != is.character(vocab)) {
      abort(sprintf("dtype \"%s\" does not match %s (%s).", dtype, what,
                    if (is.character(vocab)) "strings" else "integers"))
    }
  }
  if (is.character(vocab)) enc2utf8(vocab) else as.numeric(vocab)
}

check_default <- function(default_value, num_oov_buckets, vocab_size) {
  default_value <- check_whole(default_value, "default_value", min = -1, null_ok = FALSE,
                               max = vocab_size - 1)
  if (default_value != -1 && is.numeric(num_oov_buckets) && length(num_oov_buckets) == 1L &&
      !is.na(num_oov_buckets) && num_oov_buckets > 0) {
    abort("Can't specify both num_oov_buckets and default_value.")
  }
  default_value
}

# Whether `col` is a vocabulary column (list or file), whose ids are the
# positions of its `vocabulary`.
is_vocabulary_column <- function(col) {
  inherits(col, c("cppestimators_column_vocabulary_list", "cppestimators_column_vocabulary_file"))
}

#' @export
column_vocabulary_words.cppestimators_column_vocabulary_list <- function(col) {
  if (is.null(col[["vocabulary"]])) NULL else as.character(col[["vocabulary"]])
}

#' @export
column_vocabulary_words.cppestimators_column_vocabulary_file <- function(col) {
  column_vocabulary_words.cppestimators_column_vocabulary_list(col)
}

# A vocabulary column's weight rows: its words, then oov1, oov2, ... (the
# ids' numbers when the rows are fewer than the words).
vocabulary_weight_categories <- function(col, n) {
  words <- column_vocabulary_words(col)
  if (!length(words) || n < length(words)) return(as.character(seq_len(n) - 1L))
  c(words, if (n > length(words)) paste0("oov", seq_len(n - length(words))))
}

#' @export
column_weight_categories.cppestimators_column_vocabulary_list <- function(col, n) {
  vocabulary_weight_categories(col, n)
}

#' @export
column_weight_categories.cppestimators_column_vocabulary_file <- function(col, n) {
  vocabulary_weight_categories(col, n)
}
