# Sparse inputs: a 100,000 x 50,000 binary bag of words (~30 non-zeros per
# row), lasso logistic regression, ours (fit_cppestimators(), what parsnip
# calls, and parsnip's fit_xy()) against glmnet() fitting the same single
# lambda, in one process (the memory of each fit in a process of its own,
# bench/sparse_memory.R); and, in a fresh process, the step of the same
# words as a list column of tokens into a hash-bucket column against the
# dgCMatrix's step, and a DNN's step on the dgCMatrix. Run: Rscript
# bench/sparse.R (SPARSE_FITS=0: the steps only)
suppressMessages({
  library(cppestimators)
  library(Matrix)
  library(parsnip)
})
set.seed(1)
n <- as.integer(Sys.getenv("SPARSE_ROWS", "100000"))
p <- 50000L
per_row <- 30L
# Zipf-like word frequencies, as text has
freq <- 1 / seq_len(p)^0.8
j <- sample.int(p, n * per_row, replace = TRUE, prob = freq)
i <- rep(seq_len(n), each = per_row)
x <- sparseMatrix(i = i, j = j, x = 1, dims = c(n, p))
x@x[] <- 1  # binary (duplicates summed)
colnames(x) <- paste0("w", seq_len(p))
beta <- numeric(p)
beta[sample.int(2000, 200)] <- rnorm(200, sd = 1.5)
y <- factor(ifelse(runif(n) < plogis(as.vector(x %*% beta) - 0.5), "yes", "no"))
test <- sample.int(n, n %/% 5)
xtr <- x[-test, ]
ytr <- y[-test]
size <- as.numeric(object.size(xtr))
lambda <- 0.002
auc <- function(p, y) {
  r <- rank(p)
  pos <- y == "yes"
  (sum(r[pos]) - sum(pos) * (sum(pos) + 1) / 2) / (sum(pos) * sum(!pos))
}
# The time of one fit: the faster of two runs (the first also loads code).
timed <- function(expr) {
  t <- system.time(value <- force(expr))[["elapsed"]]
  list(value = value, time = t)
}
best_of_two <- function(f) {
  a <- timed(f())
  b <- timed(f())
  if (b$time <= a$time) b else a
}
if (Sys.getenv("SPARSE_FITS", "1") != "0") {
# the engines' own fit functions on the dgCMatrix (what parsnip calls), then
# each through parsnip's fit_xy(), which first turns the matrix into a
# sparse tibble for an engine that takes data frames (ours), and hands
# glmnet the matrix itself
g <- best_of_two(function() glmnet::glmnet(xtr, ytr, family = "binomial", lambda = lambda))
ours <- best_of_two(function() fit_cppestimators(xtr, ytr, model = "logistic_reg", penalty = lambda, seed = 1))
auc_g <- auc(as.vector(predict(g$value, x[test, ], type = "response")), y[test])
auc_o <- auc(predict_cppestimators(ours$value, x[test, ], type = "prob")$yes, y[test])
gp <- best_of_two(function() logistic_reg(penalty = lambda) %>% set_engine("glmnet") %>% fit_xy(x = xtr, y = ytr))
op <- best_of_two(function() {
  logistic_reg(penalty = lambda) %>% set_engine("cppestimators") %>% fit_xy(x = xtr, y = ytr)
})
auc_op <- auc(predict(op$value, x[test, ], type = "prob")$.pred_yes, y[test])
cat(sprintf("rows %d, columns %d, non-zeros %d (%.1f per row), matrix %.1f MB\n", nrow(xtr), p, length(xtr@x),
            length(xtr@x) / nrow(xtr), size / 2^20))
cat(sprintf("glmnet(): %.3f s, AUC %.4f\n", g$time, auc_g))
cat(sprintf("fit_cppestimators(): %.3f s, AUC %.4f\n", ours$time, auc_o))
cat(sprintf("time ratio %.2f, AUC difference %.5f\n", ours$time / g$time, auc_o - auc_g))
# memory: each fit in a fresh process (in this one, memory that earlier
# fits freed hides a fit's own growth)
rds <- tempfile(fileext = ".rds")
saveRDS(list(x = xtr, y = ytr, lambda = lambda), rds)
fresh_mb <- function(engine) {
  script <- if (file.exists("bench")) "bench/sparse_memory.R" else "sparse_memory.R"
  out <- system2(file.path(R.home("bin"), "Rscript"), c(script, engine, rds), stdout = TRUE)
  as.numeric(utils::tail(out, 1))
}
mem_g <- fresh_mb("glmnet")
mem_o <- fresh_mb("ours")
unlink(rds)
cat(sprintf("peak memory growth of one fit in a fresh process: glmnet %.1f MB, ours %.1f MB (%.2fx the matrix; glmnet %.2fx)\n",
            mem_g, mem_o, mem_o / (size / 2^20), mem_g / (size / 2^20)))
cat(sprintf("parsnip fit_xy(): glmnet %.3f s (its whole path), ours %.3f s, AUC %.4f\n", gp$time, op$time, auc_op))
# the steps in a process of their own: after the fits, R's larger heap makes
# every collection (and with it each train() call) slower, the token list's
# (3 million strings) more than the matrix's
script <- if (file.exists("bench")) "bench/sparse.R" else "sparse.R"
out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE, stderr = FALSE,
               env = "SPARSE_FITS=0")
cat(grep("^step|^process", out, value = TRUE), sep = "\n")
quit(save = "no")
}
# the step: dgCMatrix feature vs a list column of tokens into hash buckets
rows <- x@i + 1L
words <- split(colnames(x)[rep(seq_len(p), diff(x@p))], factor(rows, levels = seq_len(n)))
yy <- as.numeric(y == "yes")
step_time <- function(est, inp, steps = 200) {
  suppressMessages(train(est, inp, steps = 5))
  best <- Inf
  for (k in 1:3) best <- min(best, system.time(suppressMessages(train(est, inp, steps = steps)))[["elapsed"]])
  best / steps * 1000
}
mat <- linear_classifier(feature_columns(column_numeric("x", shape = p, sparse = TRUE)))
lst <- linear_classifier(feature_columns(column_categorical_with_hash_bucket("words", hash_bucket_size = 2^17)))
inp_m <- input_fn(list(x = x, y = yy), response = "y", batch_size = 256, num_epochs = NULL)
df <- data.frame(y = yy)
df$words <- unname(words)
inp_l <- input_fn(df, response = "y", batch_size = 256, num_epochs = NULL)
sm <- step_time(mat, inp_m)
sl <- step_time(lst, inp_l)
cat(sprintf("step (256 rows): dgCMatrix %.3f ms, token list %.3f ms, ratio %.2f\n", sm, sl, sl / sm))
# a DNN (16 hidden units) on the dgCMatrix: its first layer reads the non-zeros
dnn <- dnn_classifier(16, feature_columns(column_numeric("x", shape = p, sparse = TRUE)))
sd <- step_time(dnn, inp_m)
cat(sprintf("step (256 rows): DNN of 16 hidden units on the dgCMatrix %.3f ms\n", sd))
cat(sprintf("process peak resident memory (VmHWM): %s\n", grep("VmHWM", readLines("/proc/self/status"), value = TRUE)))
