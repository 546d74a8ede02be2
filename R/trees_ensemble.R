#' The trees of a boosted trees estimator
#'
#' The ensemble a boosted trees estimator has grown, one row per node, in the
#' terms of TensorFlow's `TreeEnsemble` proto: nodes are numbered within
#' their tree as TensorFlow numbers them (the root is 0; when a layer grows,
#' the nodes that split, in the order of their ids, append their left then
#' right child), so the ids run breadth first, layer by layer.
#'
#' As in TensorFlow, a split node keeps the value it had as a leaf (TF's
#' `original_leaf`), and a leaf's value is the whole contribution of its tree
#' to the logits of the rows reaching it (the learning rate is already in
#' it). An example goes left when its bucket of the split feature is `<=
#' threshold`. Also as in TensorFlow, the tree being grown is listed as soon
#' as it exists -- a single leaf of value 0 before its first layer -- and
#' once a tree is finished the next one starts that way, so a fully trained
#' ensemble ends with such an empty tree (not finalized, no layers grown).
#'
#' @param object A trained boosted trees estimator.
#' @return A data frame with one row per node and the columns
#'   * `tree`: the tree, counted from 1;
#'   * `node_id`: TensorFlow's node id within the tree, from 0;
#'   * `is_leaf`;
#'   * `feature`: the name of the feature a split node tests, named as
#'     [boosted_trees_feature_importance()] names them (`NA` for leaves);
#'   * `feature_id`: TensorFlow's id of that feature, from 0 (features in
#'     sorted column order, an indicator column's categories one by one);
#'   * `threshold`: the bucket threshold: rows whose bucket is `<=
#'     threshold` go left;
#'   * `left_id`, `right_id`: the children's node ids;
#'   * `gain`: the split's gain;
#'   * `value`: the node's value, for a regressor and a binary classifier;
#'     a multi-class classifier has one column per class instead, named
#'     `value_<class>` after its `label_vocabulary` (or its class ids 0, 1,
#'     ... without one), in the order of the logits;
#'   * `cover`: the node's hessian sum as the contributions
#'     ([predict.tf_estimator()]) read it: each split shares its node's cover
#'     between its children as their hessian sums did in the statistics
#'     that split it (the root's is the sum of its children's; 0 in a model
#'     saved before covers were recorded).
#'
#'   Its attribute `"trees"` is a data frame with one row per tree: `tree`,
#'   `weight` (always 1: the learning rate is in the leaf values, as in
#'   TensorFlow), `layers_grown` and `is_finalized`; its attribute
#'   `"growing"` is a list of TensorFlow's growing metadata:
#'   `num_trees_attempted` (the trees with a layer grown: TensorFlow also
#'   counts the attempts at a tree's first layer that split nothing, which
#'   the estimator does not record), `num_layers_attempted`, and
#'   `last_layer_node_start`, `last_layer_node_end`: the node ids of the tree
#'   being grown (from `start`, before `end`) that the next layer splits.
#' @family estimator methods
#' @export
#' @examples
#' set.seed(1)
#' df <- data.frame(a = runif(100), b = runif(100))
#' df$y <- as.numeric(df$a > 0.5)
#' est <- boosted_trees_classifier(feature_columns(column_numeric("a", "b")),
#'                                 n_batches_per_layer = 1, n_trees = 2, max_depth = 2)
#' train(est, input_fn(df, response = "y", batch_size = 100L, num_epochs = NULL))
#' nodes <- boosted_trees_ensemble(est)
#' nodes
#' attr(nodes, "trees")
#' attr(nodes, "growing")
boosted_trees_ensemble <- function(object) {
  check_estimator(object)
  if (!is_boosted_trees(object)) {
    abort(paste0("`object` must be a boosted trees estimator, not ", object$spec$name, "()."))
  }
  ptr <- estimator_ptr(object)
  sync_from_model_dir(object, ptr)
  check_trained(object, ptr, "boosted_trees_ensemble")
  get <- function(name) cpp_estimator_variable(ptr, paste0("boosted_trees/", name))
  if (is_hist_trees(object)) return(hist_trees_ensemble(object, ptr, get))
  features <- names(cpp_estimator_importance(ptr))  # in feature id order
  labels <- importance_labels(features, object$spec$feature_columns)
  n_classes <- if (identical(object$spec$head, "multi_class")) as.integer(object$spec$head_n) else 1L
  value_names <- if (n_classes == 1L) "value" else paste0("value_", tree_value_labels(object, n_classes))
  trees_ensemble_frame(feature = get("tree_feature"), threshold = get("tree_threshold"),
                       value = get("tree_value"), gain = get("tree_gain"), state = get("state"),
                       max_depth = as.integer(object$spec$model$max_depth), feature_names = labels,
                       value_names = value_names,
                       cover = tryCatch(get("tree_cover"), error = function(e) NULL))
}

tree_value_labels <- function(object, n_classes) {
  lv <- object$spec$label_vocabulary
  if (length(lv) == n_classes) as.character(lv) else as.character(seq_len(n_classes) - 1L)
}

# The data frame of boosted_trees_ensemble() from the engine's variables:
# per tree, a complete binary tree in heap order (children of node i are
# 2i + 1 and 2i + 2, feature -1 for a leaf; `value` trees x nodes, or trees
# x nodes x classes) and the state (finished trees, layers of the current
# tree, attempted layers, ...).
trees_ensemble_frame <- function(feature, threshold, value, gain, state, max_depth, feature_names,
                                 value_names, cover = NULL) {
  n_trees <- nrow(feature)
  n_nodes <- ncol(feature)
  finished <- as.integer(state[1])
  current_layers <- as.integer(state[2])
  attempted <- as.integer(state[3])
  # TF's trees: the finished ones and the one being grown (which exists from
  # the first attempt on, and is started again as soon as a tree finishes)
  listed <- if (attempted == 0L) 0L else finished + 1L
  n_classes <- length(value_names)
  node_values <- function(t, heap) {
    if (n_classes == 1L) {
      if (t > n_trees) return(matrix(0, length(heap), 1L))
      return(matrix(value[t, heap + 1L], ncol = 1L))
    }
    if (t > n_trees) return(matrix(0, length(heap), n_classes))
    matrix(value[t, heap + 1L, , drop = FALSE], ncol = n_classes)
  }
  depth_of <- floor(log2(seq_len(n_nodes)))  # heap index + 1
  rows <- vector("list", listed)
  layers <- integer(listed)
  for (t in seq_len(listed)) {
    f <- if (t <= n_trees) feature[t, ] else rep(-1, n_nodes)
    exists <- logical(n_nodes)
    exists[1L] <- TRUE
    if (n_nodes > 1L) {
      child <- 2:n_nodes
      for (d in seq_len(max_depth)) {  # layer by layer: a node exists when its parent split
        at <- child[depth_of[child] == d]
        exists[at] <- exists[at %/% 2L] & f[at %/% 2L] >= 0
      }
    }
    split <- exists & f >= 0
    heap <- which(exists) - 1L  # heap indices, breadth first: TF's order
    id <- rep(NA_integer_, n_nodes)
    id[heap + 1L] <- seq_along(heap) - 1L
    is_split <- split[heap + 1L]
    left <- ifelse(is_split, id[pmin(2L * heap + 2L, n_nodes)], NA_integer_)
    right <- ifelse(is_split, id[pmin(2L * heap + 3L, n_nodes)], NA_integer_)
    fid <- ifelse(is_split, as.integer(f[heap + 1L]), NA_integer_)
    layers[t] <- if (any(is_split)) max(depth_of[heap[is_split] + 1L]) + 1L else 0L
    vals <- node_values(t, heap)
    colnames(vals) <- value_names
    # covers as TreeSHAP reads them: each split shares its node's cover
    # between its children as their recorded hessian sums do (the root's
    # is the sum of its children's)
    cov <- numeric(n_nodes)
    if (!is.null(cover) && t <= n_trees && n_nodes > 1L) {
      raw <- cover[t, ]
      cov[1L] <- if (split[1L]) raw[2L] + raw[3L] else 0
      for (d in seq_len(max_depth)) {
        at <- which(split & depth_of == d - 1L)
        if (!length(at)) break
        total <- raw[2L * at] + raw[2L * at + 1L]
        share <- ifelse(total > 0, raw[2L * at] / total, 0.5)
        cov[2L * at] <- cov[at] * share
        cov[2L * at + 1L] <- cov[at] * (1 - share)
      }
    }
    rows[[t]] <- data.frame(
      tree = rep(t, length(heap)), node_id = id[heap + 1L], is_leaf = !is_split,
      feature = ifelse(is_split, feature_names[fid + 1L], NA_character_), feature_id = fid,
      threshold = ifelse(is_split, as.integer(if (t <= n_trees) threshold[t, heap + 1L] else 0), NA_integer_),
      left_id = left, right_id = right,
      gain = ifelse(is_split, if (t <= n_trees) gain[t, heap + 1L] else 0, NA_real_),
      vals, cover = cov[heap + 1L], stringsAsFactors = FALSE, check.names = FALSE)
  }
  out <- if (listed) do.call(rbind, rows) else empty_ensemble_frame(value_names)
  rownames(out) <- NULL
  finalized <- seq_len(listed) <= finished
  # TF's num_layers_grown: max_depth for a finished tree (post-pruning
  # removes nodes, not layers), the state's count for the one being grown
  layers[finalized] <- max_depth
  if (listed > finished) layers[listed] <- current_layers
  attr(out, "trees") <- data.frame(tree = seq_len(listed), weight = rep(1, listed), layers_grown = layers,
                                   is_finalized = finalized)
  start <- 0L
  end <- 1L
  if (listed > finished && current_layers > 0L) {  # the deepest layer's nodes of the tree being grown
    grow <- out[out$tree == listed, ]
    depth <- node_depths(grow)
    start <- min(grow$node_id[depth == current_layers])
    end <- max(grow$node_id[depth == current_layers]) + 1L
  }
  attr(out, "growing") <- list(num_trees_attempted = finished + as.integer(current_layers > 0L), num_layers_attempted = attempted,
                               last_layer_node_start = start, last_layer_node_end = end)
  out
}

# The depth of each node of one tree's rows (ordered by node id).
node_depths <- function(rows) {
  depth <- integer(nrow(rows))
  for (i in seq_len(nrow(rows))) {
    if (!rows$is_leaf[i]) depth[rows$left_id[i] + 1L] <- depth[rows$right_id[i] + 1L] <- depth[i] + 1L
  }
  depth
}

empty_ensemble_frame <- function(value_names) {
  vals <- matrix(numeric(), 0L, length(value_names), dimnames = list(NULL, value_names))
  data.frame(tree = integer(), node_id = integer(), is_leaf = logical(), feature = character(),
             feature_id = integer(), threshold = integer(), left_id = integer(), right_id = integer(),
             gain = numeric(), vals, cover = numeric(), stringsAsFactors = FALSE, check.names = FALSE)
}

# boosted_trees_ensemble() of the histogram growths, from their node arrays
# (src/engine/model/hist_boosted_trees.h): one row per node of every tree,
# in each tree's order (children in pairs, right = left + 1). A numeric
# split sends x <= threshold left, a bucketized one the buckets <= threshold,
# a categorical one the categories listed in `categories` (their labels);
# `default_left` says where a missing value goes. Multi-class models grow
# one tree per class per round: `class` names the tree's class.
hist_trees_ensemble <- function(object, ptr, get) {
  feats <- cpp_hist_trees_features(ptr)
  sizes <- as.integer(get("tree_nodes"))
  n_cats <- as.integer(get("tree_categories"))
  feature <- as.integer(get("node_feature"))
  left <- as.integer(get("node_left"))
  threshold <- get("node_threshold")
  cats <- as.integer(get("categories"))
  n_trees <- length(sizes)
  tree <- rep(seq_len(n_trees), sizes)
  split <- feature >= 0L
  fid <- ifelse(split, feature, NA_integer_)
  kind <- feats$kind[fid + 1L]
  cat_start <- c(0L, cumsum(n_cats))[tree]  # each node's tree's first category entry
  categories <- vector("list", length(feature))
  labels_of <- hist_category_labels(object, feats)
  for (i in which(split & kind %in% "categorical")) {
    at <- cat_start[i] + as.integer(threshold[i]) + 1L  # 1-based position of the set's size
    ids <- cats[at + seq_len(cats[at])]
    categories[[i]] <- labels_of[[fid[i] + 1L]](ids)
  }
  n_classes <- if (identical(object$spec$head, "multi_class")) as.integer(object$spec$head_n) else 1L
  out <- data.frame(tree = tree, node_id = sequence(sizes) - 1L, is_leaf = !split,
                    feature = ifelse(split, feats$name[fid + 1L], NA_character_), feature_id = fid,
                    threshold = ifelse(split & !kind %in% "categorical", threshold, NA_real_),
                    left_id = ifelse(split, left, NA_integer_), right_id = ifelse(split, left + 1L, NA_integer_),
                    gain = ifelse(split, get("node_gain"), NA_real_), value = get("node_value"),
                    default_left = ifelse(split, get("node_default_left") != 0, NA), cover = get("node_cover"),
                    stringsAsFactors = FALSE)
  out$categories <- categories
  if (n_classes > 1L) out$class <- tree_value_labels(object, n_classes)[(tree - 1L) %% n_classes + 1L]
  attr(out, "trees") <- data.frame(tree = seq_len(n_trees), nodes = sizes, is_finalized = rep(TRUE, n_trees))
  out
}

# Per feature of a histogram growth, a function from category ids to their
# labels: a vocabulary column's words (out-of-vocabulary buckets "oov1",
# ...), else the ids as text.
hist_category_labels <- function(object, feats) {
  cols <- object$spec$feature_columns
  names(cols) <- vapply(cols, function(col) col$name, "")
  lapply(seq_len(nrow(feats)), function(j) {
    col <- cols[[feats$column[j]]]
    words <- if (!is.null(col)) column_vocabulary_words(col)
    function(ids) {
      if (!length(words)) return(as.character(ids))
      ifelse(ids < length(words), words[pmin(ids, length(words) - 1L) + 1L], paste0("oov", ids - length(words) + 1L))
    }
  })
}
