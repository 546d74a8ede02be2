# Learning-rate schedules: the rate of each training step against TF 1.x's
# formulas (written out here), in the fetched tensor, the SGD updates, resumed
# training, wide and deep models and the summaries.

# TF 1.x's tf.train.*_decay formulas at global step `step`.
tf_rate <- function(kind, step, a) {
  p <- function(ds) if (isTRUE(a$staircase)) floor(step / ds) else step / ds
  switch(kind,
    exponential_decay = a$learning_rate * a$decay_rate^p(a$decay_steps),
    inverse_time_decay = a$learning_rate / (1 + a$decay_rate * p(a$decay_steps)),
    natural_exp_decay = a$learning_rate * exp(-a$decay_rate * p(a$decay_steps)),
    piecewise_constant = a$values[findInterval(step, a$boundaries, left.open = TRUE) + 1],
    polynomial_decay = {
      ds <- a$decay_steps
      if (isTRUE(a$cycle)) ds <- ds * (if (step == 0) 1 else ceiling(step / ds)) else step <- min(step, ds)
      (a$learning_rate - a$end_learning_rate) * (1 - step / ds)^a$power + a$end_learning_rate
    },
    cosine_decay = {
      f <- min(step, a$decay_steps) / a$decay_steps
      a$learning_rate * ((1 - a$alpha) * 0.5 * (1 + cos(pi * f)) + a$alpha)
    },
    cosine_decay_restarts = {
      # walk the periods: the i-th lasts first_decay_steps * t_mul^i steps
      start <- 0
      len <- a$first_decay_steps
      i <- 0
      while (step >= start + len) {
        start <- start + len
        len <- len * a$t_mul
        i <- i + 1
      }
      f <- (step - start) / len
      a$learning_rate * ((1 - a$alpha) * 0.5 * a$m_mul^i * (1 + cos(pi * f)) + a$alpha)
    },
    linear_cosine_decay = {
      s <- min(step, a$decay_steps)
      d <- a$decay_steps
      a$learning_rate * ((a$alpha + (d - s) / d) * 0.5 * (1 + cos(pi * 2 * a$num_periods * s / d)) + a$beta)
    })
}

# The fetched "learning_rate" (and other tensors) at every step of a train() call.
fetching <- function(tensors = c(lr = "learning_rate")) {
  env <- new.env()
  env$values <- list()
  env$hook <- session_run_hook(
    before_run = function(context) do.call(session_run_args, as.list(tensors)),
    after_run = function(context, values) env$values[[length(env$values) + 1L]] <- unlist(values$results))
  env$table <- function() as.data.frame(do.call(rbind, env$values))
  env
}

bias_input <- function() {
  input_fn(data.frame(x = rep(0, 4), y = 3), response = "y", batch_size = 4L, num_epochs = NULL,
           shuffle = FALSE)
}
bias_regressor <- function(lr, ...) {
  suppressMessages(linear_regressor(feature_columns(column_numeric("x")), optimizer = optimizer_sgd(lr), ...))
}
bias_of <- function(est) variable_value(est, "linear/linear_model/bias_weights")[[1]]

schedules <- list(
  list("exponential_decay", learning_rate_exponential_decay(0.01, 4, 0.5)),
  list("exponential_decay", learning_rate_exponential_decay(0.01, 4, 0.5, staircase = TRUE)),
  list("inverse_time_decay", learning_rate_inverse_time_decay(0.01, 3, 0.7, staircase = TRUE)),
  list("natural_exp_decay", learning_rate_natural_exp_decay(0.01, 5, 0.3)),
  list("piecewise_constant", learning_rate_piecewise_constant(c(3, 7), c(0.01, 0.005, 0.001))),
  list("polynomial_decay", learning_rate_polynomial_decay(0.01, 4, 0.001, power = 2)),
  list("polynomial_decay", learning_rate_polynomial_decay(0.01, 4, 0.001, power = 0.5, cycle = TRUE)),
  list("cosine_decay", learning_rate_cosine_decay(0.01, 8, alpha = 0.1)),
  list("cosine_decay_restarts", learning_rate_cosine_decay_restarts(0.01, 2, t_mul = 2, m_mul = 0.5,
                                                                    alpha = 0.05)),
  list("cosine_decay_restarts", learning_rate_cosine_decay_restarts(0.01, 3, t_mul = 1, m_mul = 0.8)),
  list("linear_cosine_decay", learning_rate_linear_cosine_decay(0.01, 9, num_periods = 1, alpha = 0.1))
)

test_that("each schedule's fetched rate and SGD update follow TF's formula, step by step", {
  n <- 16
  for (s in schedules) {
    kind <- s[[1]]
    sched <- s[[2]]
    want <- vapply(0:(n - 1), tf_rate, 0, kind = kind, a = unclass(sched))
    f <- fetching(c(lr = "learning_rate", step = "global_step"))
    est <- bias_regressor(sched)
    quietly(train(est, bias_input(), steps = n, hooks = list(f$hook)))
    got <- f$table()
    expect_equal(got$step, 1:n)
    expect_equal(got$lr, want, tolerance = 1e-6, info = format(sched))
    # SGD on the squared loss of 4 rows with label 3 (gradient 8 * (b - 3)):
    # b <- b - lr(step) * gradient, with the rate of the step before its increment
    b <- 0
    for (r in want) b <- b - r * 8 * (b - 3)
    expect_equal(bias_of(est), b, tolerance = 1e-5, info = format(sched))
  }
})

test_that("piecewise constant changes just after each boundary; restarts start each period anew", {
  f <- fetching()
  est <- bias_regressor(learning_rate_piecewise_constant(c(2, 4), c(0.004, 0.002, 0.001)))
  quietly(train(est, bias_input(), steps = 7, hooks = list(f$hook)))
  expect_equal(f$table()$lr, c(0.004, 0.004, 0.004, 0.002, 0.002, 0.001, 0.001), tolerance = 1e-6)
  f <- fetching()
  est <- bias_regressor(learning_rate_cosine_decay_restarts(0.004, 2, t_mul = 2, m_mul = 0.5))
  quietly(train(est, bias_input(), steps = 8, hooks = list(f$hook)))
  # periods [0, 2), [2, 6), [6, 14), starting at 0.004, 0.002, 0.001
  expect_equal(f$table()$lr[c(1, 2, 3, 5, 7)], c(0.004, 0.002, 0.002, 0.001, 0.001), tolerance = 1e-6)
})

test_that("a one-step update is the scheduled rate times the gradient", {
  est <- bias_regressor(learning_rate_exponential_decay(0.01, 1, 0.5))
  quietly(train(est, bias_input(), steps = 1))
  expect_equal(bias_of(est), 0.01 * 24, tolerance = 1e-6)  # gradient -24 at b = 0
})

test_that("training resumed from a checkpoint continues the schedule", {
  sched <- learning_rate_exponential_decay(0.01, 3, 0.5, staircase = TRUE)
  dir <- local_test_dir()
  f1 <- fetching()
  quietly(train(bias_regressor(sched, model_dir = dir), bias_input(), steps = 5, hooks = list(f1$hook)))
  f2 <- fetching(c(lr = "learning_rate", step = "global_step"))
  resumed <- bias_regressor(sched, model_dir = dir)  # a new object reading the checkpoint
  quietly(train(resumed, bias_input(), steps = 5, hooks = list(f2$hook)))
  f <- fetching()
  whole <- bias_regressor(sched)
  quietly(train(whole, bias_input(), steps = 10, hooks = list(f$hook)))
  expect_equal(f2$table()$step, 6:10)
  expect_equal(c(f1$table()$lr, f2$table()$lr), f$table()$lr)
  expect_equal(bias_of(resumed), bias_of(whole))
  # the same object trained again continues too
  again <- bias_regressor(sched)
  quietly(train(again, bias_input(), steps = 5))
  quietly(train(again, bias_input(), steps = 5))
  expect_equal(bias_of(again), bias_of(whole))
})

test_that("Adam, Adagrad, RMSProp and FTRL take a schedule", {
  sched <- learning_rate_inverse_time_decay(0.05, 2, 1)
  want <- vapply(0:3, tf_rate, 0, kind = "inverse_time_decay", a = unclass(sched))
  for (opt in list(optimizer_adam(sched), optimizer_adagrad(sched), optimizer_rmsprop(sched),
                   optimizer_ftrl(sched))) {
    f <- fetching()
    est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x")), optimizer = opt))
    quietly(train(est, bias_input(), steps = 4, hooks = list(f$hook)))
    expect_equal(f$table()$lr, want, tolerance = 1e-6, info = opt$name)
  }
  # Adam's first step is lr(0) * sign(gradient) (bias-corrected moments)
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x")),
                                           optimizer = optimizer_adam(sched)))
  quietly(train(est, bias_input(), steps = 1))
  expect_equal(bias_of(est), 0.05, tolerance = 1e-5)
})

test_that("wide and deep models take one schedule per part, each fetched", {
  d <- data.frame(x = c(0, 1, 2, 3), y = c(1, 2, 3, 4))
  inp <- input_fn(d, response = "y", batch_size = 4L, num_epochs = NULL, shuffle = FALSE)
  lin <- learning_rate_exponential_decay(0.01, 2, 0.5)
  dnn <- learning_rate_piecewise_constant(1, c(0.003, 0.0005))
  est <- suppressMessages(dnn_linear_combined_regressor(
    linear_feature_columns = feature_columns(column_numeric("x")),
    linear_optimizer = optimizer_sgd(lin),
    dnn_feature_columns = feature_columns(column_numeric("x")),
    dnn_optimizer = optimizer_adam(dnn), dnn_hidden_units = 2L,
    config = run_config(tf_random_seed = 1)))
  f <- fetching(c(lr = "learning_rate", linear = "linear/learning_rate", dnn = "dnn/learning_rate"))
  quietly(train(est, inp, steps = 4, hooks = list(f$hook)))
  got <- f$table()
  expect_equal(got$linear, 0.01 * 0.5^((0:3) / 2), tolerance = 1e-6)
  expect_equal(got$dnn, c(0.003, 0.003, 0.0005, 0.0005), tolerance = 1e-6)
  expect_equal(got$lr, got$linear)  # the first optimizer's
  expect_output(print(est), "Adam \\(learning rate piecewise_constant from 0.003\\)")
  # a model with one optimizer has no per-part rates
  expect_error(train(bias_regressor(0.01), bias_input(), steps = 1,
                     hooks = list(fetching(c(a = "dnn/learning_rate"))$hook)), "dnn/learning_rate")
})

test_that("the summaries hold the scheduled rate; constant rates add no summary", {
  dir <- local_test_dir()
  est <- bias_regressor(learning_rate_exponential_decay(0.01, 2, 0.5), model_dir = dir,
                        config = run_config(save_summary_steps = 3))
  quietly(train(est, bias_input(), steps = 7))
  s <- read_summaries(dir)
  lr <- s[s$tag == "learning_rate", ]
  expect_equal(lr$step, c(1, 4, 7))
  # written after each step: the rate of the step that ran (global step - 1)
  expect_equal(lr$value, 0.01 * 0.5^((lr$step - 1) / 2), tolerance = 1e-6)
  plain <- local_test_dir()
  quietly(train(bias_regressor(0.01, model_dir = plain, config = run_config(save_summary_steps = 3)),
                bias_input(), steps = 4))
  expect_false("learning_rate" %in% read_summaries(plain)$tag)
})

test_that("schedules print, and bad arguments are errors naming them", {
  expect_output(print(learning_rate_polynomial_decay(0.1, 10)),
                paste("<learning_rate_schedule polynomial_decay: learning_rate = 0.1, decay_steps = 10,",
                      "end_learning_rate = 1e-04, power = 1, cycle = FALSE>"), fixed = TRUE)
  expect_output(print(learning_rate_piecewise_constant(c(5, 10), c(1, 0.5, 0.1))),
                "boundaries = c(5, 10), values = c(1, 0.5, 0.1)", fixed = TRUE)
  expect_output(print(optimizer_sgd(learning_rate_cosine_decay(0.5, 10))),
                "<optimizer SGD: learning_rate = cosine_decay from 0.5>", fixed = TRUE)
  err <- function(expr, re) expect_error(expr, class = "cppestimators_error", regexp = re)
  err(learning_rate_exponential_decay(0, 10, 0.5), "`learning_rate` must be a positive number")
  err(learning_rate_exponential_decay(0.1, 0, 0.5), "`decay_steps` must be a positive number")
  err(learning_rate_exponential_decay(0.1, 10, 0), "`decay_rate` must be a positive number")
  err(learning_rate_inverse_time_decay(0.1, 10, -1), "`decay_rate` must be a number >= 0")
  err(learning_rate_natural_exp_decay(0.1, 10, 0.5, staircase = "yes"), "`staircase` must be TRUE or FALSE")
  err(learning_rate_piecewise_constant(c(5, 3), c(1, 2, 3)), "`boundaries` must be increasing")
  err(learning_rate_piecewise_constant(5, c(1, 2, 3)),
      "`values` must have one more element than `boundaries` \\(1\\), not 3")
  err(learning_rate_piecewise_constant(5, c(1, 0)), "`values` must be positive learning rates")
  err(learning_rate_polynomial_decay(0.1, 10, end_learning_rate = -1), "`end_learning_rate` must be a number >= 0")
  err(learning_rate_polynomial_decay(0.1, 10, power = 0), "`power` must be a positive number")
  err(learning_rate_polynomial_decay(0.1, 10, cycle = NA), "`cycle` must be TRUE or FALSE")
  err(learning_rate_cosine_decay(0.1, 10, alpha = 2), "`alpha` must be a number >= 0 and <= 1")
  err(learning_rate_cosine_decay_restarts(0.1, -1), "`first_decay_steps` must be a positive number")
  err(learning_rate_cosine_decay_restarts(0.1, 10, t_mul = 0), "`t_mul` must be a positive number")
  err(learning_rate_cosine_decay_restarts(0.1, 10, m_mul = -1), "`m_mul` must be a number >= 0")
  err(learning_rate_linear_cosine_decay(0.1, 10, num_periods = -1), "`num_periods` must be a number >= 0")
  err(learning_rate_linear_cosine_decay(0.1, 10, beta = "a"), "`beta` must be a number >= 0")
  err(optimizer_sgd(list(1)), "`learning_rate` must be a positive number")
  err(boosted_trees_regressor(feature_columns(column_numeric("x")), n_batches_per_layer = 1,
                              learning_rate = learning_rate_cosine_decay(0.1, 10)),
      "Boosted trees have no optimizer")
})
