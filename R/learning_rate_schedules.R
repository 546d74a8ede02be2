#' Learning-rate schedules
#'
#' Learning rates that change with the global step, with the formulas of
#' TensorFlow 1.x's `tf.train.*_decay()` functions. Give one as the
#' `learning_rate` of any optimizer from [optimizers], e.g.
#' `optimizer_sgd(learning_rate = learning_rate_exponential_decay(0.1, 100, 0.96))`;
#' a wide and deep model takes one per part, through its `linear_optimizer`
#' and `dnn_optimizer`.
#'
#' With `step` the global step before the training step (the first step of
#' a fresh model uses step 0), `p = step / decay_steps` (`floor(p)` with
#' `staircase = TRUE`) and `lr` the initial `learning_rate`:
#' * exponential decay: `lr * decay_rate^p`;
#' * inverse time decay: `lr / (1 + decay_rate * p)`;
#' * natural exponential decay: `lr * exp(-decay_rate * p)`;
#' * piecewise constant: `values[1]` while `step <= boundaries[1]`,
#'   `values[i + 1]` while `boundaries[i] < step <= boundaries[i + 1]`, and
#'   the last value after the last boundary;
#' * polynomial decay: `(lr - end_learning_rate) * (1 - s / d)^power +
#'   end_learning_rate` with `s = min(step, decay_steps)` and `d =
#'   decay_steps`; with `cycle = TRUE`, `s = step` and `d = decay_steps *
#'   ceiling(step / decay_steps)` (`decay_steps` at step 0), so the decay
#'   restarts, from a lower rate each time;
#' * cosine decay: `lr * ((1 - alpha) * (1 + cos(pi * f)) / 2 + alpha)` with
#'   `f = min(step, decay_steps) / decay_steps`;
#' * cosine decay with restarts (SGDR): the same cosine within periods that
#'   last `first_decay_steps * t_mul^i` steps, period `i` (from 0) starting
#'   at `m_mul^i` times `lr`;
#' * linear cosine decay: `lr * ((alpha + (d - s) / d) * (1 + cos(2 * pi *
#'   num_periods * s / d)) / 2 + beta)` with `s = min(step, decay_steps)`,
#'   `d = decay_steps`.
#'
#' Every optimizer uses the scheduled rate where it used the constant one,
#' as TensorFlow does with a decayed learning-rate tensor: SGD's step, the
#' rate of Adagrad, RMSProp and FTRL, and the rate inside Adam's
#' bias-corrected step. (FTRL divides by its rate: keep a schedule for it
#' above zero, e.g. `alpha > 0`.)
#'
#' The schedule follows the global step, so training resumed from a
#' checkpoint or continued by another `train()` call goes on where it
#' stopped. During training the tensor `"learning_rate"` (for
#' [session_run_hook()]s, [hook_logging_tensor()]) is the rate of the step
#' just run (with two optimizers, the first's; `"linear/learning_rate"` and
#' `"dnn/learning_rate"` are each part's), and the summaries in `model_dir`
#' hold a `learning_rate` scalar (see [read_summaries()]).
#' [hook_reduce_lr_on_plateau()] multiplies the scheduled rate by a factor of
#' its own.
#'
#' @param learning_rate The initial learning rate (a positive number).
#' @param decay_steps Steps of one decay period (a positive number).
#' @param decay_rate The decay rate (for exponential decay a positive number,
#'   otherwise a number >= 0).
#' @param staircase Whether to decay at whole periods only (`floor(p)`).
#' @param boundaries Increasing global steps where the rate changes.
#' @param values The rates: one more than `boundaries`, each positive.
#' @param end_learning_rate The rate polynomial decay ends at (>= 0).
#' @param power The power of the polynomial (> 0).
#' @param cycle Whether polynomial decay restarts after `decay_steps`.
#' @param alpha The lowest rate of cosine decays, as a fraction of
#'   `learning_rate` (in \[0, 1\]); for linear cosine decay, a constant added
#'   to the linear part (>= 0).
#' @param first_decay_steps Steps of the first period of cosine restarts.
#' @param t_mul How much longer each period of cosine restarts is than the
#'   one before (> 0).
#' @param m_mul How much lower each period of cosine restarts starts than
#'   the one before (>= 0).
#' @param num_periods Periods of the cosine of linear cosine decay (>= 0).
#' @param beta A constant added to linear cosine decay (>= 0).
#' @return A learning-rate schedule (class
#'   `cppestimators_learning_rate_schedule`), for the `learning_rate` of an
#'   optimizer.
#' @seealso [optimizers], [hook_reduce_lr_on_plateau()].
#' @family estimators
#' @name learning_rate_schedules
#' @examples
#' sched <- learning_rate_exponential_decay(0.001, decay_steps = 10, decay_rate = 0.5)
#' sched
#' est <- linear_regressor(feature_columns = feature_columns(column_numeric("drat")),
#'                         optimizer = optimizer_sgd(learning_rate = sched))
#' rates <- numeric()
#' fetch_rate <- session_run_hook(
#'   before_run = function(context) session_run_args("learning_rate"),
#'   after_run = function(context, values) rates <<- c(rates, values$results[[1]]))
#' train(est, input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L,
#'                     num_epochs = NULL), steps = 20, hooks = list(fetch_rate))
#' rates  # 0.001 * 0.5^(0:19 / 10)
#' learning_rate_piecewise_constant(boundaries = c(100, 200), values = c(0.1, 0.01, 0.001))
NULL

# A schedule: its kind (the schedule the engine builds) and its arguments,
# of class cppestimators_learning_rate_<kind> and
# cppestimators_learning_rate_schedule.
new_schedule <- function(kind, ...) {
  structure(list(kind = kind, ...),
            class = c(paste0("cppestimators_learning_rate_", kind), "cppestimators_learning_rate_schedule"))
}

check_schedule_steps <- function(x, arg) check_number(x, arg, min = 0, exclusive_min = TRUE)

check_decay_args <- function(learning_rate, decay_steps, decay_rate, staircase, rate_min = 0,
                             rate_exclusive = FALSE) {
  check_positive(learning_rate, "learning_rate")
  check_schedule_steps(decay_steps, "decay_steps")
  check_number(decay_rate, "decay_rate", min = rate_min, exclusive_min = rate_exclusive)
  check_flag(staircase, "staircase")
}

#' @rdname learning_rate_schedules
#' @export
learning_rate_exponential_decay <- function(learning_rate, decay_steps, decay_rate, staircase = FALSE) {
  check_decay_args(learning_rate, decay_steps, decay_rate, staircase, rate_exclusive = TRUE)
  new_schedule("exponential_decay", learning_rate = learning_rate, decay_steps = decay_steps,
               decay_rate = decay_rate, staircase = staircase)
}

#' @rdname learning_rate_schedules
#' @export
learning_rate_inverse_time_decay <- function(learning_rate, decay_steps, decay_rate, staircase = FALSE) {
  check_decay_args(learning_rate, decay_steps, decay_rate, staircase)
  new_schedule("inverse_time_decay", learning_rate = learning_rate, decay_steps = decay_steps,
               decay_rate = decay_rate, staircase = staircase)
}

#' @rdname learning_rate_schedules
#' @export
learning_rate_natural_exp_decay <- function(learning_rate, decay_steps, decay_rate, staircase = FALSE) {
  check_decay_args(learning_rate, decay_steps, decay_rate, staircase)
  new_schedule("natural_exp_decay", learning_rate = learning_rate, decay_steps = decay_steps,
               decay_rate = decay_rate, staircase = staircase)
}

#' @rdname learning_rate_schedules
#' @export
learning_rate_piecewise_constant <- function(boundaries, values) {
  if (!is.numeric(boundaries) || length(boundaries) < 1L || anyNA(boundaries) ||
      any(!is.finite(boundaries)) || is.unsorted(boundaries, strictly = TRUE)) {
    abort(sprintf("`boundaries` must be increasing finite global steps (at least one), not %s.",
                  describe(boundaries)))
  }
  if (!is.numeric(values) || anyNA(values) || any(!is.finite(values)) || any(values <= 0)) {
    abort(sprintf("`values` must be positive learning rates, not %s.", describe(values)))
  }
  if (length(values) != length(boundaries) + 1L) {
    abort(sprintf("`values` must have one more element than `boundaries` (%d), not %d.",
                  length(boundaries), length(values)))
  }
  new_schedule("piecewise_constant", boundaries = as.numeric(boundaries), values = as.numeric(values))
}

#' @rdname learning_rate_schedules
#' @export
learning_rate_polynomial_decay <- function(learning_rate, decay_steps, end_learning_rate = 0.0001,
                                           power = 1, cycle = FALSE) {
  check_positive(learning_rate, "learning_rate")
  check_schedule_steps(decay_steps, "decay_steps")
  check_number(end_learning_rate, "end_learning_rate", min = 0)
  check_positive(power, "power")
  check_flag(cycle, "cycle")
  new_schedule("polynomial_decay", learning_rate = learning_rate, decay_steps = decay_steps,
               end_learning_rate = end_learning_rate, power = power, cycle = cycle)
}

#' @rdname learning_rate_schedules
#' @export
learning_rate_cosine_decay <- function(learning_rate, decay_steps, alpha = 0) {
  check_positive(learning_rate, "learning_rate")
  check_schedule_steps(decay_steps, "decay_steps")
  check_number(alpha, "alpha", min = 0, max = 1)
  new_schedule("cosine_decay", learning_rate = learning_rate, decay_steps = decay_steps, alpha = alpha)
}

#' @rdname learning_rate_schedules
#' @export
learning_rate_cosine_decay_restarts <- function(learning_rate, first_decay_steps, t_mul = 2, m_mul = 1,
                                                alpha = 0) {
  check_positive(learning_rate, "learning_rate")
  check_schedule_steps(first_decay_steps, "first_decay_steps")
  check_positive(t_mul, "t_mul")
  check_number(m_mul, "m_mul", min = 0)
  check_number(alpha, "alpha", min = 0, max = 1)
  new_schedule("cosine_decay_restarts", learning_rate = learning_rate,
               first_decay_steps = first_decay_steps, t_mul = t_mul, m_mul = m_mul, alpha = alpha)
}

#' @rdname learning_rate_schedules
#' @export
learning_rate_linear_cosine_decay <- function(learning_rate, decay_steps, num_periods = 0.5, alpha = 0,
                                              beta = 0.001) {
  check_positive(learning_rate, "learning_rate")
  check_schedule_steps(decay_steps, "decay_steps")
  check_number(num_periods, "num_periods", min = 0)
  check_number(alpha, "alpha", min = 0)
  check_number(beta, "beta", min = 0)
  new_schedule("linear_cosine_decay", learning_rate = learning_rate, decay_steps = decay_steps,
               num_periods = num_periods, alpha = alpha, beta = beta)
}

is_schedule <- function(x) inherits(x, "cppestimators_learning_rate_schedule")

# The rate a schedule starts at (step 0): its `learning_rate`, or the first
# of a piecewise constant schedule's values.
schedule_initial_rate <- function(s) UseMethod("schedule_initial_rate")

#' @export
schedule_initial_rate.cppestimators_learning_rate_schedule <- function(s) s$learning_rate

#' @export
schedule_initial_rate.cppestimators_learning_rate_piecewise_constant <- function(s) s$values[1]

# A learning rate for messages and printing: a number, or the schedule's kind.
format_learning_rate <- function(lr) {
  if (is_schedule(lr)) sprintf("%s from %g", lr$kind, schedule_initial_rate(lr)) else sprintf("%g", lr)
}

#' @export
print.cppestimators_learning_rate_schedule <- function(x, ...) {
  fields <- unclass(x)[setdiff(names(x), "kind")]
  shown <- vapply(fields, function(v) paste(vapply(v, format, ""), collapse = ", "), "")
  cat(sprintf("<learning_rate_schedule %s: %s>\n", x$kind,
              paste(names(shown), ifelse(lengths(fields) > 1, paste0("c(", shown, ")"), shown),
                    sep = " = ", collapse = ", ")))
  invisible(x)
}
