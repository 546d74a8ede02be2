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

// The nodes of a tree's layer whose statistics a step holds, numbered in
// order: those the batch's rows reached (one process), or every node that
// exists (the root, or children of split nodes: the same on every rank of a
// cluster). A node without statistics has all of them zero (TensorFlow's
// growth still splits it, as TensorFlow does), so a deep layer costs the
// nodes with rows, not its 2^layer places.
struct LayerNodes {
  int first = 0;           // the layer's first node, 2^layer - 1
  int width = 1;           // its places, 2^layer
  std::vector<int> slot;   // per place: the node's number among those held, or -1
  std::vector<int> nodes;  // the nodes held, ascending
  int count() const { return static_cast<int>(nodes.size()); }

  // Held: the nodes of layer `layer` that `node[r]` names for r < rows
  // (earlier layers' leaves left out).
  void reached(int layer, const int* node, int rows);
};

// A session's buffers for one batch's statistics, sized by the largest
// layer seen (kept across trees).
struct Histograms {
  std::vector<float> hess;  // per batch row (and class)
  bool no_hessian = false;
  std::vector<std::vector<float>> hist;  // per thread: layer nodes x (bins x (g, h), 2 unused)
  std::vector<double> totals;            // per thread and node: the node's (g, h) per class
  std::vector<double> sums;              // the step's statistics (StepStats::sums)
  int threads_used = 1;                  // threads that computed them
  int classes = 1;                       // K
  // TF's closed-form logistic gradients and hessians (one logit), computed
  // here chunk by chunk from the labels instead of the head's gradients.
  bool closed_form = false;
  std::vector<std::vector<float>> chunk_gh;  // per thread: a chunk's g, then its h

  static constexpr int kChunk = 1024;  // rows whose g and h stay in the cache

  // For batches of up to `max_rows`, K logits; layers of one node (larger
  // ones grow the buffers when they come).
  void allocate(int threads, int max_rows, int total_bins, int k = 1);

  // The statistics of a batch whose row r reached node `node[r]` (one of
  // `layer`'s nodes; earlier ones are leaves that could not split) and has
  // buckets `all_bins` (data rows x features), on `threads` threads: per
  // node of the layer that exists, in their order.
  // (std::uint8_t and std::uint16_t buckets, in histograms.cpp)
  template <class B>
  StepStats compute(const FeatureBatch& batch, const float* logits, const float* dlogits,
                    const Head& head, const int* node, const B* all_bins, const Bucketizer& buckets,
                    const LayerNodes& layer, int threads);

  // A training step of one pass for a batch of every row in order (one
  // logit, TF's closed-form logistic gradients): each thread takes the rows
  // compute() gives it, chunk by chunk: `walk(r0, r1)` writes the chunk's
  // logits and the nodes its rows reach (into node[]), then the chunk's
  // losses (into per_example), gradients and hessians
  // (fast::logistic_step(), eight lanes when `wide`), then its histograms,
  // while all of them are in the cache. The same statistics as compute()
  // after the walk; `loss` gets the batch's summed (weighted) loss.
  // (std::uint8_t and std::uint16_t buckets, in histograms.cpp)
  template <class B>
  StepStats fused(const FeatureBatch& batch, float* logits, float* per_example, const int* node,
                  const B* all_bins, const Bucketizer& buckets, const LayerNodes& layer,
                  int threads, bool wide, const std::function<void(int, int)>& walk, double& loss);

 private:
  // The buffers of `threads` threads for `count` nodes, zeroed; `stride`
  // values per node.
  void prepare(int threads, int count, std::size_t stride);

  // The threads' histograms and totals summed into the step's statistics.
  StepStats reduce(const Bucketizer& buckets, const LayerNodes& layer, int threads);

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
  // (of `layer`'s nodes) and node totals.
  // (inline, defined in histograms.cpp, its one user: compute_stats()
  // calls it per chunk of rows)
  template <class B>
  inline void add_rows(const FeatureBatch& batch, const int* node, const B* all_bins,
                       const Bucketizer& buckets, int r0, int r1, const LayerNodes& layer,
                       std::size_t stride, const float* dl, const float* hs_in, int at, float scale,
                       float* hist_t, Run& run) const;

  // add_rows() for K logits: row r's gradients dlogits[r K + c] and hessians
  // hess[r K + c], into each bin's K (g, h) pairs and the node's totals.
  // (inline, defined in histograms.cpp, its one user: compute_stats())
  template <class B>
  inline void add_rows_classes(const FeatureBatch& batch, const int* node, const B* all_bins,
                               const Bucketizer& buckets, int r0, int r1, const LayerNodes& layer,
                               std::size_t stride, const float* dlogits, float scale, float* hist_t,
                               double* totals_t) const;
};

// The layer's statistics summed over its batches, in three growable
// variables: per node that any of the batches reached (`nodes`: its id; in
// the order first met), the bins' (g, h) (`stats`) and the node's totals
// (`totals`), K pairs each for K logits.
struct Accumulator {
  Parameter* stats = nullptr;
  Parameter* totals = nullptr;
  Parameter* nodes = nullptr;
  int classes = 1;

  // Adds a step's statistics (of `held`'s nodes, computed on `threads`
  // threads) to the accumulator, emptied first when `fresh`; nodes met for
  // the first time get rows. Whether the variables changed length.
  bool add(const StepStats& step, int total_bins, const LayerNodes& held, int threads, bool fresh);

  // The rows of the layer whose first node is `first`, of `width` places,
  // indexed (for row_of()).
  void index(int first, int width);
  // The row of `node` (after index()), or -1: no batch reached it.
  int row_of(int node) const {
    const int place = node - first_;
    return place >= 0 && place < static_cast<int>(rows_.size())
               ? rows_[static_cast<std::size_t>(place)]
               : -1;
  }
  // Row i's bins, (g, h) each (per class), and its totals.
  const float* bins(int i, int total_bins) const {
    return stats->value.data() + static_cast<std::size_t>(i) * total_bins * 2 * classes;
  }
  const float* node(int i) const {
    return totals->value.data() + static_cast<std::size_t>(i) * 2 * classes;
  }
  int count() const { return static_cast<int>(nodes->value.size()); }

  // Statistics of a checkpoint written when the accumulator had a row per
  // place of the deepest layer (node first + s in row s, no `nodes`) given
  // their nodes, for the layer whose first node is `first`, of `width`
  // places; false when they are not of that kind.
  bool adopt_places(int first, int width);

 private:
  int first_ = 0;
  std::vector<int> rows_;  // per place of the indexed layer: its row, or -1
};

}  // namespace trees
}  // namespace cppestimators
