# Input functions over streaming datasets (text_line_dataset(),
# tfrecord_dataset(), sqlite_dataset(), ...): the engine reads the dataset
# window by window while the session trains, so the data need not fit in
# memory.

#' @rdname input_fn
#' @export
input_fn.cppestimators_dataset <- function(object, features, response = NULL, batch_size = 128, ...) {
  check_dots(dots_names(...), "input_fn", c("features", "response", "batch_size"))
  nms <- dataset_names(object)
  if (!length(nms)) {
    abort("the dataset's column names are not known: give its record spec names.")
  }
  response <- select_columns(rlang::enquo(response), nms, arg = "response", null_ok = TRUE)
  if (length(response) > 1L) abort("`response` must name one column.")
  features <- if (missing(features)) setdiff(nms, response) else
    select_columns(rlang::enquo(features), nms, arg = "features")
  batch_size <- check_whole(batch_size, "batch_size", null_ok = FALSE, max = .Machine$integer.max)
  fields <- list(dataset = object, feature_names = features, response = response, batch_size = batch_size,
                 shuffle = FALSE, num_epochs = 1)
  input <- new_input_fn(fields)
  class(input) <- c("cppestimators_dataset_input_fn", class(input))
  input
}

#' @export
print.cppestimators_dataset_input_fn <- function(x, ...) {
  feats <- x$feature_names
  if (length(feats) > 6L) feats <- c(feats[1:5], sprintf("... (%d in all)", length(feats)))
  batch <- dataset_batch_size(x$dataset)
  cat(sprintf("<input_fn: streaming %s; features %s; response %s; batch_size %d%s>\n",
              class(x$dataset)[1L], paste(feats, collapse = ", "), x$response %||% "none",
              as.integer(batch %||% x$batch_size), if (is.null(batch)) "" else " (dataset_batch())"))
  invisible(x)
}

# The batch size dataset_batch() set, or NULL.
dataset_batch_size <- function(dataset) dataset_batch_op(dataset)$batch_size

# The engine session of a streaming input (run_session_impl()); across
# processes, with this process's collective and part (R/distributed.R).
stream_session <- function(object, ptr, input, mode, seed, kernel, collective = NULL, observer = FALSE,
                           share_losses = TRUE) {
  args <- stream_session_args(object, input, mode)
  cpp_stream_session_new(ptr, args$pipeline, args$features, args$response, args$has_vocabulary,
                         args$vocabulary, args$weight, mode, args$batch_size, seed, args$window,
                         engine_threads(), kernel, collective, observer, share_losses)
}

# What cpp_stream_session_new() is given for an input, checked: the same on
# every process of a training across processes.
stream_session_args <- function(object, input, mode) {
  plan <- column_plan(object)
  # the histogram growths read a streamed dataset twice (cuts, then bins)
  # and train from the bins: it must end
  hist <- mode == "train" && is_hist_trees(object)
  if (hist && dataset_is_infinite(input$dataset)) {
    abort(sprintf(paste("boosted trees of growth = \"%s\" read a streamed dataset twice (cuts, then bins) before",
                        "growing every tree from all its rows: this one repeats forever (dataset_repeat() without",
                        "`count`). Give the dataset without the repeat; `steps` or `n_trees` bound the trees."),
                  object$spec$model$growth),
          class = "cppestimators_stream_error")
  }
  if (any(plan$normalized)) {
    abort(paste("column_numeric(normalizer_fn = ) with an R function runs R code on every value and cannot read",
                "a streaming dataset: use normalizer_standardize(mean, sd) or normalizer_min_max(min, max), which",
                "the engine applies, normalize the data when writing the files, or read them into a data frame."),
          class = "cppestimators_stream_error")
  }
  if (mode == "infer" && dataset_is_infinite(input$dataset)) {
    abort("predict() needs a finite dataset: this one repeats forever (dataset_repeat() without `count`).")
  }
  if (mode != "infer" && is.null(input$response)) {
    abort("`input_fn` has no response: train() and evaluate() need one (set `response`).")
  }
  weight <- object$spec$weight_column$name %||% ""
  if (nzchar(weight) && mode != "infer" && !weight %in% dataset_names(input$dataset)) {
    abort(sprintf("the weight column '%s' is not a column of the dataset.", weight))
  }
  vocab <- object$spec$label_vocabulary
  window <- getOption("cppestimators.stream_window_rows", 65536)
  batch <- dataset_batch_size(input$dataset) %||% input$batch_size
  layer <- object$spec$model$n_batches_per_layer
  # boosted trees find their features' quantiles in the first window: at
  # least the batches of one layer
  if (!is.null(layer)) window <- max(window, batch * layer)
  # (the histogram growths bin the rows a batch at a time: large batches)
  if (hist && is.null(dataset_batch_size(input$dataset))) input$batch_size <- max(batch, min(window, 65536))
  features <- intersect(input$feature_names, plan$keys)
  list(pipeline = engine_pipeline(input$dataset), dataset = input$dataset, features = features,
       response = input$response %||% "", has_vocabulary = !is.null(vocab),
       vocabulary = as.character(vocab %||% character()), weight = weight,
       batch_size = as.integer(input$batch_size), window = window)
}
