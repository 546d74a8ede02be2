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
feature_block <- function(object, ptr, data) {
  cache <- data$input$cache
  width <- cpp_estimator_dense_width(ptr)
  if (!is.environment(cache) || width == 0 || length(data$features) == 0L) return(NULL)
  n <- NROW(data$features[[1]])
  if (n * width * 4 > cache_budget()) {
    rm(list = intersect(c("block", "key"), ls(cache)), envir = cache)
    return(NULL)
  }
  key <- feature_block_key(object, data$input, n)
  if (identical(cache$key, key)) return(cache$block)
  cache$block <- NULL
  cache$key <- NULL
  cache$block <- cpp_dense_block(ptr, data$features, engine_threads())
  cache$key <- key
  cache$block
}

# What a block depends on: the dense (numeric) columns, with their
# normalizers, and the identity of the R vectors they read.
feature_block_key <- function(object, input, n) {
  cols <- Filter(function(c) identical(c$kind, "numeric"), object$spec$feature_columns)
  cols <- cols[order(vapply(cols, function(c) c$name, ""), method = "radix")]
  vectors <- vapply(cols, function(c) rlang::obj_address(input$features[[c[["key"]]]]), "")
  rlang::hash(list(lapply(cols, unclass), vectors, n))
}
