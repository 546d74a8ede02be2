# Fits through parsnip against the peers a tidymodels user compares with
# (issue 40): boosted trees with l2_regularization = 1, min_node_weight = 1
# against xgboost with its defaults (eta 0.3, depth 6, lambda 1,
# min_child_weight 1, 15 trees: parsnip's), held-out log loss on
# modeldata's credit_data; linear_reg() against lm() on ames, logistic_reg()
# against glm() on credit_data (training fit). Prints a markdown table.
suppressPackageStartupMessages({
  library(cppestimators)
  library(parsnip)  # its contr_one_hot() for the xgboost engine
})
if (!all(vapply(c("parsnip", "modeldata", "recipes"), requireNamespace, TRUE, quietly = TRUE))) {
  cat("(parsnip, modeldata or recipes missing: no tidymodels rows)\n")
  quit(save = "no")
}
data(credit_data, package = "modeldata")
data(ames, package = "modeldata")
d <- stats::na.omit(credit_data)
set.seed(1)
idx <- sample(nrow(d), round(0.75 * nrow(d)))
tr <- d[idx, ]
te <- d[-idx, ]
log_loss <- function(p, y) -mean(ifelse(y == levels(y)[2], log(p), log(1 - p)))
timed <- function(expr) {
  t0 <- proc.time()[["elapsed"]]
  value <- force(expr)
  list(value = value, secs = proc.time()[["elapsed"]] - t0)
}
med <- function(f, reps = 3) {
  runs <- lapply(seq_len(reps), function(i) timed(f()))
  list(value = runs[[1]]$value, secs = stats::median(vapply(runs, function(r) r$secs, 1)))
}
rows <- character()
spec <- parsnip::set_mode(parsnip::boost_tree(trees = 15, learn_rate = 0.3, tree_depth = 6), "classification")
ours <- med(function() {
  set.seed(1)
  f <- parsnip::fit(parsnip::set_engine(spec, "cppestimators", l2_regularization = 1, min_node_weight = 1),
                    Status ~ ., tr)
  log_loss(predict(f, te, type = "prob")$.pred_good, te$Status)
})
if (requireNamespace("xgboost", quietly = TRUE)) {
  peer <- med(function() {
    set.seed(1)
    f <- parsnip::fit(parsnip::set_engine(spec, "xgboost"), Status ~ ., tr)
    log_loss(predict(f, te, type = "prob")$.pred_good, te$Status)
  })
  rows <- c(rows, sprintf(paste("| trees, credit_data (held out) | log loss %.4f, %.3f s | xgboost %.4f, %.3f s |",
                                "%+.4f (goal within 0.01) |"),
                          ours$value, ours$secs, peer$value, peer$secs, ours$value - peer$value))
} else {
  rows <- c(rows, sprintf("| trees, credit_data (held out) | log loss %.4f, %.3f s | (xgboost missing) | |",
                          ours$value, ours$secs))
}
a <- ames
a$Sale_Price <- log10(a$Sale_Price)
rec <- recipes::step_dummy(recipes::recipe(Sale_Price ~ Longitude + Latitude + Lot_Area + Gr_Liv_Area +
                                             Year_Built + Neighborhood + Bldg_Type, data = a),
                           recipes::all_nominal_predictors())
a <- recipes::bake(recipes::prep(rec), NULL)
rmse <- function(p) sqrt(mean((p - a$Sale_Price)^2))
lin <- med(function() {
  set.seed(1)
  rmse(predict(parsnip::fit(parsnip::set_engine(parsnip::linear_reg(), "cppestimators"), Sale_Price ~ ., a),
               a)$.pred)
})
lmf <- med(function() rmse(stats::fitted(stats::lm(Sale_Price ~ ., a))))
rows <- c(rows, sprintf(paste("| linear_reg(), ames (raw + dummies) | RMSE %.5f, %.3f s | lm() %.5f, %.3f s |",
                              "%.4fx (goal within 1.02x) |"),
                        lin$value, lin$secs, lmf$value, lmf$secs, lin$value / lmf$value))
lg <- med(function() {
  set.seed(1)
  log_loss(predict(parsnip::fit(parsnip::set_engine(parsnip::logistic_reg(), "cppestimators"), Status ~ ., d),
                   d, type = "prob")$.pred_good, d$Status)
})
gl <- med(function() log_loss(stats::fitted(stats::glm(Status ~ ., d, family = stats::binomial)), d$Status))
rows <- c(rows, sprintf(paste("| logistic_reg(), credit_data (raw) | log loss %.5f, %.3f s | glm() %.5f, %.3f s |",
                              "%.4fx (goal within 1.02x) |"),
                        lg$value, lg$secs, gl$value, gl$secs, lg$value / gl$value))
cat("| fit | cppestimators | peer | difference |", "|---|---|---|---|", rows, sep = "\n")
