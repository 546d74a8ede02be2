# Training across processes: a 2-worker socket cluster on this machine (and
# MPI under mpirun, when Open MPI and Rmpi are installed).

local_cluster <- function(n = 2, env = parent.frame()) {
  cl <- parallel::makePSOCKcluster(n)
  withr::defer(try(parallel::stopCluster(cl), silent = TRUE), envir = env)
  cl
}

dist_table <- function(n = 240) {
  set.seed(11)
  d <- data.frame(x = rnorm(n), z = runif(n), c = sample(c("a", "b", "c", "d"), n, TRUE),
                  stringsAsFactors = FALSE)
  d$y <- 2 * d$x - d$z + (d$c == "b") + rnorm(n, sd = 0.1)
  d$label <- as.integer(d$y > 0.5)
  d
}

dist_columns <- function() {
  c_column <- column_categorical_with_vocabulary_list("c", vocabulary_list = c("a", "b", "c", "d"))
  feature_columns(column_numeric("x", "z"), column_indicator(c_column))
}

# Every variable of the estimator, by name.
all_variables <- function(est) {
  names <- setdiff(variable_names(est), "global_step")
  stats::setNames(lapply(names, function(v) as.numeric(unlist(variable_value(est, v)))), names)
}

# The largest difference of two estimators' values, relative to the
# largest magnitude of the variable it is in (float32 rounding of sums taken
# in another order: a value near zero differs relatively more).
max_relative_difference <- function(a, b) {
  worst <- 0
  for (v in names(a)) {
    m <- max(abs(a[[v]]), abs(b[[v]]))
    if (m > 0) worst <- max(worst, max(abs(a[[v]] - b[[v]])) / m)
  }
  worst
}

test_that("2 workers of batch b train as one process of batch 2b: linear, DNN, wide & deep, trees", {
  skip_on_cran()
  cl <- local_cluster()
  d <- dist_table()
  make <- list(
    linear = function() linear_regressor(feature_columns = dist_columns(), config = run_config(tf_random_seed = 1)),
    dnn = function() {
      dnn_regressor(hidden_units = c(6, 3), feature_columns = dist_columns(), config = run_config(tf_random_seed = 2))
    },
    wide_deep = function() {
      dnn_linear_combined_regressor(linear_feature_columns = feature_columns(column_numeric("x")),
                                    dnn_feature_columns = feature_columns(column_numeric("z")), dnn_hidden_units = 4,
                                    config = run_config(tf_random_seed = 3))
    }
  )
  for (kind in names(make)) {
    # worker i holds rows i, i + 2, ...: its batch k and the other's are one
    # process's batch k of 2b rows, in order
    alone <- make[[kind]]()
    train(alone, d, response = "y", batch_size = 16L, num_epochs = 2, shuffle = FALSE)
    across <- make[[kind]]()
    h <- train(across, d, response = "y", batch_size = 8L, num_epochs = 2, shuffle = FALSE, cluster = cl)
    expect_equal(cpp_estimator_global_step(cppestimators:::estimator_ptr(across)), 30)
    expect_equal(max(h$step), 30)
    expect_lte(max_relative_difference(all_variables(across), all_variables(alone)), 1e-5)
  }
  # boosted trees over bucketized columns: whole shards per layer grow the
  # trees of one process over every row
  cols <- feature_columns(column_bucketized(column_numeric("x"), boundaries = c(-1, 0, 1)),
                          column_bucketized(column_numeric("z"), boundaries = c(0.25, 0.5, 0.75)))
  alone <- boosted_trees_classifier(cols, n_batches_per_layer = 1, n_trees = 3, max_depth = 2)
  train(alone, input_fn(d, features = c("x", "z"), response = "label", batch_size = 240L, num_epochs = NULL,
                        shuffle = FALSE))
  across <- boosted_trees_classifier(cols, n_batches_per_layer = 1, n_trees = 3, max_depth = 2)
  train(across, input_fn(d, features = c("x", "z"), response = "label", batch_size = 120L, num_epochs = NULL,
                         shuffle = FALSE), cluster = cl)
  a <- all_variables(alone)
  b <- all_variables(across)
  expect_identical(b[["boosted_trees/tree_feature"]], a[["boosted_trees/tree_feature"]])
  expect_identical(b[["boosted_trees/tree_threshold"]], a[["boosted_trees/tree_threshold"]])
  expect_lte(max_relative_difference(b["boosted_trees/tree_value"], a["boosted_trees/tree_value"]), 1e-5)
})

test_that("the chief alone runs the hooks: the seed's examples, history and loss are global", {
  skip_on_cran()
  cl <- local_cluster()
  fcs <- feature_columns(column_numeric("drat"))
  # (repeated: each worker holds 16 of mtcars' rows, 2 batches an epoch)
  input <- input_fn(mtcars, response = "mpg", features = c("drat", "cyl"), batch_size = 8L, num_epochs = NULL)
  # example 1
  lr <- linear_regressor(feature_columns = fcs) %>%
    train(input_fn = input, steps = 2, hooks = list(hook_progress_bar()), cluster = cl)
  expect_equal(lr$params$steps, 2)
  # example 2
  h <- train(linear_regressor(feature_columns = fcs), input_fn = input, steps = 4,
             hooks = list(hook_history_saver(every_n_step = 2)), cluster = cl)
  expect_equal(h$step, c(2, 4))
  # every worker's batch of 8: the totals are of 16 examples
  expect_equal(h$losses$total_losses, 16 * h$losses$mean_losses, tolerance = 1e-6)
  # example 3, counting its calls here and on the workers
  calls <- 0
  seen <- NULL
  hook <- session_run_hook(
    before_run = function(context) session_run_args(losses = context$session$graph$get_collection("losses")),
    after_run = function(context, values) {
      calls <<- calls + 1
      print(paste0("Running step: ", calls))
      seen <<- c(seen, length(values$results$losses[[1]]))
    }
  )
  expect_output(train(linear_regressor(feature_columns = fcs), input_fn = input, steps = 4, hooks = list(hook),
                      cluster = cl), "Running step: 4")
  expect_equal(calls, 4)
  expect_equal(seen, rep(16, 4))  # the round's per-example losses: both workers' batches
  on_workers <- unlist(parallel::clusterEvalQ(cl, exists("calls", envir = globalenv())))
  expect_identical(on_workers, c(FALSE, FALSE))
  # per-batch tensors the chief does not hold are an error saying so
  logits_hook <- session_run_hook(before_run = function(context) session_run_args(l = tensor("logits")),
                                  after_run = function(context, values) values$results$l)
  expect_error(train(linear_regressor(feature_columns = fcs), input_fn = input, steps = 1,
                     hooks = list(logits_hook), cluster = cl),
               "not available on a socket cluster's chief")
})

test_that("evaluation during training, early stopping, checkpoints and resuming with other workers", {
  skip_on_cran()
  cl <- local_cluster()
  d <- dist_table()
  dir <- withr::local_tempfile()
  est <- linear_regressor(feature_columns = dist_columns(), model_dir = dir,
                          config = run_config(save_checkpoints_steps = 5))
  evaluator <- hook_in_memory_evaluator(est, input_fn(d, features = c("x", "z", "c"), response = "y"),
                                        every_n_iter = 5)
  stopper <- hook_stop_if_lower(est, "loss", threshold = 1e9, min_steps = 5)
  h <- train(est, d, response = "y", batch_size = 8L, num_epochs = 20, cluster = cl,
             hooks = list(evaluator, stopper))
  # stopped at the first evaluation (step 5), by the chief's decision, on every rank
  expect_equal(max(h$step), 5)
  ev <- as.data.frame(h)
  expect_equal(sort(unique(ev$step[ev$metric == "eval_loss"])), c(0, 5))
  expect_equal(cppestimators:::checkpoint_step(latest_checkpoint(est)), 5)
  # a new estimator on the same model_dir, on 1 worker (CRAN's checks allow
  # 2 processes), resumes from the checkpoint
  saved <- cppestimators:::checkpoint_step(latest_checkpoint(est))
  cl1 <- local_cluster(1)
  est2 <- linear_regressor(feature_columns = dist_columns(), model_dir = dir)
  h2 <- train(est2, d, response = "y", batch_size = 8L, steps = 4, cluster = cl1)
  expect_equal(max(h2$step), saved + 4)
})

test_that("a worker that dies or stops answering stops train() with an error naming it; resuming works", {
  skip_on_cran()
  skip_on_os("windows")
  d <- dist_table(400)
  for (how in c("dies", "stops answering")) {
    cl <- local_cluster()
    pids <- unlist(parallel::clusterEvalQ(cl, Sys.getpid()))
    dir <- withr::local_tempfile()
    est <- linear_regressor(feature_columns = dist_columns(), model_dir = dir,
                            config = run_config(save_checkpoints_steps = 5))
    steps <- 0
    fault <- session_run_hook(after_run = function(context, values) {
      steps <<- steps + 1
      if (steps == 12) tools::pskill(pids[2], if (how == "dies") tools::SIGKILL else tools::SIGSTOP)
    })
    withr::local_options(cppestimators.cluster_timeout = 3)
    t0 <- Sys.time()
    err <- expect_error(train(est, d, response = "y", batch_size = 10L, num_epochs = 50, cluster = cl,
                              hooks = list(fault)), class = "cppestimators_cluster_error")
    # a guard against a hang only (a busy machine may be slow): the option's
    # 3 s is what the message names
    expect_lt(as.numeric(difftime(Sys.time(), t0, units = "secs")), 300)
    expect_match(conditionMessage(err), "worker 2 (localhost)", fixed = TRUE)
    if (how == "dies") expect_s3_class(err, "cppestimators_cluster_lost") else
      expect_s3_class(err, "cppestimators_cluster_timeout")
    if (how != "dies") expect_match(conditionMessage(err), "did not answer within 3 seconds", fixed = TRUE)
    if (how != "dies") tools::pskill(pids[2], tools::SIGKILL)
    # the chief's last checkpoint is intact and the lock released: a new
    # estimator resumes from it on a new cluster
    expect_equal(cppestimators:::checkpoint_step(latest_checkpoint(est)), 10)
    expect_true(dir.exists(dir))
    expect_false(file.exists(file.path(dir, ".cppestimators.lock")))
    cl2 <- local_cluster(2)
    est2 <- linear_regressor(feature_columns = dist_columns(), model_dir = dir)
    h <- train(est2, d, response = "y", batch_size = 10L, steps = 3, cluster = cl2)
    expect_equal(max(h$step), 13)
  }
})

test_that("workers without the package, or with another version, are refused before training", {
  skip_on_cran()
  skip_on_os("windows")
  fake <- withr::local_tempdir()
  dir.create(file.path(fake, "cppestimators"))
  writeLines(c("Package: cppestimators", "Version: 0.0.0.9", "Title: fake", "Built: R 4.2.0; ; 2020-01-01; unix"),
             file.path(fake, "cppestimators", "DESCRIPTION"))
  empty <- withr::local_tempdir()
  d <- dist_table(40)
  # a worker whose library paths hold the fake (or nothing of this package)
  for (lib in c(fake, empty)) {
    cl <- parallel::makePSOCKcluster(1, rscript = "/usr/bin/env", methods = FALSE,
                                     rscript_args = c(paste0("R_LIBS=", lib), "R_LIBS_USER=/nonexistent",
                                                      "R_LIBS_SITE=/nonexistent", file.path(R.home("bin"), "Rscript")))
    est <- linear_regressor(feature_columns = dist_columns())
    err <- expect_error(train(est, d, response = "y", cluster = cl), class = "cppestimators_cluster_version")
    expect_match(conditionMessage(err), "worker 1 (localhost)", fixed = TRUE)
    if (lib == fake) {
      expect_match(conditionMessage(err), sprintf("has cppestimators 0.0.0.9, this session %s",
                                                  utils::packageVersion("cppestimators")), fixed = TRUE)
    } else {
      # (a copy of the package elsewhere in the worker's library paths may
      # be found but not load, its dependencies out of reach)
      expect_match(conditionMessage(err),
                   "does not have the cppestimators package installed|cannot load the cppestimators package")
    }
    expect_equal(cpp_estimator_global_step(cppestimators:::estimator_ptr(est)), 0)
    parallel::stopCluster(cl)
  }
})

test_that("bad cluster arguments are errors naming the argument", {
  est <- linear_regressor(feature_columns = dist_columns())
  expect_error(train(est, dist_table(), response = "y", cluster = 2), "`cluster` must be NULL, a socket cluster",
               class = "cppestimators_cluster_error")
  expect_error(run_config(cluster = "sockets"), "`cluster` must be NULL")
  cfg <- run_config(cluster = "mpi")
  expect_identical(cfg$cluster, "mpi")
})

test_that("under mpirun -np 2, two ranks train as one process of twice the batch", {
  skip_on_cran()
  mpirun <- Sys.which("mpirun")
  if (!nzchar(mpirun)) skip("Open MPI's mpirun is not installed")
  # (asked without loading it: Rmpi starts MPI in the process that loads it,
  # and an mpirun started from an MPI process fails)
  if (!nzchar(system.file(package = "Rmpi"))) skip("Rmpi is not installed")
  out <- withr::local_tempdir()
  script <- file.path(out, "train.R")
  writeLines(c(
    "suppressMessages(library(cppestimators))",
    "d <- read.csv(Sys.getenv('DATA'))",
    "fcs <- feature_columns(column_numeric('x', 'z'))",
    "est <- linear_regressor(feature_columns = fcs, model_dir = file.path(Sys.getenv('OUT'), 'model'),",
    "                        config = run_config(tf_random_seed = 1, cluster = 'mpi'))",
    "calls <- 0",
    "hook <- session_run_hook(after_run = function(context, values) calls <<- calls + 1)",
    "h <- train(est, d, response = 'y', batch_size = 8L, num_epochs = 2, shuffle = FALSE, hooks = list(hook))",
    "rank <- Rmpi::mpi.comm.rank(0)",
    "dnn <- dnn_regressor(c(5, 3), fcs, config = run_config(tf_random_seed = 2, cluster = 'mpi'))",
    "train(dnn, d, response = 'y', batch_size = 8L, num_epochs = 2, shuffle = FALSE)",
    "bx <- feature_columns(column_bucketized(column_numeric('x'), boundaries = c(-1, 0, 1)),",
    "                      column_bucketized(column_numeric('z'), boundaries = c(0.25, 0.5, 0.75)))",
    "trees <- boosted_trees_regressor(bx, n_batches_per_layer = 1, n_trees = 3, max_depth = 2,",
    "                                 config = run_config(cluster = 'mpi'))",
    "train(trees, input_fn(d, features = c('x', 'z'), response = 'y', batch_size = nrow(d) / 2,",
    "                      num_epochs = NULL, shuffle = FALSE))",
    "values <- function(e) lapply(setNames(nm = setdiff(variable_names(e), 'global_step')),",
    "                             function(v) as.numeric(unlist(variable_value(e, v))))",
    "saveRDS(list(calls = calls, step = cppestimators:::cpp_estimator_global_step(cppestimators:::estimator_ptr(est)),",
    "             w = variable_value(est, 'linear/linear_model/x/weights'), dnn = values(dnn),",
    "             trees = values(trees)),",
    "        file.path(Sys.getenv('OUT'), paste0('rank', rank, '.rds')))",
    "invisible(Rmpi::mpi.finalize())"
  ), script)
  d <- dist_table()
  utils::write.csv(d[c("x", "z", "y")], file.path(out, "d.csv"), row.names = FALSE)
  session <- tempfile("om", tmpdir = if (dir.exists("/tmp")) "/tmp" else tempdir())
  dir.create(session)
  withr::defer(unlink(session, recursive = TRUE))
  status <- system2(mpirun, c("--oversubscribe", "-np", "2", file.path(R.home("bin"), "Rscript"), script),
                    # (Open MPI's session files in a directory of this test, removed
                    # after it; a short path, as Open MPI falls back to /tmp when the
                    # path is too long for its sockets)
                    env = c(paste0("DATA=", file.path(out, "d.csv")), paste0("OUT=", out),
                            paste0("TMPDIR=", session), paste0("OMPI_MCA_orte_tmpdir_base=", session),
                            "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"),
                    stdout = file.path(out, "mpirun.log"), stderr = file.path(out, "mpirun.log"))
  if (status != 0) cat(readLines(file.path(out, "mpirun.log")), sep = "\n")
  expect_equal(status, 0)
  r0 <- readRDS(file.path(out, "rank0.rds"))
  r1 <- readRDS(file.path(out, "rank1.rds"))
  expect_equal(r0$step, 30)
  expect_equal(r1$step, 30)
  expect_equal(r0$calls, 30)  # the chief's hooks ...
  expect_equal(r1$calls, 0)   # ... and none on rank 1
  expect_identical(r0$w, r1$w)
  expect_true(file.exists(file.path(out, "model", "checkpoint")))
  alone <- linear_regressor(feature_columns = feature_columns(column_numeric("x", "z")),
                            config = run_config(tf_random_seed = 1))
  dd <- utils::read.csv(file.path(out, "d.csv"))
  train(alone, dd, response = "y", batch_size = 16L, num_epochs = 2, shuffle = FALSE)
  expect_equal(r0$w, variable_value(alone, "linear/linear_model/x/weights"), tolerance = 1e-5)
  # a DNN, and trees over bucketized columns (whole shards a layer)
  expect_identical(r0$dnn, r1$dnn)
  dnn <- dnn_regressor(c(5, 3), feature_columns(column_numeric("x", "z")), config = run_config(tf_random_seed = 2))
  train(dnn, dd, response = "y", batch_size = 16L, num_epochs = 2, shuffle = FALSE)
  expect_lte(max_relative_difference(r0$dnn, all_variables(dnn)), 1e-5)
  expect_identical(r0$trees, r1$trees)
  bx <- feature_columns(column_bucketized(column_numeric("x"), boundaries = c(-1, 0, 1)),
                        column_bucketized(column_numeric("z"), boundaries = c(0.25, 0.5, 0.75)))
  trees <- boosted_trees_regressor(bx, n_batches_per_layer = 1, n_trees = 3, max_depth = 2)
  train(trees, input_fn(dd, features = c("x", "z"), response = "y", batch_size = nrow(dd), num_epochs = NULL,
                        shuffle = FALSE))
  tv <- all_variables(trees)
  expect_identical(r0$trees[["boosted_trees/tree_feature"]], tv[["boosted_trees/tree_feature"]])
  expect_identical(r0$trees[["boosted_trees/tree_threshold"]], tv[["boosted_trees/tree_threshold"]])
  expect_lte(max_relative_difference(r0$trees["boosted_trees/tree_value"], tv["boosted_trees/tree_value"]), 1e-5)
})

test_that("dataset_shard() keeps every num_shards-th record, and workers read their own shard of files", {
  d <- data.frame(x = 1:10, y = (1:10) %% 2)
  path <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(d, path, row.names = FALSE)
  ds <- text_line_dataset(path, csv_record_spec(path))
  expect_equal(dataset_collect(dataset_shard(ds, 3, 0))$x, c(1, 4, 7, 10))
  expect_equal(dataset_collect(dataset_shard(ds, 3, 2))$x, c(3, 6, 9))
  expect_equal(dataset_collect(dataset_batch(dataset_shard(ds, 2, 1), 2))$x, c(2, 4, 6, 8, 10))
  expect_error(dataset_shard(ds, 2, 2), "`index` must be less than `num_shards` \\(2\\), not 2")
  expect_error(dataset_shard(ds, 0, 0), "num_shards")
  expect_error(dataset_shard(ds, 2), "`index` is missing")
  expect_error(dataset_collect(dataset_shard(dataset_batch(ds, 2), 2, 0)), "apply it to the rows")
  skip_on_cran()
  cl <- local_cluster()
  big <- dist_table(600)[c("x", "z", "y")]
  file <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(big, file, row.names = FALSE)
  files <- text_line_dataset(file, csv_record_spec(file))
  fcs <- feature_columns(column_numeric("x", "z"))
  across <- linear_regressor(feature_columns = fcs, config = run_config(tf_random_seed = 1))
  h <- train(across, input_fn(dataset_batch(files, 10), features = c("x", "z"), response = "y"), cluster = cl)
  expect_equal(max(h$step), 30)
  alone <- linear_regressor(feature_columns = fcs, config = run_config(tf_random_seed = 1))
  train(alone, input_fn(big, features = c("x", "z"), response = "y", batch_size = 20L, shuffle = FALSE))
  expect_lte(max_relative_difference(all_variables(across), all_variables(alone)), 1e-5)
})
