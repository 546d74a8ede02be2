# Custom estimators: estimator(model_fn), estimator_spec(), graphs of the
# tf object run and differentiated by the engine.

iris_input <- function(batch_size = 10L, ...) {
  input_fn(iris, response = "Species",
           features = c("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width"),
           batch_size = batch_size, ...)
}

# tfestimators' simple_custom_model_fn (tests/testthat/helper-utils.R)
simple_custom_model_fn <- function(features, labels, mode, params, config) {
  logits <- features %>%
    tf$contrib$layers$stack(
      tf$contrib$layers$fully_connected, c(10L, 20L, 10L),
      normalizer_fn = tf$contrib$layers$dropout,
      normalizer_params = list(keep_prob = 0.9)) %>%
    tf$contrib$layers$fully_connected(3L, activation_fn = NULL)
  predictions <- list(
    classes = tf$argmax(logits, 1L),
    probabilities = tf$nn$softmax(logits))
  if (mode == mode_keys()$PREDICT) {
    return(estimator_spec(mode = mode, predictions = predictions, loss = NULL, train_op = NULL))
  }
  labels <- tf$one_hot(labels, 3L)
  loss <- tf$losses$softmax_cross_entropy(labels, logits)
  train_op <- tf$contrib$layers$optimize_loss(
    loss,
    tf$contrib$framework$get_global_step(),
    optimizer = "Adagrad",
    learning_rate = 0.1)
  estimator_spec(mode = mode, predictions = predictions, loss = loss, train_op = train_op)
}

# The abalone model of tfestimators' "Creating custom estimators" vignette.
abalone_model_fn <- function(features, labels, mode, params, config) {
  first_hidden_layer <- tf$layers$dense(features, 10L, activation = tf$nn$relu)
  second_hidden_layer <- tf$layers$dense(first_hidden_layer, 10L, activation = tf$nn$relu)
  output_layer <- tf$layers$dense(second_hidden_layer, 1L)
  predictions <- tf$reshape(output_layer, list(-1L))
  if (mode == "infer") return(estimator_spec(mode = mode, predictions = list(ages = predictions)))
  loss <- tf$losses$mean_squared_error(labels, predictions)
  eval_metric_ops <- list(rmse = tf$metrics$root_mean_squared_error(
    tf$cast(labels, tf$float64), predictions
  ))
  optimizer <- tf$train$GradientDescentOptimizer(learning_rate = params$learning_rate)
  train_op <- optimizer$minimize(loss = loss, global_step = tf$train$get_global_step())
  estimator_spec(mode = mode, loss = loss, train_op = train_op, eval_metric_ops = eval_metric_ops)
}

abalone_data <- function(n = 200) {
  set.seed(3)
  d <- as.data.frame(matrix(runif(n * 7), n, 7))
  names(d) <- c("length", "diameter", "height", "whole_weight", "shucked_weight", "viscera_weight",
                "shell_weight")
  d$num_rings <- as.integer(round(5 + 10 * d$length + stats::rnorm(n)))
  d
}

# mtcars's mpg from drat, wt and qsec: one batch of all 32 rows, repeated.
mtcars_input <- function() {
  input_fn(mtcars, response = "mpg", features = c("drat", "wt", "qsec"), batch_size = 32L, shuffle = FALSE,
           num_epochs = NULL)
}

# The weights of a network of dense layers "h" and "out".
layer_weights <- function(est) {
  v <- variable_value(est)
  list(W1 = v[["h/kernel"]], b1 = as.numeric(v[["h/bias"]]), W2 = v[["out/kernel"]], b2 = as.numeric(v[["out/bias"]]))
}

# The loss of each of `steps` training steps of `est` over `input`.
loss_curve <- function(est, input, steps) {
  losses <- numeric()
  hook <- session_run_hook(
    before_run = function(context) session_run_args(loss = context$session$graph$get_tensor_by_name("loss")),
    after_run = function(context, values) losses <<- c(losses, values$results$loss))
  quietly(train(est, input, steps = steps, hooks = list(hook)))
  losses
}

test_that("tfestimators' custom model test runs unchanged: predictions, probabilities, evaluate()", {
  constructed_input_fn <- suppressMessages(iris_input())
  tmp_dir <- tempfile()
  classifier <- estimator(model_fn = simple_custom_model_fn, model_dir = tmp_dir)
  quietly(classifier %>% train(input_fn = constructed_input_fn, steps = 2L))
  expect_equal(variable_value(classifier, "global_step")[[1]], 2)
  predictions <- quietly(predict(classifier, input_fn = constructed_input_fn, simplify = TRUE))
  expect_equal(dim(predictions), c(150, 2))
  expect_named(predictions, c("classes", "probabilities"))
  predictions <- quietly(predict(classifier, input_fn = constructed_input_fn, simplify = FALSE))
  expect_equal(length(predictions), 150)
  predicted_classes <- unlist(lapply(predictions, function(prediction) prediction$class))
  expect_equal(length(predicted_classes), 150)
  expect_type(predicted_classes, "integer")
  expect_true(all(predicted_classes %in% 0:2))
  predicted_probs <- lapply(predictions, function(prediction) prediction$prob)
  expect_equal(length(unlist(predicted_probs)), 150 * length(unique(iris$Species)))
  expect_lte(max(unlist(predicted_probs)), 1)
  expect_gte(min(unlist(predicted_probs)), 0)
  # each row of probability sums to 1 (testthat's tolerance, 1.5e-8)
  expect_equal(lapply(predictions, function(pred) sum(pred$prob)), rep(list(1), length(predictions)))
  expect_lt(max(abs(vapply(predicted_probs, sum, 0) - 1)), 1e-13)
  # the predicted class is the most probable one
  expect_equal(predicted_classes, vapply(predicted_probs, which.max, 0L) - 1L)
  expect_equal(names(quietly(evaluate(classifier, constructed_input_fn, steps = 2L, simplify = FALSE))),
               c("loss", "global_step"))
  # checkpoints and summaries on disk, under the TF names of contrib's layers
  expect_true(nzchar(latest_checkpoint(classifier)))
  expect_equal(setdiff(variable_names(classifier), "global_step")[1:4],
               c("Stack/fully_connected_1/weights", "Stack/fully_connected_1/weights/Adagrad",
                 "Stack/fully_connected_2/weights", "Stack/fully_connected_2/weights/Adagrad"))
  expect_false(any(grepl("Stack/.*/biases", variable_names(classifier))))  # a normalizer_fn replaces them
  expect_true("fully_connected/biases" %in% variable_names(classifier))
  expect_true(length(list.files(tmp_dir, pattern = "^events.out.tfevents")) >= 1L)
})

test_that("train_and_evaluate() works for custom estimators (tfestimators' test-training.R)", {
  input <- suppressMessages(iris_input())
  est <- estimator(model_fn = simple_custom_model_fn, model_dir = tempfile())
  tr_spec <- train_spec(input_fn = input, max_steps = 2)
  ev_spec <- eval_spec(input_fn = input, steps = 2)
  h <- quietly(train_and_evaluate(est, train_spec = tr_spec, eval_spec = ev_spec))
  expect_equal(variable_value(est, "global_step")[[1]], 2)
  d <- as.data.frame(h)
  expect_true("eval_loss" %in% d$metric)
  # the losses of a custom estimator are its model_fn's loss: mean and total alike
  expect_equal(d$value[d$metric == "mean_losses"], d$value[d$metric == "total_losses"])
})

test_that("the iris_custom_decay_dnn example trains, predicts and reports accuracy", {
  inputs <- suppressMessages(iris_input())
  custom_model_fn <- function(features, labels, mode, params, config) {
    logits <- features %>%
      tf$contrib$layers$stack(
        tf$contrib$layers$fully_connected, c(10L, 20L, 10L),
        normalizer_fn = tf$contrib$layers$dropout,
        normalizer_params = list(keep_prob = 0.9)) %>%
      tf$contrib$layers$fully_connected(3L, activation_fn = NULL)
    predicted_classes <- tf$argmax(logits, 1L)
    if (mode == "infer") {
      predictions <- list(class = predicted_classes, prob = tf$nn$softmax(logits))
      return(estimator_spec(mode = mode, predictions = predictions))
    }
    onehot_labels <- tf$one_hot(labels, 3L, 1L, 0L)
    loss <- tf$losses$softmax_cross_entropy(onehot_labels, logits)
    if (mode == "train") {
      global_step <- tf$train$get_global_step()
      learning_rate <- tf$train$exponential_decay(
        learning_rate = 0.1, global_step = global_step, decay_steps = 100L, decay_rate = 0.001)
      optimizer <- tf$train$AdagradOptimizer(learning_rate = learning_rate)
      train_op <- optimizer$minimize(loss, global_step = global_step)
      return(estimator_spec(mode = mode, loss = loss, train_op = train_op))
    }
    eval_metric_ops <- list(accuracy = tf$metrics$accuracy(labels = labels, predictions = predicted_classes))
    estimator_spec(mode = mode, loss = loss, eval_metric_ops = eval_metric_ops)
  }
  classifier <- estimator(model_fn = custom_model_fn, model_dir = tempfile())
  hist <- quietly(classifier %>% train(input_fn = inputs, steps = 100))
  expect_s3_class(hist, "tf_estimator_history")
  predictions <- quietly(predict(classifier, input_fn = inputs))
  expect_equal(nrow(predictions), 150)
  expect_named(predictions, c("class", "prob"))
  m <- quietly(evaluate(classifier, inputs))
  expect_named(m, c("accuracy", "loss", "global_step"))
  expect_equal(m$global_step, 15)  # one epoch of 150 rows, batches of 10
  # accuracy is the share of argmax predictions equal to the labels (contrib's
  # dropout is active at evaluation too, as TensorFlow's is_training = TRUE)
  expect_gte(m$accuracy, 0)
  expect_lte(m$accuracy, 1)
  # the learning rate decays as TF's exponential_decay: 0.1 * 0.001^(15/100)
  lr <- NULL
  hook <- session_run_hook(after_run = function(context, values) {
    lr <<- context$session$run(context$session$graph$get_tensor_by_name("learning_rate"))
  })
  quietly(train(classifier, inputs, steps = 1, hooks = list(hook)))
  expect_equal(as.numeric(lr), 0.1 * 0.001^(15 / 100), tolerance = 1e-6)
})

test_that("the abalone model of the vignette runs unchanged (float64 features, rmse metric)", {
  d <- abalone_data()
  abalone_input_fn <- function(dataset) input_fn(dataset, features = -num_rings, response = num_rings)
  model <- estimator(abalone_model_fn, params = list(learning_rate = 0.001), model_dir = tempfile())
  quietly(train(model, input_fn = abalone_input_fn(d)))
  expect_equal(variable_value(model, "global_step")[[1]], 2)  # 200 rows, batches of 128
  m <- quietly(evaluate(model, input_fn = abalone_input_fn(d)))
  expect_named(m, c("loss", "rmse", "global_step"))
  p <- quietly(predict(model, input_fn = abalone_input_fn(d)))
  expect_named(p, "ages")
  expect_equal(nrow(p), 200)
  # rmse streams over every row: it is the RMSE of the predictions
  expect_equal(m$rmse, sqrt(mean((p$ages - d$num_rings)^2)), tolerance = 1e-5)
  expect_equal(variable_names(model),
               c("global_step", "dense/bias", "dense/kernel", "dense_1/bias", "dense_1/kernel",
                 "dense_2/bias", "dense_2/kernel"))
  expect_equal(dim(variable_value(model, "dense/kernel")[[1]]), c(7L, 10L))
})

test_that("tf$nn$swish is x * sigmoid(x), with its gradient, as a plain-R computation", {
  x <- as.matrix(mtcars[c("drat", "wt", "qsec")])
  y <- mtcars$mpg
  fn <- function(features, labels, mode, params) {
    h <- tf$layers$dense(features, 3L, activation = tf$nn$swish, name = "h")
    pred <- tf$reshape(tf$layers$dense(h, 1L, name = "out"), list(-1L))
    if (mode == "infer") return(estimator_spec(mode, predictions = list(h = h)))
    loss <- tf$losses$mean_squared_error(labels, pred)
    train_op <- tf$train$GradientDescentOptimizer(0.01)$minimize(loss)
    estimator_spec(mode, loss = loss, train_op = train_op)
  }
  est <- estimator(fn, model_dir = tempfile())
  input <- mtcars_input()
  quietly(train(est, input, steps = 1))
  w <- layer_weights(est)
  z <- sweep(x %*% w$W1, 2, w$b1, "+")
  s <- 1 / (1 + exp(-z))
  h <- z * s
  p <- predict(est, input_fn(mtcars, features = c("drat", "wt", "qsec"), batch_size = 32L))
  expect_equal(unname(do.call(rbind, p$h)), unname(h), tolerance = 1e-5)
  r <- as.numeric(h %*% w$W2 + w$b2) - y
  dz <- (2 * r / length(y)) %*% t(w$W2) * (s * (1 + z * (1 - s)))
  quietly(train(est, input, steps = 1))
  expect_equal(variable_value(est)[["h/kernel"]], w$W1 - 0.01 * t(x) %*% dz, tolerance = 1e-5, ignore_attr = TRUE)
})

test_that("a gradient step equals a plain-R computation of the same network", {
  x <- as.matrix(mtcars[c("drat", "wt", "qsec")])
  y <- mtcars$mpg
  fn <- function(features, labels, mode, params) {
    h <- tf$layers$dense(features, 4L, activation = tf$tanh, name = "h")
    out <- tf$layers$dense(h, 1L, name = "out")
    pred <- tf$reshape(out, list(-1L))
    loss <- tf$losses$mean_squared_error(labels, pred)
    train_op <- tf$train$GradientDescentOptimizer(params$lr)$minimize(loss)
    estimator_spec(mode, loss = loss, train_op = train_op)
  }
  est <- estimator(fn, params = list(lr = 0.01), model_dir = tempfile())
  input <- mtcars_input()
  quietly(train(est, input, steps = 1))
  w <- layer_weights(est)
  # forward, the mean squared error and its gradients by hand
  z <- sweep(x %*% w$W1, 2, w$b1, "+")
  h <- tanh(z)
  pred <- as.numeric(h %*% w$W2 + w$b2)
  r <- pred - y
  dpred <- 2 * r / length(y)
  gW2 <- t(h) %*% dpred
  gb2 <- sum(dpred)
  dz <- (dpred %*% t(w$W2)) * (1 - h^2)
  gW1 <- t(x) %*% dz
  gb1 <- colSums(dz)
  quietly(train(est, input, steps = 1))
  v2 <- variable_value(est)
  expect_equal(v2[["out/kernel"]], w$W2 - 0.01 * gW2, tolerance = 1e-5, ignore_attr = TRUE)
  expect_equal(as.numeric(v2[["out/bias"]]), w$b2 - 0.01 * gb2, tolerance = 1e-5)
  expect_equal(v2[["h/kernel"]], w$W1 - 0.01 * gW1, tolerance = 1e-5, ignore_attr = TRUE)
  expect_equal(as.numeric(v2[["h/bias"]]), w$b1 - 0.01 * gb1, tolerance = 1e-5)
  # the loss the session reports is the mean squared error of those weights
  m <- quietly(evaluate(est, input_fn(mtcars, response = "mpg", features = c("drat", "wt", "qsec"),
                                    batch_size = 32L)))
  z <- sweep(x %*% v2[["h/kernel"]], 2, as.numeric(v2[["h/bias"]]), "+")
  pred <- as.numeric(tanh(z) %*% v2[["out/kernel"]] + as.numeric(v2[["out/bias"]]))
  expect_equal(m$loss, mean((pred - y)^2), tolerance = 1e-5)
})

test_that("a model_fn rebuilding dnn_classifier() gives the canned DNN's loss curve", {
  fcs <- feature_columns(column_numeric("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width"))
  dnn_fn <- function(features, labels, mode, params, config) {
    net <- tf$feature_column$input_layer(features, params$columns)
    for (i in seq_along(params$hidden)) {
      net <- tf$layers$dense(net, params$hidden[i], activation = tf$nn$relu,
                             name = sprintf("dnn/hiddenlayer_%d", i - 1L))
    }
    logits <- tf$layers$dense(net, 3L, name = "dnn/logits")
    loss <- tf$losses$sparse_softmax_cross_entropy(labels, logits, reduction = tf$losses$Reduction$SUM)
    train_op <- tf$train$AdagradOptimizer(0.05)$minimize(loss, global_step = tf$train$get_global_step())
    estimator_spec(mode, loss = loss, train_op = train_op)
  }
  cfg <- run_config(tf_random_seed = 7)
  canned <- dnn_classifier(hidden_units = c(10, 10), feature_columns = fcs, n_classes = 3, config = cfg,
                           model_dir = tempfile())
  custom <- estimator(dnn_fn, params = list(columns = fcs, hidden = c(10L, 10L)), config = cfg,
                      model_dir = tempfile())
  input <- suppressMessages(iris_input(batch_size = 16L, shuffle = FALSE, num_epochs = NULL))
  a <- loss_curve(canned, input, 30)
  b <- loss_curve(custom, input, 30)
  expect_length(b, 30)
  expect_equal(b, a, tolerance = 1e-5)
  expect_lt(tail(b, 1), b[1])
  for (v in c("dnn/hiddenlayer_0/kernel", "dnn/hiddenlayer_1/bias", "dnn/logits/kernel")) {
    expect_equal(variable_value(custom, v)[[1]], variable_value(canned, v)[[1]], tolerance = 1e-5)
  }
})

test_that("hooks work on a custom estimator: an R hook, the in-memory evaluator and early stopping", {
  input <- suppressMessages(iris_input(num_epochs = NULL))
  est <- estimator(simple_custom_model_fn, model_dir = tempfile())
  calls <- 0
  counter <- session_run_hook(after_run = function(context, values) calls <<- calls + 1)
  evaluator <- hook_in_memory_evaluator(est, suppressMessages(iris_input()), every_n_iter = 5)
  stopper <- hook_stop_if_higher(est, "loss", threshold = -1, min_steps = 10, run_every_steps = 1)
  quietly(train(est, input, steps = 40, hooks = list(counter, evaluator, stopper)))
  expect_equal(calls, variable_value(est, "global_step")[[1]])
  expect_gte(calls, 10)
  expect_lt(calls, 40)  # stopped early: every loss is above -1
})

test_that("training resumes from model_dir's checkpoint with a new estimator object", {
  dir <- tempfile()
  input <- suppressMessages(iris_input(shuffle = FALSE))
  a <- estimator(simple_custom_model_fn, model_dir = dir)
  quietly(train(a, input, steps = 5))
  w <- variable_value(a, "fully_connected/weights")[[1]]
  b <- estimator(simple_custom_model_fn, model_dir = dir)
  expect_equal(variable_value(b, "global_step")[[1]], 5)
  expect_equal(variable_value(b, "fully_connected/weights")[[1]], w)
  quietly(train(b, input, steps = 3))
  expect_equal(variable_value(b, "global_step")[[1]], 8)
  # and survives saveRDS() / export_savedmodel()
  path <- tempfile(fileext = ".rds")
  saveRDS(b, path)
  c2 <- readRDS(path)
  expect_equal(variable_value(c2, "fully_connected/weights")[[1]], variable_value(b, "fully_connected/weights")[[1]])
  export <- export_savedmodel(b, tempfile())
  loaded <- load_estimator(export, model_dir = tempfile())
  expect_s3_class(loaded, "tf_custom_estimator")
  expect_equal(variable_value(loaded, "global_step")[[1]], 8)
})

test_that("estimator() and estimator_spec() check their arguments with TensorFlow's messages", {
  expect_error(estimator(function(labels, mode) NULL), "must include features argument",
               class = "cppestimators_model_fn_error")
  expect_error(estimator(function(features, labels, extra) NULL), "has following not expected args: extra",
               class = "cppestimators_model_fn_error")
  expect_error(estimator(function(features, labels) NULL, params = list(a = 1)),
               "does not include params argument", class = "cppestimators_model_fn_error")
  expect_error(estimator(42), "`model_fn` must be a function")
  expect_error(estimator_spec("infer"), "Missing predictions.", fixed = TRUE)
  expect_error(estimator_spec("eval"), "Missing loss.", fixed = TRUE)
  expect_error(estimator_spec("bogus"), "mode")
  input <- suppressMessages(iris_input())
  no_train_op <- function(features, labels, mode) {
    logits <- tf$layers$dense(features, 3L)
    estimator_spec(mode, loss = tf$losses$sparse_softmax_cross_entropy(labels, logits))
  }
  expect_error(quietly(train(estimator(no_train_op, model_dir = tempfile()), input, steps = 1)),
               "model_fn \\(no_train_op\\) failed in mode \"train\": Missing train_op.",
               class = "cppestimators_model_fn_error")
  no_labels <- function(features, mode) estimator_spec(mode, predictions = features)
  expect_error(quietly(train(estimator(no_labels, model_dir = tempfile()), input, steps = 1)),
               "model_fn does not take labels, but input_fn returns labels.")
  expect_error(train(estimator(no_labels, model_dir = tempfile()), iris), "reads an input_fn")
})

test_that("an unsupported tf call is a classed error at the call, naming the model_fn and the mode", {
  expect_error(tf$layers$conv2d, "tf\\$layers\\$conv2d is not supported", class = "cppestimators_unsupported_tf")
  expect_error(tf$contrib$rnn$BasicLSTMCell(10L), "tf\\$contrib\\$rnn", class = "cppestimators_unsupported_tf")
  conv_fn <- function(features, labels, mode) {
    tf$layers$conv2d(features, 32L, c(5L, 5L))
  }
  est <- estimator(conv_fn, model_dir = tempfile())
  err <- tryCatch(quietly(train(est, suppressMessages(iris_input()), steps = 1)), error = identity)
  expect_s3_class(err, "cppestimators_unsupported_tf")
  expect_s3_class(err, "cppestimators_model_fn_error")
  expect_match(conditionMessage(err), "model_fn (conv_fn) failed in mode \"train\"", fixed = TRUE)
  expect_match(conditionMessage(err), "tf$layers$conv2d", fixed = TRUE)
  expect_null(latest_checkpoint(est))  # nothing trained, nothing written
})

test_that("tf$metrics stream over every batch as TensorFlow's: auc, precision, recall, mean, mae", {
  set.seed(5)
  d <- data.frame(x = rnorm(300), z = rnorm(300))
  d$y <- as.integer(d$x + 0.5 * d$z + rnorm(300, sd = 0.5) > 0)
  fn <- function(features, labels, mode, params) {
    logit <- tf$reshape(tf$layers$dense(features, 1L, name = "lin"), list(-1L))
    prob <- tf$sigmoid(logit)
    if (mode == "infer") return(estimator_spec(mode, predictions = list(prob = prob)))
    y <- tf$cast(labels, tf$float32)
    loss <- tf$losses$sigmoid_cross_entropy(y, logit)
    cls <- tf$cast(tf$greater(prob, 0.5), tf$float32)
    estimator_spec(mode, loss = loss,
                   train_op = tf$train$GradientDescentOptimizer(0.5)$minimize(loss),
                   eval_metric_ops = list(
                     auc = tf$metrics$auc(y, prob), precision = tf$metrics$precision(y, cls),
                     recall = tf$metrics$recall(y, cls), mean_prob = tf$metrics$mean(prob),
                     mae = tf$metrics$mean_absolute_error(y, prob)))
  }
  est <- estimator(fn, model_dir = tempfile())
  input <- input_fn(d, response = "y", features = c("x", "z"), batch_size = 32L)
  quietly(train(est, input_fn(d, response = "y", features = c("x", "z"), batch_size = 32L, num_epochs = 5)))
  m <- quietly(evaluate(est, input))
  p <- quietly(predict(est, input))$prob
  cls <- as.numeric(p > 0.5)
  expect_named(m, c("auc", "loss", "mae", "mean_prob", "precision", "recall", "global_step"))
  expect_equal(m$precision, sum(cls == 1 & d$y == 1) / sum(cls == 1), tolerance = 1e-6)
  expect_equal(m$recall, sum(cls == 1 & d$y == 1) / sum(d$y == 1), tolerance = 1e-6)
  expect_equal(m$mean_prob, mean(p), tolerance = 1e-6)
  expect_equal(m$mae, mean(abs(d$y - p)), tolerance = 1e-6)
  # TF's AUC: 200 thresholds, trapezoids; close to the exact rank AUC
  exact <- (sum(rank(p)[d$y == 1]) - sum(d$y == 1) * (sum(d$y == 1) + 1) / 2) / (sum(d$y == 1) * sum(d$y == 0))
  expect_equal(m$auc, exact, tolerance = 5e-3)
  expect_gt(m$auc, 0.8)
})

test_that("input_layer() reads bucketized and indicator columns one-hot, sorted by name as TF", {
  fcs <- feature_columns(
    column_bucketized(column_numeric("Sepal.Length"), c(5, 6)),
    column_numeric("Petal.Width"),
    column_indicator(column_categorical_with_vocabulary_list("kind", vocabulary_list = c("a", "b"))))
  d <- iris
  d$kind <- rep(c("a", "b"), 75)
  fn <- function(features, labels, mode, params) {
    net <- input_layer(features, params$columns)
    logits <- tf$layers$dense(net, 3L, name = "out")
    if (mode == "infer") return(estimator_spec(mode, predictions = list(net = net)))
    loss <- tf$losses$sparse_softmax_cross_entropy(labels, logits)
    estimator_spec(mode, loss = loss, train_op = tf$train$MomentumOptimizer(0.1, 0.9)$minimize(loss))
  }
  est <- estimator(fn, params = list(columns = fcs), model_dir = tempfile())
  input <- suppressMessages(input_fn(d, response = "Species", features = c("Sepal.Length", "Petal.Width", "kind"),
                                     batch_size = 50L, shuffle = FALSE))
  quietly(train(est, input, steps = 3))
  expect_equal(dim(variable_value(est, "out/kernel")[[1]]), c(6L, 3L))  # 3 buckets + 1 + 2 categories
  expect_true("out/kernel/Momentum" %in% variable_names(est))
  net <- do.call(rbind, quietly(predict(est, input))$net)
  # columns sorted by name: Petal.Width, Sepal.Length_bucketized, kind_indicator
  expect_equal(net[, 1], d$Petal.Width, tolerance = 1e-6)
  expect_equal(max.col(net[, 2:4]), findInterval(d$Sepal.Length, c(5, 6)) + 1L)
  expect_equal(net[, 5:6], cbind(as.numeric(d$kind == "a"), as.numeric(d$kind == "b")), ignore_attr = TRUE)
})

test_that("a custom estimator trains on a streaming CSV dataset as on the same data in memory", {
  path <- tempfile(fileext = ".csv")
  d <- mtcars[c("drat", "wt", "mpg")]
  utils::write.csv(d, path, row.names = FALSE)
  fn <- function(features, labels, mode, params) {
    pred <- tf$reshape(tf$layers$dense(features, 1L, name = "lin"), list(-1L))
    if (mode == "infer") return(estimator_spec(mode, predictions = list(mpg = pred)))
    loss <- tf$losses$mean_squared_error(labels, pred)
    estimator_spec(mode, loss = loss, train_op = tf$train$GradientDescentOptimizer(0.01)$minimize(loss))
  }
  cfg <- run_config(tf_random_seed = 3)
  streamed <- estimator(fn, config = cfg, model_dir = tempfile())
  in_memory <- estimator(fn, config = cfg, model_dir = tempfile())
  ds <- text_line_dataset(path, record_spec = csv_record_spec(path))
  quietly(train(streamed, input_fn(ds, features = c("drat", "wt"), response = "mpg", batch_size = 32L)))
  quietly(train(in_memory, input_fn(d, features = c("drat", "wt"), response = "mpg", batch_size = 32L,
                                    shuffle = FALSE)))
  expect_equal(variable_value(streamed, "lin/kernel")[[1]], variable_value(in_memory, "lin/kernel")[[1]],
               tolerance = 1e-6)
  m <- quietly(evaluate(streamed, input_fn(ds, features = c("drat", "wt"), response = "mpg", batch_size = 32L)))
  expect_named(m, c("loss", "global_step"))
  p <- quietly(predict(streamed, input_fn(ds, features = c("drat", "wt"), batch_size = 32L)))
  expect_equal(nrow(p), 32)
  expect_equal(m$loss, mean((p$mpg - d$mpg)^2), tolerance = 1e-5)
})

test_that("input_layer() over an embedding column trains its table as the canned DNN does", {
  set.seed(9)
  d <- data.frame(x = rnorm(120), cat = sample(c("a", "b", "c", "d"), 120, TRUE), stringsAsFactors = FALSE)
  d$y <- as.integer(d$x + (d$cat %in% c("a", "c")) + rnorm(120, sd = 0.3) > 0.5)
  emb <- column_embedding(column_categorical_with_vocabulary_list("cat", vocabulary_list = c("a", "b", "c", "d")),
                          dimension = 3)
  fcs <- feature_columns(column_numeric("x"), emb)
  fn <- function(features, labels, mode, params, config) {
    net <- tf$feature_column$input_layer(features, params$columns)
    net <- tf$layers$dense(net, 8L, activation = tf$nn$relu, name = "dnn/hiddenlayer_0")
    logits <- tf$layers$dense(net, 3L, name = "dnn/logits")
    loss <- tf$losses$sparse_softmax_cross_entropy(labels, logits, reduction = tf$losses$Reduction$SUM)
    estimator_spec(mode, loss = loss,
                   train_op = tf$train$AdagradOptimizer(0.05)$minimize(loss, tf$train$get_global_step()))
  }
  cfg <- run_config(tf_random_seed = 11)
  custom <- estimator(fn, params = list(columns = fcs), config = cfg, model_dir = tempfile())
  canned <- dnn_classifier(hidden_units = 8, feature_columns = fcs, n_classes = 3, config = cfg,
                           model_dir = tempfile())
  input <- input_fn(d, response = "y", features = c("x", "cat"), batch_size = 20L, shuffle = FALSE,
                    num_epochs = NULL)
  b <- loss_curve(custom, input, 12)
  a <- loss_curve(canned, input, 12)
  expect_equal(b, a, tolerance = 1e-5)
  table <- "input_layer/cat_embedding/embedding_weights"
  expect_true(table %in% variable_names(custom))
  expect_equal(variable_value(custom, table)[[1]],
               variable_value(canned,
                              "dnn/input_from_feature_columns/input_layer/cat_embedding/embedding_weights")[[1]],
               tolerance = 1e-5)
})

test_that("a model_fn of the canned DNN's layers, from its checkpoint, gives its logits bit for bit", {
  # the same input layer (float32 features), products, bias additions and
  # activations (math/elementwise.h's functors) in the graph and the DNN
  cols <- feature_columns(column_numeric("drat", "wt", "qsec"))
  for (act in c("relu", "relu6", "elu", "selu", "sigmoid", "tanh", "softplus", "softsign", "leaky_relu")) {
    canned <- dnn_regressor(hidden_units = c(5, 3), feature_columns = cols, activation_fn = act,
                            model_dir = tempfile())
    quietly(train(canned, input_fn(mtcars, features = c(drat, wt, qsec), response = mpg, batch_size = 32,
                                   shuffle = FALSE), steps = 3))
    fn <- function(features, labels, mode, params) {
      net <- input_layer(features, params$columns)
      for (k in 0:1) {
        net <- tf$layers$dense(net, c(5L, 3L)[k + 1], activation = tf$nn[[params$act]],
                               name = paste0("dnn/hiddenlayer_", k))
      }
      estimator_spec(mode, predictions = list(logits = tf$layers$dense(net, 1L, name = "dnn/logits")))
    }
    custom <- estimator(fn, params = list(columns = cols, act = act), model_dir = tempfile())
    input <- input_fn(mtcars, features = c(drat, wt, qsec))
    a <- unlist(predict(canned, input)$predictions)
    b <- unlist(predict(custom, input, checkpoint_path = latest_checkpoint(canned))$logits)
    expect_identical(b, a, info = act)
    expect_gt(stats::sd(a), 0)
  }
})
