# Training across processes under MPI (R/distributed.R): every rank runs
# the same script; rank 0 is the chief and trains on a shard too.

# Rmpi's function `name`. (Looked up when called rather than written as
# Rmpi::name: R CMD check loads the namespaces of `::` references to check
# them, and loading Rmpi starts MPI in the checking process.)
rmpi <- function(name) getExportedValue("Rmpi", name)

# This process's rank and the job's size under MPI (Rmpi).
mpi_world <- function() {
  if (!requireNamespace("Rmpi", quietly = TRUE)) {
    cluster_fail("`cluster = \"mpi\"` needs the Rmpi package (Debian: r-cran-rmpi), which is not installed.")
  }
  list(rank = as.integer(rmpi("mpi.comm.rank")(0)), size = as.integer(rmpi("mpi.comm.size")(0)))
}

# Every rank's bytes end to end, with each rank's count: their lengths,
# then the bytes (MPI_Allgatherv).
mpi_gathered <- function(bytes, size) {
  counts <- rmpi("mpi.allgather")(length(bytes), type = 1, rdata = integer(size), comm = 0)
  all <- rmpi("mpi.allgatherv")(bytes, type = 4, rdata = raw(sum(counts)), rcounts = counts, comm = 0)
  list(all = all, counts = as.integer(counts))
}

# Every rank gathers every rank's part and combines them itself (the same
# combination on every rank, in rank order).
mpi_collective <- function(world) {
  list(
    rank = world$rank, size = world$size,
    allgather = function(bytes) {
      g <- mpi_gathered(bytes, world$size)
      cpp_split_parts(g$all, g$counts)
    },
    allcombine = function(bytes) {
      g <- mpi_gathered(bytes, world$size)
      cpp_round_combine_flat(g$all, g$counts)
    },
    broadcast = function(bytes, root) {
      n <- rmpi("mpi.bcast")(if (world$rank == root) length(bytes) else 0L, type = 1, rank = root, comm = 0)
      if (n == 0L) return(raw())
      rmpi("mpi.bcast")(if (world$rank == root) bytes else raw(n), type = 4, rank = root, comm = 0)
    },
    abort = function(reason) {
      # MPI's collectives cannot be left by one rank: the job ends
      message(sprintf("cppestimators: rank %d gives up training: %s", world$rank, reason))
      rmpi("mpi.abort")(comm = 0)
    }
  )
}

# The part of an MPI rank: its shard of the data (rank r reads rows r + 1,
# r + 1 + size, ... of a data frame, shard r of a dataset), its collective.
mpi_training <- function(world, data, seed, share) {
  if (isTRUE(data$stream)) {
    data$input$dataset <- shard_dataset(data$input$dataset, world$size, world$rank)
  } else {
    data <- take_shard(data, world$rank + 1L, world$size)
    if (isTRUE(data$whole_batches)) data$batch_size <- max(1L, NROW(data$labels))  # its whole shard a batch
  }
  list(data = data, seed = rank_seed(seed, world$rank), share_losses = share,
       collective = cpp_r_collective(mpi_collective(world)), observer = FALSE,
       finish = function() invisible(), fail = function(e) invisible())
}

# train() on an MPI rank other than 0: once the chief says it trains
# (mpi_go()), the same session on its shard, no hooks, no model_dir (the
# chief writes it).
mpi_worker_train <- function(object, input_fn, world) {
  go <- mpi_go(world, NA)
  if (go == 0L) return(invisible(new_history(NULL)))
  ptr <- estimator_ptr(object)
  run_session(object, input_fn, "train", list(), ptr = ptr,
              distributed = function(data, seed, kernel, hooks) mpi_training(world, data, seed, go == 2L))
  invisible(new_history(NULL))
}

# Whether this train() call trains: the chief's decision (`go`: 0 no, after
# its checks, the model_dir lock and max_steps; 1 yes; 2 yes, its hooks
# reading per-example losses), broadcast to every rank.
mpi_go <- function(world, go) {
  as.integer(rmpi("mpi.bcast")(if (world$rank == 0L) as.integer(go) else 0L, type = 1, rank = 0, comm = 0))
}
