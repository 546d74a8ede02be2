# Benchmark suite: per-step cost of the training loop and of hooks.
# Run with `make bench` (or Rscript bench/run.R after installing the package).
# Prints its tables and writes them to bench/results.md, above the sections
# written by hand (kept as they are).
suppressPackageStartupMessages(library(cppestimators))

reps <- as.integer(Sys.getenv("BENCH_REPS", "5"))
steps <- as.integer(Sys.getenv("BENCH_STEPS", "20000"))

set.seed(1)
n <- 4096
df <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
df$y <- 2 * df$x1 - 3 * df$x2 + 0.5
input <- input_fn(df, response = "y", batch_size = 8L, num_epochs = NULL)
quiet_config <- run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                           save_checkpoints_steps = NULL, save_checkpoints_secs = NULL)

# Median seconds per step of train(steps) with `hooks`, over `reps` runs.
time_per_step <- function(hooks, config = quiet_config) {
  times <- vapply(seq_len(reps), function(i) {
    est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x1", "x2")),
                                             config = config))
    t <- system.time(invisible(utils::capture.output(
      suppressMessages(train(est, input, steps = steps, hooks = hooks)))))
    unlink(model_dir(est), recursive = TRUE)
    t[["elapsed"]]
  }, 0)
  stats::median(times) / steps
}

never <- 1e9
cases <- list(
  "no extra hooks (defaults: history saver, progress bar, NaN check)" = list(),
  "+ summary saver, logger, checkpoint saver, step counter that never fire" = list(
    hook_summary_saver(save_steps = never, output_dir = tempfile()),
    hook_logging_tensor(list("loss"), every_n_iter = never),
    hook_checkpoint_saver(tempfile(), save_steps = never),
    hook_step_counter(every_n_steps = never)),
  "+ summary saver writing every 100 steps" = list(
    hook_summary_saver(save_steps = 100, output_dir = tempfile())),
  "+ one R closure hook (empty after_run)" = list(
    session_run_hook(after_run = function(context, values) NULL)),
  "+ one R closure hook fetching the losses" = list(session_run_hook(
    before_run = function(context) session_run_args(losses = context$session$graph$get_collection("losses")),
    after_run = function(context, values) NULL)),
  # the custom-hook pattern of the seed (spec/seeds.md, example 3) without its printing
  "+ one R closure hook fetching the losses and reading them (the seed's pattern)" = list(session_run_hook(
    before_run = function(context) session_run_args(losses = context$session$graph$get_collection("losses")),
    after_run = function(context, values) {
      raw_losses <- values$results$losses[[1]]
      NULL
    }))
)

rows <- lapply(names(cases), function(nm) {
  us <- time_per_step(cases[[nm]]) * 1e6
  data.frame(case = nm, us_per_step = round(us, 2))
})
res <- do.call(rbind, rows)
res$vs_baseline_us <- round(res$us_per_step - res$us_per_step[1], 2)

# the same defaults as a user gets (checkpoints every 600 s + at start/end,
# summaries every 100 steps, step counter)
res <- rbind(res, data.frame(case = "train() with the default run_config()",
                             us_per_step = round(time_per_step(list(), run_config()) * 1e6, 2),
                             vs_baseline_us = NA))

# The same task as the PyTorch peer's "linear" (y = 2 x1 - 3 x2 + 0.5, SGD,
# batch 8), ours then theirs when the peer can run here (make bench-peer
# installs it), with SGD at the peer's learning rate.
sgd_input <- input
sgd_us <- local({
  times <- vapply(seq_len(reps), function(i) {
    est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x1", "x2")),
                                             optimizer = optimizer_sgd(0.01),
                                             config = quiet_config))
    t <- system.time(invisible(utils::capture.output(
      suppressMessages(train(est, sgd_input, steps = steps)))))
    unlink(model_dir(est), recursive = TRUE)
    t[["elapsed"]]
  }, 0)
  stats::median(times) / steps * 1e6
})
res <- rbind(res, data.frame(case = "linear task of the PyTorch peer (SGD), cppestimators",
                             us_per_step = round(sgd_us, 2), vs_baseline_us = NA))
peer_dir <- normalizePath(file.path("..", "shared", "bench", "peers"), mustWork = FALSE)
python <- "/usr/bin/python3"
if (file.exists(file.path(peer_dir, "torch_peer.py")) && file.exists(python) &&
    system2(python, c("-c", shQuote("import torch")), stdout = FALSE, stderr = FALSE) == 0) {
  for (cb in c("none", "item")) {
    out <- system2(python, c(shQuote(file.path(peer_dir, "torch_peer.py")), "linear", "--cores", "1",
                             "--steps", "20000", "--callback", cb), stdout = TRUE, stderr = FALSE)
    us <- as.numeric(sub('.*"us_per_step": ([0-9.eE+-]+).*', "\\1", out[length(out)]))
    label <- if (cb == "none") "linear task, PyTorch peer (torch nn.Linear + SGD)" else
      "linear task, PyTorch peer with a per-step callback reading the loss"
    res <- rbind(res, data.frame(case = label, us_per_step = round(us, 2), vs_baseline_us = NA))
  }
}

header <- sprintf("linear_regressor, 2 features, batch 8, %d steps, median of %d runs; %s, R %s",
                  steps, reps, format(Sys.Date()), getRversion())
cat(header, "\n\n")
print(res, row.names = FALSE)
out <- c(paste("#", header), "",
         "| case | microseconds per step | difference to the first row |", "|---|---:|---:|",
         sprintf("| %s | %.2f | %s |", res$case, res$us_per_step,
                 ifelse(is.na(res$vs_baseline_us), "", sprintf("%+.2f", res$vs_baseline_us))))

# Sparse columns (bench/sparse_columns.R, one process per size): step time and memory
# of a linear classifier on 1e6 rows x 10 hash-bucket string columns.
sparse_script <- if (file.exists("bench")) "bench/sparse_columns.R" else "sparse_columns.R"
sparse <- do.call(rbind, lapply(c(1e3, 1e6), function(size) {
  line <- system2(file.path(R.home("bin"), "Rscript"), c(sparse_script, format(size, scientific = FALSE)),
                  stdout = TRUE)
  v <- as.numeric(strsplit(line[length(line)], " ")[[1]])
  data.frame(size = v[1], us = v[2], data_mb = v[3], model_mb = v[4], peak_mb = v[5])
}))
sparse_lines <- c("", "# Sparse columns: linear_classifier, 1e6 rows, 10 hash-bucket columns of strings, batch 128",
  "", "| hash_bucket_size | microseconds per step | data (MB) | model variables and slots (MB) | peak memory growth of training (MB) | growth beyond the model (% of data) |",
  "|---:|---:|---:|---:|---:|---:|",
  sprintf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f%% |", format(sparse$size, scientific = FALSE, big.mark = ","),
          sparse$us, sparse$data_mb, sparse$model_mb, sparse$peak_mb,
          100 * (sparse$peak_mb - sparse$model_mb) / sparse$data_mb),
  "", sprintf("Step time at 1e6 buckets / at 1e3 buckets: %.2fx (goal: at most 1.5x).", sparse$us[2] / sparse$us[1]),
  "Growth is measured from after the data, packages and estimator object exist; it can be smaller than the model because the pages of buckets no batch touched are never written.")
cat(sparse_lines, sep = "\n")
out <- c(out, sparse_lines)

# Sparse inputs from memory (bench/sparse.R, issue 57): a 100,000 x 50,000
# bag of words, lasso logistic regression against glmnet's one lambda, and
# the step of a list column of tokens against the dgCMatrix's.
text_script <- if (file.exists("bench")) "bench/sparse.R" else "sparse.R"
text <- system2(file.path(R.home("bin"), "Rscript"), text_script, stdout = TRUE)
text_lines <- c("", "# Sparse inputs: a 100,000 x 50,000 bag of words, lasso logistic regression (bench/sparse.R)", "",
                paste0("    ", grep("^(rows|glmnet|fit_|time|peak|parsnip|step)", text, value = TRUE)))
cat(text_lines, sep = "\n")
out <- c(out, text_lines)

# The linear-model grid (bench/grid.R): batch x features, shuffled batches of
# 16384 rows, SGD; next to the PyTorch peer's gather pipeline on 1 and 2
# threads when it can run here.
grid_script <- if (file.exists("bench")) "bench/grid.R" else "grid.R"
rscript <- file.path(R.home("bin"), "Rscript")
grid_run <- function(threads) {
  utils::read.csv(text = system2(rscript, grid_script, stdout = TRUE,
                                 env = paste0("BENCH_GRID_THREADS=", threads)))
}
ours <- grid_run(2)
ours1 <- grid_run(1)
mem <- as.numeric(strsplit(system2(rscript, c(grid_script, "memory"), stdout = TRUE), " ")[[1]])
peer <- NULL
if (file.exists(file.path(peer_dir, "torch_linear_grid.py")) && file.exists(python) &&
    system2(python, c("-c", shQuote("import torch")), stdout = FALSE, stderr = FALSE) == 0) {
  openblas <- system2("bash", file.path(peer_dir, "setup.sh"), stdout = TRUE)
  peer <- do.call(rbind, lapply(1:2, function(t) {
    utils::read.csv(text = system2(python, c(shQuote(file.path(peer_dir, "torch_linear_grid.py")), "train",
                                             "--pipelines", "gather", "--threads", t, "--openblas",
                                             shQuote(openblas[length(openblas)])),
                                   stdout = TRUE, stderr = FALSE))
  }))
}
torch_us <- function(b, p, t) {
  if (is.null(peer)) return(NA)
  peer$us_per_step[peer$batch == b & peer$p == p & peer$threads == t]
}
grid_lines <- c("", "# Linear-model grid: linear_regressor + SGD, 16384 rows, shuffled batches (microseconds per step)",
  "", "| batch | features | ours, 2 threads (default) | ours, 1 thread | PyTorch, 1 thread | PyTorch, 2 threads | best PyTorch / ours | goal | met |",
  "|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for (i in seq_len(nrow(ours))) {
  b <- ours$batch[i]; p <- ours$p[i]
  t1 <- torch_us(b, p, 1); t2 <- torch_us(b, p, 2)
  goal <- if (b <= 256) 2 else 1
  ratio <- min(t1, t2) / ours$us_per_step[i]
  grid_lines <- c(grid_lines, sprintf("| %d | %d | %.2f | %.2f | %.1f | %.1f | %.1fx | %gx | %s |", b, p,
                                      ours$us_per_step[i], ours1$us_per_step[i], t1, t2, ratio, goal,
                                      if (is.na(ratio)) "no peer" else if (ratio >= goal) "yes" else "no"))
}
grid_lines <- c(grid_lines, "",
  "'met' compares our default (2 threads; batches under 65536 values use one) with the faster of PyTorch's 1- and 2-thread runs.",
  sprintf("Peak memory, 500 features, batch 4096: the data %.1f MB, training adds %.1f MB (the cached float32 block and buffers): %.2fx the data (goal: at most 1.6x).",
          mem[1], mem[2], mem[3]))
cat(grid_lines, sep = "\n")
out <- c(out, grid_lines)

# The MLP task (bench/mlp.R) next to the PyTorch peer's, on 1 and 2 threads.
mlp_script <- if (file.exists("bench")) "bench/mlp.R" else "mlp.R"
mlp_lines <- c("", "# MLP: dnn_classifier, 64 features -> 256 -> 256 -> 10 classes, Adagrad, batch 256",
  "", "| threads | kernel | cppestimators (examples/s) | GFLOP/s of our step | PyTorch with OpenBLAS (examples/s) | ours / PyTorch | goal | met |",
  "|---:|---|---:|---:|---:|---:|---:|---|")
mlp_run <- function(t, simd) {
  v <- strsplit(system2(rscript, mlp_script, stdout = TRUE,
                        env = c(paste0("BENCH_MLP_THREADS=", t), paste0("BENCH_MLP_SIMD=", simd))), " ")[[1]]
  list(eps = as.numeric(v[2]), gflops = as.numeric(v[3]), kernel = v[4])
}
torch_mlp <- c(NA, NA)
for (t in 1:2) {
  if (!is.null(peer)) {
    line <- system2(python, c(shQuote(file.path(peer_dir, "torch_peer.py")), "mlp", "--cores", t,
                              "--openblas", shQuote(openblas[length(openblas)])), stdout = TRUE, stderr = FALSE)
    torch_mlp[t] <- as.numeric(sub('.*"examples_per_sec": ([0-9.eE+-]+).*', "\\1", line[length(line)]))
  }
  for (simd in c("auto", if (t == 1) "portable")) {
    r <- mlp_run(t, simd)
    ratio <- r$eps / torch_mlp[t]
    mlp_lines <- c(mlp_lines, sprintf("| %d | %s%s | %.0f | %.1f | %.0f | %.2fx | %s | %s |", t, r$kernel,
                                      if (simd == "auto") " (default)" else "", r$eps, r$gflops, torch_mlp[t], ratio,
                                      if (simd == "auto") "1.5x" else "", if (simd != "auto") "" else if (isTRUE(ratio >= 1.5)) "yes" else "no"))
  }
}
mlp_lines <- c(mlp_lines, "",
  "The kernel is chosen at run time from the CPU (options(cppestimators.simd)); the portable row is Eigen at R's baseline SSE2, for comparison. Large products split their rows over the threads; the optimizer update, activations and the input layer run on one.")
cat(mlp_lines, sep = "\n")
out <- c(out, mlp_lines)
# Boosted trees (bench/trees.R) next to xgboost's histogram method and LightGBM.
trees_script <- if (file.exists("bench")) "bench/trees.R" else "trees.R"
trees_lines <- c("", "# Boosted trees: boosted_trees_classifier, depth 6, learning rate 0.1, one batch of the whole table, 2 threads",
  "", paste("| task | rows | trees | ours, input_fn() defaults (s) | ours, shuffle = FALSE (s) | defaults / best (goal <= 1.2x) |",
            "xgboost hist (s) | LightGBM (s) | ours / xgboost | ours / LightGBM | time goal <= 1.2x |",
            "held-out log loss: ours | xgboost | LightGBM |"),
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
trees_reps <- as.integer(Sys.getenv("BENCH_TREES_REPS", "3"))
trees_tasks <- list(list(task = "uniform", rows = 1e5, trees = 100), list(task = "uniform", rows = 1e6, trees = 100),
                    list(task = "flights", rows = NA, trees = 50))
for (tk in trees_tasks) {
  # `trees_reps` runs (each process times ours twice, then the peers): the
  # run with the median ratio to the slower peer, so that one noisy moment
  # of the machine does not decide the row
  env <- c(paste0("BENCH_TREES_TASK=", tk$task),
           if (!is.na(tk$rows)) paste0("BENCH_TREES_ROWS=", format(tk$rows, scientific = FALSE)))
  runs <- t(vapply(seq_len(trees_reps), function(i) {
    out <- strsplit(system2(rscript, trees_script, stdout = TRUE, env = env), " ")[[1]]
    suppressWarnings(as.numeric(out[-1]))
  }, numeric(8)))
  ratio <- runs[, 2] / pmin(runs[, 5], runs[, 7], na.rm = TRUE)
  v <- runs[order(ratio)[ceiling(length(ratio) / 2)], ]
  r_def <- v[2] / v[3]
  r_xgb <- v[2] / v[5]
  r_lgb <- v[2] / v[7]
  trees_lines <- c(trees_lines, sprintf("| %s | %s | %d | %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx | %.2fx | %s | %.4f | %.4f | %.4f |",
    tk$task, format(v[1], big.mark = ",", scientific = FALSE), tk$trees, v[2], v[3], r_def, v[5], v[7], r_xgb,
    r_lgb, if (isTRUE(r_xgb <= 1.2 && r_lgb <= 1.2)) "met" else "missed", v[4], v[6], v[8]))
}
trees_lines <- c(trees_lines, "",
  sprintf("Each row is the median (by the ratio to the faster peer) of %d runs, each timing ours and then the peers in one process.", trees_reps),
  "uniform: 20 numeric features drawn uniformly; flights: nycflights13's 327,346 flights with both delays known, 4 numeric columns with heavy ties (departure delay, distance, hour, month), labelled by a late arrival (its held-out loss is read on 20,000 of the training rows).",
  "One batch holds the training set and n_batches_per_layer = 1, so a step grows one layer. TensorFlow's algorithm recomputes every example's gradient, hessian and loss after each layer (leaf values move layer by layer), where xgboost and LightGBM compute them once per tree and build each deeper level from the smaller child with the subtraction trick; with fresh gradients at every layer a parent's histogram cannot be reused, so each of our steps makes one pass over every row.")
cat(trees_lines, sep = "\n")
out <- c(out, trees_lines)
# Boosted trees with the new growths (issue 53; bench/trees_hist.R, one
# process per fit): growth = "depthwise" and "lossguide" against xgboost's
# hist and LightGBM. BENCH_TREES_WIDE=1 adds the 15M-row table (about 10 GB).
hist_script <- if (file.exists("bench")) "bench/trees_hist.R" else "trees_hist.R"
hist <- utils::read.csv(text = system2(rscript, hist_script, stdout = TRUE), stringsAsFactors = FALSE)
hist$note <- ifelse(is.na(hist$note), "", as.character(hist$note))
hist_labels <- c(
  uniform = "uniform 1e6 x 20, 100 trees, depth 6",
  flights = "flights (261,877 train), 50 trees, depth 6",
  higgs = "Higgs shape 1M x 28, 100 trees, depth 6 (lossguide: 64 leaves)",
  gbmperf = "GBM-perf airline shape 1M, 100 trees, depth 10 (lossguide: 512 leaves)",
  chicago_d15 = "Chicago 5,000 rows, 20 trees, depth 15",
  chicago_2000 = "Chicago 5,000 rows, 2000 trees, depth 15",
  lending_club = "lending_club, 5 stratified 80/20 splits, 200 trees, depth 4 (16 leaves)",
  chicago = "Chicago, last 20% held out, 200 trees, depth 6 (64 leaves)",
  wide = sprintf("wide %s x 22 (5 factors), 5 trees, depth 6",
                 format(as.numeric(Sys.getenv("BENCH_TREES_WIDE_ROWS", "15e6")), big.mark = ",", scientific = FALSE)))
hist_fmt <- function(x, f) if (length(x) == 0L || is.na(x)) "NA" else sprintf(f, x)
hist_lines <- c("", sprintf(paste("# Boosted trees, new growths (issue 53): ours against xgboost hist and LightGBM, %s threads,",
                                  "one process per fit (bench/trees_hist.R)"), Sys.getenv("BENCH_TREES_THREADS", "2")),
  "", paste("| task | ours | fit s: ours | xgboost | LightGBM | ours / faster peer | held-out metric: ours | xgboost | LightGBM |",
            "peak MB: ours | xgboost | LightGBM | goal | met |"),
  "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|")
hist_notes <- character()
for (task in unique(hist$task)) {
  rows <- hist[hist$task == task, , drop = FALSE]
  get <- function(engine, col) rows[[col]][rows$engine == engine]
  peer_s <- c(get("xgboost", "fit_s"), get("lightgbm", "fit_s"))
  peer_v <- c(get("xgboost", "value"), get("lightgbm", "value"))
  metric <- rows$metric[1]
  for (ours in intersect(c("ours_depthwise", "ours_lossguide", "ours_csv", "ours_tensorflow"), rows$engine)) {
    s <- get(ours, "fit_s")
    v <- get(ours, "value")
    ratio <- if (all(is.na(peer_s))) NA else s / min(peer_s, na.rm = TRUE)
    best <- if (all(is.na(peer_v))) NA else if (metric == "auc") max(peer_v, na.rm = TRUE) else min(peer_v, na.rm = TRUE)
    metric_ok <- if (metric == "auc") v >= best - 0.002 else v <= best * 1.01
    met <- if (is.na(s) || is.na(v)) "NA" else if (is.na(ratio) || is.na(best)) "no peer" else
      if (ratio <= 0.8 && metric_ok) "met" else "missed"
    goal <- if (metric == "auc") "<= 0.8x, AUC >= best peer - 0.002" else "<= 0.8x, RMSE <= best peer x 1.01"
    if (ours == "ours_tensorflow") {  # TensorFlow's growth: a memory goal alone
      goal <- "peak < 500 MB"
      met <- if (is.na(get(ours, "peak_mb"))) "NA" else if (get(ours, "peak_mb") < 500) "met" else "missed"
    }
    mfmt <- if (metric == "auc") "AUC %.4f" else "RMSE %.4f"
    label <- if (is.na(hist_labels[task])) task else hist_labels[[task]]
    hist_lines <- c(hist_lines, paste0("| ", paste(
      label, sub("ours_", "", ours), hist_fmt(s, "%.2f"), hist_fmt(get("xgboost", "fit_s"), "%.2f"),
      hist_fmt(get("lightgbm", "fit_s"), "%.2f"), hist_fmt(ratio, "%.2fx"), hist_fmt(v, mfmt),
      hist_fmt(get("xgboost", "value"), "%.4f"), hist_fmt(get("lightgbm", "value"), "%.4f"),
      hist_fmt(get(ours, "peak_mb"), "%.0f"), hist_fmt(get("xgboost", "peak_mb"), "%.0f"),
      hist_fmt(get("lightgbm", "peak_mb"), "%.0f"), goal, met,
      sep = " | "), " |"))
  }
  if (task == "wide") {
    per_tree <- rows$fit_s / rows$trees
    hist_notes <- c(hist_notes, paste0("- Wide table, seconds per tree (the fit over its trees, binning included): ",
                                       paste(sprintf("%s %s", rows$engine, vapply(per_tree, hist_fmt, "", "%.2f")),
                                             collapse = ", "), "."))
  }
  failed <- rows[nzchar(rows$note), , drop = FALSE]
  hist_notes <- c(hist_notes, sprintf("- %s, %s: no figures (%s).", task, failed$engine, substr(failed$note, 1, 200)))
}
hist_lines <- c(hist_lines, "",
  paste("Goal per row: our fit time at most 0.8x the faster peer's, and our held-out metric no worse than the better",
        "peer's by more than 0.002 AUC (or 1% RMSE); 'met' needs both. The faster peer and the better peer are taken",
        "over the peers run on the task (xgboost alone where LightGBM has no row)."),
  paste(if (Sys.getenv("BENCH_TREES_HIST_REPS", "1") == "1") "Each (task, engine) ran once, in a fresh process (BENCH_TREES_HIST_REPS sets the runs)." else
          sprintf("Each (task, engine) ran %s times, each in a fresh process; the run with the median fit time is shown.",
                  Sys.getenv("BENCH_TREES_HIST_REPS")),
        "Fit time is the fit alone, in seconds (lending_club: the mean of its 5 splits, whose AUC is the mean too);",
        "xgboost's includes xgb.DMatrix() from the one-hot matrix, LightGBM's the dataset's binning. Peak MB is the",
        "most resident memory of the fit's process during the fit, the data it trains from included."),
  if (length(hist_notes)) c("", hist_notes),
  "", sprintf("Load average at the end: %s", readLines("/proc/loadavg", 1L)))
cat(hist_lines, sep = "\n")
out <- c(out, hist_lines)
# Per-call cost (bench/percall.R): train(steps = 1), evaluate(steps = 1) and
# predict() of 256 rows over p numeric columns, repeated on the same data.
percall_script <- if (file.exists("bench")) "bench/percall.R" else "percall.R"
percall <- utils::read.csv(text = system2(rscript, c(percall_script, "csv"), stdout = TRUE))
# (issue 39's goals: train() and evaluate() at 5 and 500 columns within 1
# ms, predict() of 2000 columns within 2 ms)
percall_goal <- function(p, what) {
  if (what == "predict" && p == 2000) 2 else if (what != "predict" && p %in% c(5, 500)) 1 else NA
}
percall_lines <- c("", "# Per-call cost: linear_regressor over p numeric columns, 256 rows, one data frame, median ms per call",
  "", "| columns | train(steps = 1) | evaluate(steps = 1) | predict() of the 256 rows | goal | met |",
  "|---:|---:|---:|---:|---|---|")
for (i in seq_len(nrow(percall))) {
  p <- percall$columns[i]
  ms <- c(train = percall$train_ms[i], evaluate = percall$evaluate_ms[i], predict = percall$predict_ms[i])
  goals <- vapply(names(ms), function(w) percall_goal(p, w), 0)
  set <- !is.na(goals)
  goal <- if (any(set)) paste(sprintf("%s <= %g ms", names(ms)[set], goals[set]), collapse = ", ") else ""
  met <- if (any(set)) if (all(ms[set] <= goals[set])) "yes" else "no" else ""
  percall_lines <- c(percall_lines, sprintf("| %d | %.2f | %.2f | %.2f | %s | %s |", p, ms[["train"]],
                                            ms[["evaluate"]], ms[["predict"]], goal, met))
}
percall_lines <- c(percall_lines, "",
  "Each call on the same estimator and the same data frame, after one warm-up call; quiet run_config() (no checkpoints, summaries or step logging), progress bar off.")
cat(percall_lines, sep = "\n")
out <- c(out, percall_lines)
# Streaming CSV reader against data.table::fread (bench/csv.R), on a
# generated file of BENCH_CSV_MB megabytes (default 200).
csv_script <- if (file.exists("bench")) "bench/csv.R" else "csv.R"
if (requireNamespace("data.table", quietly = TRUE)) {
  csv_lines <- c("", system2(rscript, csv_script, stdout = TRUE))
  cat(csv_lines, sep = "\n")
  out <- c(out, csv_lines)
}
# Training over a streaming CSV against the same rows in memory
# (bench/streaming.R), BENCH_STREAM_ROWS rows (default 2M).
streaming_script <- if (file.exists("bench")) "bench/streaming.R" else "streaming.R"
if (requireNamespace("data.table", quietly = TRUE)) {
  streaming_lines <- c("", system2(rscript, streaming_script, stdout = TRUE))
  cat(streaming_lines, sep = "\n")
  out <- c(out, streaming_lines)
}
# Training's peak memory over a 2e6 x 50 data frame, in a fresh process
# (bench/memory.R): at most 1.55x the data is the goal.
memory_script <- if (file.exists("bench")) "bench/memory.R" else "memory.R"
memory_lines <- c("", "# Training's peak memory against the data (bench/memory.R: VmHWM of a fresh process)", "",
                  "| data | size | peak before train() | peak after 200 steps of 512 | peak / data | train() |",
                  "|---|---|---|---|---|---|",
                  system2(rscript, memory_script, stdout = TRUE))
cat(memory_lines, sep = "\n")
out <- c(out, memory_lines)
# Training while spinning processes hold the cores (bench/load.R: 2 threads'
# time over 1 thread's, quiet and under load) and several fits at once
# (bench/workers.R: forked children and tune_grid() on future's workers).
# Training across processes (bench/distributed.R: rounds on a socket
# cluster and under MPI, trees and a DNN epoch on 2 workers).
# Custom estimators (bench/custom.R: a model_fn rebuilding dnn_classifier()
# against the canned DNN). Two processes racing short train() calls on one
# model_dir beside spinning processes (bench/lock.R: the longest wait for
# the lock against one call). How soon an interrupt stops an evaluation
# (bench/interrupt.R). TreeSHAP against the peers' contributions
# (bench/explain.R). A monotone constraint on lending_club against xgboost's
# (bench/constraints.R). The heads of issue 56: the trees' held-out
# deviance and pinball loss against xgboost's and LightGBM's, and each
# head's step cost against squared error's (bench/heads.R).
for (script in c("tidymodels.R", "custom.R", "explain.R", "constraints.R", "heads.R", "load.R", "workers.R", "distributed.R", "lock.R",
                 "interrupt.R")) {
  path <- if (file.exists("bench")) file.path("bench", script) else script
  title <- switch(script,
                  tidymodels.R = "# Through parsnip: against xgboost, lm() and glm() (bench/tidymodels.R, medians of 3)",
                  custom.R = "# Custom estimators: estimator(model_fn) against dnn_classifier() of the same shape, 2 threads (bench/custom.R)",
                  explain.R = "# Explanations: TreeSHAP against xgboost's predcontrib and LightGBM's contrib (bench/explain.R, medians of 5)",
                  constraints.R = "# A monotone constraint on lending_club: ours and xgboost's (bench/constraints.R)",
                  heads.R = "# Heads: trees' deviance against xgboost, quantiles against LightGBM, step cost per head (bench/heads.R)",
                  load.R = "# Under load: 2 threads against 1, with spinning processes started by bench/load.R",
                  workers.R = "# Several fits at once (bench/workers.R)",
                  distributed.R = "# Training across processes: rounds, and 2 workers x 1 thread against 1 process x 2 threads (bench/distributed.R)",
                  lock.R = "# The model_dir lock: two processes racing short train() calls, 2 spinning processes beside them (bench/lock.R)",
                  interrupt.R = "# An interrupt during a large evaluation: seconds until the process stopped (bench/interrupt.R)")
  lines <- c("", title, "", system2(rscript, path, stdout = TRUE),
             "", sprintf("Load average at the end: %s", readLines("/proc/loadavg", 1L)))
  cat(lines, sep = "\n")
  out <- c(out, lines)
}
# bench/results.md: the tables above, then the sections written by hand,
# kept from the file as it was (everything below the marker line).
results <- if (file.exists("bench")) "bench/results.md" else "results.md"
marker <- "<!-- bench/run.R rewrites what is above this line and keeps what is below it: the sections written by hand. -->"
kept <- if (file.exists(results)) readLines(results, warn = FALSE) else character()
kept <- if (marker %in% kept) kept[-seq_len(match(marker, kept))] else character()
writeLines(c(out, "", marker, kept), results)
