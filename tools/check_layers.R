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
