test_that("run_config() has TF's defaults", {
  cfg <- run_config()
  expect_null(cfg$model_dir)
  expect_null(cfg$tf_random_seed)
  expect_equal(cfg$save_summary_steps, 100)
  expect_null(cfg$save_checkpoints_steps)
  expect_equal(cfg$save_checkpoints_secs, 600)
  expect_equal(cfg$keep_checkpoint_max, 5)
  expect_equal(cfg$keep_checkpoint_every_n_hours, 10000)
  expect_equal(cfg$log_step_count_steps, 100)
  expect_null(run_config(save_checkpoints_steps = 10)$save_checkpoints_secs)
  expect_output(print(cfg), "save_checkpoints_secs = 600")
  expect_output(print(cfg), "model_dir = NULL")
})

test_that("run_config() validates its fields with TF's messages", {
  expect_error(run_config(model_dir = ""), "model_dir should be non-empty")
  expect_error(run_config(save_summary_steps = -1), "save_summary_steps should be >= 0")
  expect_error(run_config(save_checkpoints_steps = -1), "save_checkpoints_steps should be >= 0")
  expect_error(run_config(save_checkpoints_secs = -1), "save_checkpoints_secs should be >= 0")
  expect_error(run_config(keep_checkpoint_max = -1), "keep_checkpoint_max should be >= 0")
  expect_error(run_config(keep_checkpoint_every_n_hours = 0), "keep_checkpoint_every_n_hours should be > 0")
  expect_error(run_config(log_step_count_steps = 0), "log_step_count_steps should be > 0")
  expect_error(run_config(tf_random_seed = 1.5), "tf_random_seed must be integer.")
  expect_error(run_config(save_checkpoints_steps = 1, save_checkpoints_secs = 1),
               "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set.", fixed = TRUE)
  expect_error(run_config(bogus = 1), "unknown run_config\\(\\) field: bogus\\.$")
  expect_error(run_config(tf_random_sed = 1), class = "cppestimators_error",
               regexp = "unknown run_config() field: tf_random_sed. Did you mean `tf_random_seed`?", fixed = TRUE)
  expect_error(run_config(session_config = list()), "session_config must be NULL")
  expect_error(run_config(train_distribute = "mirrored"), "`train_distribute` must be NULL: there is no distributed",
               class = "cppestimators_error")
  expect_error(run_config(device_fn = function(op) "/cpu:0"), "`device_fn` must be NULL")
  expect_s3_class(run_config(train_distribute = NULL, protocol = "grpc", session_creation_timeout_secs = 10),
                  "cppestimators_run_config")
})

test_that("config$replace() works as in TF", {
  cfg <- run_config()
  cfg2 <- cfg$replace(save_checkpoints_steps = 50)
  expect_equal(cfg2$save_checkpoints_steps, 50)
  expect_null(cfg2$save_checkpoints_secs)
  expect_equal(cfg$save_checkpoints_secs, 600)
  cfg3 <- cfg2$replace(save_checkpoints_secs = 30)
  expect_null(cfg3$save_checkpoints_steps)
  expect_error(cfg$replace(save_checkpoints_steps = 1, save_checkpoints_secs = 1), "cannot be both set")
  expect_error(cfg$replace(is_chief = FALSE), "Replacing is_chief is not supported")
  expect_equal(cfg$replace(tf_random_seed = 3)$tf_random_seed, 3)
})

test_that("model_dir: NULL makes a temporary one with a message; conflicts are errors", {
  fcs <- feature_columns(column_numeric("x"))
  expect_message(est <- linear_regressor(fcs), "Using temporary folder as model directory: ")
  expect_true(dir.exists(model_dir(est)))
  d <- tempfile()
  est2 <- linear_regressor(fcs, config = run_config(model_dir = d))
  expect_equal(model_dir(est2), normalizePath(d, mustWork = FALSE))
  expect_error(linear_regressor(fcs, model_dir = tempfile(), config = run_config(model_dir = d)),
               "model_dir are set both in constructor and RunConfig, but with different values")
  expect_error(linear_regressor(fcs, config = list()), "`config` must be NULL or made by run_config()")
})

test_that("printing a run configuration (snapshot)", {
  expect_snapshot(print(run_config(tf_random_seed = 7, save_checkpoints_steps = 50)))
})
