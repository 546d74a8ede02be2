// The two-sided operations that training across processes needs, between
// the ranks 0 .. size() - 1 of one training job. The engine calls them at
// the points of a round where the ranks' statistics meet; a transport
// (MPI, an R socket cluster) implements them. Every rank calls the same
// operations in the same order; an operation returns when every rank has
// called it.
//
// Results never depend on timing: sums are taken in rank order (rank 0's
// value, plus rank 1's, ...), gathers list the ranks in order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cppestimators {

class Collective {
 public:
  virtual ~Collective() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // data[i] becomes the sum over the ranks of their data[i], added in rank
  // order; every rank passes the same n (else every rank throws
  // std::invalid_argument).
  virtual void allreduce_sum(double* data, std::size_t n) = 0;
  // Every rank's bytes, in rank order.
  virtual std::vector<std::string> allgather(const std::string& bytes) = 0;
  // `bytes` becomes root's bytes on every rank.
  virtual void broadcast(std::string& bytes, int root) = 0;
  // Every rank's bytes, combined by `combine` (a function of the ranks'
  // bytes in rank order that gives the same result wherever it runs): every
  // rank gets its result. By default every rank gathers and combines; a
  // transport with a root (a socket cluster's driver) combines once there and
  // sends the result.
  using Combiner = std::function<std::string(const std::vector<std::string>&)>;
  virtual std::string allcombine(const std::string& bytes, const Combiner& combine) {
    return combine(allgather(bytes));
  }
  // Gives up: operations that any rank is waiting in, or calls later, throw
  // std::runtime_error naming this rank and `reason` (a rank that failed
  // calls it so that the others do not wait for it forever).
  virtual void abort(const std::string& reason) = 0;
};

// How the rows of a training across processes are spread (R/distributed.R's
// take_shard()): the ranks holding rows ("data ranks", every rank but a
// socket cluster's observing chief) hold shards 0, 1, ... in rank order,
// shard s of S the global rows s, s + S, s + 2S, ... One process: shard 0
// of 1. Every rank calls it with its rows and whether it observes.
struct ShardLayout {
  int shard = 0, shards = 1;
  std::int64_t total = 0;       // rows over every rank
  std::vector<int> shard_rank;  // the rank holding each shard
};
ShardLayout shard_layout(Collective* c, std::int64_t rows, bool observer);

// One process training alone (size 1): every operation returns its input.
std::unique_ptr<Collective> make_local_collective();

// `size` ranks in one process, rank r being element r, each used from a
// thread of its own: for tests of what the engine does across ranks.
std::vector<std::unique_ptr<Collective>> make_in_process_collectives(int size);

}  // namespace cppestimators
