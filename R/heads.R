# Heads: what an estimator learns its outputs for (the loss, the link from
# logits to predictions, the evaluation metrics). The engine defines each
# head once (src/engine/model/heads/); R names them and checks their
# settings. An estimator's spec keeps the head's kind as `spec$head` (a
# string, as before heads had settings), its settings as `spec$head_args`
# and its width as `spec$head_n`.

#' Heads: the loss an estimator minimizes and what it predicts
#'
#' A head turns a model's outputs (logits) into a loss, predictions and
#' evaluation metrics, as TensorFlow's heads did. Every regressor
#' (`linear_regressor()`, `dnn_regressor()`, `dnn_linear_combined_regressor()`,
#' `boosted_trees_regressor()`) takes one as `head =`; the default, `NULL`,
#' is squared error. The classifiers take `head_multi_label()`.
#'
#' * `head_regression()`: squared error (the default).
#' * `head_poisson_regression()`: counts. The Poisson log-likelihood with a
#'   log link (TensorFlow's `PoissonRegressionHead`: its loss adds
#'   Stirling's approximation of `log(y!)`, a constant); predictions are
#'   `exp(logits)`. A rate with an exposure: train on `count / exposure`
#'   with `exposure` as the weight column; this is the same likelihood as
#'   `glm(count ~ ... + offset(log(exposure)), family = poisson)`, up to a
#'   constant, so no offset column is needed.
#' * `head_tweedie(power)`: amounts with exact zeros (insurance claims):
#'   the Tweedie deviance of variance power `power` in (1, 2), log link
#'   (xgboost's `reg:tweedie`).
#' * `head_gamma_regression()`: positive skewed amounts, log link
#'   (`glm(family = Gamma(link = "log"))`, xgboost's `reg:gamma`).
#' * `head_huber(delta)`: squared error within `delta` of the label,
#'   absolute beyond (TensorFlow's `huber_loss`); `pseudo = TRUE`: the
#'   smooth pseudo-Huber loss (xgboost's `reg:pseudohubererror`).
#' * `head_absolute_error()`: the median (LightGBM's `l1`).
#' * `head_quantile(levels)`: one output per quantile level, each with its
#'   pinball loss; predictions are each row's values sorted, so that they
#'   never cross (sorting never raises the pinball loss).
#' * `head_logistic_regression()`: labels in `[0, 1]` (shares, rates),
#'   sigmoid cross-entropy; predictions are probabilities (TensorFlow's
#'   `LogisticRegressionHead`).
#' * `head_multi_label(n_labels)`: several yes/no labels per example
#'   (tags), a sigmoid per label (TensorFlow's `MultiLabelHead`). The
#'   response is a logical or 0/1 matrix (one column per label), or a list
#'   column of each example's label names (then `label_vocabulary` names
#'   the labels). A label that is never on is allowed.
#'
#' Boosted trees grow from each loss's gradients and second derivatives;
#' for absolute error and quantiles (whose second derivative says nothing)
#' the histogram growths renew each leaf as the quantile of its rows'
#' residuals, as LightGBM does.
#'
#' **Metrics** (`evaluate()`, the in-memory evaluator, early stopping, the
#' dashboard): every head reports `loss` and `average_loss`; regression
#' heads `label/mean` and `prediction/mean`; Poisson, Tweedie and Gamma
#' `deviance` (the mean unit deviance, `glm()`'s deviance divided by the
#' summed weights); Huber and absolute error `mean_absolute_error`;
#' quantile heads `pinball_loss/<level>`, `coverage/<level>` (the share of
#' labels at or below that level's prediction) and, for two levels or
#' more, `interval_coverage` (the share inside the lowest and highest
#' levels' predictions); multi-label `auc`, `auc_precision_recall`,
#' `hamming_loss`, `accuracy/positive_threshold_0.5`,
#' `precision/positive_threshold_0.5`, `recall/positive_threshold_0.5` and
#' per label `auc/<label>`, `auc_precision_recall/<label>`,
#' `precision/<label>`, `recall/<label>` and `probability_mean/<label>`.
#'
#' @param power The Tweedie variance power, in (1, 2).
#' @param delta Where the Huber loss turns from squared to absolute error
#'   (> 0).
#' @param pseudo Whether the Huber loss is the smooth pseudo-Huber loss.
#' @param levels The quantile levels, strictly increasing, in (0, 1).
#' @param n_labels The number of labels (at least 2).
#' @param label_vocabulary The labels' names (`n_labels` strings), or
#'   `NULL`: the column names of a matrix response, else `"0"`, `"1"`, ...
#' @return A head, for an estimator's `head` argument.
#' @examples
#' counts <- data.frame(x = rep(c(0, 1), 50), y = rpois(100, rep(c(1, 3), 50)))
#' est <- linear_regressor(feature_columns(column_numeric("x")), head = head_poisson_regression())
#' train(est, counts, response = "y", num_epochs = 50)
#' predict(est, data.frame(x = c(0, 1)))$predictions
#' head_quantile(c(0.1, 0.5, 0.9))
#' @name heads
NULL

#' @rdname heads
#' @export
head_regression <- function() new_head("regression")

#' @rdname heads
#' @export
head_poisson_regression <- function() new_head("poisson_regression")

#' @rdname heads
#' @export
head_tweedie <- function(power = 1.5) {
  power <- check_number(power, "power", must = "a number in (1, 2)")
  if (!(power > 1 && power < 2)) abort(sprintf("`power` must be a number in (1, 2), not %s.", format(power)))
  new_head("tweedie", power = power)
}

#' @rdname heads
#' @export
head_gamma_regression <- function() new_head("gamma_regression")

#' @rdname heads
#' @export
head_huber <- function(delta = 1, pseudo = FALSE) {
  delta <- check_number(delta, "delta", must = "a number > 0")
  if (!(delta > 0) || !is.finite(delta)) abort(sprintf("`delta` must be a number > 0, not %s.", format(delta)))
  check_flag(pseudo, "pseudo")
  new_head(if (pseudo) "pseudo_huber" else "huber", delta = delta)
}

#' @rdname heads
#' @export
head_absolute_error <- function() new_head("absolute_error")

#' @rdname heads
#' @export
head_quantile <- function(levels = c(0.1, 0.5, 0.9)) {
  if (!is.numeric(levels) || !length(levels) || anyNA(levels) || any(levels <= 0 | levels >= 1) ||
      is.unsorted(levels, strictly = TRUE)) {
    abort(paste0("`levels` must be quantile levels in (0, 1), strictly increasing, not ", describe(levels), "."))
  }
  new_head("quantile", levels = as.numeric(levels))
}

#' @rdname heads
#' @export
head_logistic_regression <- function() new_head("logistic_regression")

#' @rdname heads
#' @export
head_multi_label <- function(n_labels, label_vocabulary = NULL) {
  if (missing(n_labels) && !is.null(label_vocabulary)) n_labels <- length(label_vocabulary)
  n_labels <- check_whole(n_labels, "n_labels", min = 2, null_ok = FALSE, max = 1e5)
  check_label_vocabulary(label_vocabulary, n_labels)
  structure(list(kind = "multi_label", args = list(), n = n_labels, label_vocabulary = label_vocabulary),
            class = "cppestimators_head")
}

new_head <- function(kind, ...) structure(list(kind = kind, args = list(...)), class = "cppestimators_head")

# The heads of a regressor (one label column or label_dimension of them)
# and of a classifier.
regression_heads <- c("regression", "poisson_regression", "tweedie", "gamma_regression", "huber",
                      "pseudo_huber", "absolute_error", "quantile", "logistic_regression")
classifier_heads <- c("binary", "multi_class", "multi_label")

is_regression_head <- function(spec) spec$head %in% regression_heads

#' @export
print.cppestimators_head <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' @export
format.cppestimators_head <- function(x, ...) head_label(x$kind, x$args, x$n)

# "tweedie(power = 1.5)", "quantile(levels = 0.1, 0.5, 0.9)": a head as
# printed and as the model record writes it (plain kind without settings).
head_label <- function(kind, args, n = NULL) {
  shown <- c(vapply(names(args), function(a) sprintf("%s = %s", a, paste(format(args[[a]]), collapse = ", ")), ""),
             if (identical(kind, "multi_label") && !is.null(n)) sprintf("n_labels = %d", as.integer(n)))
  if (!length(shown)) return(kind)
  sprintf("%s(%s)", kind, paste(shown, collapse = "; "))
}

# The head a constructor was given (`head`, NULL for its default), checked
# against its family: list(kind, args, n, label_vocabulary).
resolve_head <- function(head, default, n, family, fn) {
  if (is.null(head)) return(list(kind = default, args = NULL, n = n))
  if (!inherits(head, "cppestimators_head")) {
    abort(sprintf("`head` must be NULL or a head such as head_poisson_regression(), not %s.", describe(head)),
          class = "cppestimators_bad_head")
  }
  ok <- if (family == "regressor") head$kind %in% regression_heads else identical(head$kind, "multi_label")
  if (!ok) {
    abort(sprintf("%s() takes %s, not %s.", fn,
                  if (family == "regressor") "a regression head (head_poisson_regression(), head_quantile(), ...)"
                  else "head_multi_label() (or NULL)", format(head)), class = "cppestimators_bad_head")
  }
  if (identical(head$kind, "quantile")) {
    if (n != 1L) abort(sprintf("%s(): a quantile head predicts one label: `label_dimension` must be 1.", fn),
                       class = "cppestimators_bad_head")
  }
  if (identical(head$kind, "multi_label")) n <- head$n
  list(kind = head$kind, args = if (length(head$args)) head$args, n = n, label_vocabulary = head$label_vocabulary)
}

# A classifier's head: binary or multi-class from n_classes, or the
# multi-label head given (classifier_classes() took its n_labels and
# label_vocabulary as the classifier's).
classifier_head_of <- function(head, n_classes, fn) {
  resolve_head(head, classifier_head(n_classes), n_classes, "classifier", fn)
}

# The head as the engine builds it: its kind, or list(kind, settings).
engine_head <- function(spec) {
  if (identical(spec$head, "multi_label") && !is.null(spec$label_vocabulary)) {
    return(list(kind = "multi_label", labels = spec$label_vocabulary))
  }
  if (!length(spec$head_args)) return(spec$head)
  c(list(kind = spec$head), lapply(spec$head_args, as.numeric))
}

# The head's line of estimator_summary().
head_summary <- function(spec) {
  n <- as.integer(spec$head_n)
  switch(check_choice(spec$head, "head", c(regression_heads, classifier_heads)),
    regression = sprintf("regression (label dimension %d)", n),
    binary = "binary classification (logistic)",
    multi_class = sprintf("multi-class classification (%d classes)", n),
    multi_label = sprintf("multi-label classification (%d labels)", n),
    quantile = sprintf("quantile regression (levels %s)", paste(format(spec$head_args$levels), collapse = ", ")),
    sprintf("%s (label dimension %d)", head_label(spec$head, spec$head_args), n))
}

# glance()'s mode: "regression", "quantile regression" or "classification".
estimator_mode <- function(spec) {
  if (identical(spec$head, "quantile")) return("quantile regression")
  if (is_regression_head(spec)) "regression" else "classification"
}

# The names of a regressor's k outputs: the quantile levels of a quantile
# head, else 1..k.
output_names <- function(object, k) {
  levels <- object$spec$head_args$levels
  if (identical(object$spec$head, "quantile") && length(levels) == k) format(levels) else seq_len(k)
}
