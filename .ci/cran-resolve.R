# Installs the packages named on the command line with everything they need,
# so that every version requirement on the way holds. Packages already
# installed (Debian's r-cran-* ones among them) are kept where their version
# satisfies every package that needs them; the others, and whatever is
# missing, come from CRAN (through the repository R is configured with).
# R's own install.packages() installs only missing dependencies, so a recent
# package on top of an older Debian stack would otherwise fail to load.
targets <- commandArgs(trailingOnly = TRUE)
repos <- getOption("repos")
if (is.null(repos) || identical(unname(repos["CRAN"]), "@CRAN@")) {
  stop("set a CRAN mirror in options(repos) to install: ", paste(targets, collapse = " "))
}
base <- rownames(installed.packages(priority = "base"))
available <- available.packages()
installed <- installed.packages()
installed <- installed[!duplicated(installed[, "Package"]), , drop = FALSE]
requirements <- function(meta) {
  fields <- intersect(c("Depends", "Imports", "LinkingTo"), colnames(meta))
  text <- paste(stats::na.omit(meta[1, fields]), collapse = ",")
  parts <- trimws(strsplit(text, ",")[[1]])
  parts <- parts[nzchar(parts)]
  name <- sub("^([A-Za-z0-9.]+).*$", "\\1", parts)
  constraint <- ifelse(grepl("\\(", parts), sub("^[^(]*\\(([^)]*)\\).*$", "\\1", parts), "")
  keep <- name != "R" & !name %in% base
  data.frame(name = name[keep], constraint = gsub("\\s+", " ", trimws(constraint[keep])))
}
satisfies <- function(version, constraint) {
  if (!nzchar(constraint)) return(TRUE)
  op <- sub("^([<>=!]+).*$", "\\1", constraint)
  wanted <- trimws(sub("^[<>=!]+", "", constraint))
  do.call(op, list(package_version(version), package_version(wanted)))
}
# what one target needs from CRAN; an error when CRAN serves no version of
# a package on its way for this R (CRAN lists only the packages whose
# Depends this R satisfies)
resolve <- function(target) {
  from_cran <- if (target %in% rownames(installed)) character() else target
  if (length(from_cran) && !target %in% rownames(available)) {
    stop("CRAN has no package ", target, " for R ", getRversion())
  }
  seen <- character()
  queue <- target
  while (length(queue)) {
    p <- queue[1]
    queue <- queue[-1]
    if (p %in% seen) next
    seen <- c(seen, p)
    meta <- if (p %in% from_cran) available[p, , drop = FALSE] else installed[p, , drop = FALSE]
    for (i in seq_len(nrow(req <- requirements(meta)))) {
      d <- req$name[i]
      if (d %in% from_cran) {
        queue <- c(queue, d)
        next
      }
      ok <- d %in% rownames(installed) && satisfies(installed[d, "Version"], req$constraint[i])
      if (!ok) {
        if (!d %in% rownames(available)) stop("CRAN has no package ", d, " (needed by ", p, ") for R ", getRversion())
        from_cran <- c(from_cran, d)
        seen <- setdiff(seen, d)
      }
      queue <- c(queue, d)
    }
  }
  from_cran
}
# a target CRAN cannot serve for this R is left out, said on stderr (the
# tests that need it are then skipped, and say so)
from_cran <- character()
left_out <- character()
for (t in targets) {
  need <- tryCatch(resolve(t), error = function(e) {
    message("Not installed: ", t, ": ", conditionMessage(e))
    NULL
  })
  if (is.null(need)) left_out <- c(left_out, t) else from_cran <- c(from_cran, need)
}
from_cran <- unique(from_cran)
if (length(from_cran)) {
  message("From CRAN: ", paste(sort(from_cran), collapse = " "))
  install.packages(from_cran, dependencies = FALSE, Ncpus = 2L, quiet = TRUE)
}
bad <- setdiff(targets, left_out)
bad <- bad[!vapply(bad, requireNamespace, TRUE, quietly = TRUE)]
if (length(bad)) stop("could not install: ", paste(bad, collapse = " "))
