#' Boosted trees estimators
#'
#' Gradient-boosted decision trees as TensorFlow (1.12 to 1.15) grows them, on
#' the same training loop as the other estimators: each training step takes
#' the per-example gradients and hessians of the head's loss, adds the
#' batch's statistics per (node of the current layer, feature, bucket) to an
#' accumulator, and once `n_batches_per_layer` batches are in, grows one
#' layer of the current tree from their average. A node splits where the
#' gain is highest (even when it is negative, unless `pruning_mode = "pre"`);
#' its children's values are the node's plus `learning_rate` times their leaf
#' weights. After `max_depth` layers a new tree starts, and training stops by
#' itself once `n_trees` trees are finished (or after `2 * n_trees *
#' max_depth` layers attempted: a layer where no node splits is tried again
#' with the next batches, as in TensorFlow). The loss is the batch mean
#' (TensorFlow's `SUM_OVER_BATCH_SIZE`).
#'
#' A layer takes a step (of `n_batches_per_layer` batches), so an input that
#' runs out first leaves the ensemble unfinished: [train()] then warns
#' (class `cppestimators_unfinished_trees`) with the trees finished and the
#' steps still needed, and `train()` again continues where it stopped. A
#' data frame given to `train()` directly is repeated until the trees are
#' finished, unless the call gives `steps`, `max_steps`, `num_epochs` or `epochs`.
#'
#' The statistics, their cumulative sums, the node totals (the last bucket's
#' cumulative sums) and the gains are float32 and computed in TensorFlow's
#' order, with its tie rule (the first threshold, then the lowest feature id,
#' wins unless another gain is larger by 1e-15), so that the trees of
#' TensorFlow's own tests come out identical; the classifier takes
#' TensorFlow's closed-form logistic gradients and hessians when the labels
#' are 0 and 1.
#'
#' Feature columns: [column_bucketized()] columns (one feature, the bucket)
#' and [column_indicator()] columns (one 0/1 feature per category), and, as
#' TensorFlow 1.13+, [column_numeric()] columns, each value bucketized by the
#' boundaries of TensorFlow's weighted quantile sketch with error
#' `quantile_sketch_epsilon` (at most `1 / quantile_sketch_epsilon + 1`
#' boundaries; a value equal to a boundary falls in that boundary's bucket, a
#' value above the last one in the last bucket, as TensorFlow's
#' `BoostedTreesBucketize`). TensorFlow takes the quantiles from the first
#' batches of training, in steps not counted in the global step; here they
#' come from the data of the first training session (every row up to
#' 200,000, else 200,000 evenly spaced rows, as one batch), before its first
#' step; over a streaming dataset (see [input_fn()]), from its first window
#' of rows (`getOption("cppestimators.stream_window_rows")`, at least 65,536
#' rows and at least `n_batches_per_layer` batches, so the window's memory
#' grows with the batches of a layer). The buckets are kept with the model,
#' so later training and predictions use the same ones. A streaming session
#' computes each window's buckets and trees again (it keeps nothing per row
#' of the data).
#'
#' With one batch holding the whole training set and `n_batches_per_layer =
#' 1`, a step grows one layer: the histogram algorithm of xgboost's
#' `tree_method = "hist"` grown depth-wise, except that gradients are
#' recomputed after every layer, as TensorFlow did.
#'
#' `center_bias = TRUE` first sets the first tree's root to the leaf weight
#' of the mean gradient and hessian and keeps adding to it, one step (of
#' `n_batches_per_layer` batches) at a time, until a step changes it by at
#' most 1%; those steps count in the global step, not in the layers
#' attempted, as in TensorFlow. `pruning_mode = "post"` prunes each finished
#' tree from the bottom up: a split with a negative gain whose children are
#' both leaves becomes a leaf again, with the value it had before it split.
#'
#' Checkpoints hold the ensemble (variables `boosted_trees/tree_*`), the
#' accumulator and the state, so training interrupted in the middle of a tree
#' resumes where it stopped. The accumulator holds a row of statistics per
#' node the layer's batches reached (`boosted_trees/accumulator_nodes`), not
#' per place of the deepest layer: a node no row reached has statistics of
#' zeros (and splits as TensorFlow splits it), so deep trees cost the rows'
#' nodes (depth 15 on 5,000 rows: under 500 MB). Checkpoints written before
#' that variable existed still restore. [boosted_trees_feature_importance()] sums the
#' split gains per feature, [boosted_trees_ensemble()] gives the trees node by
#' node; `print()` shows the trees and layers grown.
#'
#' With `n_classes` above 2 (beyond TensorFlow 1.x, which refused them), the
#' classifier has the multi-class head of the other classifiers (softmax
#' cross-entropy; `predict()` keys `logits`, `probabilities`, `class_ids` and
#' `classes`; `evaluate()` metrics `accuracy`, `average_loss` and `loss`)
#' and its trees are those of TensorFlow 2's multi-class boosted trees: each
#' leaf holds one value per class, the leaf weights are
#' \eqn{-g_k / (h_k + l2)} from each class's gradient sum \eqn{g_k} and the
#' diagonal of the softmax hessian, \eqn{h_k = \sum p_k (1 - p_k)}, and a
#' node splits where the gain summed over the classes is highest.
#' `min_node_weight` is compared with the norm of the node's K hessian sums,
#' as TensorFlow does; `l1_regularization` (which TensorFlow has only for one
#' logit) shrinks each class's gradient sum on its own. The variable
#' `boosted_trees/tree_value` then has a class dimension (trees x nodes x
#' classes) and the accumulator holds a (gradient, hessian) pair per class.
#' `center_bias` needs one logit; `pruning_mode` applies to multi-class
#' trees as to the others (a split's gain is the one summed over classes).
#'
#' @section Histogram growths:
#' `growth = "depthwise"` (xgboost's `tree_method = "hist"`) and `growth =
#' "lossguide"` (LightGBM's leaf-wise growth) grow each tree the way those
#' libraries do, next to TensorFlow's layer-by-layer growth (`growth =
#' "tensorflow"`, the default here, whose numbers are unchanged). Every
#' column is binned once per training session: a numeric column into at most
#' `max_bin - 1` bins (cuts at quantiles, or between neighbouring values when
#' there are fewer, from the first training session's rows: all of them up
#' to 262,144, else the 262,144 whose index has the smallest hash, so that
#' a stream or several processes choose the same rows; kept with the model)
#' plus one for missing values; a
#' factor (categorical column, or its indicator) by category. A training
#' step takes the gradients and hessians of every row of its batch once and
#' grows one whole tree (one per class with three classes or more, as
#' xgboost): the rows are partitioned node by node, the smaller child's
#' histogram is built and the larger one's is the parent's minus it. Splits
#' follow xgboost's rules on its scale (sums over the rows; squared error is
#' halved, as xgboost's): gain \eqn{S(L) + S(R) - S(node)} with
#' \eqn{S = T(G)^2 / (H + l2)}, \eqn{T} the soft threshold by `l1`; a split
#' needs a gain above `tree_complexity` (xgboost's gamma) and a hessian sum
#' of `min_node_weight` (min_child_weight, default 1) on each side; leaves
#' are \eqn{-T(G) / (H + l2)} (`l2_regularization`, lambda, default 1 in
#' these growths) times `learning_rate`. Missing numeric values are allowed
#' in training and prediction: each split learns which side they go to. A
#' factor splits natively, never expanded into one-hot columns: with at most
#' 64 categories present in a node, one category against the rest (what
#' one-hot columns allow, and the more accurate choice on the tables
#' measured); with more, into two sets of categories (LightGBM's method:
#' categories seen on at least 10 rows sorted by gradient over hessian,
#' with smoothing). Trees are stored as arrays of the nodes grown (variables
#' `boosted_trees/node_*`), so depth costs only the nodes that exist. The
#' first tree starts from the labels' mean (log-odds, log-priors).
#'
#' In these growths a step is one tree: `train()` of a data frame gives one
#' batch of every row in order and repeats it until `n_trees` trees are
#' grown, so `steps` counts trees; `batch_size` (an [input_fn()] of a data
#' frame) makes each tree grow from one batch's rows, and `num_epochs` bounds
#' the passes (one tree per batch). `n_batches_per_layer`, `center_bias`,
#' `pruning_mode` and `quantile_sketch_epsilon` are TensorFlow's and refused
#' here.
#'
#' A streamed dataset (an [input_fn()] of [text_line_dataset()],
#' [tfrecord_dataset()], [sqlite_dataset()], ...) is read twice when
#' training starts, window by window: once for the cuts' sample (when the
#' model has no cuts yet) and the count of rows, once for the bins. Only the
#' bins, the labels and the weights stay in memory (about the bytes of a
#' row's bins, twice, plus some 60 bytes a row for the labels, gradients
#' and predictions), and every step then grows one tree from all the rows,
#' as from a data frame: the trees equal the data frame's. `steps` bounds
#' the trees; the dataset must end (a [dataset_repeat()] without `count` is
#' refused) and give the same rows on both passes.
#'
#' Across processes (`cluster =`, a socket cluster or MPI), each rank's
#' batch is its whole shard of the rows (of a streamed dataset too); the
#' bins come from one process's sample (rows chosen by a hash of their
#' global index, gathered from the ranks), every
#' node's sums and histograms are added over the ranks in rank order, and
#' `subsample` draws rows by a hash of their global index, so W workers grow
#' the trees one process grows from the same rows (the same splits; sums
#' added in another order). TensorFlow's growth also buckets numeric columns
#' from one process's sample across processes.
#'
#' @param growth `"tensorflow"` (TensorFlow's layer-by-layer growth, the
#'   default), `"depthwise"` (xgboost's histogram growth, level by level to
#'   `max_depth`) or `"lossguide"` (LightGBM's: the leaf of largest gain
#'   first, to `max_leaves` leaves, and `max_depth` when it is above 0). See
#'   the section Histogram growths.
#' @param max_leaves `"lossguide"`: the leaves of a tree (default 31);
#'   `"depthwise"`: a limit besides `max_depth` (default none).
#' @param max_bin The histogram growths: bins of a numeric column, including
#'   the one of missing values (default 256).
#' @param subsample,colsample The histogram growths: the share of rows and
#'   of features each tree samples (default 1, all).
#' @param monotone_constraints `NULL`, or the directions in which the
#'   margin (see [predict.tf_estimator()]'s contributions) must move with
#'   features: a numeric vector of 1 (never falls as the feature rises), -1
#'   (never rises) and 0, named by input feature (or feature column), such as
#'   `c(int_rate = 1, annual_inc = -1)`; or unnamed, one per input feature
#'   in the order the feature columns read them (xgboost's and LightGBM's
#'   positional form). As xgboost: a split breaking the order is not made,
#'   and each node's value is bounded by its ancestors' splits, so every tree
#'   is monotone. A constrained feature must be read by a numeric or
#'   bucketized column of its own. TensorFlow's growth takes them with one
#'   logit only.
#' @param interaction_constraints `NULL`, or a list of sets of features
#'   (character vectors of names, or integer positions among the input
#'   features): the features of one root-to-leaf path all come from one set,
#'   so features in no common set never interact. A feature in no set is a
#'   set of its own (used alone on its paths); a factor's dummy variables
#'   (`name_level`) count as the factor.
#' @inheritParams linear_estimators
#' @param n_batches_per_layer Batches whose statistics are averaged to grow
#'   one layer.
#' @param n_trees Trees to grow.
#' @param max_depth Layers per tree.
#' @param learning_rate Shrinkage of each layer's leaf weights.
#' @param l1_regularization,l2_regularization L1 and L2 regularization of
#'   the leaf weights.
#' @param tree_complexity Subtracted from every split's gain (must be positive
#'   with pruning, as in TensorFlow).
#' @param min_node_weight Nodes whose (averaged) hessian sum is below this
#'   do not split.
#' @param weight_column `NULL`, or the examples' weights: a column name or a
#'   [column_numeric()], read as for the [linear_estimators] (see there). The
#'   loss is TensorFlow's `SUM_OVER_BATCH_SIZE`, `sum(w * loss) / B` over a
#'   batch of `B` rows (the weights are not in the denominator), so each
#'   example's gradient and hessian are multiplied by its weight: with
#'   `l2_regularization = 0`, weight 2 on a row grows the trees that row twice
#'   would grow (the leaf values `-G / H` do not change when all statistics
#'   scale). The trees' quantile buckets of numeric columns do not read the
#'   weights. [evaluate()] weights every metric.
#' @param center_bias Whether to center the bias first (see Details).
#' @param pruning_mode `"none"` (splits are made whatever their gain),
#'   `"pre"` (a split with a negative gain is not made) or `"post"` (finished
#'   trees are pruned; see Details).
#' @param quantile_sketch_epsilon The error of the quantile sketch that
#'   bucketizes numeric columns; their features get at most `1 /
#'   quantile_sketch_epsilon + 1` buckets.
#' @param label_dimension Must be 1.
#' @param n_classes The number of classes: 2 (binary classification, one
#'   logit) or more (one logit and one leaf value per class).
#' @return An estimator.
#' @family estimators
#' @name boosted_trees_estimators
#' @examples
#' set.seed(1)
#' df <- data.frame(x = runif(200, -3, 3))
#' df$y <- sin(df$x)
#' est <- boosted_trees_regressor(feature_columns(column_numeric("x")),
#'                                n_batches_per_layer = 1, n_trees = 10, max_depth = 3)
#' train(est, input_fn(df, response = "y", batch_size = 200L, num_epochs = NULL))
#' est
#' boosted_trees_feature_importance(est)
#'
#' # xgboost's histogram growth, missing values and a factor split natively
#' df$g <- factor(sample(c("a", "b", "c"), 200, TRUE))
#' df$x[1:10] <- NA
#' hist_est <- boosted_trees_regressor(feature_columns_from_data(df, -y), growth = "depthwise",
#'                                     n_trees = 20, max_depth = 3)
#' train(hist_est, df, response = "y")
#' head(boosted_trees_ensemble(hist_est))
#'
#' # the prediction may only rise with x: a monotone constraint
#' up <- boosted_trees_regressor(feature_columns_from_data(df, -y), growth = "depthwise",
#'                               n_trees = 20, max_depth = 3, monotone_constraints = c(x = 1))
#' train(up, df, response = "y")
#' grid <- data.frame(x = seq(-3, 3, by = 0.5), g = "a")
#' all(diff(predict(up, grid)$predictions) >= 0)
#'
#' # three classes
#' iris_est <- boosted_trees_classifier(
#'   feature_columns(column_numeric("Petal.Length", "Petal.Width")), n_batches_per_layer = 1,
#'   n_classes = 3, label_vocabulary = levels(iris$Species), n_trees = 5, max_depth = 2)
#' train(iris_est, input_fn(iris, response = "Species", batch_size = 150L, num_epochs = NULL))
#' head(boosted_trees_ensemble(iris_est))
NULL

#' @rdname boosted_trees_estimators
#' @export
boosted_trees_regressor <- function(feature_columns, n_batches_per_layer, model_dir = NULL,
                                    label_dimension = 1L, weight_column = NULL, n_trees = 100L,
                                    max_depth = 6L, learning_rate = 0.1, l1_regularization = 0,
                                    l2_regularization = 0, tree_complexity = 0, min_node_weight = 0,
                                    config = NULL, center_bias = FALSE, pruning_mode = "none",
                                    quantile_sketch_epsilon = 0.01, growth = "tensorflow", max_leaves = NULL,
                                    max_bin = 256L, subsample = 1, colsample = 1, monotone_constraints = NULL,
                                    interaction_constraints = NULL, head = NULL) {
  label_dimension <- check_whole(label_dimension, "label_dimension", null_ok = FALSE)
  if (label_dimension != 1L) {
    abort(paste0("boosted_trees_regressor() supports label_dimension = 1 only, not ", label_dimension, "."))
  }
  given <- names(match.call())[-1L]
  model <- if (identical(growth, "tensorflow")) {
    trees_model_spec(feature_columns, n_batches_per_layer, n_trees, max_depth, learning_rate,
                     l1_regularization, l2_regularization, tree_complexity, min_node_weight,
                     center_bias, pruning_mode, quantile_sketch_epsilon)
  } else {
    hist_trees_spec(growth, given = given, feature_columns = if (!missing(feature_columns)) feature_columns,
                    n_trees = n_trees, max_depth = max_depth, learning_rate = learning_rate,
                    l1_regularization = l1_regularization, l2_regularization = l2_regularization,
                    tree_complexity = tree_complexity, min_node_weight = min_node_weight, max_leaves = max_leaves,
                    max_bin = max_bin, subsample = subsample, colsample = colsample)
  }
  model <- with_tree_constraints(model, if (!missing(feature_columns)) feature_columns, monotone_constraints,
                                 interaction_constraints)
  if (missing(n_batches_per_layer)) n_batches_per_layer <- NULL
  new_estimator("regressor", "boosted_trees_regressor", feature_columns, model_dir,
                head = resolve_head(head, "regression", 1L, "regressor", "boosted_trees_regressor"), head_n = NULL, weight_column = weight_column, label_vocabulary = NULL,
                optimizer = optimizer_sgd(learning_rate = model$learning_rate), config = config,
                args = as.list(environment()), model = model)
}

#' @rdname boosted_trees_estimators
#' @export
boosted_trees_classifier <- function(feature_columns, n_batches_per_layer, model_dir = NULL, n_classes = 2L,
                                     weight_column = NULL, label_vocabulary = NULL, n_trees = 100L,
                                     max_depth = 6L, learning_rate = 0.1, l1_regularization = 0,
                                     l2_regularization = 0, tree_complexity = 0, min_node_weight = 0,
                                     config = NULL, center_bias = FALSE, pruning_mode = "none",
                                     quantile_sketch_epsilon = 0.01, growth = "tensorflow", max_leaves = NULL,
                                     max_bin = 256L, subsample = 1, colsample = 1, monotone_constraints = NULL,
                                     interaction_constraints = NULL, head = NULL) {
  classes <- classifier_classes(n_classes, label_vocabulary, !missing(n_classes) || !missing(label_vocabulary),
                                if (!missing(feature_columns)) feature_columns, max = 1000, head = head)
  n_classes <- classes$n_classes
  label_vocabulary <- classes$label_vocabulary
  rm(classes)
  monotone <- is.numeric(monotone_constraints) && any(monotone_constraints != 0)
  if (n_classes > 2L && monotone && identical(growth, "tensorflow")) {
    abort(paste("monotone_constraints need one logit in TensorFlow's growth (n_classes > 2 grows every class in",
                "one tree): use growth = \"depthwise\" or \"lossguide\"."), class = "cppestimators_argument_error")
  }
  if (n_classes > 2L && isTRUE(center_bias) && identical(growth, "tensorflow")) {
    abort("`center_bias = TRUE` needs one logit: it is not supported with n_classes > 2.")
  }
  given <- names(match.call())[-1L]
  model <- if (identical(growth, "tensorflow")) {
    trees_model_spec(feature_columns, n_batches_per_layer, n_trees, max_depth, learning_rate,
                     l1_regularization, l2_regularization, tree_complexity, min_node_weight,
                     center_bias, pruning_mode, quantile_sketch_epsilon)
  } else {
    hist_trees_spec(growth, given = given, feature_columns = if (!missing(feature_columns)) feature_columns,
                    n_trees = n_trees, max_depth = max_depth, learning_rate = learning_rate,
                    l1_regularization = l1_regularization, l2_regularization = l2_regularization,
                    tree_complexity = tree_complexity, min_node_weight = min_node_weight, max_leaves = max_leaves,
                    max_bin = max_bin, subsample = subsample, colsample = colsample)
  }
  model <- with_tree_constraints(model, if (!missing(feature_columns)) feature_columns, monotone_constraints,
                                 interaction_constraints)
  if (missing(n_batches_per_layer)) n_batches_per_layer <- NULL
  new_estimator("classifier", "boosted_trees_classifier", feature_columns, model_dir,
                head = classifier_head_of(head, n_classes, "boosted_trees_classifier"), head_n = NULL,
                weight_column = weight_column, label_vocabulary = label_vocabulary,
                optimizer = optimizer_sgd(learning_rate = model$learning_rate), config = config,
                args = as.list(environment()), model = model)
}

trees_model_spec <- function(feature_columns, n_batches_per_layer, n_trees, max_depth, learning_rate,
                             l1_regularization, l2_regularization, tree_complexity, min_node_weight,
                             center_bias = FALSE, pruning_mode = "none", quantile_sketch_epsilon = 0.01) {
  if (missing(n_batches_per_layer)) {
    abort("`n_batches_per_layer` is required: the batches whose statistics grow one layer.")
  }
  if (!missing(feature_columns) && !is.null(feature_columns)) {
    for (col in feature_columns(feature_columns)) {
      if (!column_in_tf_trees(col)) {
        abort(paste0("For now, only bucketized_column and indicator_column is supported but got: ", column_repr(col),
                     " (numeric columns are accepted too)"))
      }
    }
  }
  number <- function(x, arg) check_number(x, arg, min = 0, must = "a finite number >= 0")
  if (is_schedule(learning_rate)) {
    abort(paste("Boosted trees have no optimizer: their `learning_rate` is the shrinkage of each layer's",
                "leaf values, a number, not a learning-rate schedule."))
  }
  learning_rate <- number(learning_rate, "learning_rate")
  if (learning_rate == 0) abort("`learning_rate` must be positive.")
  check_flag(center_bias, "center_bias")
  if (!is.character(pruning_mode) || length(pruning_mode) != 1L || is.na(pruning_mode) ||
      !pruning_mode %in% c("none", "pre", "post")) {
    abort("pruning_mode mode must be one of: none, post, pre")
  }
  # TF (1.13+) refuses pruning without a tree complexity; a tree complexity
  # without pruning is kept (TF 1.12 subtracted it from every gain)
  tree_complexity <- number(tree_complexity, "tree_complexity")
  if (pruning_mode != "none" && tree_complexity <= 0) {
    abort("For pruning, tree_complexity must be positive.")
  }
  quantile_sketch_epsilon <- check_number(quantile_sketch_epsilon, "quantile_sketch_epsilon", min = 1 / 65533,
                                          max = 1, exclusive_max = TRUE)
  new_model_spec("boosted_trees",
                 n_batches_per_layer = check_whole(n_batches_per_layer, "n_batches_per_layer", null_ok = FALSE,
                                                   max = .Machine$integer.max),
                 n_trees = check_whole(n_trees, "n_trees", null_ok = FALSE, max = 1e6),
                 max_depth = check_whole(max_depth, "max_depth", null_ok = FALSE, max = 20),
                 learning_rate = learning_rate,
                 l1_regularization = number(l1_regularization, "l1_regularization"),
                 l2_regularization = number(l2_regularization, "l2_regularization"),
                 tree_complexity = tree_complexity,
                 min_node_weight = number(min_node_weight, "min_node_weight"),
                 center_bias = center_bias, pruning_mode = pruning_mode,
                 quantile_sketch_epsilon = quantile_sketch_epsilon)
}

# The model spec of growth = "depthwise" or "lossguide": xgboost's and
# LightGBM's histogram growths (src/engine/model/hist_boosted_trees.cpp).
# Arguments left out take xgboost's defaults where TensorFlow's differ
# (l2_regularization and min_node_weight 1); TensorFlow's own arguments are
# refused when given.
hist_trees_spec <- function(growth, given, feature_columns, n_trees, max_depth, learning_rate, l1_regularization,
                            l2_regularization, tree_complexity, min_node_weight, max_leaves, max_bin, subsample,
                            colsample) {
  growth <- check_choice(growth, "growth", c("tensorflow", "depthwise", "lossguide"))
  tf_only <- intersect(given, c("n_batches_per_layer", "center_bias", "pruning_mode", "quantile_sketch_epsilon"))
  if (length(tf_only)) {
    abort(sprintf(paste("%s appl%s to growth = \"tensorflow\" only: with growth = \"%s\" a training step grows one",
                        "whole tree from every row of its batch, and numeric columns are binned by `max_bin`."),
                  paste0("`", tf_only, "`", collapse = ", "), if (length(tf_only) == 1L) "ies" else "y", growth),
          class = "cppestimators_argument_error")
  }
  if (!is.null(feature_columns)) {
    for (col in feature_columns(feature_columns)) {
      if (is_embedding_column(col)) {
        abort(paste0("boosted trees split the categories of a categorical column themselves: give ",
                     column_repr(col), "'s categorical column (or its column_indicator()) instead of an embedding."),
              class = "cppestimators_argument_error")
      }
    }
  }
  number <- function(x, arg) check_number(x, arg, min = 0, must = "a finite number >= 0")
  if (is_schedule(learning_rate)) {
    abort("Boosted trees have no optimizer: their `learning_rate` is the shrinkage of each tree, a number.")
  }
  learning_rate <- number(learning_rate, "learning_rate")
  if (learning_rate == 0) abort("`learning_rate` must be positive.")
  lossguide <- identical(growth, "lossguide")
  max_depth <- check_whole(max_depth, "max_depth", null_ok = FALSE, min = if (lossguide) 0 else 1, max = 64)
  max_leaves <- check_whole(max_leaves, "max_leaves", min = 2, max = 2^24) %||% if (lossguide) 31L else 0L
  fraction <- function(x, arg) {
    check_number(x, arg, min = 0, max = 1, exclusive_min = TRUE, must = "a number in (0, 1]")
  }
  new_model_spec("boosted_trees",
                 growth = growth,
                 n_trees = check_whole(n_trees, "n_trees", null_ok = FALSE, max = 1e7),
                 max_depth = max_depth,
                 max_leaves = max_leaves,
                 learning_rate = learning_rate,
                 l1_regularization = number(l1_regularization, "l1_regularization"),
                 l2_regularization = if ("l2_regularization" %in% given) {
                   number(l2_regularization, "l2_regularization")
                 } else {
                   1
                 },
                 tree_complexity = number(tree_complexity, "tree_complexity"),
                 min_node_weight = if ("min_node_weight" %in% given) number(min_node_weight, "min_node_weight") else 1,
                 max_bin = check_whole(max_bin, "max_bin", null_ok = FALSE, min = 4, max = 65535),
                 subsample = fraction(subsample, "subsample"),
                 colsample = fraction(colsample, "colsample"))
}

# The model spec with its constraints' fields (R/constraints.R).
with_tree_constraints <- function(model, feature_columns, monotone_constraints, interaction_constraints) {
  fields <- tree_constraints_spec(feature_columns, monotone_constraints, interaction_constraints)
  for (name in names(fields)) model[[name]] <- fields[[name]]
  model
}

# Whether `object` is a boosted trees estimator of a histogram growth.
is_hist_trees <- function(object) {
  is_boosted_trees(object) && !identical(object$spec$model$growth %||% "tensorflow", "tensorflow")
}

# Whether `object` is a boosted trees estimator.
is_boosted_trees <- function(object) inherits(estimator_model(object$spec), "cppestimators_model_boosted_trees")

#' Feature importance of boosted trees
#'
#' The gain-based importance of each feature: the sum of the gains of the
#' splits on it over the ensemble (the tree being grown included), sorted
#' from the most important. Features are named as the model sees them: a
#' numeric or bucketized column by its name (`name[i]` for the values of a
#' multi-valued numeric column), an indicator column's categories as
#' [coef()] names them: `carrier_indicator[DL]` over a vocabulary column
#' (`carrier_indicator[oov1]`, ... for its out-of-vocabulary buckets),
#' `name[id]` over the others (ids counted from 0).
#'
#' @param object A boosted trees estimator.
#' @param normalize Divide by the total, so that the importances sum to 1
#'   (an error, as in TensorFlow, when an importance is negative or no tree
#'   has a split).
#' @return A named numeric vector.
#' @family estimator methods
#' @export
#' @examples
#' set.seed(1)
#' df <- data.frame(a = runif(100), b = runif(100))
#' df$y <- as.numeric(df$a > 0.5)
#' est <- boosted_trees_classifier(feature_columns(column_numeric("a", "b")),
#'                                 n_batches_per_layer = 1, n_trees = 5, max_depth = 2)
#' train(est, input_fn(df, response = "y", batch_size = 100L, num_epochs = NULL))
#' boosted_trees_feature_importance(est)
boosted_trees_feature_importance <- function(object, normalize = FALSE) {
  check_estimator(object)
  if (!is_boosted_trees(object)) {
    abort(paste0("`object` must be a boosted trees estimator, not ", object$spec$name, "()."))
  }
  check_flag(normalize, "normalize")
  ptr <- estimator_ptr(object)
  sync_from_model_dir(object, ptr)
  imp <- cpp_estimator_importance(ptr)
  names(imp) <- importance_labels(names(imp), object$spec$feature_columns)
  imp <- imp[order(-imp, seq_along(imp))]
  if (normalize) {
    # TF's experimental_feature_importances(normalize = TRUE) asserts both
    if (any(imp < 0)) abort("feature_importances must be non-negative.")
    if (sum(imp) <= 0) abort("Trees are all empty or contain only a root node.")
    imp <- imp / sum(imp)
  }
  imp
}

# The engine names the 0/1 features of an indicator column by id
# ("carrier_indicator:9"); these are named as coef() names categories
# (weight_labels()): "carrier_indicator[DL]" over a vocabulary column
# (oov1, ... for its out-of-vocabulary buckets), "x_indicator[3]" otherwise.
importance_labels <- function(names, columns) {
  for (col in columns) {
    if (!is_indicator_column(col)) next
    prefix <- paste0(col$name, ":")
    hit <- startsWith(names, prefix)
    if (!any(hit)) next
    ids <- suppressWarnings(as.integer(substring(names[hit], nchar(prefix) + 1L)))
    if (anyNA(ids)) next
    n_words <- length(column_vocabulary_words(col))
    labels <- weight_labels(col, max(ids + 1L, n_words))
    names[hit] <- labels[ids + 1L]
  }
  names
}

# Trees and layers grown, for print(): from the engine in memory, without
# building one (an estimator never built has grown nothing; one restored by
# readRDS() has its trees in weights not yet decoded).
trees_progress <- function(object) {
  ptr <- live_ptr(object)
  n <- as.integer(object$spec$model$n_trees)
  if (is.null(ptr) && !is.null(object$state$weights)) return("saved")
  state <- if (is.null(ptr)) c(0, 0) else cpp_estimator_variable(ptr, "boosted_trees/state")
  if (state[1] >= n) return(sprintf("all %d trees finished", n))
  if (is_hist_trees(object)) return(sprintf("%d of %d trees finished", as.integer(state[1]), n))
  sprintf("%d of %d trees finished, %d layer%s of the next grown", as.integer(state[1]), n,
          as.integer(state[2]), if (state[2] == 1) "" else "s")
}

#' @export
model_traits.cppestimators_model_boosted_trees <- function(model) {
  list(ends_by_itself = TRUE, has_optimizer = FALSE, optimizer_in_record = FALSE, feature_scale_matters = FALSE)
}

#' @export
model_summary.cppestimators_model_boosted_trees <- function(model, x) {
  trees <- if (!identical(model$growth %||% "tensorflow", "tensorflow")) {
    sprintf("%d, grown %s%s, learning rate %g", as.integer(model$n_trees), model$growth,
            if (identical(model$growth, "lossguide")) {
              sprintf(" to %d leaves%s", as.integer(model$max_leaves),
                      if (model$max_depth > 0) sprintf(" and depth %d", as.integer(model$max_depth)) else "")
            } else {
              sprintf(" to depth %d", as.integer(model$max_depth))
            }, model$learning_rate)
  } else {
    sprintf("%d of depth %d, learning rate %g, %d batch%s per layer", as.integer(model$n_trees),
            as.integer(model$max_depth), model$learning_rate, as.integer(model$n_batches_per_layer),
            if (model$n_batches_per_layer == 1) "" else "es")
  }
  c(columns_summary(x$spec$feature_columns), trees = trees, constraints_summary(model),
    grown = trees_progress(x))
}

# A warning when a boosted trees training ended because its input ran out
# (not a stop asked by `steps`, `max_steps` or a hook, which leave
# `end_of_input` FALSE) with fewer than `n_trees` trees finished; not when
# the trees stopped by themselves after `2 * n_trees * max_depth` layers
# attempted, which more input would not change.
#' @export
model_training_ended.cppestimators_model_boosted_trees <- function(model, object, ptr, run) {
  if (!isTRUE(run$end_of_input)) return(invisible())
  n <- as.integer(model$n_trees)
  depth <- as.integer(model$max_depth)
  state <- cpp_estimator_variable(ptr, "boosted_trees/state")
  finished <- as.integer(state[1])
  if (finished >= n || state[3] > 2 * n * depth) return(invisible())
  again <- paste("call train() again, which continues where this call stopped, or give the input more passes",
                 "with `num_epochs` (`num_epochs = NULL` repeats it until the trees are finished, as train() of a",
                 "data frame does unless given `steps`, `max_steps` or `num_epochs`).")
  message <- if (is_hist_trees(object)) {
    sprintf(paste("train() ended when its input ran out, with %d of %d trees finished: the ensemble is unfinished.",
                  "To grow the rest (%s more steps, one tree each), %s"),
            finished, n, format(n - finished, big.mark = ","), again)
  } else {
    layers <- as.integer(state[2])
    # every layer splitting: max_depth layers of n_batches_per_layer steps per tree
    more <- ((n - finished) * depth - layers) * as.numeric(model$n_batches_per_layer)
    sprintf(paste("train() ended when its input ran out, with %d of %d trees finished (%d layer%s of the next",
                  "grown): the ensemble is unfinished. To grow the rest (about %s more steps), %s"),
            finished, n, layers, if (layers == 1L) "" else "s", format(more, big.mark = ","), again)
  }
  warning(structure(class = c("cppestimators_unfinished_trees", "warning", "condition"),
                    list(message = message, call = NULL)))
}
