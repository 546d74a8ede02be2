# Fails when the engine's folders include each other in a cycle.
#
# A family is a folder of inst/include/cppestimators/ (its headers) and of
# src/engine/ (their definitions): data, features, model, session, ... A
# file's #include of another family's header is an edge from its family to
# that one; the files at the top of the two folders (spec.h, parallel.h,
# registry.h, ...) belong to no family and anyone may include them. The
# families must form no cycle, so that each can be read, built and tested
# with only the ones below it.
#
# The R layer's families have members: columns (column_*.R, built by
# new_column() or categorical_columns()), models (estimator*.R, by
# new_model_spec()) and hooks (hook_*.R, by new_hook()), each of class
# cppestimators_<family>_<kind>. A member's class may be named (in
# inherits(), a list of classes, ...) only in its own file, the one that
# builds it; elsewhere what differs between members is a trait or an S3
# method of theirs (defining `generic.cppestimators_<family>_<kind>` is
# allowed anywhere: dispatch names no list of members).
#
# No C++ file of the package (src/, inst/include/) puts a `using namespace`
# at file or namespace scope: the engine and the glue each compile as one
# unit (src/Makevars), where such a line reaches every file included after
# it. RcppExports.cpp, which Rcpp generates, is the exception.
#
# Run from the package's root: Rscript tools/check_layers.R (make lint).

include_root <- "inst/include/cppestimators"
source_root <- "src/engine"

family_of <- function(path) {
  for (root in c(include_root, source_root)) {
    if (startsWith(path, paste0(root, "/"))) {
      parts <- strsplit(substring(path, nchar(root) + 2L), "/", fixed = TRUE)[[1]]
      return(if (length(parts) > 1L) parts[1] else NA_character_)
    }
  }
  NA_character_
}

files <- c(list.files(include_root, pattern = "\\.h$", recursive = TRUE, full.names = TRUE),
           list.files(source_root, pattern = "\\.(h|cpp)$", recursive = TRUE, full.names = TRUE))
edges <- list()  # "from to" -> the includes that make it
for (f in files) {
  from <- family_of(f)
  if (is.na(from)) next
  lines <- readLines(f, warn = FALSE)
  incs <- sub('^\\s*#include\\s+[<"]([^>"]+)[>"].*$', "\\1", grep('^\\s*#include\\s+[<"]', lines, value = TRUE))
  for (inc in incs) {
    target <- if (startsWith(inc, "cppestimators/")) {
      file.path(include_root, substring(inc, nchar("cppestimators/") + 1L))
    } else {
      normalizePath(file.path(dirname(f), inc), mustWork = FALSE)
    }
    target <- sub(paste0("^", normalizePath(".", mustWork = FALSE), "/"), "", target)
    if (!file.exists(target)) next
    to <- family_of(target)
    if (is.na(to) || to == from) next
    key <- paste(from, to)
    edges[[key]] <- c(edges[[key]], paste0(f, ": #include ", inc))
  }
}

pairs <- do.call(rbind, strsplit(names(edges), " ", fixed = TRUE))
families <- sort(unique(c(pairs)))
below <- lapply(stats::setNames(nm = families), function(a) pairs[pairs[, 1] == a, 2])

# a cycle through depth-first search: the path back to a family on the stack
find_cycle <- function() {
  state <- stats::setNames(rep(0L, length(families)), families)  # 0 new, 1 on the stack, 2 done
  stack <- character()
  visit <- function(a) {
    state[[a]] <<- 1L
    stack <<- c(stack, a)
    for (b in below[[a]]) {
      if (state[[b]] == 1L) return(c(stack[match(b, stack):length(stack)], b))
      if (state[[b]] == 0L) {
        found <- visit(b)
        if (!is.null(found)) return(found)
      }
    }
    stack <<- stack[-length(stack)]
    state[[a]] <<- 2L
    NULL
  }
  for (a in families) if (state[[a]] == 0L) {
    found <- visit(a)
    if (!is.null(found)) return(found)
  }
  NULL
}

cycle <- find_cycle()
if (!is.null(cycle)) {
  cat("The engine's folders include each other in a cycle:", paste(cycle, collapse = " -> "), "\n")
  for (k in seq_len(length(cycle) - 1L)) {
    cat(sprintf("  %s -> %s:\n", cycle[k], cycle[k + 1L]))
    cat(paste0("    ", edges[[paste(cycle[k], cycle[k + 1L])]], collapse = "\n"), "\n")
  }
  quit(status = 1L)
}
cat(sprintf("The engine's %d folders form no cycle (%d edges between them).\n", length(families), nrow(pairs)))

r_files <- list.files("R", pattern = "\\.R$", full.names = TRUE)
r_code <- lapply(stats::setNames(r_files, r_files), function(f) {
  lines <- readLines(f, warn = FALSE)
  ifelse(grepl("^\\s*#", lines), "", lines)  # code only, not comments or documentation
})
r_families <- list(
  column = list(prefix = "column_", build = '(?:new_column|categorical_columns)\\((?:[^,()]*, *)?"([a-z_]+)"'),
  model = list(prefix = "estimator", build = 'new_model_spec(?:\\(|, c\\(list\\()"([a-z_]+)"'),
  hook = list(prefix = "hook_", build = 'new_hook\\("([a-z_]+)"')
)
homes <- list()  # member class -> the files that build it
for (fam in names(r_families)) {
  spec <- r_families[[fam]]
  for (f in r_files[startsWith(basename(r_files), spec$prefix)]) {
    hits <- regmatches(r_code[[f]], regexec(spec$build, r_code[[f]], perl = TRUE))
    for (h in hits) if (length(h) == 2L) {
      cls <- paste0("cppestimators_", fam, "_", h[2])
      homes[[cls]] <- unique(c(homes[[cls]], f))
    }
  }
}
outside <- character()
for (f in r_files) {
  code <- r_code[[f]]
  for (cls in names(homes)) {
    if (f %in% homes[[cls]]) next
    named <- grepl(paste0('"', cls, '"'), code, fixed = FALSE)
    if (any(named)) {
      outside <- c(outside, sprintf("  %s:%d names %s (built in %s)", f, which(named), cls,
                                    paste(homes[[cls]], collapse = ", ")))
    }
  }
}
if (length(outside)) {
  cat("R files name member classes of a family outside the member's own file:\n",
      paste(outside, collapse = "\n"), "\n", sep = "")
  quit(status = 1L)
}
cat(sprintf("No R file names another file's member class (%d members of %d families).\n",
            length(homes), length(r_families)))

cxx <- setdiff(list.files(c("src", include_root), pattern = "\\.(h|cpp)$", recursive = TRUE, full.names = TRUE),
               "src/RcppExports.cpp")
scoped <- unlist(lapply(cxx, function(f) {
  lines <- readLines(f, warn = FALSE)
  at <- grep("^using namespace ", lines)
  if (length(at)) sprintf("  %s:%d: %s", f, at, lines[at]) else character()
}))
if (length(scoped)) {
  cat("`using namespace` at file or namespace scope (write using-declarations, or qualify the names):\n",
      paste(scoped, collapse = "\n"), "\n", sep = "")
  quit(status = 1L)
}
cat(sprintf("No C++ file of the package has a file-scope `using namespace` (%d files).\n", length(cxx)))
