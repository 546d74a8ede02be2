# Example weights (TensorFlow's `weight_column`): a column name or a
# column_numeric() of one value per row, read from the input like a feature
# (whether or not the input's `features` list it) but never a feature of the
# model. Training multiplies each example's loss by its weight; evaluation
# weights every metric. Prediction reads no weights.

# The estimator's weight column as a column_numeric() (a name becomes one),
# or NULL.
weight_column_spec <- function(weight_column) {
  if (is.null(weight_column)) return(NULL)
  if (is.character(weight_column)) {
    if (length(weight_column) != 1L || is.na(weight_column) || !nzchar(weight_column)) {
      abort(paste0("`weight_column` must be one column name or a column_numeric(), not ",
                   describe(weight_column), "."))
    }
    return(column_numeric(weight_column))
  }
  if (!is_numeric_column(weight_column)) {
    abort(paste0("`weight_column` must be a column name or a column_numeric(), not ",
                 if (inherits(weight_column, "cppestimators_feature_column")) {
                   paste0("the ", weight_column$kind, " column '", weight_column$name, "'")
                 } else {
                   describe(weight_column)
                 }, "."))
  }
  if (!identical(as.integer(weight_column$width), 1L)) {
    abort(sprintf("`weight_column` '%s' must hold one value per example (shape 1), not shape (%s).",
                  weight_column$name, paste(weight_column$shape, collapse = ", ")))
  }
  weight_column
}

# The weights of a training or evaluation session over `input` (an
# input_fn() object), as a double vector (normalizer_fn applied), or NULL
# when the estimator has no weight column or the session predicts. The
# engine checks that they are finite and >= 0, naming the first row that is
# not (src/../session/session.h).
input_weights <- function(estimator, input, mode) {
  col <- estimator$spec$weight_column
  if (is.null(col) || identical(mode, "infer")) return(NULL)
  key <- col[["key"]]
  w <- input$features[[key]]
  if (is.null(w)) w <- input$columns[[key]]
  if (is.null(w)) {
    have <- unique(c(names(input$features), names(input$columns)))
    abort(sprintf(paste0("the weight column '%s' is not in the input: it has %s. Add the weights to the data ",
                         "(input_fn() reads them from its data frame or list, listed in `features` or not)."),
                  key, name_list(setdiff(have, input$response))),
          class = "cppestimators_missing_weight_column")
  }
  w <- read_column(w, key, "the weight column '%s'")
  rows <- NROW(w)
  if (!is.null(col$normalizer_fn)) {
    w <- tryCatch(col$normalizer_fn(w), error = function(e) {
      abort(sprintf("the normalizer_fn of the weight column '%s' failed: %s", key, conditionMessage(e)),
            class = "cppestimators_normalizer_error", parent = e)
    })
    if (NROW(w) != rows) {
      abort(sprintf("the normalizer_fn of the weight column '%s' returned %d values for %d rows.", key,
                    NROW(w), rows))
    }
  }
  if (is.factor(w) || !is.numeric(w)) {
    abort(sprintf("the weight column '%s' must be numeric, not %s.", key, describe(w)))
  }
  if (is.matrix(w) && ncol(w) != 1L) {
    abort(sprintf("the weight column '%s' must hold one value per example, not %d columns.", key, ncol(w)))
  }
  if (!is.double(w) || !is.null(attributes(w))) w <- as.double(w)
  w
}
