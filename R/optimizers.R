#' Optimizers with their hyperparameters
#'
#' TensorFlow 1.x optimizers, for the `optimizer` argument of the estimators
#' when the defaults of the name shortcuts (`"Ftrl"`, `"Adagrad"`, `"Adam"`,
#' `"RMSProp"`, `"SGD"`, all at the estimator's default learning rate) do not
#' fit. Update rules and defaults are TensorFlow's: FTRL-Proximal with
#' `learning_rate_power = -0.5`; Adagrad and FTRL accumulators start at
#' `initial_accumulator_value`; Adam uses the bias-corrected step with
#' `epsilon` added after the correction; RMSProp's mean square starts at one.
#'
#' @param learning_rate The learning rate: a positive number, or a schedule
#'   from [learning_rate_schedules] (a rate that changes with the global step).
#' @param initial_accumulator_value Starting value of the accumulators.
#' @param learning_rate_power FTRL's power (-0.5: square roots).
#' @param l1_regularization_strength,l2_regularization_strength FTRL's L1 and L2
#'   penalties.
#' @param l2_shrinkage_regularization_strength FTRL's L2 shrinkage penalty.
#' @param beta1,beta2 Adam's decay rates of the moment estimates.
#' @param epsilon Small constant of Adam and RMSProp.
#' @param decay RMSProp's decay of the mean square.
#' @param momentum RMSProp's momentum; for `optimizer_momentum()`, the
#'   momentum of the accumulated step (TensorFlow's `MomentumOptimizer`:
#'   `accum = momentum * accum + gradient`, `var -= learning_rate * accum`).
#' @param use_nesterov Whether the momentum optimizer takes Nesterov's step
#'   (`var -= learning_rate * (gradient + momentum * accum)`).
#' @return An optimizer specification (class `cppestimators_optimizer`).
#' @family estimators
#' @name optimizers
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' est <- linear_regressor(feature_columns = fcs,
#'                         optimizer = optimizer_sgd(learning_rate = 0.001))
#' est
NULL

new_optimizer <- function(name, learning_rate, ...) {
  args <- list(...)
  if (!is_schedule(learning_rate)) check_positive(learning_rate, "learning_rate")
  for (nm in names(args)) {
    v <- args[[nm]]
    check_number(v, nm, finite = FALSE, message = sprintf("`%s` must be a single number.", nm))
  }
  if (!is_schedule(learning_rate)) learning_rate <- as.numeric(learning_rate)
  structure(c(list(name = name, learning_rate = learning_rate), args),
            class = "cppestimators_optimizer")
}

check_positive <- function(x, arg) check_number(x, arg, min = 0, exclusive_min = TRUE)

#' @rdname optimizers
#' @export
optimizer_sgd <- function(learning_rate = 0.01) new_optimizer("SGD", learning_rate)

#' @rdname optimizers
#' @export
optimizer_adagrad <- function(learning_rate = 0.05, initial_accumulator_value = 0.1) {
  check_positive(initial_accumulator_value, "initial_accumulator_value")
  new_optimizer("Adagrad", learning_rate, initial_accumulator_value = initial_accumulator_value)
}

#' @rdname optimizers
#' @export
optimizer_adam <- function(learning_rate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8) {
  for (b in list(list(beta1, "beta1"), list(beta2, "beta2"))) {
    check_number(b[[1]], b[[2]], min = 0, max = 1, exclusive_max = TRUE,
                 message = sprintf("`%s` must be a number in [0, 1).", b[[2]]))
  }
  check_positive(epsilon, "epsilon")
  new_optimizer("Adam", learning_rate, beta1 = beta1, beta2 = beta2, epsilon = epsilon)
}

#' @rdname optimizers
#' @export
optimizer_ftrl <- function(learning_rate = 0.2, learning_rate_power = -0.5,
                           initial_accumulator_value = 0.1, l1_regularization_strength = 0,
                           l2_regularization_strength = 0,
                           l2_shrinkage_regularization_strength = 0) {
  check_number(learning_rate_power, "learning_rate_power", max = 0, finite = FALSE,
               message = "`learning_rate_power` must be a number <= 0.")
  check_positive(initial_accumulator_value, "initial_accumulator_value")
  for (nm in c("l1_regularization_strength", "l2_regularization_strength",
               "l2_shrinkage_regularization_strength")) {
    v <- get(nm)
    check_number(v, nm, min = 0, finite = FALSE, message = sprintf("`%s` must be a number >= 0.", nm))
  }
  new_optimizer("Ftrl", learning_rate, learning_rate_power = learning_rate_power,
                initial_accumulator_value = initial_accumulator_value,
                l1_regularization_strength = l1_regularization_strength,
                l2_regularization_strength = l2_regularization_strength,
                l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength)
}

#' @rdname optimizers
#' @export
optimizer_rmsprop <- function(learning_rate = 0.001, decay = 0.9, momentum = 0, epsilon = 1e-10) {
  check_number(decay, "decay", min = 0, max = 1, exclusive_max = TRUE,
               message = "`decay` must be a number in [0, 1).")
  check_number(momentum, "momentum", min = 0, finite = FALSE, message = "`momentum` must be a number >= 0.")
  check_positive(epsilon, "epsilon")
  new_optimizer("RMSProp", learning_rate, decay = decay, momentum = momentum, epsilon = epsilon)
}

#' @rdname optimizers
#' @export
optimizer_momentum <- function(learning_rate = 0.01, momentum = 0.9, use_nesterov = FALSE) {
  check_number(momentum, "momentum", min = 0, message = "`momentum` must be a number >= 0.")
  # a saved spec holds the flag as 0 or 1 (engine_optimizer() rebuilds specs through here)
  if (identical(use_nesterov, 0) || identical(use_nesterov, 1)) use_nesterov <- use_nesterov == 1
  check_flag(use_nesterov, "use_nesterov")
  structure(c(unclass(new_optimizer("Momentum", learning_rate, momentum = momentum)),
              list(use_nesterov = use_nesterov)), class = "cppestimators_optimizer")
}

# The optimizers by TensorFlow's names: the one place where names meet their
# constructors (and so their defaults).
optimizer_constructors <- list(Adagrad = optimizer_adagrad, Adam = optimizer_adam,
                               Ftrl = optimizer_ftrl, Momentum = optimizer_momentum,
                               RMSProp = optimizer_rmsprop, SGD = optimizer_sgd)

# The names canned estimators accept for `optimizer` (TF 1.x's canned
# _OPTIMIZER_CLS_NAMES): every constructor but Momentum, which TensorFlow
# offered to custom estimators (tf$train$MomentumOptimizer) only.
canned_optimizer_names <- c("Adagrad", "Adam", "Ftrl", "RMSProp", "SGD")

#' @export
print.cppestimators_optimizer <- function(x, ...) {
  fields <- unclass(x)[setdiff(names(x), "name")]
  shown <- vapply(fields, function(v) if (is_schedule(v)) format_learning_rate(v) else format(v), "")
  cat(sprintf("<optimizer %s: %s>\n", x$name, paste(names(fields), shown, sep = " = ", collapse = ", ")))
  invisible(x)
}
