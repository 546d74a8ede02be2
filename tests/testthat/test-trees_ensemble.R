# boosted_trees_ensemble(): TF's node numbering, children, leaves and
# metadata, from hand-built heap-ordered variables and from trained models.

ensemble_quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL)

test_that("heap-ordered trees are renumbered breadth first in creation order, as TF numbers them", {
  # max_depth 3: 15 heap slots per tree. Tree 1: the root (heap 0) splits,
  # its right child (heap 2) splits, then heap 2's left child (heap 5): TF
  # creates root 0, children 1 (heap 1) and 2 (heap 2), then 3, 4 (heap 5, 6),
  # then 5, 6 (heap 11, 12). Tree 2: the root splits, both children split.
  feature <- matrix(-1, 2, 15)
  threshold <- matrix(0, 2, 15)
  gain <- matrix(0, 2, 15)
  value <- matrix(0, 2, 15)
  feature[1, c(0, 2, 5) + 1] <- c(1, 0, 1)
  threshold[1, c(0, 2, 5) + 1] <- c(7, 3, 9)
  gain[1, c(0, 2, 5) + 1] <- c(5, 2, 1)
  value[1, c(1, 2, 5, 6, 11, 12) + 1] <- c(-0.1, 0.2, 0.25, 0.15, 0.3, 0.2)
  feature[2, c(0, 1, 2) + 1] <- c(0, 1, 1)
  threshold[2, c(0, 1, 2) + 1] <- c(4, 5, 6)
  gain[2, c(0, 1, 2) + 1] <- c(3, 0.5, 0.25)
  value[2, 4:7] <- c(1, 2, 3, 4)
  state <- c(1, 2, 6, 0, 1)  # tree 1 finished, two layers of tree 2, six attempts
  out <- trees_ensemble_frame(feature, threshold, value, gain, state, max_depth = 3L,
                              feature_names = c("a", "b"), value_names = "value")
  t1 <- out[out$tree == 1, ]
  expect_equal(t1$node_id, 0:6)
  expect_equal(t1$is_leaf, c(FALSE, TRUE, FALSE, FALSE, TRUE, TRUE, TRUE))
  expect_equal(t1$left_id, c(1L, NA, 3L, 5L, NA, NA, NA))
  expect_equal(t1$right_id, c(2L, NA, 4L, 6L, NA, NA, NA))
  expect_equal(t1$feature_id, c(1L, NA, 0L, 1L, NA, NA, NA))
  expect_equal(t1$feature, c("b", NA, "a", "b", NA, NA, NA))
  expect_equal(t1$threshold, c(7L, NA, 3L, 9L, NA, NA, NA))
  expect_equal(t1$gain, c(5, NA, 2, 1, NA, NA, NA))
  expect_equal(t1$value, c(0, -0.1, 0.2, 0.25, 0.15, 0.3, 0.2))
  t2 <- out[out$tree == 2, ]
  expect_equal(t2$node_id, 0:6)
  expect_equal(t2$left_id, c(1L, 3L, 5L, NA, NA, NA, NA))
  expect_equal(t2$right_id, c(2L, 4L, 6L, NA, NA, NA, NA))
  expect_equal(t2$value[4:7], c(1, 2, 3, 4))
  trees <- attr(out, "trees")
  expect_equal(trees$layers_grown, c(3L, 2L))
  expect_equal(trees$is_finalized, c(TRUE, FALSE))
  expect_equal(trees$weight, c(1, 1))
  growing <- attr(out, "growing")
  # five layers grown, one attempt split nothing
  expect_equal(growing, list(num_trees_attempted = 2L, num_layers_attempted = 6L,
                             last_layer_node_start = 3L, last_layer_node_end = 7L))
})

test_that("an ensemble that never grew lists nothing; a finished one ends with TF's empty next tree", {
  feature <- matrix(-1, 1, 3)
  zero <- matrix(0, 1, 3)
  none <- trees_ensemble_frame(feature, zero, zero, zero, c(0, 0, 0, 0, 0), max_depth = 1L,
                               feature_names = "x", value_names = "value")
  expect_equal(nrow(none), 0L)
  expect_named(none, c("tree", "node_id", "is_leaf", "feature", "feature_id", "threshold", "left_id",
                       "right_id", "gain", "value", "cover"))
  feature[1, 1] <- 0
  done <- trees_ensemble_frame(feature, zero, matrix(c(0, 1, 2), 1), zero, c(1, 0, 1, 0, 1), max_depth = 1L,
                               feature_names = "x", value_names = "value")
  expect_equal(done$tree, c(1, 1, 1, 2))
  expect_equal(done$is_leaf, c(FALSE, TRUE, TRUE, TRUE))
  expect_equal(done$value, c(0, 1, 2, 0))
  expect_equal(attr(done, "trees")$is_finalized, c(TRUE, FALSE))
  expect_equal(attr(done, "trees")$layers_grown, c(1L, 0L))
  expect_equal(attr(done, "growing")[c("last_layer_node_start", "last_layer_node_end")],
               list(last_layer_node_start = 0L, last_layer_node_end = 1L))
})

test_that("multi-class values come as one column per class", {
  feature <- matrix(c(0, -1, -1), 1)
  zero <- matrix(0, 1, 3)
  value <- array(0, c(1, 3, 3))
  value[1, 2, ] <- c(0.1, -0.05, -0.05)
  value[1, 3, ] <- c(-0.05, 0.1, -0.05)
  out <- trees_ensemble_frame(feature, zero, value, zero, c(0, 1, 1, 0, 1), max_depth = 2L,
                              feature_names = "x", value_names = c("value_a", "value_b", "value_c"))
  expect_named(out, c("tree", "node_id", "is_leaf", "feature", "feature_id", "threshold", "left_id",
                      "right_id", "gain", "value_a", "value_b", "value_c", "cover"))
  expect_equal(out$value_a, c(0, 0.1, -0.05))
  expect_equal(out$value_b, c(0, -0.05, 0.1))
})

test_that("the ensemble of a trained regressor: the hand-computed split of a small fixture", {
  step_data <- data.frame(x = c(1, 2, 3, 4), y = c(0, 0, 10, 10))
  est <- quietly(boosted_trees_regressor(feature_columns(column_numeric("x")), n_batches_per_layer = 1,
                                         n_trees = 2, max_depth = 1, config = ensemble_quiet))
  expect_error(boosted_trees_ensemble(est), "must be called on a trained model", class = "cppestimators_error")
  quietly(train(est, input_fn(step_data, response = "y", batch_size = 4L, num_epochs = NULL, shuffle = FALSE),
                steps = 1))
  # g = 2 (0 - y) / 4 = (0, 0, -5, -5), h = 1 / 2 each: split x <= 2,
  # gain 50, leaves 0 and 0.1 * 10
  out <- boosted_trees_ensemble(est)
  expect_equal(out$tree, c(1, 1, 1, 2))
  expect_equal(out$node_id, c(0L, 1L, 2L, 0L))
  expect_equal(out$feature, c("x", NA, NA, NA))
  expect_equal(out$feature_id, c(0L, NA, NA, NA))
  expect_equal(out$threshold, c(1L, NA, NA, NA))  # x <= 2: TF's bucket 1 of the boundaries 1..4
  expect_equal(out$left_id, c(1L, NA, NA, NA))
  expect_equal(out$gain, c(50, NA, NA, NA), tolerance = 1e-5)
  expect_equal(out$value, c(0, 0, 1, 0), tolerance = 1e-6)
  expect_equal(attr(out, "growing")$num_layers_attempted, 1L)
  expect_error(boosted_trees_ensemble(quietly(linear_regressor(feature_columns(column_numeric("x"))))),
               "must be a boosted trees estimator", class = "cppestimators_error")
})

test_that("indicator categories are named as the importances name them", {
  df <- data.frame(c = c("a", "b", "a", "b"), y = c(0, 1, 0, 1))
  fc <- feature_columns(column_indicator(column_categorical_with_vocabulary_list("c", vocabulary_list = c("a", "b"))))
  est <- quietly(boosted_trees_classifier(fc, n_batches_per_layer = 1, n_trees = 1, max_depth = 1,
                                          config = ensemble_quiet))
  quietly(train(est, input_fn(df, response = "y", batch_size = 4L, num_epochs = NULL)))
  out <- boosted_trees_ensemble(est)
  expect_true(out$feature[1] %in% c("c_indicator[a]", "c_indicator[b]"))
  expect_equal(out$threshold[1], 0L)
})
