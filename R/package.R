#' cppestimators: TensorFlow-style estimators and session hooks in native C++
#'
#' Trains linear, DNN, wide & deep and boosted trees estimators with the API of the `tfestimators` package, without
#' TensorFlow or Python: the training loop, the input pipeline and the built-in
#' hooks run in C++ (Rcpp and RcppEigen); custom hooks are R closures called by
#' that loop. Scripts written for `tfestimators` run with
#' `library(cppestimators)` in place of `library(tfestimators)`.
#'
#' @section Where to start:
#' The vignettes teach the package step by step (`browseVignettes("cppestimators")`):
#' * `vignette("getting-started", package = "cppestimators")`: from data to a
#'   trained, evaluated, saved and reloaded model;
#' * `vignette("hooks", package = "cppestimators")`: session run hooks, built-in
#'   and written in R, their order, errors and stopping;
#' * `vignette("feature-columns", package = "cppestimators")`: every feature
#'   column on one data set, column selection and input functions;
#' * `vignette("evaluation", package = "cppestimators")`: evaluation during
#'   training, early stopping, summaries and TensorBoard;
#' * `vignette("estimators", package = "cppestimators")`: linear, DNN, wide &
#'   deep and boosted trees estimators side by side;
#' * `vignette("from-tfestimators", package = "cppestimators")`: what changes for
#'   scripts written for tfestimators, and the speed;
#' * `vignette("tidymodels", package = "cppestimators")`: the estimators as
#'   parsnip engines, in workflows with recipes, resampled and tuned.
#'
#' The shortest path from a data frame needs neither columns nor input
#' functions written by hand: [feature_columns_from_data()] reads them off the
#' data, and [train()], [evaluate()] and [predict.tf_estimator()] take the
#' data frame itself (`predict(type = )` gives parsnip's `.pred*` columns).
#'
#' The reference is grouped in families: estimators ([linear_regressor()],
#' [dnn_classifier()], [boosted_trees_classifier()], [run_config()], ...),
#' estimator methods ([train()], [evaluate()], [predict.tf_estimator()], ...),
#' feature columns ([feature_columns()], [column_numeric()],
#' [feature_columns_from_data()], ...), input
#' functions ([input_fn()]), hooks ([session_run_hook()], [hook_progress_bar()],
#' ...), training history ([training_history]) and summaries
#' ([read_summaries()], [tensorboard()]).
#'
#' @section Options:
#' * `cppestimators.threads`: threads the engine may use: a whole number,
#'   or `"auto"` for the cores `parallelly::availableCores()` counts (2
#'   without 'parallelly'). Unset, it is 1 inside a worker of a parallel
#'   computation (a child made by `fork()` as in `parallel::mclapply()`,
#'   future's `multicore` and doMC; a socket cluster's worker as made by
#'   `parallel::makePSOCKcluster()`, 'parallelly', future's `multisession`
#'   and doParallel; a 'callr' child), where the other workers already use
#'   the cores, and 2 elsewhere (CRAN's limit). Set it inside the workers to
#'   use more there. Large batches split the models' products and the CSV
#'   parser's records over the threads; the pieces are shared out as threads
#'   come free, so a thread slowed by other work on the machine holds the
#'   others back by one piece at most, and idle threads sleep. Runs with the
#'   same seed, data and thread count give identical results, and other
#'   thread counts add the same products in another order.
#' * `cppestimators.simd`: the matrix-product kernel of the DNN models'
#'   dense layers: `"auto"` (default: the widest this CPU runs), `"avx512"`,
#'   `"avx2"` (with FMA) or `"portable"` (Eigen, R's baseline instruction
#'   set). Kernels are chosen at run time, so one build runs on every x86-64
#'   CPU; asking for one the CPU lacks is an error. Results are bit-identical
#'   for the same kernel and thread count; different kernels round
#'   differently (fused multiply-adds), so their results differ in the last
#'   bits.
#' * `cppestimators.cache_bytes`: the memory budget of the cached float32
#'   block of an input's numeric columns (default 1 GiB; 0 turns the cache
#'   off). See [input_fn()].
#' * `cppestimators.verbose`: TensorFlow's INFO lines for `train()`'s own
#'   hooks (default `FALSE`).
#' * `cppestimators.progress`: `FALSE` silences progress bars (default
#'   `TRUE`). Bars, like every message of the package, go to stderr.
#' * `cppestimators.cluster_timeout`: seconds the chief of a training on a
#'   socket cluster waits for a worker's answer before it stops `train()`
#'   with an error naming the worker (default 8).
#'
#' @section Conditions:
#' Every error the package raises has the class `cppestimators_error`
#' (errors of the C++ engine included), so `tryCatch(..., cppestimators_error
#' = function(e) ...)` catches them. An error inside a hook has the class
#' `cppestimators_hook_error` too, with fields `hook` (its position), `phase`
#' and `parent` (the original condition). Training across processes
#' (`train()`'s `cluster`) fails with `cppestimators_cluster_error`, and one
#' of `cppestimators_cluster_lost` (a worker's connection closed),
#' `cppestimators_cluster_timeout` (a worker did not answer within
#' `options(cppestimators.cluster_timeout)` seconds, default 8),
#' `cppestimators_cluster_version` (a worker lacks the package or has
#' another version) or `cppestimators_cluster_worker_error` (an error on a
#' worker, its message included).
#'
#' @section Model directories:
#' `train()` records what defines the model (kind, structure, head, feature
#' columns) in `cppestimators_model.txt` in the model directory and refuses
#' an estimator whose model differs, listing the differences; it holds an
#' advisory lock (`.cppestimators.lock`, with the process id and host) for
#' its duration, so a second training of the same directory waits for the
#' first, up to `run_config(lock_timeout_secs =)`, then fails with the
#' holder's name (a lock left by a dead process of this host is taken over);
#' once it holds the lock it restores what the other training saved. The
#' lock is fair: processes waiting for it queue (a ticket each in
#' `.cppestimators.lock.queue`) and take it in the order they came, so a
#' process calling `train()` in a loop cannot take it back before one that
#' waits. It
#' removes temporary files of saves interrupted by a crash. Errors writing the
#' directory (a full disk, a read-only file system) have the class
#' `cppestimators_file_error`, name the file and the OS's reason, and say
#' which checkpoint the directory kept.
#'
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = c("drat", "cyl"), batch_size = 8L)
#' lr <- linear_regressor(feature_columns = fcs) %>%
#'   train(input_fn = input, steps = 2)
#' @keywords internal
#' @useDynLib cppestimators, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom stats predict
#' @importFrom graphics plot
#' @importFrom rlang .data
#' @importFrom utils str
"_PACKAGE"

#' Pipe operator
#'
#' Re-exported from magrittr, so that `estimator %>% train(...)` works.
#'
#' @name %>%
#' @rdname pipe
#' @keywords internal
#' @export
#' @importFrom magrittr %>%
#' @usage lhs \%>\% rhs
#' @param lhs A value or the magrittr placeholder.
#' @param rhs A function call using the magrittr semantics.
#' @return The result of calling `rhs(lhs)`.
#' @examples
#' c(1, 4, 9) %>% sqrt()
NULL

.onLoad <- function(libname, pkgname) {
  register_parsnip_on_load()  # parsnip engines "cppestimators" (R/parsnip.R)
  register_explainers_on_load()  # shapviz::shapviz() and treeshap::unify() of estimators (R/explain.R)
}
