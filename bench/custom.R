# Custom estimators against the canned DNN of the same shape: the model_fn
# rebuilds dnn_classifier() (input_layer over the same columns, dense relu
# layers, sparse softmax cross entropy summed over the batch, Adagrad 0.05),
# so the two train the same network (their loss curves agree, see
# tests/testthat/test-estimator_custom.R). Prints a markdown table:
# microseconds per step of each, median of 5 paired runs, and their ratio (goal: the
# custom estimator's step at most 1.3x the canned one's).
suppressPackageStartupMessages(library(cppestimators))
options(cppestimators.progress = FALSE, cppestimators.threads = as.integer(Sys.getenv("BENCH_CUSTOM_THREADS", "2")))

quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                    save_checkpoints_steps = NULL, save_checkpoints_secs = NULL, tf_random_seed = 1)

dnn_fn <- function(features, labels, mode, params, config) {
  net <- tf$feature_column$input_layer(features, params$columns)
  for (i in seq_along(params$hidden)) {
    net <- tf$layers$dense(net, params$hidden[i], activation = tf$nn$relu,
                           name = sprintf("dnn/hiddenlayer_%d", i - 1L))
  }
  logits <- tf$layers$dense(net, params$classes, name = "dnn/logits")
  loss <- tf$losses$sparse_softmax_cross_entropy(labels, logits, reduction = tf$losses$Reduction$SUM)
  train_op <- tf$train$AdagradOptimizer(0.05)$minimize(loss, global_step = tf$train$get_global_step())
  estimator_spec(mode, loss = loss, train_op = train_op)
}

# tfestimators' way: the features as one float64 matrix (values in double)
matrix_fn <- function(features, labels, mode, params, config) {
  net <- features
  for (i in seq_along(params$hidden)) net <- tf$layers$dense(net, params$hidden[i], activation = tf$nn$relu)
  logits <- tf$layers$dense(net, params$classes)
  loss <- tf$losses$sparse_softmax_cross_entropy(labels, logits, reduction = tf$losses$Reduction$SUM)
  train_op <- tf$train$AdagradOptimizer(0.05)$minimize(loss, global_step = tf$train$get_global_step())
  estimator_spec(mode, loss = loss, train_op = train_op)
}

shape_case <- function(features, hidden, classes, batch) {
  set.seed(1)
  n <- batch * 64L
  x <- matrix(stats::rnorm(n * features), n, features, dimnames = list(NULL, sprintf("x%02d", seq_len(features))))
  df <- as.data.frame(x)
  df$y <- as.integer(max.col(x %*% matrix(stats::rnorm(features * classes), features, classes)) - 1L)
  fcs <- feature_columns(column_numeric(colnames(x)))
  input <- input_fn(df, response = "y", features = colnames(x), batch_size = batch, num_epochs = NULL)
  params <- list(columns = fcs, hidden = as.integer(hidden), classes = as.integer(classes))
  ests <- list(
    canned = suppressMessages(dnn_classifier(hidden_units = hidden, feature_columns = fcs, n_classes = classes,
                                             optimizer = optimizer_adagrad(0.05), config = quiet)),
    custom = suppressMessages(estimator(dnn_fn, params = params, config = quiet)),
    double = suppressMessages(estimator(matrix_fn, params = params, config = quiet)))
  run <- function(est, steps) {
    system.time(invisible(utils::capture.output(suppressMessages(train(est, input, steps = steps)))))[["elapsed"]]
  }
  for (est in ests) invisible(run(est, 20))
  steps <- 200L
  # paired: the estimators take turns, so that a slower moment of the
  # machine falls on each of them; medians of 5
  times <- replicate(5, vapply(ests, function(est) (run(est, 3 * steps) - run(est, steps)) / (2 * steps), 0))
  us <- apply(times, 1, stats::median) * 1e6
  canned <- us[["canned"]]
  custom <- us[["custom"]]
  in_double <- us[["double"]]
  data.frame(shape = sprintf("%d -> %s -> %d, batch %d", features, paste(hidden, collapse = " -> "), classes, batch),
             canned = canned, custom = custom, ratio = custom / canned, double = in_double)
}

res <- rbind(shape_case(20, c(64, 64), 3, 128), shape_case(64, c(256, 256), 10, 256))
cat(paste("| shape | dnn_classifier() (us/step) | estimator(model_fn), input_layer (us/step) | custom / canned |",
          "goal | met | estimator(model_fn), float64 features matrix (us/step) |\n"))
cat("|---|---:|---:|---:|---:|---|---:|\n")
for (i in seq_len(nrow(res))) {
  r <- res[i, ]
  cat(sprintf("| %s | %.1f | %.1f | %.2fx | 1.3x | %s | %.1f |\n", r$shape, r$canned, r$custom, r$ratio,
              if (r$ratio <= 1.3) "yes" else "no", r$double))
}
