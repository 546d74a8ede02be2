# Running R code in a child process whose memory is capped, for the
# out-of-memory acceptance test (test-stream_memory.R).
#
# The mechanism is an address-space limit (RLIMIT_AS, set with prlimit, or
# `ulimit -v` when prlimit is missing). A cgroup memory limit would cap the
# resident memory itself, but this machine has cgroup v1 only, its memory
# hierarchy belongs to the container's supervisor, cgroup v2 has no memory
# controller here and `systemd-run --user --scope -p MemoryMax=` finds no
# user bus: no cgroup the test could own. An address-space limit counts
# reserved but untouched memory too, so the child is started with
#   MALLOC_ARENA_MAX=1: one malloc arena (each further arena reserves 64 MiB
#     of address space as soon as a second thread mallocs);
#   a 1 MiB stack limit (RLIMIT_STACK): glibc gives every new thread a stack
#     of that size (8 MiB otherwise, reserved per thread), and R's main
#     thread does not need more for the child's script.
# Measured on this machine (R 4.x, Debian, 2 cores), peak address space
# (VmPeak) and peak resident memory (VmHWM):
#   library(cppestimators) plus a 100-row train(): VmPeak 127-129 MiB,
#     VmHWM 76 MiB; it runs under an address-space limit of 128 MiB and
#     fails to load R's compiler package at 100 MiB;
#   the acceptance test's child (linear and boosted trees over the 1.25 GB
#     CSV): VmPeak 197 MiB, VmHWM 125-135 MiB; it fails (std::bad_alloc) at
#     190 MiB and runs at 200 MiB. With glibc's defaults (8 MiB stacks,
#     several arenas) the same child reserves 315 MiB and needs 350 MiB.
# The limit below, 224 MiB, is the child's need with about 10% to spare,
# under the 250 MB the streaming goal allows.
memory_limit_mb <- 224
memory_limit_stack_kb <- 1024

# The command line that runs `Rscript script args` under the limit, as
# list(command, args), or NULL when neither prlimit nor a shell is there.
memory_limited_rscript <- function(script, args, limit_mb = memory_limit_mb) {
  rscript <- file.path(R.home("bin"), "Rscript")
  as_bytes <- format(limit_mb * 2^20, scientific = FALSE)
  stack_bytes <- format(memory_limit_stack_kb * 1024, scientific = FALSE)
  prlimit <- Sys.which("prlimit")
  if (nzchar(prlimit)) {
    return(list(command = prlimit, args = c(paste0("--as=", as_bytes), paste0("--stack=", stack_bytes),
                                            rscript, script, args)))
  }
  sh <- Sys.which("sh")
  if (!nzchar(sh)) return(NULL)
  line <- sprintf("ulimit -v %d && ulimit -s %d && exec %s", as.integer(limit_mb * 1024),
                  as.integer(memory_limit_stack_kb), paste(shQuote(c(rscript, script, args)), collapse = " "))
  list(command = sh, args = c("-c", line))
}

# Runs `code` (a character vector of R lines) under the limit with
# processx (R_TESTS emptied: under R CMD check it names a startup file of
# the check's directory); returns processx::run()'s list (status, stdout, stderr).
run_memory_limited <- function(code, args = character(), limit_mb = memory_limit_mb, timeout = 600) {
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(code, script)
  cmd <- memory_limited_rscript(script, args, limit_mb)
  processx::run(cmd$command, cmd$args, error_on_status = FALSE, timeout = timeout,
                env = c("current", MALLOC_ARENA_MAX = "1", TZ = "UTC", R_TESTS = "",
                        R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep)))
}

# The `key=value` fields of the last line of `lines` that starts with
# `tag`, as a named numeric vector.
tagged_values <- function(lines, tag) {
  line <- utils::tail(grep(paste0("^", tag, " "), lines, value = TRUE), 1L)
  if (!length(line)) return(NULL)
  fields <- strsplit(sub(paste0("^", tag, " "), "", line), " ")[[1]]
  stats::setNames(as.numeric(sub(".*=", "", fields)), sub("=.*", "", fields))
}

# Writes rows of a known logistic model to `path` until the file holds at
# least `bytes`: numeric features x1..x8, a string category `colour` and a
# 0/1 label `y`, `chunk_rows` rows per write (seeded per chunk, so that the
# head of the file is the same whatever `bytes` is). data.table::fwrite
# when it is installed, write.table otherwise.
logistic_beta <- c(1.5, -2, 1, 0.5, -1, 0.75, -0.5, 0.25)
logistic_colours <- c(red = 0.8, green = -0.8, blue = 0.3, amber = -0.3)
logistic_rows <- function(n, seed) {
  set.seed(seed)
  x <- matrix(stats::rnorm(n * 8L), n, 8L, dimnames = list(NULL, paste0("x", 1:8)))
  k <- sample.int(length(logistic_colours), n, replace = TRUE)
  eta <- drop(x %*% logistic_beta) + logistic_colours[k] - 0.2
  df <- as.data.frame(x)
  df$colour <- names(logistic_colours)[k]
  df$y <- as.integer(stats::runif(n) < stats::plogis(eta))
  df
}
write_logistic_csv <- function(path, bytes, chunk_rows = 912000L, seed = 100L) {
  unlink(path)
  fast <- requireNamespace("data.table", quietly = TRUE)
  i <- 0L
  while (i == 0L || file.size(path) < bytes) {
    df <- logistic_rows(chunk_rows, seed + i)
    if (fast) {
      data.table::fwrite(df, path, append = i > 0L, nThread = 2L)
    } else {
      utils::write.table(df, path, sep = ",", row.names = FALSE, col.names = i == 0L,
                         quote = FALSE, append = i > 0L)
    }
    i <- i + 1L
  }
  invisible(i * chunk_rows)
}
