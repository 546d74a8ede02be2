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

#' @export
column_repr.cppestimators_column_embedding <- function(x, ...) {
  repr_call("_EmbeddingColumn",
            sprintf(paste0("categorical_column=%s, dimension=%d, combiner=%s, ",
                           "initializer=truncated_normal(stddev=%s), max_norm=%s, trainable=%s"),
                    column_repr(x$categorical_column), as.integer(x$dimension), repr_value(x$combiner),
                    format(x$initializer_stddev %||% (1 / sqrt(x$dimension))), repr_value(x$max_norm),
                    if (isFALSE(x$trainable)) "False" else "True"))
}

# Whether `x` is an embedding column (values learned per category).
is_embedding_column <- function(x) inherits(x, "cppestimators_column_embedding")
