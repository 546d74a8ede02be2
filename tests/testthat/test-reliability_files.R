# A full disk and a read-only model_dir (issue 24): errors carry the OS's
# reason and the path, and a training says what it kept. The file systems are
# small tmpfs mounts, which need root (as make test runs on its machines).

# Runs f(dir) with `dir` a fresh tmpfs of `size`, unmounted after.
with_small_disk <- function(size, f) {
  dir <- tempfile("disk-")
  dir.create(dir)
  mounted <- identical(suppressWarnings(system2("mount", c("-t", "tmpfs", "-o", paste0("size=", size), "tmpfs", dir),
                                                stdout = FALSE, stderr = FALSE)), 0L)
  if (!mounted) skip("mounting a small tmpfs needs root")
  on.exit(system2("umount", c("-l", dir), stdout = FALSE, stderr = FALSE), add = TRUE)
  f(dir)
}

remount <- function(dir, options) {
  expect_identical(system2("mount", c("-o", paste0("remount,", options), dir), stdout = FALSE, stderr = FALSE), 0L)
}

drat_input <- function() input_fn(mtcars, features = "drat", response = "mpg", batch_size = 8, num_epochs = NULL)

test_that("a full disk during training says so, and what was kept", {
  skip_on_cran()
  with_small_disk("256k", function(disk) {
    dir <- file.path(disk, "model")
    est <- linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir,
                            config = run_config(save_checkpoints_steps = 50, save_summary_steps = 1,
                                                keep_checkpoint_max = 1000))
    err <- tryCatch(quietly(train(est, drat_input(), steps = 1e6)), error = identity)
    expect_s3_class(err, "cppestimators_file_error")
    expect_s3_class(err, "cppestimators_error")
    msg <- conditionMessage(err)
    expect_match(msg, paste0(dir, "/[^ ]+: [^\n]*No space left on device"))
    kept <- regmatches(msg, regexec(paste0("The disk is full: model_dir keeps its last complete checkpoint, ",
                                           "model.ckpt-([0-9]+).ckpt \\(global step ([0-9]+)\\); global steps ",
                                           "([0-9]+) to ([0-9]+) are held only by this estimator, in memory: ",
                                           "train\\(\\) again once '([^']+)' can be written saves them."), msg))[[1]]
    expect_length(kept, 6)
    saved <- as.numeric(kept[2])
    expect_equal(as.numeric(kept[3]), saved)
    expect_equal(as.numeric(kept[4]), saved + 1)
    in_memory <- as.numeric(kept[5])
    expect_equal(variable_value(est, "global_step")[[1]], in_memory)
    expect_equal(kept[6], dir)
    # the named checkpoint is complete: another estimator restores it
    other <- linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir)
    expect_equal(variable_value(other, "global_step")[[1]], saved)
    # with room again, training goes on from the steps held in memory
    remount(disk, "size=64m")
    quietly(train(est, drat_input(), steps = 5))
    expect_equal(variable_value(linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir),
                                "global_step")[[1]], in_memory + 5)
  })
})

test_that("a read-only model_dir gives the OS's reason; predict() still reads it", {
  skip_on_cran()
  with_small_disk("4m", function(disk) {
    dir <- file.path(disk, "model")
    est <- linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir)
    quietly(train(est, drat_input(), steps = 10))
    remount(disk, "ro")
    on.exit(remount(disk, "rw"), add = TRUE)
    est <- linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir)
    expect_error(quietly(train(est, drat_input(), steps = 1)), class = "cppestimators_file_error", fixed = TRUE,
                 regexp = sprintf("cannot create the lock '%s/.cppestimators.lock': Read-only file system", dir))
    expect_error(quietly(evaluate(est, drat_input(), steps = 1)), class = "cppestimators_file_error",
                 regexp = "eval: cannot create directory: Read-only file system", fixed = TRUE)
    expect_error(quietly(train(linear_regressor(feature_columns(column_numeric("drat")),
                                                model_dir = file.path(dir, "new")), drat_input(), steps = 1)),
                 class = "cppestimators_file_error", fixed = TRUE,
                 regexp = sprintf("cannot create model_dir '%s/new': Read-only file system.", dir))
    p <- predict(est, input_fn(mtcars[1:3, ], features = "drat"))
    expect_length(p$predictions, 3)
  })
})
