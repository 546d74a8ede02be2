# What the R layer hands the engine: plain lists with a `kind` (see
# src/r_data.h). Feature columns go as they are, apart from numeric columns
# with a normalizer_fn, which read their normalized values under a key of
# their own; optimizers go complete, with every hyperparameter filled in by
# their optimizer_*() constructor (the one place that holds the defaults).

# Threads the engine may use: options(cppestimators.threads) when set (a
# count, or "auto" for parallelly::availableCores()); otherwise 1 inside a
# worker process (a forked child, a socket cluster's worker, a callr child),
# whose siblings already share the cores, and 2 elsewhere (at most 2 by
# default, as CRAN asks). Runs with the same seed, data and thread count give
# identical results.
engine_threads <- function() {
  t <- getOption("cppestimators.threads")
  if (is.null(t)) return(if (in_worker_process()) 1L else 2L)
  if (identical(t, "auto")) return(auto_threads())
  check_count(t, "cppestimators.threads", max = 1024,
              message = paste0("options(cppestimators.threads =) must be a whole number of threads >= 1 or ",
                               "\"auto\", not ", describe(t), "."))
  as.integer(t)
}

# Whether this R process is one of several that a parallel computation
# started: a child made by fork() (parallel::mclapply(), future's multicore,
# doMC), a worker of a socket cluster (parallel::makePSOCKcluster(),
# parallelly and future's multisession, doParallel) or a callr child. The
# socket and callr part does not change during a process and is computed
# once; a fork can happen at any time and is asked of the engine each call.
in_worker_process <- function() {
  if (cpp_threads_info()$forked_child) return(TRUE)
  worker <- engine_state$socket_worker
  if (is.null(worker)) {
    # (fixed patterns: a perl = TRUE regex would make R reserve a 64 MiB
    # stack for PCRE's JIT, which a memory-capped process may not have)
    args <- commandArgs()
    worker <- any(grepl("workRSOCK", args, fixed = TRUE) | grepl("slaveRSOCK", args, fixed = TRUE)) ||
      identical(Sys.getenv("CALLR_IS_RUNNING"), "true")
    engine_state$socket_worker <- worker
  }
  worker
}

engine_state <- new.env(parent = emptyenv())

# options(cppestimators.threads = "auto"): the cores this process may use, as
# parallelly counts them (cgroups, schedulers' allocations, mc.cores), 2
# without it.
auto_threads <- function() {
  if (!requireNamespace("parallelly", quietly = TRUE)) return(2L)
  max(1L, min(1024L, as.integer(parallelly::availableCores())))
}

# The matrix-product kernel of dense layers that options(cppestimators.simd)
# asks for ("auto", the default, is the widest this CPU runs), checked; its
# name goes to each session (cpp_session_new()).
engine_kernel <- function() {
  k <- getOption("cppestimators.simd", "auto")
  known <- c("auto", "avx512", "avx2", "portable")
  check_choice(k, "cppestimators.simd", known,
               message = paste0("options(cppestimators.simd =) must be one of ",
                                paste0('"', known, '"', collapse = ", "), ", not ", describe(k), "."))
  used <- tryCatch(cpp_gemm_kernel(k), error = function(e) {
    abort(paste0("options(cppestimators.simd = \"", k, "\"): this CPU cannot run that kernel; it can run ",
                 paste0('"', attr(cpp_gemm_kernel("auto"), "available"), '"', collapse = ", "), "."))
  })
  as.character(used)
}

# A fresh engine object (initial weights) for the estimator's spec.
new_engine <- function(object) cpp_estimator_new(engine_description(object))

# The engine's description of the estimator's model: plain lists, what a
# process training with this one builds its engine from (R/distributed.R).
engine_description <- function(object) {
  spec <- object$spec
  seed <- spec$config$tf_random_seed
  seed <- if (is.null(seed)) floor(stats::runif(1) * 2^31) else abs(seed) %% 2^31
  list(
    model = engine_model(spec, sparse_keys = object$state$sparse_keys), head = engine_head(spec),
    head_n = spec$head_n,
    optimizers = lapply(unname(spec$optimizers %||% list(spec$optimizer)), engine_optimizer),
    seed = seed
  )
}

# `sparse_keys`: the features whose first data were sparse matrices, whose
# numeric columns the engine reads as sparse (note_sparse_features()).
engine_model <- function(spec, sparse_keys = NULL) {
  cols <- lapply(unname(spec$feature_columns), engine_column)
  if (length(sparse_keys)) {
    cols <- lapply(cols, function(col) {
      if (identical(col$kind, "numeric") && col$key %in% sparse_keys) col$sparse <- TRUE
      col
    })
  }
  c(unclass(estimator_model(spec)), list(feature_columns = cols))
}

# Before an estimator's engine is built: the features of the in-memory
# input that are sparse matrices, for a model that reads them sparse
# (linear models and DNNs), are remembered with the estimator's state so
# that its numeric columns read only their non-zeros. The variables are the
# same either way, so an engine built later without them (a restored
# checkpoint) reads those features densely and gives the same model.
note_sparse_features <- function(object, input_fn) {
  st <- object$state
  if (!is.environment(st) || (!is.null(st$ptr) && !is_null_xptr(st$ptr))) return(invisible())
  if (!inherits(input_fn, "cppestimators_input_fn")) return(invisible())
  if (!model_trait(estimator_model(object$spec), "reads_sparse")) return(invisible())
  feats <- input_fn$features
  if (!is.list(feats) || !length(feats)) return(invisible())
  at <- cpp_classed_columns(feats)
  sparse <- names(feats)[at][vapply(feats[at], function(x) inherits(x, "dgCMatrix"), TRUE)]
  if (length(sparse)) st$sparse_keys <- union(st$sparse_keys, sparse)
  invisible()
}

engine_column <- function(col) {
  if (is_data_vocabulary(col)) {
    abort(sprintf(paste0("the feature column '%s' reads its categories from the training data ",
                         "(column_indicator(\"%s\")): train() the estimator first, or give the column its ",
                         "vocabulary (column_categorical_with_vocabulary_list())."), col$key, col$key),
          class = "cppestimators_untrained")
  }
  numeric <- is_numeric_column(col)
  normalized <- numeric && runs_in_r(col$normalizer_fn)
  in_engine <- if (numeric && !normalized) attr(col$normalizer_fn, "engine", exact = TRUE)
  col <- unclass(col)
  if (normalized) col$key <- normalized_key(col)
  if (!is.null(in_engine)) {
    col$shift <- in_engine$shift
    col$scale <- in_engine$scale
  }
  for (field in c("source_column", "categorical_column")) {
    if (!is.null(col[[field]])) col[[field]] <- engine_column(col[[field]])
  }
  if (!is.null(col[["keys"]])) col$keys <- lapply(col[["keys"]], engine_column)
  col$normalizer_fn <- NULL
  col$from_data <- NULL
  col
}

normalized_key <- function(col) paste0(col$name, "/normalized")

# Whether a normalizer_fn is R code the R layer runs over the values (any
# function but those of normalizer_standardize() and normalizer_min_max(),
# whose shift and scale the engine applies as it reads the values).
runs_in_r <- function(fn) !is.null(fn) && is.null(attr(fn, "engine", exact = TRUE))

# Every numeric column (at any depth) and every raw feature key a column reads.
column_leaves <- function(cols) {
  out <- list()
  walk <- function(col) {
    if (is_numeric_column(col)) out[[length(out) + 1L]] <<- col
    else if (!is.null(col[["key"]])) out[[length(out) + 1L]] <<- col
    if (!is.null(col$weight_feature_key)) {
      out[[length(out) + 1L]] <<- list(kind = "raw", key = col$weight_feature_key)
    }
    for (field in c("source_column", "categorical_column")) if (!is.null(col[[field]])) walk(col[[field]])
    for (k in col[["keys"]]) walk(k)
  }
  for (col in cols) walk(col)
  out
}

# The features a session reads, for the estimator's columns: the input's own
# vectors (not copied), plus the normalized values of numeric columns with a
# normalizer_fn (computed once per call).
engine_features <- function(cols, features) {
  out <- list()
  for (leaf in column_leaves(cols)) {
    x <- features[[leaf[["key"]]]]
    if (is.null(x)) {
      abort(sprintf("feature '%s' is used by a feature column but is not among the input's features (%s).",
                    leaf[["key"]], paste(names(features), collapse = ", ")))
    }
    numeric <- is_numeric_column(leaf)
    in_r <- numeric && runs_in_r(leaf$normalizer_fn)
    if (numeric && !in_r) check_not_time(x, leaf)
    if (in_r) {
      rows <- NROW(x)
      x <- tryCatch(leaf$normalizer_fn(x), error = function(e) {
        abort(sprintf("the normalizer_fn of column '%s' failed: %s", leaf$name, conditionMessage(e)),
              class = "cppestimators_normalizer_error", parent = e)
      })
      if (NROW(x) != rows) {
        abort(sprintf("the normalizer_fn of column '%s' returned %d values for %d rows.", leaf$name,
                      NROW(x), rows))
      }
      if (!is.numeric(x) && !is.logical(x)) {
        abort(sprintf("the normalizer_fn of column '%s' returned %s; it must return numbers.",
                      leaf$name, describe(x)))
      }
      out[[normalized_key(leaf)]] <- x
    } else {
      out[[leaf[["key"]]]] <- x
    }
  }
  out
}

# Dates, times and time differences are numbers underneath (days or seconds
# since 1970, in some unit): a numeric column refuses them rather than train
# on that by accident, and says how to convert on purpose.
check_not_time <- function(x, leaf) {
  what <- if (inherits(x, "Date")) {
    c("a Date", "days since 1970-01-01", sprintf("as.numeric(data$%s)", leaf$key))
  } else if (inherits(x, "POSIXt")) {
    c(sprintf("a date-time (%s)", class(x)[1]), "seconds since 1970-01-01 00:00:00 UTC",
      sprintf("as.numeric(data$%s)", leaf$key))
  } else if (inherits(x, "difftime")) {
    c("a difftime", sprintf("a count of %s", attr(x, "units")),
      sprintf("as.numeric(data$%s, units = \"days\")", leaf$key))
  }
  if (is.null(what)) return(invisible())
  abort(sprintf(paste0("the feature '%s' of column_numeric('%s') is %s, which it would read as %s. ",
                       "Convert it on purpose: e.g. data$%s <- %s, a column of its year or month, or a ",
                       "normalizer_fn that converts it.%s"),
                leaf$key, leaf$name, what[1], what[2], leaf$key, what[3], recipes_time_hint(x)),
        class = "cppestimators_feature_type")
}

# For a Date or date-time: how tidymodels users make features of it.
recipes_time_hint <- function(x) {
  if (inherits(x, "Date")) {
    " With tidymodels, a recipe's step_date() makes its year, month and day of the week columns."
  } else if (inherits(x, "POSIXt")) {
    paste(" With tidymodels, a recipe's step_date() (and step_time() for the hour and minute) makes",
          "columns of its parts.")
  } else {
    ""
  }
}

# A complete optimizer spec for the engine. Specs saved by earlier versions
# (a name and a learning rate) are completed the same way.
engine_optimizer <- function(opt) {
  ctor <- optimizer_constructors[[opt$name]]
  if (is.null(ctor)) abort(sprintf("Unsupported optimizer name: %s.", opt$name))
  args <- unclass(opt)[setdiff(names(opt), "name")]
  full <- unclass(do.call(ctor, args[intersect(names(args), names(formals(ctor)))]))
  out <- c(list(kind = full$name), full[setdiff(names(full), "name")])
  # the parsnip engines' FTRL penalizes the mean loss of a step (R/parsnip_fit.R)
  if (isTRUE(opt$penalty_per_step)) out$penalty_per_step <- 1
  # a schedule goes as the optimizer's "schedule" child, with its initial rate
  if (is_schedule(full$learning_rate)) {
    out$schedule <- unclass(full$learning_rate)
    out$learning_rate <- schedule_initial_rate(full$learning_rate)
  }
  out
}

# What defines an estimator's model, for comparing two estimators.
model_signature <- function(object) {
  spec <- object$spec
  list(engine_model(spec), spec$head, spec$head_args, spec$head_n, spec$label_vocabulary)
}
