#' Keys of modes, predictions, metrics and graph collections
#'
#' Named lists of the string constants TensorFlow used, as tfestimators
#' exported them, so that scripts can write `prediction_keys()$PROBABILITIES`
#' rather than `"probabilities"`.
#'
#' * `mode_keys()`: the modes of a session (`TRAIN`, `EVAL`, `PREDICT`).
#' * `prediction_keys()`: the columns [predict()] can return
#'   (`predict_keys =`).
#' * `metric_keys()`: the names of [evaluate()]'s metrics; the `_AT_`
#'   entries are `sprintf()` formats (a threshold, a class id).
#' * `graph_keys()`: names of graph collections. In a hook,
#'   `context$session$graph$get_collection()` answers `LOSSES` and
#'   `GLOBAL_STEP`; the other names exist so that scripts using them still
#'   parse, and their collections are empty.
#'
#' @return A named list of strings.
#' @family estimator methods
#' @name keys
#' @examples
#' mode_keys()$TRAIN
#' prediction_keys()$PROBABILITIES
#' metric_keys()$AUC
#' sprintf(metric_keys()$PROBABILITY_MEAN_AT_CLASS, 2L)
#' graph_keys()$LOSSES
NULL

#' @rdname keys
#' @export
mode_keys <- function() {
  list(TRAIN = "train", EVAL = "eval", PREDICT = "infer")
}

#' @rdname keys
#' @export
prediction_keys <- function() {
  list(CLASSES = "classes", CLASS_IDS = "class_ids", LOGISTIC = "logistic", LOGITS = "logits",
       PREDICTIONS = "predictions", PROBABILITIES = "probabilities")
}

#' @rdname keys
#' @export
metric_keys <- function() {
  list(LOSS = "loss", LOSS_MEAN = "average_loss", LOSS_REGULARIZATION = "regularization_loss",
       ACCURACY = "accuracy", PRECISION = "precision", RECALL = "recall",
       ACCURACY_BASELINE = "accuracy_baseline", AUC = "auc", AUC_PR = "auc_precision_recall",
       LABEL_MEAN = "label/mean", PREDICTION_MEAN = "prediction/mean",
       ACCURACY_AT_THRESHOLD = "accuracy/positive_threshold_%g",
       PRECISION_AT_THRESHOLD = "precision/positive_threshold_%g",
       RECALL_AT_THRESHOLD = "recall/positive_threshold_%g",
       PROBABILITY_MEAN_AT_CLASS = "probability_mean/class%d", AUC_AT_CLASS = "auc/class%d",
       AUC_PR_AT_CLASS = "auc_precision_recall/class%d")
}

#' @rdname keys
#' @export
graph_keys <- function() {
  list(GLOBAL_VARIABLES = "variables", LOCAL_VARIABLES = "local_variables",
       MODEL_VARIABLES = "model_variables", TRAINABLE_VARIABLES = "trainable_variables",
       SUMMARIES = "summaries", QUEUE_RUNNERS = "queue_runners", TABLE_INITIALIZERS = "table_initializer",
       ASSET_FILEPATHS = "asset_filepaths", MOVING_AVERAGE_VARIABLES = "moving_average_variables",
       REGULARIZATION_LOSSES = "regularization_losses", CONCATENATED_VARIABLES = "concatenated_variables",
       SAVERS = "savers", WEIGHTS = "weights", BIASES = "biases", ACTIVATIONS = "activations",
       UPDATE_OPS = "update_ops", LOSSES = "losses", SAVEABLE_OBJECTS = "saveable_objects",
       RESOURCES = "resources", LOCAL_RESOURCES = "local_resources",
       TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables", INIT_OP = "init_op",
       LOCAL_INIT_OP = "local_init_op", READY_OP = "ready_op",
       READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op", SUMMARY_OP = "summary_op",
       GLOBAL_STEP = "global_step", EVAL_STEP = "eval_step", TRAIN_OP = "train_op",
       COND_CONTEXT = "cond_context", WHILE_CONTEXT = "while_context", METRIC_VARIABLES = "metric_variables")
}
