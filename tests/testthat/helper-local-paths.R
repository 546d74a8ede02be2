# Temporary paths removed when the calling test (or function) exits.
local_test_file <- function(fileext = "", pattern = "file", env = parent.frame()) {
  path <- tempfile(pattern, fileext = fileext)
  do.call(on.exit, list(bquote(unlink(.(path), recursive = TRUE)), add = TRUE), envir = env)
  path
}

local_test_dir <- function(pattern = "dir", env = parent.frame()) {
  path <- local_test_file(pattern = pattern, env = env)
  dir.create(path)
  path
}
