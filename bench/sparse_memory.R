# One fit of bench/sparse.R's bag of words in a process of its own, for its
# memory: the growth of the process's peak resident memory (VmHWM) over the
# fit, from the resident memory once the data is loaded. Run by
# bench/sparse.R: Rscript bench/sparse_memory.R <glmnet|ours> <data.rds>
args <- commandArgs(trailingOnly = TRUE)
suppressMessages({
  library(cppestimators)
  library(Matrix)
})
d <- readRDS(args[2])
status_mb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}
invisible(gc())
before <- status_mb("VmRSS")
if (args[1] == "glmnet") {
  fit <- glmnet::glmnet(d$x, d$y, family = "binomial", lambda = d$lambda)
} else {
  fit <- fit_cppestimators(d$x, d$y, model = "logistic_reg", penalty = d$lambda, seed = 1)
}
cat(sprintf("%.1f\n", status_mb("VmHWM") - before))
