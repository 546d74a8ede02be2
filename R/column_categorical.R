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
#'   give one column each. Every unnamed argument is taken as a name, so the
#'   arguments after `...` must be named (`vocabulary_list = levels(d$cut)`);
#'   one given by position is an error saying so.
#' @param vocabulary_list The vocabulary: a character vector, or whole numbers
#'   for integer features; no duplicates.
#' @param vocabulary_file A text file with one vocabulary entry per line.
#' @param vocabulary_size How many lines of `vocabulary_file` to use; `NULL`
#'   for all of them.
#' @param dtype The type of the feature's values: `"string"`, or an integer
#'   type given by name (`"int64"`, `"int32"`) or as the [tf] object's dtype
#'   (`tf$int64`, `tf$int32`); `NULL` (vocabulary lists only) infers it from
#'   the vocabulary.
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
