# Training across processes: one estimator trained by several R processes,
# each step a round in which every process's batch statistics are combined
# (the engine's session/step_exchange.h) and every process applies the
# same update. Two transports, both existing ones:
# - a socket cluster (parallel::makePSOCKcluster(), parallelly's
#   makeClusterPSOCK()): the session calling train() is the chief (rank 0);
#   it reads no rows, runs every hook and writes model_dir, while the
#   workers (ranks 1..W) train on disjoint shards of the data, sent once and
#   kept there. The rounds travel over the cluster's own connections, as R
#   serializes objects, the chief combining each round once;
# - MPI (Rmpi): every rank runs the same script; rank 0 is the chief and
#   trains on a shard too.
# Estimator objects never travel: the engine's description of the model
# (new_engine()'s list) does, and the chief's variables at the start of
# each train() (a broadcast inside the engine).

# ---- what `cluster` may be ----

# NULL (train in this process), a socket cluster, or "mpi"; anything else
# is an error naming the argument.
check_cluster <- function(cluster, arg = "cluster") {
  if (is.null(cluster) || is_socket_cluster(cluster) || identical(cluster, "mpi")) return(cluster)
  abort(sprintf(paste0("`%s` must be NULL, a socket cluster (parallel::makePSOCKcluster(), ",
                       "parallelly::makeClusterPSOCK()) or \"mpi\", not %s."), arg, describe(cluster)),
        class = "cppestimators_cluster_error")
}

is_socket_cluster <- function(x) {
  inherits(x, "cluster") && length(x) > 0L &&
    all(vapply(x, function(n) inherits(n, c("SOCKnode", "SOCK0node")) && inherits(n$con, "connection"), TRUE))
}

# How long the chief waits for a worker's answer before it gives up on it
# (options(cppestimators.cluster_timeout), seconds): 8 by default, so that
# with the second given to the other workers train() stops within 10.
cluster_timeout <- function() {
  t <- getOption("cppestimators.cluster_timeout", 8)
  check_number(t, "cppestimators.cluster_timeout", min = 0.1,
               must = "a number of seconds >= 0.1")
}

# Whether the rounds carry the batches' per-example losses to the chief:
# only for hooks that can fetch them (those running R code: R closures,
# the logging hook's formatter).
wants_losses <- function(hooks) any(vapply(hooks, function(h) isTRUE(hook_trait(h, "runs_r_code")), TRUE))

# Shuffling seeds differ by rank (the same seed would give every worker the
# same order of its rows).
rank_seed <- function(seed, rank) (seed + 7919 * rank) %% 2^31
