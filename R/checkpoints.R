#' Checkpoints: the on-disk format of an estimator's state
#'
#' `train()` saves the estimator's state into its [model_dir()] as TensorFlow
#' Estimators did: when the session starts, on the cadence of [run_config()]
#' (`save_checkpoints_secs`, default 600, or `save_checkpoints_steps`), and
#' always at the end of the call. Every `train()`, `evaluate()` and
#' `predict()` starts from the latest checkpoint in `model_dir` when it was
#' written by someone else (another estimator object or R process), so a new
#' estimator built on the same `model_dir` continues where the first stopped.
#'
#' @section Files:
#' * `model.ckpt-<global step>.ckpt`: one file per checkpoint.
#' * `checkpoint`: the index, in TensorFlow's text format, with relative names
#'   and the retained checkpoints oldest first:
#'   ```
#'   model_checkpoint_path: "model.ckpt-1000"
#'   all_model_checkpoint_paths: "model.ckpt-800"
#'   all_model_checkpoint_paths: "model.ckpt-1000"
#'   ```
#' * At most `keep_checkpoint_max` (default 5; 0 keeps all) checkpoints are
#'   kept; older files are deleted once the index no longer lists them.
#'
#' @section Checkpoint file format (version 1):
#' All integers are little-endian.
#' 1. magic: the 8 bytes `CPPESTCK`; format version: uint32 (1); flags: uint32 (0);
#' 2. global step: int64; number of tensors: uint32;
#' 3. for each tensor: name length (uint32) and name (UTF-8); rank (uint32)
#'    and dimensions (int64 each); element count (uint64); the elements as
#'    float32;
#' 4. trailer: the length in bytes of everything before the trailer (uint64)
#'    and the CRC-32C (Castagnoli) of those bytes (uint32).
#'
#' Tensors are every variable of [variable_names()]: weights and optimizer
#' slots, by name with their shapes (and `learning_rate_scale` for models
#' that used [hook_reduce_lr_on_plateau()]; a checkpoint without it means 1).
#'
#' @section Safety:
#' Files are written to a temporary name, flushed and synced to disk, then
#' renamed over the final name; the index is replaced the same way, after the
#' checkpoint. A crash while saving therefore never damages an earlier
#' checkpoint. Reading a corrupt, truncated or foreign file is an error that
#' names the file and what is wrong, and changes nothing. A state whose
#' weights are not finite is never saved.
#'
#' @name checkpoints
#' @family estimator methods
#' @examples
#' dir <- tempfile()
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs, model_dir = dir)
#' train(est, input_fn = input, steps = 3)
#' list.files(dir)
#' readLines(file.path(dir, "checkpoint"))
#' # a second object on the same directory continues from step 3
#' est2 <- linear_regressor(feature_columns = fcs, model_dir = dir)
#' train(est2, input_fn = input, steps = 1)
NULL
