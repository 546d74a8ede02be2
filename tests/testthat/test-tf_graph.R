# The `tf` object of custom estimators: the graph it builds (nodes, shapes,
# dtypes, TF's names, variables), its errors, and the objects of losses,
# metrics, optimizers and decays.

# Evaluates `expr` with a fresh graph of `mode` as the current one; returns
# the value and the graph.
in_graph <- function(expr, mode = "train") {
  g <- cppestimators:::new_tf_graph(mode)
  value <- cppestimators:::with_tf_graph(g, expr)
  list(value = value, graph = g)
}

node_of <- function(t) t$graph$nodes[[t$id + 1L]]
node_kinds <- function(g) vapply(g$nodes, function(n) n$kind, "")
node_names <- function(g) vapply(g$nodes, function(n) n$name, "")

# An input layer of `n` numeric columns x1..xn.
numeric_input <- function(n = 4L) {
  g <- cppestimators:::current_tf_graph()
  keys <- paste0("x", seq_len(n))
  features <- cppestimators:::tf_features(g, keys, rep("numeric", n))
  tf$feature_column$input_layer(features, lapply(keys, column_numeric))
}

test_that("a 3-layer dense net has TF's names, shapes, dtypes and variables", {
  r <- in_graph({
    x <- numeric_input(4L)
    h1 <- tf$layers$dense(x, 10L, activation = tf$nn$relu)
    h2 <- tf$layers$dense(h1, 20L, activation = tf$nn$relu)
    list(h1 = h1, h2 = h2, logits = tf$layers$dense(h2, 3L))
  })
  v <- r$value
  expect_equal(v$h1$name, "dense/Relu:0")
  expect_equal(v$h2$name, "dense_1/Relu:0")
  expect_equal(v$logits$name, "dense_2/BiasAdd:0")
  expect_equal(v$logits$shape, c(-1, 3))
  expect_equal(dim(v$logits), c(NA, 3L))
  expect_equal(v$logits$dtype, "float32")
  expect_equal(format(v$h1), "Tensor(\"dense/Relu:0\", shape=(?, 10), dtype=float32)")
  vars <- cppestimators:::tf_graph_variables(r$graph)
  expect_equal(names(vars), c("dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias",
                              "dense_2/kernel", "dense_2/bias"))
  expect_equal(vars[["dense/kernel"]]$shape, c(4, 10))
  expect_equal(vars[["dense/kernel"]]$init, "glorot_uniform")
  expect_equal(vars[["dense/kernel"]]$limit, sqrt(6 / 14))
  expect_equal(vars[["dense_1/bias"]]$shape, 20)
  expect_equal(vars[["dense_1/bias"]]$init, "zeros")
  expect_equal(node_kinds(r$graph)[1:6], c("input", "variable", "matmul", "variable", "add", "relu"))
  expect_equal(node_of(v$h1)$inputs, 4L)
  expect_equal(node_names(r$graph)[3], "dense/MatMul:0")
})

test_that("input layers sort the columns by name and read their widths", {
  r <- in_graph({
    g <- cppestimators:::current_tf_graph()
    features <- cppestimators:::tf_features(g, c("b", "a", "c"), c("numeric", "numeric", "categorical"))
    cols <- feature_columns(column_numeric("b", shape = 3L), column_numeric("a"),
                            column_indicator(column_categorical_with_identity("c", num_buckets = 5)))
    tf$feature_column$input_layer(features, cols)
  })
  g <- r$graph
  expect_equal(r$value$shape, c(-1, 9))
  expect_equal(vapply(g$columns, function(c) c$name, ""), c("a", "b", "c_indicator"))
  expect_equal(node_of(r$value)$columns, 0:2)
  expect_error(in_graph({
    g <- cppestimators:::current_tf_graph()
    tf$feature_column$input_layer(cppestimators:::tf_features(g, "a"), list(column_numeric("z")))
  }), class = "cppestimators_tf_column_error", regexp = "feature 'z'")
})

test_that("contrib's stack names layers Stack/fully_connected_<i>; a normalizer_fn replaces the biases", {
  r <- in_graph({
    x <- numeric_input(4L)
    h <- tf$contrib$layers$stack(x, tf$contrib$layers$fully_connected, c(10L, 20L))
    tf$contrib$layers$fully_connected(h, 3L, activation_fn = NULL, normalizer_fn = function(t) t * 2)
  })
  vars <- names(cppestimators:::tf_graph_variables(r$graph))
  expect_equal(vars, c("Stack/fully_connected_1/weights", "Stack/fully_connected_1/biases",
                       "Stack/fully_connected_2/weights", "Stack/fully_connected_2/biases",
                       "fully_connected/weights"))
  expect_equal(r$value$shape, c(-1, 3))
  expect_true("Stack/fully_connected_2/Relu:0" %in% node_names(r$graph))
  expect_equal(node_of(r$value)$kind, "mul")
})

test_that("the features given as a tensor are the numeric features side by side, as float64", {
  r <- in_graph({
    g <- cppestimators:::current_tf_graph()
    features <- cppestimators:::tf_features(g, c("a", "b"))
    list(all = tf$layers$dense(features, 2L), a = features$a)
  })
  expect_equal(r$value$all$dtype, "float64")
  expect_equal(r$graph$nodes[[1]][c("kind", "shape", "columns")], list(kind = "input", shape = c(-1, 2), columns = 0:1))
  expect_equal(c(r$value$a$shape, r$value$a$dtype), c("-1", "float64"))
  expect_error(in_graph({
    g <- cppestimators:::current_tf_graph()
    tf$layers$dense(cppestimators:::tf_features(g, c("a", "s"), c("numeric", "categorical")), 2L)
  }), class = "cppestimators_unsupported_tf", regexp = "'s'")
  expect_error(in_graph({
    g <- cppestimators:::current_tf_graph()
    tf$feature_column$input_layer(cppestimators:::tf_features(g, "s", "categorical"),
                                  list(column_categorical_with_identity("s", num_buckets = 3)))
  }), class = "cppestimators_tf_column_error", regexp = "_DenseColumn")
})

test_that("dropout layers apply as TF 1.x does", {
  r <- in_graph({
    x <- numeric_input(2L)
    list(a = tf$layers$dropout(x, rate = 0.3),
         b = tf$layers$dropout(x, rate = 0.3, training = TRUE),
         c = tf$contrib$layers$dropout(x, keep_prob = 0.8),
         d = tf$nn$dropout(x, keep_prob = 0.5))
  })
  v <- r$value
  expect_equal(node_of(v$a)$kind, "identity")
  expect_equal(node_of(v$b)$rate, 0.3)
  expect_equal(node_of(v$c)$rate, 1 - 0.8)
  expect_equal(node_of(v$d)$kind, "dropout")
})

test_that("ops broadcast static shapes, keep the batch first and keep TF's dtype rule", {
  r <- in_graph({
    x <- numeric_input(3L)
    list(a = x * 2, b = 1 - x, c = x + tf$constant(c(1, 2, 3)), d = x > 0, e = -x)
  })
  v <- r$value
  expect_equal(v$a$shape, c(-1, 3))
  expect_equal(node_of(v$a)$kind, "mul")
  expect_equal(node_of(v$b)$kind, "sub")
  expect_equal(v$c$shape, c(-1, 3))
  expect_equal(v$d$dtype, "bool")
  expect_equal(node_of(v$e)$kind, "neg")
  expect_equal(r$graph$nodes[[node_of(v$a)$inputs[2] + 1L]]$shape, numeric())
  expect_error(in_graph(numeric_input(3L) + tf$constant(c(1, 2))), class = "cppestimators_tf_shape_error",
               regexp = "(?, 3) and (2,)", fixed = TRUE)
  expect_error(in_graph(tf$reshape(numeric_input(1L), list(-1L)) + numeric_input(1L)),
               class = "cppestimators_tf_shape_error", regexp = "rows")
  expect_error(in_graph(numeric_input(1L) + tf$cast(numeric_input(1L), tf$int32)),
               class = "cppestimators_tf_dtype_error", regexp = "tf$cast", fixed = TRUE)
})

test_that("reductions, argmax, reshape, one_hot and concat follow TF's 0-based axes", {
  r <- in_graph({
    x <- numeric_input(3L)
    list(mean = tf$reduce_mean(x), rows = tf$reduce_sum(x, axis = 1L), keep = tf$reduce_max(x, -1L, keepdims = TRUE),
         arg = tf$argmax(x, 1L), flat = tf$reshape(tf$reduce_sum(x, 1L, keep_dims = TRUE), list(-1L)),
         oh = tf$one_hot(tf$cast(tf$argmax(x, 1L), tf$int32), 3L), cat = tf$concat(list(x, x), axis = 1L),
         sq = tf$squeeze(tf$expand_dims(tf$reduce_sum(x, 1L), -1L), axis = 1L))
  })
  v <- r$value
  expect_equal(v$mean$shape, numeric())
  expect_equal(node_of(v$mean)$axes, integer())
  expect_equal(v$rows$shape, -1)
  expect_equal(node_of(v$rows)$axes, 1L)
  expect_equal(v$keep$shape, c(-1, 1))
  expect_equal(c(v$arg$dtype, format(v$arg)), c("int64", "Tensor(\"ArgMax:0\", shape=(?,), dtype=int64)"))
  expect_equal(v$flat$shape, -1)
  expect_equal(c(v$oh$shape, node_of(v$oh)$depth), c(-1, 3, 3))
  expect_equal(v$oh$dtype, "float32")
  expect_equal(c(v$cat$shape, node_of(v$cat)$axis), c(-1, 6, 1))
  expect_equal(v$sq$shape, -1)
  expect_error(in_graph(tf$argmax(numeric_input(3L))), class = "cppestimators_tf_shape_error", regexp = "rows")
  expect_error(in_graph(tf$reshape(numeric_input(4L), c(-1L, 2L))), class = "cppestimators_tf_shape_error",
               regexp = "across the batch's rows")
})

test_that("unsupported calls are errors naming their full path", {
  expect_error(tf$layers$conv2d, class = "cppestimators_unsupported_tf",
               regexp = "tf$layers$conv2d is not supported by cppestimators", fixed = TRUE)
  expect_error(tf$contrib$rnn$BasicLSTMCell(10L), class = "cppestimators_unsupported_tf",
               regexp = "tf$contrib$rnn is not supported", fixed = TRUE)
  expect_error(tf[["nn"]][["conv1d"]], class = "cppestimators_unsupported_tf", regexp = "tf$nn$conv1d", fixed = TRUE)
  expect_true(all(c("dense", "dropout") %in% names(tf$layers)))
  expect_equal(format(tf$float32), "tf.float32")
  expect_error(in_graph(tf$layers$dense(numeric_input(2L), 3L, kernel_regularizer = function(w) w)),
               class = "cppestimators_unsupported_tf")
})

test_that("tf functions outside a model_fn are an error", {
  expect_error(tf$constant(1), class = "cppestimators_tf_no_graph", regexp = "model_fn")
  expect_error(tf$train$get_global_step(), class = "cppestimators_tf_no_graph")
  r <- in_graph(numeric_input(2L))
  expect_error(tf$nn$relu(r$value), class = "cppestimators_tf_no_graph")
  expect_error(in_graph(tf$nn$relu(r$value)), class = "cppestimators_tf_graph_error")
})

test_that("mean_squared_error casts to float32 and divides by the elements counted at run time", {
  r <- in_graph({
    g <- cppestimators:::current_tf_graph()
    labels <- cppestimators:::tf_graph_labels(g, dtype = "int32")
    features <- cppestimators:::tf_features(g, "x")
    pred <- features$x
    list(pred = pred, loss = tf$losses$mean_squared_error(labels, pred))
  })
  g <- r$graph
  loss <- r$value$loss
  expect_equal(r$value$pred$dtype, "float64")
  expect_equal(c(loss$dtype, length(loss$shape)), c("float32", "0"))
  expect_equal(loss$name, "mean_squared_error/value:0")
  casts <- Filter(function(n) n$kind == "cast", g$nodes)
  expect_equal(vapply(casts, function(n) n$name, "")[1:2],
               c("mean_squared_error/Cast:0", "mean_squared_error/Cast_1:0"))
  expect_true(all(c("square", "reduce_sum", "div") %in% node_kinds(g)))
  # the count is a reduce_sum of (losses * 0 + 1), not a constant
  counted <- Filter(function(n) grepl("num_elements/Sum", n$name), g$nodes)
  expect_length(counted, 1L)
  expect_error(in_graph({
    g <- cppestimators:::current_tf_graph()
    tf$losses$mean_squared_error(cppestimators:::tf_graph_labels(g), numeric_input(1L))
  }), class = "cppestimators_tf_shape_error", regexp = "incompatible")
  w <- in_graph({
    g <- cppestimators:::current_tf_graph()
    tf$losses$absolute_difference(cppestimators:::tf_graph_labels(g), tf$reshape(numeric_input(1L), list(-1L)),
                                  reduction = tf$losses$Reduction$SUM)
  })
  expect_equal(node_of(w$value)$kind, "reduce_sum")
  expect_equal(tf$losses$Reduction$SUM_BY_NONZERO_WEIGHTS, "weighted_sum_by_nonzero_weights")
})

test_that("metrics are objects naming their tensors; the graph spec gives their nodes", {
  r <- in_graph({
    g <- cppestimators:::current_tf_graph()
    labels <- cppestimators:::tf_graph_labels(g)
    logits <- tf$layers$dense(numeric_input(2L), 3L)
    cls <- tf$argmax(logits, 1L)
    list(labels = labels, logits = logits, cls = cls, acc = tf$metrics$accuracy(labels, cls),
         rmse = tf$metrics$root_mean_squared_error(labels, tf$cast(cls, tf$int32), weights = 2),
         loss = tf$losses$sparse_softmax_cross_entropy(labels, logits))
  })
  v <- r$value
  expect_s3_class(v$acc, "cppestimators_tf_metric")
  expect_equal(v$acc$kind, "accuracy")
  expect_equal(v$acc$predictions$dtype, "int32")
  expect_equal(v$rmse$weights$dtype, "float32")
  spec <- cppestimators:::tf_graph_spec(r$graph, v$loss, list(class_ids = v$cls, logits = v$logits),
                                        list(accuracy = v$acc, rmse = v$rmse))
  expect_equal(spec$kind, "graph")
  expect_equal(spec$loss, v$loss$id)
  expect_equal(spec$prediction_names, c("class_ids", "logits"))
  expect_equal(spec$prediction_nodes, c(v$cls$id, v$logits$id))
  expect_equal(spec$metrics[[1]][c("kind", "name", "labels", "weights")],
               list(kind = "accuracy", name = "accuracy", labels = v$labels$id, weights = -1))
  expect_equal(spec$metrics[[2]]$kind, "root_mean_squared_error")
  expect_error(in_graph({
    g <- cppestimators:::current_tf_graph()
    tf$metrics$accuracy(cppestimators:::tf_graph_labels(g), tf$layers$dense(numeric_input(2L), 3L))
  }), class = "cppestimators_tf_shape_error", regexp = "values per row")
  expect_error(cppestimators:::tf_graph_spec(r$graph, predictions = list(mean = v$loss)),
               class = "cppestimators_tf_spec_error", regexp = "'mean'")
})

test_that("tf$train optimizers hold the package's optimizer specs; minimize() makes a train op", {
  r <- in_graph({
    loss <- tf$reduce_mean(tf$square(numeric_input(2L)))
    list(loss = loss, gs = tf$train$get_global_step(),
         op = tf$train$AdagradOptimizer(learning_rate = 0.1)$minimize(loss, global_step = tf$train$get_global_step()),
         sgd = tf$train$GradientDescentOptimizer(0.01)$minimize(loss))
  })
  v <- r$value
  expect_s3_class(v$op, "cppestimators_tf_train_op")
  expect_equal(v$op$optimizer, optimizer_adagrad(0.1, initial_accumulator_value = 0.1))
  expect_true(v$op$global_step)
  expect_false(v$sgd$global_step)
  expect_equal(v$sgd$optimizer, optimizer_sgd(0.01))
  expect_equal(unclass(tf$train$AdamOptimizer()$spec)[c("learning_rate", "beta1", "beta2", "epsilon")],
               list(learning_rate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8))
  expect_equal(tf$train$MomentumOptimizer(0.1, momentum = 0.5)$spec, optimizer_momentum(0.1, momentum = 0.5))
  expect_equal(tf$train$FtrlOptimizer(0.3)$spec, optimizer_ftrl(0.3))
  expect_equal(tf$train$RMSPropOptimizer(0.2)$spec, optimizer_rmsprop(0.2))
  expect_error(tf$train$RMSPropOptimizer(0.2, centered = TRUE), class = "cppestimators_unsupported_tf")
  expect_output(print(v$gs), "<tf.Variable 'global_step:0' shape=() dtype=int64_ref>", fixed = TRUE)
  expect_error(v$gs + 1, class = "cppestimators_tf_global_step_error")
  expect_error(in_graph(tf$train$AdamOptimizer()$minimize(numeric_input(2L))),
               class = "cppestimators_tf_spec_error", regexp = "scalar")
  ol <- in_graph({
    loss <- tf$reduce_sum(numeric_input(1L))
    tf$contrib$layers$optimize_loss(loss, tf$contrib$framework$get_global_step(), learning_rate = 0.05,
                                    optimizer = "SGD")
  })
  expect_equal(ol$value$optimizer, optimizer_sgd(0.05))
  expect_error(in_graph(tf$contrib$layers$optimize_loss(tf$reduce_sum(numeric_input(1L)),
                                                        tf$train$get_global_step(), 0.1, "Adam",
                                                        clip_gradients = 5)),
               class = "cppestimators_unsupported_tf", regexp = "clip_gradients")
})

test_that("decays are the package's learning-rate schedules", {
  r <- in_graph({
    gs <- tf$train$get_global_step()
    list(exp = tf$train$exponential_decay(0.1, gs, 100L, 0.96, staircase = TRUE),
         poly = tf$train$polynomial_decay(0.1, gs, 1000),
         pw = tf$train$piecewise_constant(gs, list(100L, 200L), list(0.1, 0.01, 0.001)),
         cos = tf$train$cosine_decay(0.1, gs, 500))
  })
  v <- r$value
  expect_equal(v$exp, learning_rate_exponential_decay(0.1, 100, 0.96, staircase = TRUE))
  expect_equal(v$poly, learning_rate_polynomial_decay(0.1, 1000))
  expect_equal(v$pw, learning_rate_piecewise_constant(c(100, 200), c(0.1, 0.01, 0.001)))
  expect_equal(v$cos, learning_rate_cosine_decay(0.1, 500))
  opt <- in_graph(tf$train$GradientDescentOptimizer(tf$train$exponential_decay(0.1, tf$train$get_global_step(),
                                                                                10, 0.5)))
  expect_equal(opt$value$spec$learning_rate, learning_rate_exponential_decay(0.1, 10, 0.5))
  expect_error(in_graph(tf$train$exponential_decay(0.1, 5, 10, 0.5)), class = "cppestimators_tf_type_error",
               regexp = "global_step")
})

test_that("the tf functions' dtype arguments share the package's one dtype check", {
  err <- expect_error(in_graph(tf$cast(numeric_input(1L), "string")), class = "cppestimators_tf_dtype_error")
  expect_s3_class(err, "cppestimators_dtype_error")
  expect_match(conditionMessage(err),
               "tf$float32, tf$float64, tf$int32, tf$int64 or tf$bool, not character \"string\".", fixed = TRUE)
})
