// The collectives of the engine itself: Local (one rank) and InProcess
// (ranks on threads of one process, meeting in shared memory).
#include <cppestimators/distributed/collective.h>

#include <cppestimators/io/little_endian.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace cppestimators {
namespace {

class LocalCollective final : public Collective {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allreduce_sum(double*, std::size_t) override { check(); }
  std::vector<std::string> allgather(const std::string& bytes) override {
    check();
    return {bytes};
  }
  void broadcast(std::string&, int root) override {
    check();
    if (root != 0)
      throw std::invalid_argument("broadcast: root " + std::to_string(root) +
                                  " is not a rank of 1");
  }
  void abort(const std::string& reason) override { aborted_ = "rank 0 gave up: " + reason; }

 private:
  void check() const {
    if (!aborted_.empty()) throw std::runtime_error("collective aborted (" + aborted_ + ")");
  }
  std::string aborted_;
};

// What the ranks of an InProcess group share. Each operation is a round:
// every rank posts its contribution, waits for all (the first barrier),
// reads what it needs, and waits again (the second) before a slot may be
// overwritten by the next round.
struct Group {
  explicit Group(int n)
      : size(n),
        numbers(static_cast<std::size_t>(n)),
        counts(static_cast<std::size_t>(n)),
        strings(static_cast<std::size_t>(n)) {}
  const int size;
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  std::uint64_t generation = 0;
  std::string aborted;  // why, once a rank gave up
  std::vector<const double*> numbers;
  std::vector<std::size_t> counts;
  std::vector<const std::string*> strings;

  void fail_if_aborted() const {
    if (!aborted.empty()) throw std::runtime_error("collective aborted (" + aborted + ")");
  }
  // Waits until every rank has arrived at this barrier.
  void barrier(std::unique_lock<std::mutex>& lock) {
    fail_if_aborted();
    const std::uint64_t mine = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return;
    }
    cv.wait(lock, [&] { return generation != mine || !aborted.empty(); });
    fail_if_aborted();
  }
};

class InProcessCollective final : public Collective {
 public:
  InProcessCollective(std::shared_ptr<Group> group, int rank)
      : group_(std::move(group)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return group_->size; }

  void allreduce_sum(double* data, std::size_t n) override {
    Group& g = *group_;
    std::unique_lock<std::mutex> lock(g.mu);
    g.numbers[static_cast<std::size_t>(rank_)] = data;
    g.counts[static_cast<std::size_t>(rank_)] = n;
    g.barrier(lock);
    std::string mismatch;
    for (std::size_t r = 0; r < g.counts.size() && mismatch.empty(); ++r) {
      if (g.counts[r] != n)
        mismatch = "allreduce_sum: rank " + std::to_string(r) + " gave " +
                   std::to_string(g.counts[r]) + " values, rank " + std::to_string(rank_) +
                   " gave " + std::to_string(n);
    }
    if (mismatch.empty()) {
      sum_.assign(g.numbers[0], g.numbers[0] + n);  // rank 0's values as they are (-0 stays -0)
      for (std::size_t r = 1; r < g.numbers.size(); ++r) {
        const double* x = g.numbers[r];
        for (std::size_t i = 0; i < n; ++i) sum_[i] += x[i];
      }
    }
    g.barrier(lock);  // every rank has read every input: now write ours
    // (every rank saw the same counts, so every rank throws alike)
    if (!mismatch.empty()) throw std::invalid_argument(mismatch);
    std::copy(sum_.begin(), sum_.end(), data);
  }

  std::vector<std::string> allgather(const std::string& bytes) override {
    Group& g = *group_;
    std::unique_lock<std::mutex> lock(g.mu);
    g.strings[static_cast<std::size_t>(rank_)] = &bytes;
    g.barrier(lock);
    std::vector<std::string> all;
    all.reserve(g.strings.size());
    for (const std::string* s : g.strings) all.push_back(*s);
    g.barrier(lock);
    return all;
  }

  void broadcast(std::string& bytes, int root) override {
    Group& g = *group_;
    if (root < 0 || root >= g.size)
      throw std::invalid_argument("broadcast: root " + std::to_string(root) + " is not a rank of " +
                                  std::to_string(g.size));
    std::unique_lock<std::mutex> lock(g.mu);
    g.strings[static_cast<std::size_t>(rank_)] = &bytes;
    g.barrier(lock);
    std::string copy = *g.strings[static_cast<std::size_t>(root)];
    g.barrier(lock);
    if (rank_ != root) bytes.swap(copy);
  }

  void abort(const std::string& reason) override {
    Group& g = *group_;
    std::lock_guard<std::mutex> lock(g.mu);
    if (g.aborted.empty()) g.aborted = "rank " + std::to_string(rank_) + " gave up: " + reason;
    g.cv.notify_all();
  }

 private:
  std::shared_ptr<Group> group_;
  int rank_;
  std::vector<double> sum_;  // the round's sum, kept so that rounds reuse it
};

}  // namespace

std::unique_ptr<Collective> make_local_collective() { return std::make_unique<LocalCollective>(); }

ShardLayout shard_layout(Collective* c, std::int64_t rows, bool observer) {
  ShardLayout out;
  out.total = rows;
  out.shard_rank.assign(1, 0);
  if (c == nullptr || c->size() <= 1) return out;
  std::string mine;
  detail::put_u64(mine, static_cast<std::uint64_t>(rows));
  detail::put_u64(mine, observer ? 1 : 0);
  const std::vector<std::string> all = c->allgather(mine);
  out.total = 0;
  out.shards = 0;
  out.shard_rank.clear();
  for (std::size_t r = 0; r < all.size(); ++r) {
    detail::LittleEndianReader in(all[r].data(), all[r].size());
    const std::int64_t n = static_cast<std::int64_t>(in.u64("rows"));
    const bool observes = in.u64("observer") != 0;
    out.total += n;
    if (static_cast<int>(r) == c->rank()) out.shard = out.shards;
    if (!observes) {
      out.shard_rank.push_back(static_cast<int>(r));
      ++out.shards;
    }
  }
  if (out.shards == 0) {
    out.shards = 1;
    out.shard_rank.assign(1, 0);
  }
  return out;
}

std::vector<std::unique_ptr<Collective>> make_in_process_collectives(int size) {
  if (size < 1)
    throw std::invalid_argument("make_in_process_collectives: size must be >= 1, not " +
                                std::to_string(size));
  auto group = std::make_shared<Group>(size);
  std::vector<std::unique_ptr<Collective>> ranks;
  for (int r = 0; r < size; ++r) ranks.push_back(std::make_unique<InProcessCollective>(group, r));
  return ranks;
}

}  // namespace cppestimators
