# The histogram growths across processes: W ranks grow the trees one process
# grows from all the rows (the same bins, the same splits; leaf values from
# sums added in another order).

hist_dist_table <- function(n) {
  set.seed(21)
  d <- data.frame(x = rnorm(n), z = round(runif(n), 3), c = factor(sample(letters[1:6], n, TRUE)))
  d$x[seq(7, n, by = 13)] <- NA
  d$y <- ifelse(is.na(d$x), 1.5, d$x) - 2 * d$z + as.integer(d$c) / 3 + rnorm(n, sd = 0.2)
  d
}

hist_variables <- function(est) {
  names <- grep("^boosted_trees/", variable_names(est), value = TRUE)
  stats::setNames(lapply(names, function(v) as.numeric(unlist(variable_value(est, v)))), names)
}

# Every variable but the leaf values identical; the values (and gains,
# covers: sums over the ranks) within `tolerance`, relative to the largest.
expect_same_trees <- function(a, b, tolerance = 1e-6) {
  sums <- c("boosted_trees/node_value", "boosted_trees/node_gain", "boosted_trees/node_cover",
            "boosted_trees/base_score")
  for (v in setdiff(names(a), sums)) expect_identical(b[[v]], a[[v]], info = v)
  for (v in sums) {
    m <- max(abs(a[[v]]), 1e-30)
    expect_lte(max(abs(a[[v]] - b[[v]])) / m, tolerance)
  }
}

test_that("2 socket workers grow the histogram trees one process grows", {
  skip_on_cran()
  cl <- parallel::makePSOCKcluster(2)
  on.exit(try(parallel::stopCluster(cl), silent = TRUE), add = TRUE)
  # more rows than the bins' sample (262,144): the sample is taken by global row
  d <- hist_dist_table(270000)
  fcs <- feature_columns_from_data(d, -y)
  for (g in c("depthwise", "lossguide")) {
    make <- function() {
      suppressMessages(boosted_trees_regressor(fcs, growth = g, n_trees = 4, max_depth = 4, max_leaves = 12,
                                               subsample = 0.8))
    }
    alone <- make()
    train(alone, d, response = "y")
    across <- make()
    train(across, d, response = "y", cluster = cl)
    a <- hist_variables(alone)
    b <- hist_variables(across)
    expect_true(length(a[["boosted_trees/node_feature"]]) > 4)
    expect_same_trees(a, b)
    expect_equal(predict(across, d[1:50, ])$predictions, predict(alone, d[1:50, ])$predictions, tolerance = 1e-6)
  }
  cls <- suppressMessages(boosted_trees_classifier(fcs, growth = "depthwise", n_trees = 3, max_depth = 3,
                                                   n_classes = 3, label_vocabulary = c("lo", "mid", "hi")))
  d$k <- cut(d$y, c(-Inf, -0.5, 0.5, Inf), labels = c("lo", "mid", "hi"))
  small <- d[1:3000, ]
  alone <- cls
  train(alone, small[c("x", "z", "c", "k")], response = "k")
  across <- suppressMessages(boosted_trees_classifier(fcs, growth = "depthwise", n_trees = 3, max_depth = 3,
                                                      n_classes = 3, label_vocabulary = c("lo", "mid", "hi")))
  train(across, small[c("x", "z", "c", "k")], response = "k", cluster = cl)
  expect_same_trees(hist_variables(alone), hist_variables(across))
})

test_that("under mpirun -np 2, the ranks grow the histogram trees one process grows", {
  skip_on_cran()
  mpirun <- Sys.which("mpirun")
  if (!nzchar(mpirun)) skip("Open MPI's mpirun is not installed")
  if (!nzchar(system.file(package = "Rmpi"))) skip("Rmpi is not installed")
  out <- tempfile("hist-mpi-")
  dir.create(out)
  on.exit(unlink(out, recursive = TRUE), add = TRUE)
  script <- file.path(out, "train.R")
  writeLines(c(
    "suppressMessages(library(cppestimators))",
    "d <- readRDS(Sys.getenv('DATA'))",
    "fcs <- feature_columns_from_data(d, -y)",
    "est <- suppressMessages(boosted_trees_regressor(fcs, growth = 'depthwise', n_trees = 4, max_depth = 4,",
    "                        config = run_config(cluster = 'mpi')))",
    "train(est, d, response = 'y')",
    "names <- grep('^boosted_trees/', variable_names(est), value = TRUE)",
    "values <- lapply(setNames(nm = names), function(v) as.numeric(unlist(variable_value(est, v))))",
    "saveRDS(values, file.path(Sys.getenv('OUT'), paste0('rank', Rmpi::mpi.comm.rank(0), '.rds')))",
    "invisible(Rmpi::mpi.finalize())"
  ), script)
  d <- hist_dist_table(4001)
  saveRDS(d, file.path(out, "d.rds"))
  session <- tempfile("om", tmpdir = if (dir.exists("/tmp")) "/tmp" else tempdir())
  dir.create(session)
  on.exit(unlink(session, recursive = TRUE), add = TRUE)
  status <- system2(mpirun, c("--oversubscribe", "-np", "2", file.path(R.home("bin"), "Rscript"), script),
                    env = c(paste0("DATA=", file.path(out, "d.rds")), paste0("OUT=", out),
                            paste0("TMPDIR=", session), paste0("OMPI_MCA_orte_tmpdir_base=", session),
                            "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"),
                    stdout = file.path(out, "mpirun.log"), stderr = file.path(out, "mpirun.log"))
  if (status != 0) cat(readLines(file.path(out, "mpirun.log")), sep = "\n")
  expect_equal(status, 0)
  r0 <- readRDS(file.path(out, "rank0.rds"))
  r1 <- readRDS(file.path(out, "rank1.rds"))
  expect_identical(r0, r1)
  alone <- suppressMessages(boosted_trees_regressor(feature_columns_from_data(d, -y), growth = "depthwise",
                                                    n_trees = 4, max_depth = 4))
  train(alone, d, response = "y")
  expect_same_trees(hist_variables(alone), r0)
})

test_that("TensorFlow's growth finds one process's buckets across 2 socket workers", {
  skip_on_cran()
  cl <- parallel::makePSOCKcluster(2)
  on.exit(try(parallel::stopCluster(cl), silent = TRUE), add = TRUE)
  set.seed(31)
  n <- 3000
  d <- data.frame(x = rnorm(n), z = rexp(n))
  d$label <- as.integer(d$x + log(d$z) + rnorm(n, sd = 0.5) > 0)
  cols <- feature_columns(column_numeric("x", "z"))
  make <- function() suppressMessages(boosted_trees_classifier(cols, n_batches_per_layer = 1, n_trees = 3, max_depth = 3))
  alone <- make()
  train(alone, input_fn(d, features = c("x", "z"), response = "label", batch_size = n, num_epochs = NULL,
                        shuffle = FALSE))
  across <- make()
  # each worker's batch is its whole shard (rows 1, 3, ... and 2, 4, ...)
  train(across, input_fn(d, features = c("x", "z"), response = "label", batch_size = n / 2, num_epochs = NULL,
                         shuffle = FALSE), cluster = cl)
  boundaries <- function(e) as.numeric(unlist(variable_value(e, "boosted_trees/bucket_boundaries")))
  expect_identical(boundaries(across), boundaries(alone))
  pa <- predict(alone, d[1:200, ])$logistic
  pb <- predict(across, d[1:200, ])$logistic
  expect_lte(max(abs(unlist(pa) - unlist(pb))), 1e-5)
})

test_that("2 socket workers reading a stream's shards grow the trees one process grows from it", {
  skip_on_cran()
  cl <- parallel::makePSOCKcluster(2)
  on.exit(try(parallel::stopCluster(cl), silent = TRUE), add = TRUE)
  d <- hist_dist_table(3001)
  d$x[is.na(d$x)] <- NaN
  path <- local_test_file(fileext = ".csv")
  utils::write.csv(d, path, row.names = FALSE, na = "NaN")  # (read as NaN)
  spec <- csv_record_spec(path)
  cols <- feature_columns(column_numeric("x", "z"),
                          column_categorical_with_vocabulary_list("c", vocabulary_list = letters[1:6]))
  for (g in c("depthwise", "lossguide")) {
    make <- function() {
      suppressMessages(boosted_trees_regressor(cols, growth = g, n_trees = 3, max_depth = 4, max_leaves = 10,
                                               subsample = 0.9))
    }
    input <- input_fn(text_line_dataset(path, spec), features = c(x, z, c), response = y)
    alone <- make()
    train(alone, input)
    # each worker reads every other row of the file (dataset_shard())
    across <- make()
    train(across, input, cluster = cl)
    a <- hist_variables(alone)
    expect_true(length(a[["boosted_trees/node_feature"]]) > 6)
    expect_same_trees(a, hist_variables(across))
    # and the trees of the data frame
    frame <- make()
    train(frame, d, response = "y")
    expect_same_trees(a, hist_variables(frame))
  }
})
