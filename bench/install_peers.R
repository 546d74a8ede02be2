# Installs the R packages of the benchmarks' peers when they are missing,
# from the CRAN repository R is configured with: xgboost and LightGBM (the
# boosted trees peers of bench/trees.R) and nycflights13 (its real table).
# Current xgboost releases need R >= 4.3; on older R the last release that
# supports it (1.7.8.1) comes from the repository's archive.
repos <- getOption("repos")
if (is.null(repos) || identical(unname(repos["CRAN"]), "@CRAN@")) stop("set a CRAN mirror in options(repos) to install the peers")
have <- function(p) requireNamespace(p, quietly = TRUE)
for (dep in c("data.table", "jsonlite", "Matrix", "R6")) {
  if (!have(dep)) utils::install.packages(dep)
}
if (!have("xgboost")) {
  if (getRversion() >= "4.3.0") {
    utils::install.packages("xgboost")
  } else {
    archive <- file.path(sub("/src/contrib$", "", utils::contrib.url(repos["CRAN"], type = "source")),
                         "src", "contrib", "Archive", "xgboost", "xgboost_1.7.8.1.tar.gz")
    utils::install.packages(archive, repos = NULL, type = "source")
  }
}
for (p in c("lightgbm", "nycflights13")) {
  if (!have(p)) utils::install.packages(p)
}
missing <- Filter(Negate(have), c("xgboost", "lightgbm", "nycflights13"))
if (length(missing)) stop("could not install: ", paste(missing, collapse = ", "))
