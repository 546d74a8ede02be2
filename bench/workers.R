# Several fits at once on the machine's 2 cores, against the same fits one
# after another:
# - four DNN fits (hidden units 64 and 64, 20,000 rows x 10 numeric
#   columns, batch 1,000, 200 steps) in parallel::mclapply(mc.cores = 2)
#   children, after this process trained once with its 2 threads (so the
#   children are forked from a process whose threads exist), against the
#   four fits in this process at its default of 2 threads;
# - tune_grid() of the tidymodels vignette's task (boosted trees on mtcars,
#   4 candidates x 3 folds) with future::plan(multisession, workers = 2),
#   against future::plan(sequential). The workers are started, and one
#   tune_grid() run, before the timed runs.
# Prints a markdown table: median seconds of 3 runs each.
suppressPackageStartupMessages(library(cppestimators))
options(cppestimators.progress = FALSE)
quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                    save_checkpoints_steps = NULL, save_checkpoints_secs = NULL)
set.seed(1)
x <- matrix(stats::rnorm(20000 * 10), 20000, 10, dimnames = list(NULL, paste0("x", 1:10)))
d <- as.data.frame(x)
d$y <- x %*% stats::rnorm(10) + stats::rnorm(20000)
fit <- function(i) {
  est <- dnn_regressor(c(64, 64), feature_columns(column_numeric(starts_with("x")), names = d),
                       config = quiet)
  suppressMessages(train(est, input_fn(d, response = "y", batch_size = 1000L, num_epochs = NULL), steps = 200L))
  i
}
invisible(fit(0))  # this process's threads exist from here on
med <- function(f) stats::median(vapply(1:3, function(i) system.time(f())[["elapsed"]], 0))
rows <- data.frame(
  task = "4 DNN fits", how = c("one after another (2 threads each)", "mclapply, 2 forked children"),
  seconds = c(med(function() lapply(1:4, fit)),
              med(function() parallel::mclapply(1:4, fit, mc.cores = 2))))

have_tune <- all(vapply(c("tune", "workflows", "parsnip", "rsample", "future"), requireNamespace, TRUE,
                        quietly = TRUE))
if (have_tune) {
  suppressPackageStartupMessages({
    library(parsnip)
    library(tune)
  })
  spec <- parsnip::set_mode(parsnip::set_engine(
    parsnip::boost_tree(trees = tune(), learn_rate = tune(), tree_depth = 3), "cppestimators"), "regression")
  wf <- workflows::workflow(mpg ~ ., spec)
  grid <- expand.grid(trees = c(10L, 40L), learn_rate = c(0.05, 0.3))
  folds <- rsample::vfold_cv(mtcars, v = 3)
  tune_once <- function() suppressMessages(tune_grid(wf, resamples = folds, grid = grid))
  timed_plan <- function(...) {
    future::plan(...)
    invisible(tune_once())
    med(tune_once)
  }
  rows <- rbind(rows, data.frame(
    task = "tune_grid(), 12 fits", how = c("plan(sequential)", "plan(multisession, workers = 2)"),
    seconds = c(timed_plan(future::sequential), timed_plan(future::multisession, workers = 2))))
  future::plan(future::sequential)
}
cat("| task | how | seconds |\n|---|---|---:|\n")
cat(sprintf("| %s | %s | %.2f |\n", rows$task, rows$how, rows$seconds), sep = "")
