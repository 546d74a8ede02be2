# Cached feature blocks: the dense columns of an input, as one float32
# row-major block built once and kept in the input function's `cache`
# environment, so that every train(), evaluate() and predict() call over the
# same input (and every epoch) reads it instead of gathering from R's
# column-major doubles. It is rebuilt when the data or the dense columns
# change, freed with the input function, and limited by
# options(cppestimators.cache_bytes) (default 1 GiB; 0 turns it off): beyond
# the budget, sessions gather each batch from the R vectors column by column.

cache_budget <- function() {
  b <- getOption("cppestimators.cache_bytes", 2^30)
  check_number(b, "cppestimators.cache_bytes", min = 0, finite = FALSE,
               message = paste0("options(cppestimators.cache_bytes =) must be a number of bytes >= 0, not ",
                                describe(b), "."))
  b
}

# The block for a session of `object` (engine `ptr`) over `data` (from
# resolve_input()), or NULL.
#
# Its key is the dense columns (their specs, hashed once per estimator by
# column_plan()), the number of rows, and the very R vectors the columns
# read, which the cache keeps (`cache$vectors`) and compares with
# identical(): the same vector is the same pointer, which identical() sees
# at once; another vector is compared by content, so equal data reuses the
# block and different data rebuilds it. Holding the vectors is what makes
# their identity a safe key: R modifies a vector in place only when nothing
# else refers to it (reference counting), and the cache refers to each of
# them, so `df$x[1] <- NA`, `df[1, "x"] <- NA`, `x[] <- ...` or any other
# replacement function in R gives the data a new vector instead of changing
# the one kept; a kept vector cannot be freed and its address reused either.
# Code in C that writes into a vector R shares, ignoring the reference
# count, changes it for every object holding it, this cache included:
# data.table's set() and := do so on purpose, so the block of a data.table's
# input is built for its session only and never kept (`by_reference`, set by
# build_input()).
#
# `rows`: at most how many rows the session reads. A cache that lives only
# for this call (a large data frame given to train(), see frame_cache())
# gets no block for a session that reads fewer rows than the data has (a
# few steps over a large table): building it would read and copy every row
# (a float32 copy of the dense columns, half the data's size) for the few
# batches gathered from the R vectors at less cost.
feature_block <- function(object, ptr, data, rows = Inf) {
  cache <- data$input$cache
  width <- cpp_estimator_dense_width(ptr)
  if (!is.environment(cache) || width == 0 || length(data$features) == 0L) return(NULL)
  n <- NROW(data$features[[1]])
  if (n * width * 4 > cache_budget()) {
    rm(list = intersect(c("block", "key", "vectors"), ls(cache)), envir = cache)
    return(NULL)
  }
  if (rows < n && isTRUE(cache$transient)) return(NULL)
  if (isTRUE(data$input$by_reference)) return(cpp_dense_block(ptr, data$features, engine_threads()))
  plan <- column_plan(object)
  key <- list(plan$dense_hash, n)
  features <- data$input$features
  if (block_current(cache, plan, data$input, n)) {
    # equal data in other vectors: keep these, compared at once next time
    if (!cpp_same_vectors(cache$vectors, features, dense_positions(plan, features))) {
      cache$vectors <- dense_vectors(plan, features)
    }
    return(cache$block)
  }
  cache$block <- NULL
  cache$key <- NULL
  cache$vectors <- NULL
  cache$block <- cpp_dense_block(ptr, data$features, engine_threads())
  cache$key <- key
  cache$vectors <- dense_vectors(plan, features)
  cache$block
}

# Whether `cache` holds the block of these dense columns over these vectors
# (see feature_block()).
# (The very vectors kept are seen in one pass in the engine; others are
# compared by content.)
block_current <- function(cache, plan, input, n) {
  !is.null(cache$block) && identical(cache$key, list(plan$dense_hash, n)) &&
    (cpp_same_vectors(cache$vectors, input$features, dense_positions(plan, input$features)) ||
       identical(cache$vectors, dense_vectors(plan, input$features), num.eq = FALSE))
}

# The positions among `features` of the vectors the dense columns read: by
# position when the input holds exactly the columns' keys, in order (as a
# data frame given to train(), evaluate() or predict() does), else by name.
dense_positions <- function(plan, features) {
  if (identical(names(features), plan$keys)) plan$dense_at else match(plan$dense_keys, names(features))
}

# Those vectors, unnamed.
dense_vectors <- function(plan, features) unname(features[dense_positions(plan, features)])

# The features of a session, marked (attribute `cppestimators_checked`, read
# by dataset_from_r() in src/r_data.cpp) where the engine need not scan a
# numeric column's values for NA and infinities again: when the input's
# cached block was built from these very vectors, building it ran that scan,
# and the vectors cannot have changed since (see feature_block()). Columns
# with a normalizer_fn are scanned as always (their values are computed anew).
mark_checked <- function(plan, input, features) {
  cache <- input$cache
  if (!is.environment(cache) || is.null(cache$block) || isTRUE(input$by_reference) ||
      length(features) == 0L || !length(plan$checked_keys)) {
    return(features)
  }
  if (!block_current(cache, plan, input, NROW(features[[1L]]))) return(features)
  attr(features, "cppestimators_checked") <- if (identical(names(features), plan$keys)) plan$checked_mask else
    names(features) %in% plan$checked_keys
  features
}

# Per-call work that does not depend on the data, done once ------------------
#
# What train(), evaluate() and predict() derive from an estimator's spec (its
# feature columns' leaves and keys, the model's description) is computed once
# and kept in a cache of the estimator, beside its state but not saved with
# it (a weak reference, which serialize() drops). Each value is kept with the
# object it was computed from and reused while identical(kept, current)
# holds: identical() returns at once for the same object, so a hit costs
# nothing, and compares contents otherwise, so a changed spec can never be
# given an answer computed from another one.

call_cache <- function(object) {
  st <- object$state
  ref <- st$call_cache
  cache <- if (!is.null(ref)) rlang::wref_value(ref)
  if (is.null(cache)) {
    cache <- new.env(parent = emptyenv())
    st$call_cache <- rlang::new_weakref(st, cache)
  }
  cache
}

# `compute(key)`, or the value kept under `name` for an identical key.
memo <- function(object, name, key, compute) {
  cache <- call_cache(object)
  slot <- cache[[name]]
  if (!is.null(slot) && identical(slot$key, key)) return(slot$value)
  value <- compute(key)
  assign(name, list(key = key, value = value), envir = cache)
  value
}

# What the per-call code reads off an estimator's feature columns: the leaves
# (column_leaves()), their keys, which are numeric, which have a
# normalizer_fn, the keys the engine reads them under, the vocabulary leaves
# that check_levels() looks at, and a hash of the dense columns (for the
# block's key).
column_plan <- function(object) {
  memo(object, "column_plan", object$spec$feature_columns, function(cols) {
    leaves <- column_leaves(cols)
    leaf_keys <- vapply(leaves, function(leaf) as.character(leaf[["key"]]), "")
    numeric <- vapply(leaves, is_numeric_column, TRUE)
    normalized <- numeric & vapply(leaves, function(leaf) runs_in_r(leaf$normalizer_fn), TRUE)
    engine_keys <- leaf_keys
    engine_keys[normalized] <- vapply(leaves[normalized], normalized_key, "")
    vocab <- vapply(leaves, is_vocabulary_column, TRUE)
    dense <- Filter(is_numeric_column, cols)
    dense <- dense[order(vapply(dense, function(c) c$name, ""), method = "radix")]
    list(leaves = leaves, leaf_keys = leaf_keys, keys = unique(leaf_keys), numeric = numeric,
         normalized = normalized, engine_keys = engine_keys, vocabulary_leaves = leaves[vocab],
         dense_keys = vapply(dense, function(c) as.character(c[["key"]]), ""),
         plain_at = unique(match(leaf_keys[numeric & !normalized], unique(leaf_keys))),
         dense_at = match(vapply(dense, function(c) as.character(c[["key"]]), ""), unique(leaf_keys)),
         checked_keys = unique(vapply(Filter(function(c) !runs_in_r(c$normalizer_fn), dense),
                                      function(c) as.character(c[["key"]]), "")),
         # the checked keys among `keys`, the input's names when it holds them in order
         checked_mask = unique(leaf_keys) %in% vapply(Filter(function(c) !runs_in_r(c$normalizer_fn), dense),
                                                      function(c) as.character(c[["key"]]), ""),
         dense_hash = rlang::hash(lapply(dense, unclass)),
         # the keys of vocabulary columns with nowhere to put a missing value
         strict_keys = unique(as.character(unlist(lapply(leaves[vocab], function(leaf) {
           if (leaf$num_oov_buckets == 0 && leaf$default_value == -1) leaf[["key"]]
         })))),
         numeric_keys = unique(leaf_keys[numeric]),
         raw_numeric_keys = unique(leaf_keys[numeric & vapply(leaves, function(leaf) is.null(leaf$normalizer_fn),
                                                              TRUE)]))
  })
}
