# Sparse matrices and list columns read in place (issue: sparse and
# multi-valued features from memory).

sparse_data <- function(n = 240, p = 30, seed = 1) {
  set.seed(seed)
  x <- Matrix::rsparsematrix(n, p, density = 0.15, rand.x = function(k) round(stats::rnorm(k), 2))
  y <- as.numeric(as.vector(x %*% stats::rnorm(p)) + stats::rnorm(n, sd = 0.3) > 0)
  list(x = x, y = y)
}

# The variables and the predicted probabilities of `make()`'s estimator
# trained on `x` (a dgCMatrix or the same matrix dense) and `y`.
fit_on <- function(make, x, y) {
  est <- make()
  quietly(train(est, input_fn(list(x = x, y = y), response = "y", batch_size = 60, shuffle = FALSE,
                              num_epochs = 3)))
  vars <- variable_names(est)
  list(vars = stats::setNames(lapply(vars, function(v) as.vector(variable_value(est, v))), vars),
       prob = predict(est, input_fn(list(x = x), batch_size = 100), predict_keys = "logistic")$logistic,
       est = est)
}

test_that("a dgCMatrix and the same data dense give the same linear, DNN and trees models", {
  skip_if_not_installed("Matrix")
  d <- sparse_data()
  dense <- as.matrix(d$x)
  cols <- feature_columns(column_numeric("x", shape = ncol(d$x)))
  seed <- run_config(tf_random_seed = 11)
  makers <- list(
    linear = function() linear_classifier(cols, config = seed),
    dnn = function() dnn_classifier(c(6, 3), cols, config = seed),
    trees = function() boosted_trees_classifier(cols, n_batches_per_layer = 1, n_trees = 4, max_depth = 3,
                                                config = seed),
    hist = function() boosted_trees_classifier(cols, n_trees = 4, max_depth = 3, growth = "depthwise",
                                               config = seed))
  for (m in names(makers)) {
    a <- fit_on(makers[[m]], d$x, d$y)
    b <- fit_on(makers[[m]], dense, d$y)
    expect_identical(names(a$vars), names(b$vars), info = m)
    if (m %in% c("trees", "hist")) {
      # the trees read the sparse matrix densely, batch by batch: the same model
      expect_identical(a$vars, b$vars, info = m)
      expect_identical(a$prob, b$prob, info = m)
    } else {
      # the linear model and the DNN's first layer read only the non-zeros:
      # the same sums in another order
      for (v in names(a$vars)) {
        expect_equal(a$vars[[v]], b$vars[[v]], tolerance = 1e-5, info = paste(m, v))
      }
      expect_equal(a$prob, b$prob, tolerance = 1e-5, info = m)
    }
  }
  # the linear model and the DNN read the sparse matrix as sparse (first
  # data), the trees do not
  lin <- fit_on(makers$linear, d$x, d$y)$est
  expect_identical(lin$state$sparse_keys, "x")
  expect_true(any(d$x@x < 0))  # negative values are values, not pruned ids
})

test_that("sparse columns: a normalizer may scale but not center, and trees refuse sparse = TRUE", {
  skip_if_not_installed("Matrix")
  d <- sparse_data(n = 80, p = 6)
  s <- c(2, 0.5, 1, 4, 1, 3)
  scaled <- feature_columns(column_numeric("x", shape = 6, sparse = TRUE,
                                           normalizer_fn = normalizer_standardize(0, s)))
  dense_scaled <- feature_columns(column_numeric("x", shape = 6, normalizer_fn = normalizer_standardize(0, s)))
  seed <- run_config(tf_random_seed = 2)
  a <- fit_on(function() linear_classifier(scaled, config = seed), d$x, d$y)
  b <- fit_on(function() linear_classifier(dense_scaled, config = seed), as.matrix(d$x), d$y)
  expect_equal(a$prob, b$prob, tolerance = 1e-5)
  centered <- feature_columns(column_numeric("x", shape = 6, sparse = TRUE,
                                             normalizer_fn = normalizer_standardize(1, 2)))
  expect_error(fit_on(function() linear_classifier(centered), d$x, d$y), class = "cppestimators_error",
               regexp = "is sparse: its normalizer may scale the values but not center them")
  trees <- feature_columns(column_numeric("x", shape = 6, sparse = TRUE))
  expect_error(fit_on(function() boosted_trees_classifier(trees, n_batches_per_layer = 1, n_trees = 1), d$x, d$y),
               class = "cppestimators_error", regexp = "build it without `sparse = TRUE`")
  bad <- d$x
  bad@x[3] <- NA
  expect_error(fit_on(function() linear_classifier(trees), bad, d$y), class = "cppestimators_error",
               regexp = "feature 'x' contains missing values \\(NA\\), first at row [0-9]+ of the sparse matrix")
  # a sparse matrix given where one value per cell is read
  voc <- feature_columns(column_categorical_with_identity("x", num_buckets = 3))
  expect_error(fit_on(function() linear_classifier(voc), d$x, d$y), class = "cppestimators_error",
               regexp = "is a sparse matrix of numbers; read it with column_numeric\\(\"x\", shape = 6\\)")
})

test_that("input_fn() of a sparse matrix names its feature x and takes the response as a vector", {
  skip_if_not_installed("Matrix")
  d <- sparse_data(n = 50, p = 4)
  inp <- input_fn(d$x, response = d$y, batch_size = 10)
  expect_identical(names(inp$features), "x")
  expect_s4_class(inp$features$x, "dgCMatrix")
  est <- linear_classifier(feature_columns(column_numeric("x", shape = 4)))
  quietly(train(est, inp, steps = 3))
  p <- predict(est, d$x, predict_keys = "logistic")
  expect_identical(nrow(p), 50L)
  # other sparse classes of the Matrix package are converted once
  tri <- methods::as(d$x, "TsparseMatrix")
  expect_s4_class(input_fn(tri)$features$x, "dgCMatrix")
  expect_error(input_fn(d$x, response = d$y[-1]), class = "cppestimators_response",
               regexp = "a vector with one value per row of the matrix \\(50\\)")
})

# A table of tokens, ids and weights as list columns, written to a TFRecord
# file that reads them back as variable-length features.
token_table <- function(n = 120, seed = 3) {
  set.seed(seed)
  words <- c("oil", "canvas", "paper", "ink", "watercolour", "bronze", "etching", "")
  toks <- lapply(seq_len(n), function(i) sample(words, sample(0:4, 1), replace = TRUE))
  toks[[5]] <- character()  # an empty row: no ids
  ids <- lapply(seq_len(n), function(i) sample(0:5, sample(0:3, 1), replace = TRUE))
  wts <- lapply(ids, function(v) sample(c(0.5, 1.25, 2), length(v), replace = TRUE))
  df <- data.frame(y = as.integer(vapply(toks, function(t) "oil" %in% t, TRUE)),
                   g = sample(c("a", "b"), n, replace = TRUE))
  df$words <- toks
  df$ids <- lapply(ids, as.integer)
  df$wts <- wts
  df
}

test_that("list columns give the ids, weights and models a TFRecord var_len_feature() gives", {
  df <- token_table()
  path <- local_test_file(fileext = ".tfrecord")
  write_tfrecord(df, path)
  spec <- list(y = fixed_len_feature(1, "int64"), g = fixed_len_feature(1, "string"),
               words = var_len_feature("string"), ids = var_len_feature("int64"),
               wts = var_len_feature("float32"))
  vocab <- column_categorical_with_vocabulary_list("words", vocabulary_list = c("oil", "ink", "paper"),
                                                   num_oov_buckets = 1)
  hash <- column_categorical_with_hash_bucket("words", hash_bucket_size = 7)
  ident <- column_categorical_with_identity("ids", num_buckets = 6)
  sets <- list(
    linear = function(seed) linear_classifier(feature_columns(
      vocab, column_categorical_weighted(ident, "wts"),
      column_crossed(list("words", "g"), hash_bucket_size = 11)), config = seed),
    dnn = function(seed) dnn_classifier(c(4), feature_columns(
      column_embedding(hash, dimension = 3, combiner = "mean"),
      column_embedding(vocab, dimension = 2, combiner = "sum"),
      column_embedding(ident, dimension = 2, combiner = "sqrtn"),
      column_indicator(column_categorical_with_hash_bucket("words", hash_bucket_size = 5))), config = seed))
  for (m in names(sets)) {
    seed <- run_config(tf_random_seed = 5)
    a <- sets[[m]](seed)
    quietly(train(a, input_fn(df, features = c("words", "ids", "wts", "g"), response = "y", batch_size = 30,
                              shuffle = FALSE, num_epochs = 2)))
    b <- sets[[m]](seed)
    quietly(train(b, input_fn(tfrecord_dataset(path, spec) %>% dataset_batch(30) %>% dataset_repeat(2),
                              features = c("words", "ids", "wts", "g"), response = "y")))
    expect_identical(variable_names(a), variable_names(b), info = m)
    for (v in variable_names(a)) {
      expect_equal(variable_value(a, v), variable_value(b, v), tolerance = 1e-6, info = paste(m, v))
    }
    pa <- predict(a, input_fn(df, features = c("words", "ids", "wts", "g"), batch_size = 50),
                  predict_keys = "logistic")$logistic
    pb <- predict(b, input_fn(tfrecord_dataset(path, spec) %>% dataset_batch(50),
                              features = c("words", "ids", "wts", "g")), predict_keys = "logistic")$logistic
    expect_equal(pa, pb, tolerance = 1e-6, info = m)
  }
})

test_that("a list column's ids follow TensorFlow: every value, '' none, an empty row none", {
  df <- data.frame(y = c(1, 0, 1, 0))
  df$words <- list(c("oil", "oil", "ink"), character(), c("", "ink"), "paper")
  ind <- column_indicator(column_categorical_with_vocabulary_list("words", vocabulary_list = c("oil", "ink")))
  est <- dnn_regressor(c(2), feature_columns(ind), config = run_config(tf_random_seed = 1))
  quietly(train(est, input_fn(df, response = "y", batch_size = 4, shuffle = FALSE), steps = 1))
  # the input layer's multi-hot counts, through the first layer's kernel at zero bias:
  # with weights W, row 1 is 2 W[oil] + W[ink], row 2 nothing, row 3 W[ink], row 4 nothing
  # (paper is out of the vocabulary)
  v <- function(name) variable_value(est, name)[[1]]
  k <- v("dnn/hiddenlayer_0/kernel")
  b <- v("dnn/hiddenlayer_0/bias")
  h <- predict(est, input_fn(df, features = "words", batch_size = 4), predict_keys = "predictions")$predictions
  out_k <- v("dnn/logits/kernel")
  out_b <- v("dnn/logits/bias")
  relu <- function(z) pmax(z, 0)
  x <- rbind(c(2, 1), c(0, 0), c(0, 1), c(0, 0))
  expected <- as.vector(relu(sweep(x %*% k, 2, b, "+")) %*% out_k + as.vector(out_b))
  expect_equal(h, expected, tolerance = 1e-5)
  # mixed types and factors in a list column are refused with the row
  bad <- data.frame(y = 1:2)
  bad$words <- list("a", 1L)
  expect_error(train(est, input_fn(bad, response = "y"), steps = 1), class = "cppestimators_error",
               regexp = "feature 'words' mixes character and numeric rows")
  bad$words <- list("a", factor("b"))
  expect_error(train(est, input_fn(bad, response = "y"), steps = 1), class = "cppestimators_error",
               regexp = "feature 'words' \\(row 2\\) holds a factor")
  # a numeric column does not read a list column
  num <- linear_regressor(feature_columns(column_numeric("words")))
  expect_error(train(num, input_fn(df, response = "y"), steps = 1), class = "cppestimators_error",
               regexp = "feature 'words' holds a list of character values per row")
  # weights that do not line up with their values
  w <- token_table(n = 10)
  w$wts[[2]] <- c(w$wts[[2]], 1)
  wc <- linear_classifier(feature_columns(column_categorical_weighted(
    column_categorical_with_identity("ids", num_buckets = 6), "wts")))
  expect_error(train(wc, input_fn(w, features = c("ids", "wts"), response = "y"), steps = 1),
               class = "cppestimators_error", regexp = "row 2 of feature 'ids' has [0-9]+ values but its weights 'wts' [0-9]+")
})

test_that("list_of() columns are read as the lists they hold", {
  skip_if_not_installed("vctrs")
  df <- token_table(n = 40)
  plain <- df
  df$words <- vctrs::as_list_of(df$words, .ptype = character())
  cols <- feature_columns(column_categorical_with_hash_bucket("words", hash_bucket_size = 9))
  fit <- function(d) {
    est <- linear_classifier(cols, config = run_config(tf_random_seed = 1))
    quietly(train(est, input_fn(d, features = "words", response = "y", batch_size = 40, shuffle = FALSE), steps = 3))
    variable_value(est, "linear/linear_model/words/weights")
  }
  expect_identical(fit(df), fit(plain))
})

test_that("the engine fits a dgCMatrix as one feature, as glmnet does, and parsnip passes one on", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("glmnet")
  set.seed(4)
  n <- 1500
  p <- 120
  x <- Matrix::rsparsematrix(n, p, density = 0.05, rand.x = function(k) rep(1, k))
  colnames(x) <- paste0("w", seq_len(p))
  beta <- stats::rnorm(p) * (stats::runif(p) < 0.3)
  y <- factor(ifelse(stats::runif(n) < stats::plogis(as.vector(x %*% beta)), "yes", "no"))
  # the engine's fit of a dgCMatrix: one matrix-valued feature, not 120 columns
  est <- briefly(quietly(fit_cppestimators(x, y, model = "logistic_reg", penalty = 0.01)))
  expect_identical(vapply(est$spec$feature_columns, function(col) col$name, ""), "x")
  expect_identical(est$state$sparse_keys, "x")
  prob <- predict_cppestimators(est, x, type = "prob")$yes
  g <- glmnet::glmnet(x, y, family = "binomial", lambda = 0.01)
  expect_lt(max(abs(prob - as.vector(predict(g, x, type = "response")))), 0.01)
  # through parsnip (which hands the engine a sparse tibble, read as a data frame)
  fit <- parsnip::logistic_reg(penalty = 0.01) %>% parsnip::set_engine("cppestimators") %>%
    parsnip::fit_xy(x = x, y = y)
  expect_lt(max(abs(predict(fit, x, type = "prob")$.pred_yes - prob)), 0.01)
})

test_that("parsnip: a wide sparse tibble is one sparse feature, fitted as glmnet; new rows are read by column name", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("sparsevctrs")
  skip_if_not_installed("glmnet")
  set.seed(1)
  n <- 600
  p <- 150
  x <- Matrix::rsparsematrix(n, p, 0.05, rand.x = function(k) rep(1, k))
  colnames(x) <- paste0("w", seq_len(p))
  y <- factor(ifelse(runif(n) < plogis(as.vector(x %*% c(rnorm(20), rep(0, p - 20)))), "yes", "no"))
  # (parsnip hands the engine a sparse tibble of the matrix)
  fit <- quietly(parsnip::fit_xy(parsnip::set_engine(parsnip::logistic_reg(penalty = 0.01), "cppestimators"),
                                 x = x, y = y))
  est <- parsnip::extract_fit_engine(fit)
  expect_identical(vapply(est$spec$feature_columns, function(col) col$name, ""), "x")
  expect_identical(est$spec$model$solver, "coordinate_descent")
  expect_identical(est$spec$sparse_x_names, colnames(x))
  net <- glmnet::glmnet(x, y, family = "binomial", lambda = 0.01)
  ours <- predict(fit, x[1:20, ], type = "prob")$.pred_yes
  expect_equal(ours, as.vector(predict(net, x[1:20, ], type = "response")), tolerance = 1e-3)
  expect_equal(sum(tidy(est)$estimate[-1] != 0), sum(coef(net)[-1] != 0), tolerance = 0.1)
  # the same rows as a sparse tibble, and as a data frame with its columns in another order
  tb <- sparsevctrs::coerce_to_sparse_tibble(x[1:20, ])
  expect_equal(predict(fit, tb, type = "prob")$.pred_yes, ours)
  df <- as.data.frame(as.matrix(x[1:20, rev(colnames(x))]))
  expect_equal(predict_cppestimators(est, df, type = "prob")$yes, ours)
  expect_error(predict_cppestimators(est, df[-1], type = "prob"),
               "lacks 1 of the columns the model was fit on: w150", class = "cppestimators_missing_columns")
  # a narrow sparse tibble stays a data frame: a coefficient per named column
  small <- quietly(parsnip::fit_xy(parsnip::set_engine(parsnip::logistic_reg(penalty = 0.01), "cppestimators"),
                                   x = x[, 1:10], y = y))
  expect_setequal(vapply(parsnip::extract_fit_engine(small)$spec$feature_columns, function(col) col$name, ""),
                  colnames(x)[1:10])
})

test_that("dataset_map() gives list columns to a stream: the same model as the list column in memory", {
  set.seed(1)
  n <- 300
  vocab <- c("oil", "canvas", "paper", "ink", "study", "portrait")
  df <- data.frame(id = seq_len(n),
                   title = vapply(seq_len(n), function(i) paste(sample(vocab, sample(0:4, 1), TRUE), collapse = " "), ""))
  df$y <- as.numeric(grepl("oil", df$title))
  tokenize <- function(b) {
    b$words <- lapply(strsplit(ifelse(is.na(b$title), "", b$title), " ", fixed = TRUE), function(w) w[nzchar(w)])
    b
  }
  path <- local_test_file(fileext = ".csv")
  utils::write.csv(df, path, row.names = FALSE)
  ds <- dataset_map(text_line_dataset(path, csv_record_spec(path)), tokenize)
  mem <- tokenize(df)
  out <- dataset_collect(ds)
  expect_identical(out$words, mem$words)
  expect_true(any(lengths(out$words) == 0L))  # rows without tokens pass as rows without ids
  fc <- feature_columns(column_categorical_with_hash_bucket("words", hash_bucket_size = 64))
  a <- linear_classifier(fc, config = run_config(tf_random_seed = 1))
  b <- linear_classifier(fc, config = run_config(tf_random_seed = 1))
  quietly(train(a, input_fn(mem, features = "words", response = "y", batch_size = 50, shuffle = FALSE, num_epochs = 3)))
  quietly(train(b, input_fn(dataset_batch(dataset_repeat(ds, 3), 50), features = "words", response = "y")))
  expect_equal(variable_value(b, "linear/linear_model/words/weights")[[1]],
               variable_value(a, "linear/linear_model/words/weights")[[1]], tolerance = 1e-6)
  expect_gt(sum(abs(variable_value(b, "linear/linear_model/words/weights")[[1]])), 0)
  # integer ids per row, for an identity column
  ids <- dataset_map(text_line_dataset(path, csv_record_spec(path)),
                     function(b) transform(b, tags = I(lapply(id, function(i) c(i %% 5L, (i + 1L) %% 5L)))))
  expect_identical(dataset_collect(ids)$tags[1:2], list(c(1L, 2L), c(2L, 3L)))
  # a list mixing text and numbers is refused, naming the column
  mixed <- dataset_map(text_line_dataset(path, csv_record_spec(path)),
                       function(b) transform(b, bad = I(lapply(id, function(i) if (i %% 2) "a" else 1))))
  expect_error(dataset_collect(mixed), class = "cppestimators_dataset_function_error",
               regexp = "column 'bad' after .* is a list mixing text and numbers")
})

test_that("a DNN whose first layer reads a sparse matrix beside dense and embedded inputs is the dense DNN", {
  skip_if_not_installed("Matrix")
  d <- sparse_data(n = 200, p = 40, seed = 3)
  set.seed(4)
  a_num <- round(stats::rnorm(200), 2)
  g <- sample(c("p", "q", "r"), 200, TRUE)
  cols <- feature_columns(
    column_numeric("a"),
    column_embedding(column_categorical_with_vocabulary_list("g", vocabulary_list = c("p", "q", "r")), dimension = 2),
    column_numeric("x", shape = 40), column_numeric("z"))
  fit <- function(x) {
    est <- dnn_classifier(c(5, 3), cols, config = run_config(tf_random_seed = 5))
    data <- list(a = a_num, g = g, x = x, z = a_num^2, y = d$y)
    quietly(train(est, input_fn(data, response = "y", batch_size = 50, shuffle = FALSE, num_epochs = 3)))
    list(vars = lapply(stats::setNames(nm = variable_names(est)), function(v) as.vector(variable_value(est, v))),
         prob = predict(est, input_fn(data[c("a", "g", "x", "z")], batch_size = 64),
                        predict_keys = "logistic")$logistic,
         est = est)
  }
  s <- fit(d$x)
  m <- fit(as.matrix(d$x))
  expect_identical(s$est$state$sparse_keys, "x")
  expect_identical(names(s$vars), names(m$vars))
  for (v in names(s$vars)) expect_equal(s$vars[[v]], m$vars[[v]], tolerance = 1e-5, info = v)
  expect_equal(s$prob, m$prob, tolerance = 1e-5)
  # the embedding keeps learning (its gradient passes through the block beside the sparse input)
  emb <- "dnn/input_from_feature_columns/input_layer/g_embedding/embedding_weights"
  before <- s$vars[[emb]]
  quietly(train(s$est, input_fn(list(a = a_num, g = g, x = d$x, z = a_num^2, y = d$y), response = "y",
                                batch_size = 50, num_epochs = 1)))
  expect_gt(max(abs(as.vector(variable_value(s$est, emb)[[1]]) - before[[1]])), 0)
})

test_that("parsnip: a predictor named x is a column like any other, not a sparse matrix", {
  skip_if_not_installed("parsnip")
  set.seed(2)
  d <- data.frame(x = runif(50), z = runif(50))
  d$y <- 2 * d$x - d$z + rnorm(50, sd = 0.1)
  fit <- quietly(parsnip::fit(parsnip::set_engine(parsnip::linear_reg(), "cppestimators"), y ~ x + z, data = d))
  expect_null(parsnip::extract_fit_engine(fit)$spec$sparse_x)
  expect_equal(predict(fit, d[1:5, ])$.pred, unname(fitted(lm(y ~ x + z, d))[1:5]), tolerance = 1e-5)
})

test_that("feature_columns_from_data() reads list columns as vocabulary columns of every value", {
  df <- data.frame(y = c(1, 0, 1, 0))
  df$words <- list(c("oil", "on", "canvas"), character(), "oil", c("ink", "paper"))
  df$ids <- list(c(3L, 1L), 2L, integer(), c(1L, 5L))
  cols <- feature_columns_from_data(df, response = y)
  by_name <- stats::setNames(cols, vapply(cols, function(col) col$name, ""))
  expect_identical(by_name$words$vocabulary, c("canvas", "ink", "oil", "on", "paper"))
  expect_equal(by_name$ids$vocabulary, c(1, 2, 3, 5))
  est <- linear_regressor(cols)
  quietly(train(est, input_fn(df, response = "y", batch_size = 4, num_epochs = 2)))
  expect_length(variable_value(est, "linear/linear_model/words/weights")[[1]], 5)
  dense <- feature_columns_from_data(df, response = y, dense = TRUE)
  expect_true(all(vapply(dense, function(col) identical(col$kind, "indicator"), TRUE)))
  df$bad <- list(1.5, 2, 3, 4)
  expect_error(feature_columns_from_data(df, response = y), "the feature 'bad' is a list column of")
})
