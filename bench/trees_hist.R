# Boosted trees grown from histograms (issue 53): our growth = "depthwise"
# and growth = "lossguide" against xgboost's tree_method = "hist" and
# LightGBM, on the tasks below, each fit in a process of its own.
#
#   Rscript bench/trees_hist.R               every task of the plan: one
#                                            child process per (task, engine);
#                                            prints a CSV table
#   Rscript bench/trees_hist.R TASK ENGINE   one fit in this process; prints
#                                            one CSV row (no header)
#
# Engines: ours_depthwise, ours_lossguide, xgboost, lightgbm (and
# ours_csv: the wide task streamed from a CSV file, opt-in; ours_tensorflow:
# TensorFlow's growth, for the memory of deep trees).
# Columns of the output: task, engine, trees, fit_s (wall seconds of the fit
# alone; for lending_club the mean over its 5 splits), metric (auc or rmse),
# value (held out; lending_club: the mean over the splits), data_mb (the
# process's resident memory just before the fit: R, the packages and the
# data the engine trains from), peak_mb (the most resident memory during the
# fit, data included: VmHWM, reset just before the fit by writing 5 to
# /proc/self/clear_refs), note (why a row has no figures).
#
# Tasks (bench/trees_data.R makes the synthetic tables):
#   gbmperf        GBM-perf's airline shape, 1M rows (test: 100k), 100 trees,
#                  depth 10 (lossguide: 512 leaves, no depth limit), lr 0.1
#   higgs          HIGGS' shape, 1M x 28 (test: 100k), 100 trees, depth 6
#                  (lossguide: 64 leaves, no depth limit), lr 0.1
#   uniform        bench/trees.R's 1e6 x 20 uniform task (its training rows;
#                  test: the next 100k rows of its stream), 100 trees, depth 6
#   flights        bench/trees.R's flights (327,346 rows), 80/20 random split,
#                  50 trees, depth 6
#   chicago_d15    memory: modeldata's Chicago, its first 5,000 rows (in time
#                  order), ridership ~ every other column but date, 20 trees
#                  of depth 15, lr 0.1 (RMSE on the 698 later rows)
#   chicago_2000   the same rows, 2000 trees of depth 15
#   lending_club   modeldata's lending_club, Class ~ ., 5 splits 80/20
#                  stratified by Class (seeds 1..5), 200 trees, depth 4
#                  (lossguide and LightGBM: 16 leaves, depth 4), lr 0.1
#   chicago        Chicago, all 5,698 rows, the last 20% in time order held
#                  out, 200 trees, depth 6 (lossguide and LightGBM: 64
#                  leaves, depth 6), lr 0.1
#   wide           opt-in (BENCH_TREES_WIDE=1, about 10 GB): 15M x 22 (5
#                  factors, 17 numeric), 5 trees of depth 6 (LightGBM: 64
#                  leaves, depth 6); BENCH_TREES_WIDE_ROWS sets the rows;
#                  BENCH_TREES_WIDE_CSV=1 adds ours trained from a CSV file of
#                  the same rows (written first, not timed)
#
# Settings shared by every engine: learning rate 0.1; L2 regularization 1
# (xgboost's lambda, LightGBM's lambda_l2, our l2_regularization) and a
# minimum hessian sum of 1 per child (min_child_weight, min_sum_hessian_in_leaf,
# min_node_weight): xgboost's defaults and those of our new growths; no L1,
# no minimum gain; 256 bins (LightGBM 255); every model starts from the
# label's mean (xgboost's base_score set to it, as xgboost >= 2.0 does by
# itself). LightGBM keeps its other defaults (min_data_in_leaf = 20 and the
# smoothing of categorical splits).
# Threads: BENCH_TREES_THREADS (2) for all.
#
# What each engine reads, prepared before the timed fit (not timed):
# - ours: the data frame, with factors (feature_columns_from_data(dense =
#   TRUE, embedding_above = Inf): numeric columns and indicator columns,
#   which the new growths split as category sets); the fit is train(est, df);
# - xgboost: as GBM-perf does, the factors one-hot through
#   Matrix::sparse.model.matrix(~ . - 1) (a dgCMatrix: the numeric columns'
#   zeros are absent, that is missing, there), a dense matrix when there is
#   no factor; for the wide task a one-hot dgCMatrix built in place, column
#   by column (sparse.model.matrix needs several copies of 15M rows); the
#   timed fit is xgb.DMatrix() + xgb.train(), with the data frame already
#   dropped;
# - LightGBM: a dense matrix with the factors' integer codes, given as
#   categorical_feature; the timed fit is lgb.Dataset() + lgb.train() (the
#   dataset, binning included, is built inside lgb.train()).
#
# BENCH_TREES_TASKS and BENCH_TREES_ENGINES (comma lists) restrict the plan;
# BENCH_TREES_TIMEOUT (seconds, 3600) bounds each child process;
# BENCH_TREES_HIST_REPS (1) runs each (task, engine) that many times, in a
# fresh process each, and reports the run with the median fit time.

# ---------------------------------------------------------------------------
script_path <- local({
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) normalizePath(f[1]) else if (file.exists("bench")) "bench/trees_hist.R" else "trees_hist.R"
})
source(file.path(dirname(script_path), "trees_data.R"))
`%||%` <- function(a, b) if (is.null(a)) b else a
threads <- as.integer(Sys.getenv("BENCH_TREES_THREADS", "2"))
wide_rows <- as.numeric(Sys.getenv("BENCH_TREES_WIDE_ROWS", "15e6"))

# kind: "binary" or "regression"; depth: the depth-wise trees' depth;
# leaves, leaf_depth: the loss-guided trees' (and LightGBM's) leaves and
# depth limit (NA: none)
tasks <- list(
  uniform = list(kind = "binary", trees = 100, depth = 6,
                 engines = c("ours_depthwise", "xgboost")),
  flights = list(kind = "binary", trees = 50, depth = 6,
                 engines = c("ours_depthwise", "xgboost")),
  higgs = list(kind = "binary", trees = 100, depth = 6, leaves = 64, leaf_depth = NA,
               engines = c("ours_depthwise", "xgboost", "ours_lossguide", "lightgbm")),
  gbmperf = list(kind = "binary", trees = 100, depth = 10, leaves = 512, leaf_depth = NA,
                 engines = c("ours_depthwise", "xgboost", "ours_lossguide", "lightgbm")),
  chicago_d15 = list(kind = "regression", trees = 20, depth = 15,
                     engines = c("ours_depthwise", "xgboost", "ours_tensorflow")),
  chicago_2000 = list(kind = "regression", trees = 2000, depth = 15,
                      engines = c("ours_depthwise", "xgboost")),
  lending_club = list(kind = "binary", trees = 200, depth = 4, leaves = 16, leaf_depth = 4,
                      engines = c("ours_depthwise", "ours_lossguide", "xgboost", "lightgbm")),
  chicago = list(kind = "regression", trees = 200, depth = 6, leaves = 64, leaf_depth = 6,
                 engines = c("ours_depthwise", "ours_lossguide", "xgboost", "lightgbm")),
  wide = list(kind = "binary", trees = 5, depth = 6, leaves = 64, leaf_depth = 6,
              engines = c("ours_depthwise", "xgboost", "lightgbm", "ours_csv"))
)

# ---------------------------------------------------------------------------
# Data: a list of splits, each list(train, test) of data frames holding the
# features and the response column `response`.
status_mb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}

chicago_table <- function() {
  if (!requireNamespace("modeldata", quietly = TRUE)) stop("modeldata is not installed")
  e <- new.env()
  utils::data("Chicago", package = "modeldata", envir = e)
  d <- as.data.frame(e$Chicago)
  d <- d[order(d$date), , drop = FALSE]
  d$date <- NULL
  rownames(d) <- NULL
  d
}

# Rows for an 80/20 split stratified by the factor y: 80% of each class
# (rounded) trains.
stratified_train_rows <- function(y, seed) {
  set.seed(seed)
  sort(unlist(lapply(split(seq_along(y), y), function(i) i[sample.int(length(i), round(0.8 * length(i)))]),
              use.names = FALSE))
}

load_task <- function(task) {
  switch(task,
    gbmperf = list(response = "dep_delayed_15min",
                   splits = list(list(train = gbmperf_like(1e6, seed = 1), test = gbmperf_like(1e5, seed = 2)))),
    higgs = list(response = "y",
                 splits = list(list(train = higgs_like(1e6, seed = 1), test = higgs_like(1e5, seed = 2)))),
    uniform = {
      set.seed(42)  # bench/trees.R's seed: the same training rows
      tr <- uniform_task(1e6)
      te <- uniform_task(1e5)
      as_df <- function(s) {
        d <- as.data.frame(s$x)
        d$y <- s$y
        d
      }
      list(response = "y", splits = list(list(train = as_df(tr), test = as_df(te))))
    },
    flights = {
      fl <- flights_task()
      if (is.null(fl)) stop("nycflights13 is not installed")
      d <- as.data.frame(fl$x)
      d$y <- fl$y
      set.seed(42)
      tr <- sort(sample.int(nrow(d), round(0.8 * nrow(d))))
      list(response = "y", splits = list(list(train = d[tr, ], test = d[-tr, ])))
    },
    chicago_d15 = , chicago_2000 = {
      d <- chicago_table()
      list(response = "ridership", splits = list(list(train = d[1:5000, ], test = d[-(1:5000), ])))
    },
    chicago = {
      d <- chicago_table()
      cut <- floor(0.8 * nrow(d))
      list(response = "ridership", splits = list(list(train = d[seq_len(cut), ], test = d[-seq_len(cut), ])))
    },
    lending_club = {
      if (!requireNamespace("modeldata", quietly = TRUE)) stop("modeldata is not installed")
      e <- new.env()
      utils::data("lending_club", package = "modeldata", envir = e)
      d <- as.data.frame(e$lending_club)
      list(response = "Class", splits = lapply(1:5, function(s) {
        tr <- stratified_train_rows(d$Class, s)
        list(train = d[tr, ], test = d[-tr, ])
      }))
    },
    wide = list(response = "y",
                splits = list(list(train = wide_table(wide_rows, seed = 1), test = wide_table(1e5, seed = 2)))),
    stop("unknown task ", task))
}

# The 0/1 label of a binary response (a factor's second level is 1), or the
# numeric response.
label_of <- function(y) if (is.factor(y)) as.numeric(as.integer(y) == 2L) else as.numeric(y)

# Rank-based AUC (the Mann-Whitney statistic; ties count one half).
auc <- function(score, y) {
  r <- rank(score)
  n1 <- as.numeric(sum(y == 1))
  n0 <- as.numeric(length(y)) - n1
  (sum(r[y == 1]) - n1 * (n1 + 1) / 2) / (n1 * n0)
}
rmse <- function(pred, y) sqrt(mean((pred - y)^2))

# ---------------------------------------------------------------------------
# Engines: prepare(train, spec, response) -> the input, fit(input) -> model,
# predict(model, test) -> scores (probability of the label 1, or values).

# A one-hot dgCMatrix of a data frame built in place: numeric columns as
# they are (every row stored), each factor as one column per level. For the
# wide table, where sparse.model.matrix() would hold several copies.
onehot_csc <- function(df) {
  loadNamespace("Matrix")
  n <- nrow(df)
  k <- vapply(df, function(x) if (is.factor(x)) nlevels(x) else 1L, 1L)
  nnz <- as.numeric(n) * ncol(df)
  i <- integer(nnz)
  x <- double(nnz)
  p <- integer(sum(k) + 1L)
  col <- 0L
  at <- 0
  for (nm in names(df)) {
    v <- df[[nm]]
    if (is.factor(v)) {
      codes <- as.integer(v)
      ord <- order(codes, method = "radix")
      i[at + seq_len(n)] <- ord - 1L
      x[at + seq_len(n)] <- 1
      counts <- tabulate(codes, nlevels(v))
      p[col + 1L + seq_along(counts)] <- as.integer(at + cumsum(counts))
      col <- col + length(counts)
      rm(codes, ord)
    } else {
      i[at + seq_len(n)] <- seq_len(n) - 1L
      x[at + seq_len(n)] <- as.double(v)
      p[col + 2L] <- as.integer(at + n)
      col <- col + 1L
    }
    at <- at + n
  }
  lv <- unlist(lapply(names(df), function(nm) if (is.factor(df[[nm]])) paste0(nm, levels(df[[nm]])) else nm))
  methods::new("dgCMatrix", i = i, p = p, x = x, Dim = c(as.integer(n), as.integer(sum(k))),
               Dimnames = list(NULL, lv))
}

xgb_matrix <- function(df, task) {
  if (task == "wide") return(onehot_csc(df))
  if (any(vapply(df, is.factor, TRUE))) {
    Matrix::sparse.model.matrix(~ . - 1, data = df)
  } else {
    as.matrix(df)
  }
}

engine_xgboost <- function(spec, task) {
  if (!requireNamespace("xgboost", quietly = TRUE)) stop("xgboost is not installed")
  params <- list(objective = if (spec$kind == "binary") "binary:logistic" else "reg:squarederror",
                 tree_method = "hist", grow_policy = "depthwise", max_depth = spec$depth, eta = 0.1,
                 nthread = threads, max_bin = 256, lambda = 1, alpha = 0, gamma = 0, min_child_weight = 1)
  list(
    prepare = function(train, response) list(x = xgb_matrix(train[setdiff(names(train), response)], task),
                                             y = label_of(train[[response]])),
    fit = function(input) {
      d <- xgboost::xgb.DMatrix(input$x, label = input$y, nthread = threads)
      # the trees start from the label's mean, as ours and LightGBM's
      # (boost_from_average) do and as xgboost >= 2.0 does by itself; 1.7's
      # fixed 0.5 would leave 20 trees of a regression far from the mean
      params$base_score <- min(max(mean(input$y), 1e-6), 1 - 1e-6)
      if (spec$kind == "regression") params$base_score <- mean(input$y)
      xgboost::xgb.train(params, d, nrounds = spec$trees, verbose = 0)
    },
    predict = function(model, test, response) {
      x <- xgb_matrix(test[setdiff(names(test), response)], task)
      stats::predict(model, xgboost::xgb.DMatrix(x, nthread = threads))
    })
}

lgb_matrix <- function(df) {
  x <- matrix(0, nrow(df), ncol(df), dimnames = list(NULL, names(df)))
  for (j in seq_along(df)) x[, j] <- as.numeric(if (is.factor(df[[j]])) as.integer(df[[j]]) else df[[j]])
  x
}

engine_lightgbm <- function(spec, task) {
  if (!requireNamespace("lightgbm", quietly = TRUE)) stop("lightgbm is not installed")
  leaves <- spec$leaves %||% 2^spec$depth
  depth <- if (is.null(spec$leaves)) spec$depth else if (is.na(spec$leaf_depth)) -1L else spec$leaf_depth
  params <- list(objective = if (spec$kind == "binary") "binary" else "regression",
                 num_leaves = as.integer(leaves), max_depth = as.integer(depth), learning_rate = 0.1,
                 num_threads = threads, lambda_l2 = 1, lambda_l1 = 0, min_gain_to_split = 0,
                 min_sum_hessian_in_leaf = 1, verbose = -1L)
  list(
    prepare = function(train, response) {
      f <- setdiff(names(train), response)
      list(x = lgb_matrix(train[f]), y = label_of(train[[response]]),
           cats = f[vapply(train[f], is.factor, TRUE)])
    },
    fit = function(input) {
      d <- lightgbm::lgb.Dataset(input$x, label = input$y,
                                 categorical_feature = if (length(input$cats)) input$cats,
                                 params = list(max_bin = 255L, verbose = -1L, num_threads = threads))
      lightgbm::lgb.train(params, d, nrounds = spec$trees, verbose = -1L)
    },
    predict = function(model, test, response) stats::predict(model, lgb_matrix(test[setdiff(names(test), response)])))
}

# Ours: boosted_trees_classifier() / _regressor() with the new growths.
# A loss-guided tree without a depth limit is asked for with max_depth = 0,
# as in xgboost's lossguide (change `no_depth_limit` if the API spells it
# otherwise).
no_depth_limit <- 0L
engine_ours <- function(spec, task, growth, from_csv = FALSE) {
  suppressPackageStartupMessages(library(cppestimators))
  if (!"growth" %in% names(formals(boosted_trees_classifier))) {
    stop("this cppestimators has no `growth` argument (the new growths are not installed)")
  }
  options(cppestimators.threads = threads, cppestimators.progress = FALSE)
  quiet <- run_config(save_checkpoints_steps = NULL, save_checkpoints_secs = NULL,
                      save_summary_steps = 0, log_step_count_steps = NULL)
  args <- list(growth = growth, n_trees = spec$trees, learning_rate = 0.1, max_bin = 256,
               l1_regularization = 0, l2_regularization = 1, tree_complexity = 0, min_node_weight = 1,
               config = quiet)
  if (growth == "tensorflow") {
    # TensorFlow's growth: one batch of every row per layer; its own
    # arguments (no max_bin; penalties on its per-layer means' scale, so
    # its defaults: no L2, no minimum node weight)
    args$max_bin <- NULL
    args$l2_regularization <- 0
    args$min_node_weight <- 0
    args$n_batches_per_layer <- 1L
    args$max_depth <- spec$depth
  } else if (growth == "lossguide") {
    args$max_leaves <- spec$leaves
    args$max_depth <- if (is.na(spec$leaf_depth)) no_depth_limit else spec$leaf_depth
  } else {
    args$max_depth <- spec$depth
  }
  make <- if (spec$kind == "binary") boosted_trees_classifier else boosted_trees_regressor
  key <- if (spec$kind == "binary") "logistic" else "predictions"
  list(
    prepare = function(train, response) {
      cols <- feature_columns_from_data(train, response = tidyselect::all_of(response), dense = TRUE,
                                        embedding_above = Inf, standardize = FALSE)
      est <- do.call(make, c(list(feature_columns = cols), args))
      if (!from_csv) return(list(est = est, df = train, response = response))
      path <- file.path(tempdir(), "bench-trees-wide.csv")
      write_wide_csv(path, wide_rows, seed = 1)
      list(est = est, path = path, response = response)
    },
    fit = function(input) {
      if (from_csv) {
        ds <- text_line_dataset(input$path, csv_record_spec(input$path))
        suppressMessages(train(input$est, input_fn(ds, response = input$response, batch_size = 65536L)))
      } else {
        if (growth == "tensorflow") {  # one batch of every row per layer
          suppressMessages(train(input$est, input$df, batch_size = nrow(input$df), shuffle = FALSE))
        } else {
          suppressMessages(train(input$est, input$df))
        }
      }
      input$est
    },
    predict = function(model, test, response) {
      p <- suppressMessages(predict(model, test[setdiff(names(test), response)], predict_keys = key))
      on.exit(unlink(model_dir(model), recursive = TRUE))
      as.numeric(unlist(p[[key]]))
    })
}

make_engine <- function(engine, spec, task) {
  switch(engine,
         ours_depthwise = engine_ours(spec, task, "depthwise"),
         ours_lossguide = engine_ours(spec, task, "lossguide"),
         ours_tensorflow = engine_ours(spec, task, "tensorflow"),
         ours_csv = engine_ours(spec, task, "depthwise", from_csv = TRUE),
         xgboost = engine_xgboost(spec, task),
         lightgbm = engine_lightgbm(spec, task),
         stop("unknown engine ", engine))
}

csv_row <- function(task, engine, trees, fit_s = NA, metric = NA, value = NA, data_mb = NA, peak_mb = NA,
                    note = "") {
  note <- gsub("\"", "'", gsub("[\r\n]+", " ", note))
  sprintf("%s,%s,%d,%s,%s,%s,%s,%s,\"%s\"", task, engine, as.integer(trees),
          format(round(fit_s, 3), nsmall = 3), metric, format(round(value, 6), nsmall = 6),
          format(round(data_mb, 1), nsmall = 1), format(round(peak_mb, 1), nsmall = 1), note)
}
header <- "task,engine,trees,fit_s,metric,value,data_mb,peak_mb,note"

# One fit (or lending_club's five) in this process: its CSV row.
run_one <- function(task, engine) {
  spec <- tasks[[task]]
  metric <- if (spec$kind == "binary") "auc" else "rmse"
  eng <- make_engine(engine, spec, task)
  data <- load_task(task)
  fit_s <- values <- data_mb <- peak_mb <- numeric()
  for (s in seq_along(data$splits)) {
    test <- data$splits[[s]]$test
    input <- eng$prepare(data$splits[[s]]$train, data$response)
    data$splits[[s]] <- list()  # only what the engine reads stays in memory
    invisible(gc())
    data_mb <- c(data_mb, status_mb("VmRSS"))
    # the peak counts from here (where the kernel refuses, from the start)
    try(cat("5", file = "/proc/self/clear_refs"), silent = TRUE)
    t0 <- proc.time()[["elapsed"]]
    model <- eng$fit(input)
    fit_s <- c(fit_s, proc.time()[["elapsed"]] - t0)
    peak_mb <- c(peak_mb, status_mb("VmHWM"))
    rm(input)
    score <- eng$predict(model, test, data$response)
    y <- label_of(test[[data$response]])
    values <- c(values, if (metric == "auc") auc(score, y) else rmse(score, y))
    rm(model, test)
    invisible(gc())
  }
  csv_row(task, engine, spec$trees, mean(fit_s), metric, mean(values), max(data_mb), max(peak_mb))
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 2L) {
  task <- args[1]
  engine <- args[2]
  if (is.null(tasks[[task]])) stop("unknown task ", task)
  row <- tryCatch(run_one(task, engine), error = function(e) {
    csv_row(task, engine, tasks[[task]]$trees, note = conditionMessage(e))
  })
  cat(row, "\n", sep = "")
  quit(save = "no")
}

# The plan: every (task, engine) in a child process of its own.
plan_tasks <- setdiff(names(tasks), if (Sys.getenv("BENCH_TREES_WIDE") != "1") "wide")
if (nzchar(Sys.getenv("BENCH_TREES_TASKS"))) {
  plan_tasks <- intersect(strsplit(Sys.getenv("BENCH_TREES_TASKS"), ",")[[1]], names(tasks))
}
only_engines <- if (nzchar(Sys.getenv("BENCH_TREES_ENGINES"))) strsplit(Sys.getenv("BENCH_TREES_ENGINES"), ",")[[1]]
timeout <- Sys.getenv("BENCH_TREES_TIMEOUT", "3600")
reps <- max(1L, as.integer(Sys.getenv("BENCH_TREES_HIST_REPS", "1")))
rscript <- file.path(R.home("bin"), "Rscript")
cat(header, "\n", sep = "")
for (task in plan_tasks) {
  engines <- tasks[[task]]$engines
  if (task == "wide" && Sys.getenv("BENCH_TREES_WIDE_CSV") != "1") engines <- setdiff(engines, "ours_csv")
  if (!is.null(only_engines)) engines <- intersect(engines, only_engines)
  for (engine in engines) {
    runs <- vapply(seq_len(reps), function(r) {
      err <- tempfile()
      on.exit(unlink(err))
      out <- suppressWarnings(system2("timeout", c(timeout, shQuote(rscript), shQuote(script_path), task, engine),
                                      stdout = TRUE, stderr = err))
      status <- attr(out, "status") %||% 0L
      row <- grep(paste0("^", task, ",", engine, ","), out, value = TRUE)
      if (length(row)) return(row[length(row)])
      why <- if (status == 124L) sprintf("timed out after %s s", timeout) else {
        e <- readLines(err, warn = FALSE)
        sprintf("the process exited with status %d%s", status,
                if (length(e)) paste0(": ", paste(utils::tail(e, 2), collapse = " ")) else "")
      }
      csv_row(task, engine, tasks[[task]]$trees, note = why)
    }, "")
    # the run with the median fit time (the lower middle of an even count)
    secs <- utils::read.csv(text = c(header, runs))$fit_s
    pick <- if (all(is.na(secs))) length(runs) else order(secs)[ceiling(sum(!is.na(secs)) / 2)]
    cat(runs[pick], "\n", sep = "")
  }
}
