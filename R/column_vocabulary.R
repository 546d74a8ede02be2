#' Categorical feature columns
#'
#' Columns that turn a feature's values into ids, as TensorFlow's categorical
#' columns do. A linear model keeps one weight row per id (updated only for
#' the ids a batch holds); a DNN needs them wrapped in [column_indicator()]
#' or [column_embedding()].
#'
#' * `column_categorical_with_vocabulary_list()`: the id is the value's
#'   position in `vocabulary_list` (0-based). Other values get
#'   `default_value` (`-1`: no id) or, with `num_oov_buckets = k > 0`, one of
#'   `k` extra ids chosen by hashing the value.
#' * `column_categorical_with_vocabulary_file()`: the same with one
#'   vocabulary entry per line of a file (read when the column is made, so
#'   the estimator does not need the file later).
#' * `column_categorical_with_identity()`: the id is the integer value itself,
#'   in `[0, num_buckets)`.
#' * `column_categorical_with_hash_bucket()`: the id is the FarmHash
#'   Fingerprint64 of the value (integers through their decimal text) modulo
#'   `hash_bucket_size` — the ids TensorFlow gives the same strings.
#'
#' Character, factor, integer and logical features are read as they are
#' (factors by their labels); nothing is converted in R. TensorFlow's marks
#' of a missing value, `""` for strings and `-1` for integers, yield no id.
#' `NA` follows each column's rule for values it does not know, as the text
#' `"NA"` that reached TensorFlow from R: a vocabulary column gives it
#' `default_value` or an out-of-vocabulary id, a hash-bucket column hashes
#' `"NA"`; an identity column gives it `default_value`, and without one it is
#' an error naming the row.
#'
#' @param ... Names of the features: bare names, strings, or selection
#'   helpers such as [starts_with()] inside [feature_columns()]. Several names
#'   give one column each.
#' @param vocabulary_list The vocabulary: a character vector, or whole numbers
#'   for integer features; no duplicates.
#' @param vocabulary_file A text file with one vocabulary entry per line.
#' @param vocabulary_size How many lines of `vocabulary_file` to use; `NULL`
#'   for all of them.
#' @param dtype `NULL` (inferred from the vocabulary), `"string"`, `"int64"`
#'   or `"int32"` (a `tf$` prefix is accepted).
#' @param default_value The id of values outside the vocabulary (`-1`: none)
#'   or, for identity columns, of values outside `[0, num_buckets)` (`NULL`:
#'   such values are an error).
#' @param num_oov_buckets Number of hashed ids for values outside the
#'   vocabulary.
#' @param num_buckets Number of ids of an identity column.
#' @param hash_bucket_size Number of hash buckets (at least 2).
#' @return A feature column, or a list of them when several names are given.
#' @family feature columns
#' @name categorical_columns
#' @examples
#' column_categorical_with_vocabulary_list("Species",
#'   vocabulary_list = c("setosa", "versicolor", "virginica"))
#' column_categorical_with_identity("cyl", num_buckets = 9)
#' column_categorical_with_hash_bucket("name", hash_bucket_size = 1000)
#' voc <- tempfile()
#' writeLines(c("setosa", "versicolor", "virginica"), voc)
#' column_categorical_with_vocabulary_file("Species", vocabulary_file = voc)
NULL

#' @rdname categorical_columns
#' @export
column_categorical_with_vocabulary_list <- function(..., vocabulary_list, dtype = NULL,
                                                    default_value = -1L, num_oov_buckets = 0L) {
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
