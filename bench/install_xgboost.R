# Installs the xgboost R package (the boosted trees peer of bench/trees.R)
# from the CRAN repository R is configured with, when it is missing. Current
# releases need R >= 4.3; on older R the last release that supports it
# (1.7.8.1) comes from the repository's archive.
if (requireNamespace("xgboost", quietly = TRUE)) quit(save = "no")
repos <- getOption("repos")
if (is.null(repos) || identical(unname(repos["CRAN"]), "@CRAN@")) stop("set a CRAN mirror in options(repos) to install xgboost")
for (dep in c("data.table", "jsonlite", "Matrix")) {
  if (!requireNamespace(dep, quietly = TRUE)) utils::install.packages(dep)
}
if (getRversion() >= "4.3.0") {
  utils::install.packages("xgboost")
} else {
  archive <- file.path(sub("/src/contrib$", "", utils::contrib.url(repos["CRAN"], type = "source")),
                       "src", "contrib", "Archive", "xgboost", "xgboost_1.7.8.1.tar.gz")
  utils::install.packages(archive, repos = NULL, type = "source")
}
if (!requireNamespace("xgboost", quietly = TRUE)) stop("xgboost could not be installed")
