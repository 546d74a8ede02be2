# A batch of every row in order (one batch holding the training set, the way
# boosted trees are usually trained) takes a faster path: the batch is not
# shuffled, and the rows' walk through the trees keeps its shared state once
# instead of per row. These tests hold that path to the general one.

whole_frame <- function(n = 600) {
  set.seed(3)
  df <- data.frame(a = round(stats::runif(n), 2), b = round(stats::rnorm(n), 1),
                   c = sample(1:7, n, replace = TRUE))
  df$y <- as.numeric(df$a + 0.3 * df$b + 0.1 * df$c + stats::rnorm(n, sd = 0.3) > 1)
  df
}

trees_of <- function(est) {
  v <- variable_value(est)
  v[c("boosted_trees/tree_feature", "boosted_trees/tree_threshold", "boosted_trees/tree_value",
      "boosted_trees/tree_gain")]
}

quiet_trees <- function(batches = 1, ...) {
  boosted_trees_classifier(feature_columns(column_numeric("a", "b", "c")), n_batches_per_layer = batches,
                           n_trees = 4, max_depth = 3, config = run_config(save_checkpoints_steps = NULL,
                           save_checkpoints_secs = NULL, save_summary_steps = 0, log_step_count_steps = NULL),
                           ...)
}

test_that("a whole batch is not shuffled: shuffle = TRUE grows the trees of shuffle = FALSE", {
  df <- whole_frame()
  shuffled <- quietly(quiet_trees())
  in_order <- quietly(quiet_trees())
  quietly(train(shuffled, input_fn(df, response = "y", batch_size = nrow(df), num_epochs = NULL, shuffle = TRUE)))
  quietly(train(in_order, input_fn(df, response = "y", batch_size = nrow(df), num_epochs = NULL, shuffle = FALSE)))
  expect_identical(trees_of(shuffled), trees_of(in_order))
  expect_true(any(trees_of(in_order)[["boosted_trees/tree_feature"]] >= 0))
})

test_that("trees grown from whole batches equal those grown from two halves per layer", {
  df <- whole_frame()
  whole <- quietly(quiet_trees(1))
  halves <- quietly(quiet_trees(2))
  quietly(train(whole, input_fn(df, response = "y", batch_size = nrow(df), num_epochs = NULL, shuffle = FALSE)))
  quietly(train(halves, input_fn(df, response = "y", batch_size = nrow(df) / 2, num_epochs = NULL,
                                 shuffle = FALSE)))
  w <- trees_of(whole)
  h <- trees_of(halves)
  expect_identical(w[["boosted_trees/tree_feature"]], h[["boosted_trees/tree_feature"]])
  expect_identical(w[["boosted_trees/tree_threshold"]], h[["boosted_trees/tree_threshold"]])
  expect_equal(w[["boosted_trees/tree_value"]], h[["boosted_trees/tree_value"]], tolerance = 1e-5)
  expect_equal(predict(whole, df[c("a", "b", "c")], simplify = TRUE),
               predict(halves, df[c("a", "b", "c")], simplify = TRUE), tolerance = 1e-5)
})

test_that("whole batches in several train() calls, with predictions between, grow the same trees", {
  df <- whole_frame()
  input <- input_fn(df, response = "y", batch_size = nrow(df), num_epochs = NULL, shuffle = FALSE)
  at_once <- quietly(quiet_trees())
  quietly(train(at_once, input))
  pieces <- quietly(quiet_trees())
  for (steps in c(1, 2, 4, 3)) {
    quietly(train(pieces, input, steps = steps))
    # a session of other rows in between (a partial batch walks the general way)
    quietly(predict(pieces, df[1:37, c("a", "b", "c")]))
  }
  quietly(train(pieces, input))  # the rest
  expect_identical(trees_of(pieces), trees_of(at_once))
  # A session that first trains on partial batches of its data, then on
  # whole ones: the logits its cached walk gives at each whole step are the
  # predictions of the model as the step before left it.
  first <- input_fn(df, response = "y", batch_size = 450, num_epochs = NULL, shuffle = FALSE)
  mixed <- quietly(quiet_trees())
  quietly(train(mixed, first, steps = 3))
  seen <- list()
  logits_hook <- session_run_hook(
    before_run = function(context) session_run_args(logits = "logits"),
    after_run = function(context, values) seen[[length(seen) + 1]] <<- as.vector(values$results$logits))
  quietly(train(mixed, input, steps = 5, hooks = list(logits_hook)))
  expect_length(seen, 5)
  for (k in 2:5) {
    ref <- quietly(quiet_trees())
    quietly(train(ref, first, steps = 3))
    quietly(train(ref, input, steps = k - 1))
    p <- unlist(predict(ref, df[c("a", "b", "c")], predict_keys = "logits")$logits)
    expect_equal(seen[[k]], p, tolerance = 1e-6, info = paste("whole step", k))
  }
  expect_false(isTRUE(all.equal(seen[[2]], seen[[5]])))
})

test_that("the one-pass step of whole batches: eight and four lanes grow the same trees, losses as the head's", {
  df <- whole_frame()
  df$w <- rep(c(0.5, 1, 2), length.out = nrow(df))
  input <- input_fn(df, features = c("a", "b", "c"), response = "y", batch_size = nrow(df),
                    num_epochs = NULL, shuffle = FALSE)
  grow <- function(simd) {
    old <- options(cppestimators.simd = simd)
    on.exit(options(old))
    est <- quietly(quiet_trees(weight_column = "w"))
    seen <- list()
    hook <- session_run_hook(
      before_run = function(context) session_run_args(loss = "loss", logits = "logits"),
      after_run = function(context, values) seen[[length(seen) + 1]] <<- values$results)
    quietly(train(est, input, hooks = list(hook)))
    list(trees = trees_of(est), seen = seen)
  }
  wide <- grow("auto")
  narrow <- grow("portable")
  expect_identical(wide$trees, narrow$trees)
  expect_identical(lapply(wide$seen, `[[`, "loss"), lapply(narrow$seen, `[[`, "loss"))
  # each step's loss: the weighted mean logistic loss of the logits it reports
  expect_gt(length(wide$seen), 5)
  for (s in wide$seen[c(2, 5, length(wide$seen))]) {
    x <- as.vector(s$logits)
    l <- pmax(x, 0) - x * df$y + log1p(exp(-abs(x)))
    expect_equal(as.numeric(s$loss), sum(df$w * l) / nrow(df), tolerance = 1e-6)
  }
})
