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

#' @rdname categorical_columns
#' @export
column_categorical_with_identity <- function(..., num_buckets, default_value = NULL) {
  names <- capture_names(...)
  num_buckets <- check_whole(num_buckets, "num_buckets", null_ok = FALSE, max = .Machine$integer.max)
  default_value <- check_whole(default_value, "default_value", min = 0)
  if (!is.null(default_value) && default_value >= num_buckets) {
    abort(sprintf("`default_value` %d not in range [0, %d).", as.integer(default_value),
                  as.integer(num_buckets)))
  }
  categorical_columns(names, "identity", list(num_buckets = num_buckets,
                                              default_value = default_value))
}

#' @rdname categorical_columns
#' @export
column_categorical_with_hash_bucket <- function(..., hash_bucket_size, dtype = "string") {
  names <- capture_names(...)
  check_number(hash_bucket_size, "hash_bucket_size", min = 1, exclusive_min = TRUE, finite = FALSE,
               message = "hash_bucket_size must be larger than 1")
  hash_bucket_size <- check_whole(hash_bucket_size, "hash_bucket_size", min = 2,
                                  max = .Machine$integer.max)
  categorical_columns(names, "hash_bucket", list(hash_bucket_size = hash_bucket_size,
                                                 dtype = check_dtype(dtype)))
}

#' Bucketized and crossed columns
#'
#' `column_bucketized()` cuts a numeric column at `boundaries`: the bucket of
#' a value is the number of boundaries at or below it, so `boundaries =
#' c(0, 10)` gives the buckets `(-Inf, 0)`, `[0, 10)` and `[10, Inf)`.
#' Values are compared in single precision, as in TensorFlow. It is
#' categorical for linear models and crosses, and one-hot for DNNs.
#'
#' `column_crossed()` combines the values of two or more features or
#' categorical columns: every combination in a row is hashed (TensorFlow's
#' `FingerprintCat64` chain, starting from `hash_key`) into one of
#' `hash_bucket_size` ids. Its name is the sorted names of its inputs joined
#' by `"_X_"`.
#'
#' @param source_column A column made by [column_numeric()].
#' @param boundaries Strictly increasing numbers.
#' @param keys The inputs of the cross: feature names (strings) and
#'   categorical columns (not hash-bucket columns: give the feature name
#'   instead), as a character vector or a list.
#' @param hash_bucket_size Number of ids (at least 2).
#' @param hash_key `NULL` for TensorFlow's default key, or a number.
#' @return A feature column.
#' @family feature columns
#' @examples
#' column_bucketized(column_numeric("age"), boundaries = c(18, 25, 35, 50, 65))
#' column_crossed(c("education", "occupation"), hash_bucket_size = 1000)
#' @export
column_bucketized <- function(source_column, boundaries) {
  if (!inherits(source_column, "cppestimators_column_numeric")) {
    abort(paste0("`source_column` must be a column made by column_numeric(), not ", describe(source_column), "."))
  }
  if (!is.numeric(boundaries) || anyNA(boundaries) || any(!is.finite(boundaries)) ||
      is.unsorted(boundaries, strictly = TRUE)) {
    abort("boundaries must be a sorted list.")
  }
  new_column("bucketized", paste0(source_column$name, "_bucketized"),
             list(source_column = source_column, boundaries = as.numeric(boundaries)),
             categorical = TRUE)
}

#' @rdname column_bucketized
#' @export
column_crossed <- function(keys, hash_bucket_size, hash_key = NULL) {
  if (inherits(keys, "cppestimators_feature_column")) keys <- list(keys)
  keys <- if (is.character(keys)) as.list(keys) else keys
  if (!is.list(keys) || length(keys) < 2L) {
    abort(paste0("keys must be a list with length > 1. Given: ", describe(keys)))
  }
  leaves <- list()
  for (k in keys) {
    if (is.character(k) && length(k) == 1L && !is.na(k) && nzchar(k)) {
      leaves[[length(leaves) + 1L]] <- list(kind = "raw", name = k, key = k)
    } else if (inherits(k, "cppestimators_column_crossed")) {
      leaves <- c(leaves, k$keys)
    } else if (inherits(k, "cppestimators_column_weighted")) {
      abort(sprintf("column_crossed() does not support weighted columns in `keys`: '%s'.", k$name))
    } else if (inherits(k, "cppestimators_column_hash_bucket")) {
      abort(sprintf("column_categorical_with_hash_bucket() is not supported in `keys` of column_crossed(). Instead, use the feature name as a string: \"%s\".",
                    k$key))
    } else if (inherits(k, "cppestimators_categorical_column")) {
      leaves[[length(leaves) + 1L]] <- k
    } else {
      abort(paste0("Unsupported key type in `keys` of column_crossed(): each key must be a feature name or a categorical column, not ",
                   describe(k), "."))
    }
  }
  check_number(hash_bucket_size, "hash_bucket_size", min = 1, exclusive_min = TRUE, finite = FALSE,
               message = paste0("hash_bucket_size must be > 1. Given: ", describe(hash_bucket_size)))
  hash_bucket_size <- check_whole(hash_bucket_size, "hash_bucket_size", min = 2,
                                  max = .Machine$integer.max)
  hash_key <- check_whole(hash_key, "hash_key", min = 0)
  nm <- sort(vapply(leaves, function(l) l$name, ""), method = "radix")
  new_column("crossed", paste(nm, collapse = "_X_"),
             list(keys = leaves, hash_bucket_size = hash_bucket_size, hash_key = hash_key),
             categorical = TRUE)
}

#' Indicator, embedding and weighted columns
#'
#' Wrappers around a categorical column:
#' * `column_indicator()` reads its ids as a multi-hot vector of
#'   `num_buckets` values (the count of each id in the row, or its weight for
#'   a weighted column).
#' * `column_embedding()` looks its ids up in a trainable table of
#'   `num_buckets x dimension` values (initialised from a truncated normal
#'   with standard deviation `1/sqrt(dimension)`, seeded by
#'   `run_config(tf_random_seed =)`), and combines the rows of one example
#'   by `combiner`: `"sum"`, `"mean"` (weighted mean) or `"sqrtn"` (sum over
#'   the square root of the sum of squared weights).
#' * `column_categorical_weighted()` gives each id the value of another
#'   numeric feature as its weight; ids with weight 0 or less are dropped.
#'
#' @param categorical_column A categorical column, such as one made by
#'   [column_categorical_with_vocabulary_list()].
#' @param dimension Length of an embedding vector.
#' @param combiner `"mean"`, `"sqrtn"` or `"sum"`.
#' @param initializer `NULL` for the default, or a number: the standard
#'   deviation of the truncated normal initial values.
#' @param ckpt_to_load_from,tensor_name_in_ckpt Not supported: must be `NULL`.
#' @param max_norm `NULL`, or a positive number: rows of the table longer
#'   than this are scaled down to it before combining.
#' @param trainable Whether training updates the table.
#' @param weight_feature_key The name of the feature holding the weights.
#' @param dtype The weights' type, `"float32"`; accepted for compatibility.
#' @return A feature column.
#' @family feature columns
#' @examples
#' species <- column_categorical_with_vocabulary_list("Species",
#'   vocabulary_list = c("setosa", "versicolor", "virginica"))
#' column_indicator(species)
#' column_embedding(species, dimension = 2)
#' column_categorical_weighted(species, "Petal.Width")
#' @export
column_indicator <- function(categorical_column) {
  check_categorical(categorical_column, "categorical_column")
  new_column("indicator", paste0(categorical_column$name, "_indicator"),
             list(categorical_column = categorical_column))
}

#' @rdname column_indicator
#' @export
column_embedding <- function(categorical_column, dimension, combiner = "mean", initializer = NULL,
                             ckpt_to_load_from = NULL, tensor_name_in_ckpt = NULL,
                             max_norm = NULL, trainable = TRUE) {
  check_categorical(categorical_column, "categorical_column")
  dimension <- check_whole(dimension, "dimension", null_ok = FALSE)
  check_choice(combiner, "combiner", c("mean", "sqrtn", "sum"))
  if (!is.null(initializer)) check_number(initializer, "initializer", min = 0, exclusive_min = TRUE)
  if (!is.null(ckpt_to_load_from) || !is.null(tensor_name_in_ckpt)) {
    abort("`ckpt_to_load_from` and `tensor_name_in_ckpt` are not supported; use NULL.")
  }
  if (!is.null(max_norm)) check_number(max_norm, "max_norm", min = 0, exclusive_min = TRUE)
  check_flag(trainable, "trainable")
  new_column("embedding", paste0(categorical_column$name, "_embedding"), list(
    categorical_column = categorical_column, dimension = dimension, combiner = combiner,
    initializer_stddev = initializer, max_norm = max_norm, trainable = trainable
  ))
}

#' @rdname column_indicator
#' @export
column_categorical_weighted <- function(categorical_column, weight_feature_key, dtype = "float32") {
  check_categorical(categorical_column, "categorical_column")
  check_string(weight_feature_key, "weight_feature_key", must = "the name of a feature")
  dtype <- normalize_dtype(dtype)
  new_column("weighted", paste0(categorical_column$name, "_weighted_by_", weight_feature_key),
             list(categorical_column = categorical_column, weight_feature_key = weight_feature_key,
                  dtype = dtype), categorical = TRUE)
}

# --- helpers ---------------------------------------------------------------

new_column <- function(kind, name, fields, categorical = FALSE) {
  structure(c(list(kind = kind, name = name), fields),
            class = c(paste0("cppestimators_column_", kind),
                      if (categorical) "cppestimators_categorical_column",
                      "cppestimators_feature_column"))
}

# One categorical column per feature name.
categorical_columns <- function(names, kind, fields) {
  cols <- lapply(names, function(nm) new_column(kind, nm, c(list(key = nm), fields), categorical = TRUE))
  if (length(cols) == 1L) cols[[1]] else cols
}

check_categorical <- function(x, arg) {
  if (!inherits(x, "cppestimators_categorical_column")) {
    abort(sprintf("`%s` must be a categorical column (column_categorical_*(), column_bucketized() or column_crossed()), not %s.",
                  arg, if (inherits(x, "cppestimators_feature_column")) {
                   sprintf("the %s column '%s'", x$kind, x$name)
                  } else describe(x)))
  }
  invisible(x)
}

check_dtype <- function(dtype) {
  check_string(dtype, "dtype", empty_ok = TRUE, must = "a string such as \"string\" or \"int64\"")
  dtype <- sub("^tf\\$", "", dtype)
  if (!dtype %in% c("string", "int64", "int32")) {
    abort(sprintf("`dtype` must be \"string\", \"int64\" or \"int32\", not \"%s\".", dtype))
  }
  dtype
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
