# The nodes of one tree of a boosted trees estimator numbered as TensorFlow
# numbers them in its TreeEnsemble proto, for comparing with TF's tests.
# TF adds a layer's splits in the order of their node ids and numbers the
# two children of each after every node made before, so its ids are the
# ranks of the existing nodes in (depth, position) order -- the order of
# the engine's heap indices (children of i at 2i + 1, 2i + 2) -- and
# post-pruning keeps that order when it drops nodes.
# `tree` counts from 1. Returns one row per node: node_id, is_leaf,
# feature_id (TF's feature id: the position in the sorted, flattened
# features), threshold, left_id, right_id, gain, value (a leaf's value;
# for a split, the value it had as a leaf: TF's original_leaf).
tf_tree_nodes <- function(est, tree = 1L) {
  v <- variable_value(est)
  feature <- v[["boosted_trees/tree_feature"]][tree, ]
  threshold <- v[["boosted_trees/tree_threshold"]][tree, ]
  gain <- v[["boosted_trees/tree_gain"]][tree, ]
  value <- v[["boosted_trees/tree_value"]][tree, ]
  heap <- seq_along(feature) - 1L
  exists <- heap == 0L | feature[(pmax(heap, 1L) - 1L) %/% 2L + 1L] >= 0
  exists[1] <- TRUE
  ids <- heap[exists]
  tf_id <- function(h) match(h, ids) - 1L
  rows <- ids + 1L
  split <- feature[rows] >= 0
  data.frame(
    node_id = seq_along(ids) - 1L,
    is_leaf = !split,
    feature_id = ifelse(split, as.integer(feature[rows]), NA_integer_),
    threshold = ifelse(split, as.integer(threshold[rows]), NA_integer_),
    left_id = ifelse(split, tf_id(2L * ids + 1L), NA_integer_),
    right_id = ifelse(split, tf_id(2L * ids + 2L), NA_integer_),
    gain = ifelse(split, gain[rows], 0),
    value = value[rows]
  )
}

# TF's growing metadata of the ensemble: finalized trees and attempted layers.
tf_tree_state <- function(est) {
  s <- variable_value(est)[["boosted_trees/state"]]
  c(finalized_trees = s[1], layers_in_tree = s[2], attempted_layers = s[3])
}

# The five examples of TF's boosted_trees_test.py (INPUT_FEATURES, the
# labels), one row per example.
tf_trees_data <- function(classification = TRUE) {
  data.frame(
    f_0 = c(12.5, 1.0, -2.001, -2.0001, -1.999),
    f_1 = c(2.0, -3.0, 0.5, 0.0, 0.4995),
    f_2 = c(3.0, 20.0, 50.0, -100.0, 102.75),
    y = if (classification) c(0, 1, 1, 0, 0) else c(1.5, 0.3, 0.2, 2, 5)
  )
}

# TF's setUp(): the three features bucketized by BUCKET_BOUNDARIES.
tf_bucketized_columns <- function() {
  feature_columns(
    column_bucketized(column_numeric("f_0"), c(-2, 0.5, 12)),
    column_bucketized(column_numeric("f_1"), c(-2, 0.5, 12)),
    column_bucketized(column_numeric("f_2"), c(-2, 0.5, 12))
  )
}
