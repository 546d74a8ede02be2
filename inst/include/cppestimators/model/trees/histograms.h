// The statistics boosted trees grow a layer from: per node of the layer,
// feature and bucket, the sums of the examples' gradients and hessians, and
// per node their totals. Histograms computes one batch's (each thread a range
// of its rows, then their sum: a training step's statistics); Accumulator
// adds steps' statistics up in the model's variables until the layer grows.
// With K logits (multi-class trees) every bin and total holds K (g, h)
// pairs, class after class; one logit is the case K = 1.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "../parameter.h"
#include "../training_strategy.h"

namespace cppestimators {

class Head;
struct FeatureBatch;

namespace trees {

class Bucketizer;

// (g, h) per bin (and class), then the node's totals: the values one node
// of a layer holds in a histogram and in the step's statistics.
// (inline: a one-line formula, asked each step by the model too)
inline std::size_t node_stride(int total_bins, int classes = 1) {
  return (static_cast<std::size_t>(total_bins) * 2 + 2) * static_cast<std::size_t>(classes);
}

// A session's buffers for one batch's statistics, sized once.
struct Histograms {
  std::vector<float> hess;  // per batch row (and class)
  bool no_hessian = false;
  std::vector<std::vector<float>> hist;  // per thread: layer slots x (bins x (g, h), 2 unused)
  std::vector<double> totals;            // per thread and slot: the node's (g, h) per class
  std::vector<double> sums;              // the step's statistics (StepStats::sums)
  int threads_used = 1;                  // threads that computed them
  int classes = 1;                       // K
  // TF's closed-form logistic gradients and hessians (one logit), computed
  // here chunk by chunk from the labels instead of the head's gradients.
  bool closed_form = false;
  std::vector<std::vector<float>> chunk_gh;  // per thread: a chunk's g, then its h

  static constexpr int kChunk = 1024;  // rows whose g and h stay in the cache

  // For batches of up to `max_rows`, layers of up to `slots` nodes, K logits.
  void allocate(int threads, int max_rows, std::size_t slots, int total_bins, int k = 1);

  // The statistics of a batch whose row r reached node `node[r]` (of the
  // layer's `slots` nodes starting at `first`; earlier ones are leaves that
  // could not split) and has buckets `all_bins` (data rows x features), on
  // `threads` threads. Nodes `exists(node)` denies get zeros.
  // (inline: a template on the caller's node test, which compute_stats()
  // takes as a std::function: it is asked once per node, not per row)
  template <class B, class Exists>
  StepStats compute(const FeatureBatch& batch, const float* logits, const float* dlogits,
                    const Head& head, const int* node, const B* all_bins, const Bucketizer& buckets,
                    int first, int slots, int threads, Exists exists) {
    return compute_stats(batch, logits, dlogits, head, node, all_bins, buckets, first, slots,
                         threads, std::function<bool(int)>(exists));
  }

  // A training step of one pass for a batch of every row in order (one
  // logit, TF's closed-form logistic gradients): each thread takes the rows
  // compute() gives it, chunk by chunk: `walk(r0, r1)` writes the chunk's
  // logits and the nodes its rows reach (into node[]), then the chunk's
  // losses (into per_example), gradients and hessians
  // (fast::logistic_step(), eight lanes when `wide`), then its histograms,
  // while all of them are in the cache. The same statistics as compute()
  // after the walk; `loss` gets the batch's summed (weighted) loss.
  template <class B, class Exists>
  StepStats fused(const FeatureBatch& batch, float* logits, float* per_example, const int* node,
                  const B* all_bins, const Bucketizer& buckets, int first, int slots, int threads,
                  bool wide, const std::function<void(int, int)>& walk, Exists exists,
                  double& loss) {
    return fused_stats(batch, logits, per_example, node, all_bins, buckets, first, slots, threads,
                       wide, walk, std::function<bool(int)>(exists), loss);
  }

 private:
  // compute() for each width of buckets (histograms.cpp has it for
  // std::uint8_t and std::uint16_t).
  template <class B>
  StepStats compute_stats(const FeatureBatch& batch, const float* logits, const float* dlogits,
                          const Head& head, const int* node, const B* all_bins,
                          const Bucketizer& buckets, int first, int slots, int threads,
                          const std::function<bool(int)>& exists);

  // fused() for each width of buckets.
  template <class B>
  StepStats fused_stats(const FeatureBatch& batch, float* logits, float* per_example,
                        const int* node, const B* all_bins, const Bucketizer& buckets, int first,
                        int slots, int threads, bool wide,
                        const std::function<void(int, int)>& walk,
                        const std::function<bool(int)>& exists, double& loss);

  // The threads' histograms and totals summed into the step's statistics.
  StepStats reduce(const Bucketizer& buckets, int first, int slots, int threads,
                   const std::function<bool(int)>& exists);

  // The totals of a layer of one node, kept in registers while its rows are
  // added (a sum kept in memory would chain every row to the one before),
  // then added to the node's totals.
  struct Run {
    int slot = -1;
    double G = 0.0, H = 0.0;
    inline void flush(double* totals_t);  // (inline, defined in histograms.cpp)
  };

  // Batch rows [r0, r1), with gradients dl[r - at] and hessians
  // hs_in[r - at] (the batch mean's hessian is hs_in[r - at] * scale), into one thread's histograms
  // (slots of the layer starting at node `first`) and node totals.
  // (inline, defined in histograms.cpp, its one user: compute_stats()
  // calls it per chunk of rows)
  template <class B>
  inline void add_rows(const FeatureBatch& batch, const int* node, const B* all_bins,
                       const Bucketizer& buckets, int r0, int r1, int first, std::size_t stride,
                       const float* dl, const float* hs_in, int at, float scale, int slots,
                       float* hist_t, Run& run) const;

  // add_rows() for K logits: row r's gradients dlogits[r K + c] and hessians
  // hess[r K + c], into each bin's K (g, h) pairs and the node's totals.
  // (inline, defined in histograms.cpp, its one user: compute_stats())
  template <class B>
  inline void add_rows_classes(const FeatureBatch& batch, const int* node, const B* all_bins,
                               const Bucketizer& buckets, int r0, int r1, int first,
                               std::size_t stride, const float* dlogits, float scale, float* hist_t,
                               double* totals_t) const;
};

// The layer's statistics summed over its batches, in two variables: per slot
// of the deepest layer, the bins' (g, h) (`stats`) and the node's (`totals`),
// K pairs each for K logits.
struct Accumulator {
  Parameter* stats = nullptr;
  Parameter* totals = nullptr;
  int classes = 1;

  // Adds a step's statistics (of a layer of `slots` nodes starting at
  // `first`, computed on `threads` threads) to the accumulator, emptied
  // first when `fresh`; nodes `exists` denies are left alone.
  // (inline: a template on the caller's node test, which add_stats() takes
  // as a std::function: it is asked once per node)
  template <class Exists>
  void add(const StepStats& step, int total_bins, int first, int slots, int threads, bool fresh,
           Exists exists) {
    add_stats(step, total_bins, first, slots, threads, fresh, std::function<bool(int)>(exists));
  }

  // Slot s's bins, (g, h) each (per class), and its totals.
  const float* bins(int s, int total_bins) const {
    return stats->value.data() + static_cast<std::size_t>(s) * total_bins * 2 * classes;
  }
  const float* node(int s) const {
    return totals->value.data() + static_cast<std::size_t>(s) * 2 * classes;
  }

 private:
  // add() with its node test.
  void add_stats(const StepStats& step, int total_bins, int first, int slots, int threads,
                 bool fresh, const std::function<bool(int)>& exists);
};

}  // namespace trees
}  // namespace cppestimators
