# Boosted trees: hand-computed trees, accumulation, stopping, prediction,
# resuming mid-tree, and accuracy against the linear estimators.

trees_quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL)

# y is 0 for x <= 2 and 10 beyond: one split between 2 and 3.
step_data <- data.frame(x = c(1, 2, 3, 4), y = c(0, 0, 10, 10))
step_input <- function(...) {
  input_fn(step_data, response = "y", batch_size = 4L, num_epochs = NULL, shuffle = FALSE, ...)
}

# The value the ensemble gives row `x` (a named list of features), walking
# the trees from their variables.
walk_trees <- function(est, x) {
  v <- variable_value(est)
  feature <- v[["boosted_trees/tree_feature"]]
  threshold <- v[["boosted_trees/tree_threshold"]]
  value <- v[["boosted_trees/tree_value"]]
  bounds <- v[["boosted_trees/bucket_boundaries"]]
  counts <- v[["boosted_trees/bucket_counts"]]
  single <- function(d) readBin(writeBin(d, raw(), size = 4), "double", size = 4)  # the engine reads float32
  # TF's bucket: the boundaries below x (lower_bound), the last one's bucket above them all
  bins <- vapply(seq_along(x), function(j) {
    min(findInterval(single(x[[j]]), bounds[j, seq_len(counts[j])], left.open = TRUE), counts[j] - 1)
  }, 0)
  finished <- v[["boosted_trees/state"]][1]
  total <- 0
  for (t in seq_len(min(finished + 1, nrow(feature)))) {
    node <- 0
    while (feature[t, node + 1] >= 0) {
      node <- if (bins[feature[t, node + 1] + 1] <= threshold[t, node + 1]) 2 * node + 1 else 2 * node + 2
    }
    total <- total + value[t, node + 1]
  }
  total
}

test_that("a depth-1 regression tree on a small fixture has the hand-computed split and leaves", {
  # g = 2 (0 - y) / 4 = (0, 0, -5, -5), h = 2 / 4 each: G = -10, H = 2, parent gain 50;
  # the best split leaves x <= 2 (gain 0) and x >= 3 (gain 100): split gain 50,
  # leaf weights 0 and 10, values 0 and 0.1 * 10 = 1
  est <- boosted_trees_regressor(feature_columns(column_numeric("x")), n_batches_per_layer = 1, n_trees = 1,
                                 max_depth = 1, config = trees_quiet)
  quietly(train(est, step_input(), steps = 5))
  expect_equal(variable_value(est, "global_step")[[1]], 1)  # one layer, one tree: done
  v <- variable_value(est)
  expect_equal(v[["boosted_trees/tree_feature"]][1, 1:3], c(0, -1, -1))
  expect_equal(v[["boosted_trees/bucket_boundaries"]][1, 1:4], c(1, 2, 3, 4))
  expect_equal(v[["boosted_trees/tree_threshold"]][1, 1], 1)  # buckets 0..1 (x <= 2: TF's lower_bound) go left
  expect_equal(v[["boosted_trees/tree_value"]][1, 1:3], c(0, 0, 1), tolerance = 1e-6)
  expect_equal(v[["boosted_trees/tree_gain"]][1, 1], 50, tolerance = 1e-5)
  expect_equal(boosted_trees_feature_importance(est), c(x = 50), tolerance = 1e-5)
  p <- quietly(predict(est, input_fn(step_data, features = "x")))
  expect_equal(unlist(p$predictions), c(0, 0, 1, 1), tolerance = 1e-6)
})

test_that("l1 and l2 regularization change the leaf weights and gains as the formulas say", {
  fit <- function(...) {
    est <- boosted_trees_regressor(feature_columns(column_numeric("x")), n_batches_per_layer = 1, n_trees = 1,
                                   max_depth = 1, config = trees_quiet, ...)
    quietly(train(est, step_input()))
    v <- variable_value(est)
    list(values = v[["boosted_trees/tree_value"]][1, 2:3], gain = v[["boosted_trees/tree_gain"]][1, 1])
  }
  # l2 = 1: right weight 10 / (1 + 1) = 5, gain 100 / 2 - parent 100 / 3
  l2 <- fit(l2_regularization = 1)
  expect_equal(l2$values, c(0, 0.5), tolerance = 1e-6)
  expect_equal(l2$gain, 50 - 100 / 3, tolerance = 1e-5)
  # l1 = 2: right g' = -10 + 2, weight 8, gain 64; parent g' = -8, gain 32
  l1 <- fit(l1_regularization = 2)
  expect_equal(l1$values, c(0, 0.8), tolerance = 1e-6)
  expect_equal(l1$gain, 32, tolerance = 1e-5)
  # tree_complexity makes the gain negative; the split is still made
  tc <- fit(tree_complexity = 80)
  expect_equal(tc$gain, -30, tolerance = 1e-5)
  expect_equal(tc$values, c(0, 1), tolerance = 1e-6)
})

test_that("n_batches_per_layer = 3 averages three batches' statistics before growing a layer", {
  make <- function(n_batches, min_node_weight = 0) {
    boosted_trees_regressor(feature_columns(column_numeric("x")), n_batches_per_layer = n_batches, n_trees = 1,
                            max_depth = 1, min_node_weight = min_node_weight, config = trees_quiet)
  }
  one <- make(1)
  quietly(train(one, step_input()))
  three <- make(3)
  quietly(train(three, step_input(), steps = 2))
  expect_equal(variable_value(three, "boosted_trees/tree_feature")[[1]][1, 1], -1)  # not grown yet
  quietly(train(three, step_input()))
  expect_equal(variable_value(three, "global_step")[[1]], 3)
  expect_equal(variable_value(three, "boosted_trees/tree_value")[[1]][1, 1:3],
               variable_value(one, "boosted_trees/tree_value")[[1]][1, 1:3], tolerance = 1e-6)
  # min_node_weight compares with the averaged hessian (2), not the sum (6)
  heavy <- make(3, min_node_weight = 3)
  quietly(train(heavy, step_input(), steps = 3))
  expect_equal(variable_value(heavy, "boosted_trees/tree_feature")[[1]][1, 1], -1)
})

test_that("training stops by itself after n_trees trees; predictions sum every tree, the growing one too", {
  set.seed(3)
  df <- data.frame(a = runif(60), b = runif(60))
  df$y <- df$a * 3 + (df$b > 0.5)
  est <- boosted_trees_regressor(feature_columns(column_numeric("a", "b")), n_batches_per_layer = 1, n_trees = 3,
                                 max_depth = 2, config = trees_quiet)
  input <- input_fn(df, response = "y", batch_size = 60L, num_epochs = NULL, shuffle = FALSE)
  quietly(train(est, input, steps = 3))  # one tree and one layer of the second
  state <- variable_value(est, "boosted_trees/state")[[1]]
  expect_equal(state[1:3], c(1, 1, 3))
  p <- unlist(quietly(predict(est, input_fn(df, features = c("a", "b"))))$predictions)
  expect_equal(p, vapply(seq_len(nrow(df)), function(i) walk_trees(est, list(a = df$a[i], b = df$b[i])), 0),
               tolerance = 1e-5)
  msgs <- messages_of(train(est, input, steps = 100))
  expect_true(any(grepl("Training completed after 3 steps but 100 steps was specified", msgs, fixed = TRUE)))
  expect_equal(variable_value(est, "global_step")[[1]], 6)
  expect_output(print(est), "grown: +all 3 trees finished")
  quietly(train(est, input, steps = 5))  # nothing left to do
  expect_equal(variable_value(est, "global_step")[[1]], 6)
})

test_that("training interrupted and resumed mid-tree gives the same ensemble as one run", {
  set.seed(5)
  df <- data.frame(a = runif(80), b = rnorm(80))
  df$y <- as.numeric(df$a + df$b > 0.6)
  make <- function(dir) {
    boosted_trees_classifier(feature_columns(column_numeric("a", "b")), n_batches_per_layer = 2, n_trees = 4,
                             max_depth = 3, model_dir = dir, config = trees_quiet)
  }
  # every batch is the whole data, so that a second train() call sees what the
  # uninterrupted run saw (each call's input starts from its first row)
  input <- input_fn(df, response = "y", batch_size = 80L, num_epochs = NULL, shuffle = FALSE)
  whole <- make(tempfile())
  quietly(train(whole, input, steps = 13))
  dir <- tempfile()
  quietly(train(make(dir), input, steps = 7))  # stops inside a layer (7 batches, 2 per layer)
  expect_equal(variable_value(make(dir), "boosted_trees/state")[[1]][4], 1)  # one batch accumulated
  resumed <- make(dir)                         # a new estimator reads the checkpoint
  quietly(train(resumed, input, steps = 6))
  expect_equal(variable_value(resumed), variable_value(whole))
})

test_that("boosted trees beat the linear estimators on nonlinear problems", {
  set.seed(11)
  xor <- data.frame(a = runif(1200, -1, 1), b = runif(1200, -1, 1))
  xor$y <- as.numeric((xor$a > 0) != (xor$b > 0))
  train_xor <- xor[1:900, ]
  test_xor <- xor[901:1200, ]
  fc <- feature_columns(column_numeric("a", "b"))
  bt <- boosted_trees_classifier(fc, n_batches_per_layer = 1, n_trees = 20, max_depth = 3, config = trees_quiet)
  quietly(train(bt, input_fn(train_xor, response = "y", batch_size = 900L, num_epochs = NULL)))
  lin <- linear_classifier(fc, config = trees_quiet)
  quietly(train(lin, input_fn(train_xor, response = "y", num_epochs = 20)))
  acc_bt <- quietly(evaluate(bt, input_fn(test_xor, response = "y")))$accuracy
  acc_lin <- quietly(evaluate(lin, input_fn(test_xor, response = "y")))$accuracy
  expect_gt(acc_bt, 0.95)
  expect_lt(acc_lin, 0.7)

  s <- data.frame(x = runif(800, -3, 3))
  s$y <- sin(s$x) + rnorm(800, sd = 0.05)
  fx <- feature_columns(column_numeric("x"))
  bt <- boosted_trees_regressor(fx, n_batches_per_layer = 1, n_trees = 30, max_depth = 3, config = trees_quiet)
  quietly(train(bt, input_fn(s[1:600, ], response = "y", batch_size = 600L, num_epochs = NULL)))
  lin <- linear_regressor(fx, config = trees_quiet)
  quietly(train(lin, input_fn(s[1:600, ], response = "y", num_epochs = 20)))
  held <- input_fn(s[601:800, ], response = "y")
  loss_bt <- quietly(evaluate(bt, held))$average_loss
  loss_lin <- quietly(evaluate(lin, held))$average_loss
  expect_lt(loss_bt, 0.05)
  expect_lt(loss_bt, loss_lin / 5)
})

test_that("bucketized and indicator columns are TF's features; other columns and classes are TF's errors", {
  df <- data.frame(x = c(1, 5, 9, 2, 6, 8), c = c("a", "b", "a", "b", "a", "b"), y = c(0, 1, 1, 0, 1, 1))
  fcs <- feature_columns(column_bucketized(column_numeric("x"), c(3, 7)),
                         column_indicator(column_categorical_with_vocabulary_list("c", vocabulary_list = c("a", "b"))))
  est <- boosted_trees_classifier(fcs, n_batches_per_layer = 1, n_trees = 2, max_depth = 2, config = trees_quiet)
  quietly(train(est, input_fn(df, response = "y", batch_size = 6L, num_epochs = NULL)))
  expect_named(boosted_trees_feature_importance(est), c("c_indicator[a]", "c_indicator[b]", "x_bucketized"),
               ignore.order = TRUE)
  expect_identical(tidy(est)$term, names(boosted_trees_feature_importance(est)))
  expect_equal(sum(boosted_trees_feature_importance(est, normalize = TRUE)), 1)
  hashed <- column_categorical_with_hash_bucket("c", hash_bucket_size = 10)
  expect_error(boosted_trees_classifier(feature_columns(hashed), n_batches_per_layer = 1),
               "For now, only bucketized_column and indicator_column is supported but got: _HashedCategoricalColumn")
  expect_error(boosted_trees_classifier(fcs, n_batches_per_layer = 1, n_classes = 1), "n_classes")
  expect_error(boosted_trees_regressor(fcs, n_batches_per_layer = 1, label_dimension = 2), "label_dimension = 1 only")
  expect_error(boosted_trees_regressor(fcs), "`n_batches_per_layer` is required")
  expect_error(boosted_trees_regressor(fcs, n_batches_per_layer = 0), "n_batches_per_layer")
  expect_error(boosted_trees_regressor(fcs, n_batches_per_layer = 1, learning_rate = -1), "`learning_rate` must be")
  expect_error(boosted_trees_feature_importance(linear_regressor(fcs)), "must be a boosted trees estimator")
})

test_that("a boosted trees model survives saveRDS() and export/load with the same predictions", {
  est <- boosted_trees_regressor(feature_columns(column_numeric("x")), n_batches_per_layer = 1, n_trees = 2,
                                 max_depth = 2, config = trees_quiet)
  quietly(train(est, step_input()))
  input <- input_fn(step_data, features = "x")
  before <- quietly(predict(est, input))
  f <- tempfile(fileext = ".rds")
  saveRDS(est, f)
  expect_equal(quietly(predict(readRDS(f), input)), before)
  exported <- export_savedmodel(est, tempfile())
  expect_equal(quietly(predict(load_estimator(exported), input)), before)
})

test_that("hooks work with boosted trees; their loss is the batch mean and average_loss matches it", {
  set.seed(2)
  df <- data.frame(a = runif(300), b = runif(300))
  df$y <- as.numeric(df$a > df$b)
  dir <- tempfile()
  est <- boosted_trees_classifier(feature_columns(column_numeric("a", "b")), n_batches_per_layer = 1, n_trees = 5,
                                  max_depth = 2, model_dir = dir, config = trees_quiet)
  h <- quietly(train(est, input_fn(df, response = "y", batch_size = 300L, num_epochs = NULL), hooks = list(
    hook_in_memory_evaluator(est, input_fn(df, response = "y"), every_n_iter = 3),
    hook_summary_saver(save_steps = 2))))
  d <- as.data.frame(h)
  acc <- d$value[d$metric == "eval_accuracy"]
  expect_equal(d$step[d$metric == "eval_accuracy"], c(0, 3, 6, 9, 10))
  expect_gt(acc[length(acc)], 0.9)
  s <- read_summaries(dir)
  s <- s[s$run == "." & s$step == 1, ]
  expect_equal(s$value[s$tag == "loss"][1], log(2), tolerance = 1e-6)  # mean loss at zero logits
  expect_equal(s$value[s$tag == "average_loss"][1], log(2), tolerance = 1e-6)
})

test_that("two threads grow the trees one thread grows, batches holding a row twice included", {
  set.seed(21)
  df <- data.frame(a = runif(5000), b = runif(5000), c = rnorm(5000))
  df$y <- as.numeric(sin(4 * df$a) + df$b * df$c + rnorm(5000, sd = 0.3) > 0.5)
  grow <- function(threads, batch_size = 7000L) {
    old <- options(cppestimators.threads = threads)
    on.exit(options(old))
    set.seed(22)  # the same shuffles for both
    est <- boosted_trees_classifier(feature_columns(column_numeric("a", "b", "c")), n_batches_per_layer = 1,
                                    n_trees = 3, max_depth = 3, config = trees_quiet)
    # 7000-row batches wrap around the 5000 rows: they hold rows twice
    quietly(train(est, input_fn(df, response = "y", batch_size = batch_size, num_epochs = NULL, shuffle = TRUE)))
    est
  }
  one <- grow(1L)
  two <- grow(2L)
  expect_equal(variable_value(two, "boosted_trees/tree_feature"), variable_value(one, "boosted_trees/tree_feature"))
  expect_equal(variable_value(two, "boosted_trees/tree_threshold"), variable_value(one, "boosted_trees/tree_threshold"))
  expect_equal(variable_value(two, "boosted_trees/tree_value"), variable_value(one, "boosted_trees/tree_value"),
               tolerance = 1e-5)
  whole_one <- grow(1L, 5000L)  # each batch the whole data once, the threads taking halves of it
  whole_two <- grow(2L, 5000L)
  expect_equal(variable_value(whole_two, "boosted_trees/tree_threshold"),
               variable_value(whole_one, "boosted_trees/tree_threshold"))
  expect_equal(variable_value(whole_two, "boosted_trees/tree_value"),
               variable_value(whole_one, "boosted_trees/tree_value"), tolerance = 1e-5)
  # and what the threaded run predicts is the walk over its own trees
  rows <- c(1, 777, 2500, 4999)
  p <- unlist(quietly(predict(two, input_fn(df[rows, ], features = c("a", "b", "c")), predict_keys = "logits"))$logits)
  expect_equal(p, vapply(rows, function(i) walk_trees(two, as.list(df[i, c("a", "b", "c")])), 0), tolerance = 1e-5)
})

test_that("a feature with more than 256 buckets keeps bucket ids above 255 (two-byte buckets)", {
  set.seed(23)
  bounds <- seq(0, 1, length.out = 300)
  df <- data.frame(x = runif(3000))
  df$y <- as.numeric(df$x >= bounds[281])  # bucket ids 0..300: exactly ids >= 281 are 1
  est <- boosted_trees_regressor(feature_columns(column_bucketized(column_numeric("x"), boundaries = bounds)),
                                 n_batches_per_layer = 1, n_trees = 1, max_depth = 1, config = trees_quiet)
  quietly(train(est, input_fn(df, response = "y", batch_size = 3000L, num_epochs = NULL, shuffle = FALSE)))
  expect_equal(variable_value(est, "boosted_trees/tree_feature")[[1]][1, 1], 0)
  expect_equal(variable_value(est, "boosted_trees/tree_threshold")[[1]][1, 1], 280)
  p <- unlist(quietly(predict(est, input_fn(data.frame(x = c(bounds[281] - 1e-3, bounds[281] + 1e-3)),
                                            features = "x")))$predictions)
  expect_lt(p[1], 1e-6)
  expect_gt(p[2], 0.09)  # learning rate 0.1 times a leaf weight of 1
})

test_that("print() of a boosted trees estimator never built builds no engine and touches no model_dir", {
  dir <- file.path(tempfile(), "model")
  est <- boosted_trees_classifier(feature_columns(column_numeric("a", "b")), n_batches_per_layer = 2, n_trees = 5,
                                  max_depth = 3, model_dir = dir)
  out <- utils::capture.output(print(est))
  s <- utils::capture.output(str(est))
  expect_false(dir.exists(dirname(dir)))
  expect_identical(ls(est$state, all.names = TRUE), character())  # no engine, nothing synced
  expect_identical(out, c(
    "<boosted_trees_classifier>",
    "  head:            binary classification (logistic)",
    "  feature columns: a, b",
    "  trees:           5 of depth 3, learning rate 0.1, 2 batches per layer",
    "  grown:           0 of 5 trees finished, 0 layers of the next grown",
    paste0("  model_dir:       ", normalizePath(dir, mustWork = FALSE)),
    "  global step:     0"))
  expect_match(s, "\\$ grown +: 0 of 5 trees finished, 0 layers of the next grown", all = FALSE)
})

test_that("print() of a trained boosted trees estimator shows its engine's progress; after readRDS() it is saved", {
  set.seed(2)
  df <- data.frame(a = runif(40))
  df$y <- df$a * 2
  est <- boosted_trees_regressor(feature_columns(column_numeric("a")), n_batches_per_layer = 1, n_trees = 2,
                                 max_depth = 2, config = trees_quiet)
  quietly(train(est, input_fn(df, response = "y", batch_size = 40L, num_epochs = NULL), steps = 3))
  expect_output(print(est), "grown: +1 of 2 trees finished, 1 layer of the next grown")
  expect_output(print(est), "global step: +3")
  f <- tempfile(fileext = ".rds")
  saveRDS(est, f)
  back <- readRDS(f)
  expect_output(print(back), "grown: +saved")
  expect_output(print(back), "global step: +saved")
  expect_true(is.null(back$state$ptr) || cppestimators:::is_null_xptr(back$state$ptr))
})

test_that("importances name indicator categories by their vocabulary, as coef() does", {
  df <- data.frame(x = c(1, 5, 9, 2, 6, 8), c = c("a", "b", "a", "z", "a", "b"), k = c(0L, 2L, 1L, 0L, 2L, 2L),
                   y = c(0, 1, 1, 0, 1, 1))
  voc <- column_categorical_with_vocabulary_list("c", vocabulary_list = c("a", "b"), num_oov_buckets = 1)
  ids <- column_categorical_with_identity("k", num_buckets = 3)
  fcs <- feature_columns(column_indicator(voc), column_indicator(ids))
  est <- boosted_trees_classifier(fcs, n_batches_per_layer = 1, n_trees = 2, max_depth = 2, config = trees_quiet)
  quietly(train(est, input_fn(df, response = "y", batch_size = 6L, num_epochs = NULL)))
  expect_setequal(names(boosted_trees_feature_importance(est)),
                  c("c_indicator[a]", "c_indicator[b]", "c_indicator[oov1]", "k_indicator[0]", "k_indicator[1]",
                    "k_indicator[2]"))
  lin <- suppressMessages(linear_classifier(fcs))
  quietly(train(lin, input_fn(df, response = "y"), steps = 1))
  expect_setequal(names(coef(lin)), c("(Intercept)", names(boosted_trees_feature_importance(est))))
})

# Issue 52: an ensemble left unfinished because the input ran out is never
# silent; a data frame given to train() is repeated until the trees are grown.
unfinished_data <- function(n = 200) {
  set.seed(52)
  d <- data.frame(a = runif(n), b = runif(n))
  d$y <- as.numeric(d$a + stats::rnorm(n, sd = 0.1) > 0.5)
  d
}
unfinished_classifier <- function(..., config = trees_quiet) {
  suppressMessages(boosted_trees_classifier(feature_columns(column_numeric("a", "b")), n_batches_per_layer = 1,
                                            n_trees = 4, max_depth = 2, config = config, ...))
}
finished_trees <- function(est) unname(variable_value(est)[["boosted_trees/state"]][1])

test_that("train() warns when the input runs out with fewer than n_trees trees finished", {
  d <- unfinished_data()
  est <- unfinished_classifier()
  # one pass in one batch: one step, one layer
  w <- expect_warning(quietly(train(est, input_fn(d, response = "y", batch_size = nrow(d), num_epochs = 1))),
                      class = "cppestimators_unfinished_trees")
  expect_s3_class(w, "warning")
  expect_match(conditionMessage(w),
               "ended when its input ran out, with 0 of 4 trees finished (1 layer of the next grown)",
               fixed = TRUE)
  expect_match(conditionMessage(w), "about 7 more steps", fixed = TRUE)
  expect_match(conditionMessage(w), "call train() again", fixed = TRUE)
  expect_match(conditionMessage(w), "`num_epochs = NULL`", fixed = TRUE)
  expect_equal(finished_trees(est), 0)
  # a data frame with `num_epochs`: the user's passes, the same warning
  expect_warning(quietly(train(est, d, response = "y", batch_size = nrow(d), num_epochs = 2)),
                 "with 1 of 4 trees finished", class = "cppestimators_unfinished_trees")
  # train() again continues: 3 steps later the trees are finished, no warning
  expect_no_warning(quietly(train(est, input_fn(d, response = "y", batch_size = nrow(d), num_epochs = 5))))
  expect_equal(finished_trees(est), 4)
  # a finished ensemble given more input: nothing to grow, no warning
  expect_no_warning(quietly(train(est, input_fn(d, response = "y", batch_size = nrow(d), num_epochs = 1))))
  # a stream that ends too early warns as well
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  utils::write.csv(d, f, row.names = FALSE)
  est <- unfinished_classifier()
  expect_warning(quietly(train(est, input_fn(text_line_dataset(f, csv_record_spec(f)) %>% dataset_batch(nrow(d)),
                                             features = c(a, b), response = y))),
                 "0 of 4 trees finished", class = "cppestimators_unfinished_trees")
})

test_that("runs bounded by steps, max_steps or a hook stop unfinished trees without a warning", {
  d <- unfinished_data()
  forever <- input_fn(d, response = "y", batch_size = 50L, num_epochs = NULL)
  est <- unfinished_classifier()
  expect_no_warning(quietly(train(est, forever, steps = 2)))
  expect_no_warning(quietly(train(est, forever, max_steps = 3)))
  expect_no_warning(quietly(train(est, forever, hooks = list(hook_stop_at_step(num_steps = 1)))))
  stopper <- session_run_hook(after_run = function(context, values) context$request_stop())
  expect_no_warning(quietly(train(est, forever, hooks = list(stopper))))
  expect_equal(variable_value(est, "global_step")[[1]], 5)
  expect_lt(finished_trees(est), 4)
  # a data frame with `steps`: read once (not repeated), so a single batch ends it first
  est <- unfinished_classifier()
  expect_no_warning(quietly(train(est, d, response = "y", batch_size = 50L, steps = 1)))
  expect_equal(variable_value(est, "global_step")[[1]], 1)
  expect_equal(finished_trees(est), 0)
})

test_that("train() of a data frame repeats it until the ensemble is complete", {
  d <- unfinished_data()
  est <- unfinished_classifier()
  expect_no_warning(quietly(train(est, d, response = "y", batch_size = nrow(d))))
  expect_equal(finished_trees(est), 4)
  expect_equal(variable_value(est, "global_step")[[1]], 8)  # 4 trees of 2 layers, a layer a step
  # batches of 64 rows: the data crosses its passes
  est <- unfinished_classifier()
  expect_no_warning(quietly(train(est, d, response = "y", batch_size = 64L)))
  expect_equal(finished_trees(est), 4)
  # the same as an input that repeats forever
  twin <- unfinished_classifier(config = run_config(tf_random_seed = 3, save_summary_steps = 0,
                                                    log_step_count_steps = NULL))
  one <- unfinished_classifier(config = run_config(tf_random_seed = 3, save_summary_steps = 0,
                                                   log_step_count_steps = NULL))
  quietly(train(one, d, response = "y", batch_size = 64L))
  quietly(train(twin, input_fn(d, response = "y", batch_size = 64L, num_epochs = NULL)))
  expect_identical(variable_value(one), variable_value(twin))
  # pre-pruning that never splits: the trees stop by their attempts' limit
  # (2 * n_trees * max_depth layers), which the repeated data reaches
  flat <- data.frame(a = rep(1, 20), b = rep(2, 20), y = rep(0:1, 10))
  est <- unfinished_classifier(pruning_mode = "pre", tree_complexity = 10)
  expect_no_warning(quietly(train(est, flat, response = "y", batch_size = 20L)))
  expect_equal(unname(variable_value(est)[["boosted_trees/state"]][3]), 2 * 4 * 2 + 1)
  expect_equal(finished_trees(est), 0)
  # `epochs` (tfestimators' name of num_epochs) bounds the training as num_epochs does
  est <- unfinished_classifier()
  expect_warning(quietly(train(est, d, response = "y", batch_size = nrow(d), epochs = 3)),
                 class = "cppestimators_unfinished_trees")
  expect_equal(variable_value(est, "global_step")[[1]], 3)
})

test_that("deep trees hold statistics for the nodes their rows reach, not for 2^depth places", {
  set.seed(3)
  df <- data.frame(x = runif(300), z = runif(300))
  df$y <- sin(6 * df$x) + df$z + rnorm(300, sd = 0.1)
  dir <- tempfile()
  est <- quietly(boosted_trees_regressor(feature_columns(column_numeric("x", "z")), n_trees = 2, max_depth = 15,
                                         n_batches_per_layer = 1, model_dir = dir, config = trees_quiet))
  # one batch of every row per layer: 12 layers of the first tree
  quietly(train(est, input_fn(df, response = "y", batch_size = 300L, num_epochs = NULL, shuffle = FALSE),
                steps = 12))
  nodes <- variable_value(est, "boosted_trees/accumulator_nodes")[[1]]
  stats <- variable_value(est, "boosted_trees/accumulator_stats")[[1]]
  # the last layer grown (11) had 2048 places; its 300 rows reached at most 300 of them
  expect_gt(length(nodes), 1)
  expect_lte(length(nodes), 300)
  expect_true(all(nodes >= 2^11 - 1 & nodes < 2^12 - 1))
  expect_equal(nrow(stats), length(nodes))
  # a checkpoint: the trees' node arrays (2 x 65,535 nodes x 4 floats) and these rows (before: 2^14
  # rows of 2 x (buckets of x and z) floats, over 25 MB)
  expect_lt(max(file.size(list.files(dir, pattern = "ckpt$", full.names = TRUE))), 4e6)
  # the rest of the trees, restarted from the checkpoint, equal one run's
  quietly(train(est, input_fn(df, response = "y", batch_size = 300L, num_epochs = NULL, shuffle = FALSE)))
  whole <- quietly(boosted_trees_regressor(feature_columns(column_numeric("x", "z")), n_trees = 2, max_depth = 15,
                                           n_batches_per_layer = 1, config = trees_quiet))
  quietly(train(whole, input_fn(df, response = "y", batch_size = 300L, num_epochs = NULL, shuffle = FALSE)))
  expect_equal(variable_value(est, "boosted_trees/tree_value"), variable_value(whole, "boosted_trees/tree_value"))
  expect_equal(variable_value(est, "boosted_trees/tree_feature"),
               variable_value(whole, "boosted_trees/tree_feature"))
})
