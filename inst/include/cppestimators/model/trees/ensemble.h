// The trees of a boosted ensemble as fixed-size variables (checkpointed like
// any other): per tree, a complete binary tree of 2^(max_depth+1) - 1 nodes
// in heap order (children of node i: 2i+1, 2i+2) with the split feature (-1
// for a leaf), threshold bucket (left when bucket <= threshold), node value
// and split gain (K values per node for K logits: multi-class trees, whose
// leaves hold one value per class); and the training state (finished trees, layers of the
// current tree, attempted layers, batches accumulated, boundaries ready).
// Every value is finite. Rows walk the trees by their buckets, caching per
// data row what earlier steps found; a layer grows from accumulated
// statistics by the split rules of split.h.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../parameter.h"

namespace cppestimators {

struct FeatureBatch;

namespace trees {

struct Accumulator;
struct LayerNodes;
class Bucketizer;
struct Feature;
struct Regularization;
struct TreeConstraints;

// A session's per-row caches for walking the trees, sized once.
struct RowCache {
  // data rows x features, a row filled when first seen: one byte per
  // bucket when every feature has at most 256, else two
  std::vector<std::uint8_t> bins8;
  std::vector<std::uint16_t> bins16;
  std::vector<unsigned char> have_bins;
  std::vector<double> base;             // per data row (and class): the finished trees' leaves
  std::vector<int> base_trees;          // how many finished trees `base` holds
  std::vector<int> node_of, node_tree;  // per data row: the node it last reached, in which tree
  double attempted_seen = 0.0;
  float bins_version = -1.0f;
  std::vector<int> node;  // per batch row: node reached in the tree being grown
  // the tree being grown, copied at each forward pass: per node its split
  // feature (-1: a leaf) and threshold as integers, and its value
  std::vector<int> tree_feature, tree_threshold;
  std::vector<float> tree_value;
  // After a forward pass over every row in order, what every row's
  // base_trees and node_tree are (not stored per row then) and that every
  // row has its buckets; -2: the per-row arrays hold them.
  int all_base_trees = -2, all_node_tree = -2;

  // Writes the values every row shares into the per-row arrays.
  void spell_out();

  // Every row unseen again (the rows now hold other examples).
  void forget_rows();

  void allocate(std::size_t data_rows, std::size_t features, bool narrow, int max_rows,
                int classes = 1);
};

class Ensemble {
 public:
  enum StateField { kFinished, kLayer, kAttempted, kBatches, kBoundariesReady, kStateSize };

  Ensemble() = default;
  Ensemble(int n_trees, int max_depth, int classes = 1);

  // The variables: n_trees x nodes each (the values n_trees x nodes x K),
  // and the state (kStateSize).
  void attach(Parameter& feature, Parameter& threshold, Parameter& value, Parameter& gain);
  void attach_state(Parameter& state) { state_ = &state; }
  // The covers (n_trees x nodes): each child's hessian sum when its parent
  // split (summed over the classes), from the statistics that split it.
  void attach_cover(Parameter& cover) { cover_ = &cover; }
  float node_cover(int tree, int node) const {
    return cover_->value[static_cast<std::size_t>(tree * nodes_ + node)];
  }
  // Whether the covers were recorded (a model saved before they were has
  // none: every one 0 though some tree split).
  bool has_covers() const;
  // The trees predictions walk: the finished ones, then the one being grown
  // (-1: none), within the tree limit (as forward()).
  void walked_trees(int& finished, int& current) const;

  int n_trees() const { return n_trees_; }
  int max_depth() const { return max_depth_; }
  int classes() const { return classes_; }
  std::int64_t nodes() const { return nodes_; }
  float state(StateField f) const { return state_->value[f]; }
  void set_state(StateField f, float v) { state_->value[f] = v; }
  double finished_trees() const { return state(kFinished); }
  double layers_in_tree() const { return state(kLayer); }
  double attempted_layers() const { return state(kAttempted); }
  bool training_finished() const {
    return finished_trees() >= n_trees_ || attempted_layers() > 2 * n_trees_ * max_depth_;
  }
  float node_value(int tree, int node, int c = 0) const {
    return value_->value[static_cast<std::size_t>((tree * nodes_ + node) * classes_ + c)];
  }
  int node_feature(int tree, int node) const {
    return static_cast<int>(feature_->value[static_cast<std::size_t>(tree * nodes_ + node)]);
  }
  int node_threshold(int tree, int node) const {
    return static_cast<int>(threshold_->value[static_cast<std::size_t>(tree * nodes_ + node)]);
  }
  float node_gain(int tree, int node) const {
    return gain_->value[static_cast<std::size_t>(tree * nodes_ + node)];
  }
  // Whether `node` of `tree` exists: the root, or a child of a split node.
  bool node_exists(int tree, int node) const {
    return node == 0 ||
           feature_->value[static_cast<std::size_t>(tree * nodes_ + (node - 1) / 2)] >= 0.0f;
  }

  // The logits of a batch (rows bucketized by `buckets` when first seen):
  // the finished trees' leaves plus the node each row reaches in the tree
  // being grown, which `cache.node` keeps for the histograms.
  void forward(const FeatureBatch& batch, const Bucketizer& buckets, RowCache& cache,
               int session_threads, float* logits) const;

  // The nodes each row reaches (in cache.node_of: row r is data row r) and
  // the logits, for a batch of every row in order after a pass that was
  // one too: every row's base holds cache.all_base_trees trees and its
  // node_of is a node of tree cache.all_node_tree.
  template <class B>
  void walk_all_rows(RowCache& cache, const B* all_bins, std::size_t n_feats, int r0, int r1,
                     int finished, int current, float* logits) const;

  // Whether forward() of `batch` walks every row in order with the state
  // they share (walk_all_rows()).
  bool walks_in_order(const FeatureBatch& batch, const RowCache& cache) const;

  // What forward() does before its walk: the caches checked against the
  // ensemble (new buckets, an ensemble restored to an earlier one), the tree
  // being grown copied; `finished` gets the finished trees, `current` the
  // tree being grown (-1: none).
  void begin_walk(RowCache& cache, int& finished, int& current) const;

  // The node each batch row reached in the tree being grown (after forward()).
  const int* nodes_reached(const FeatureBatch& batch, const RowCache& cache) const;

  // The nodes of `tree`'s layer `layer` that exist, into `out` (its
  // buffers reused).
  void layer_nodes(int tree, int layer, LayerNodes& out) const;

  // One layer of `tree` (its nodes `nodes`, every one that exists) from the
  // accumulated statistics of `batches_per_layer` batches (averaged; zeros
  // for a node no batch reached), then the state moves on.
  void grow_layer(int tree, const LayerNodes& nodes, int threads, Accumulator& acc,
                  const Bucketizer& buckets, const Regularization& reg, float learning_rate,
                  int batches_per_layer);

  // TF's post-pruning of a finished tree: from the bottom up, a split whose
  // gain is negative and whose children are both leaves becomes a leaf
  // again, with the value it had before it split (its children go).
  void post_prune(int tree);

  // TF's BoostedTreesCenterBias on tree 0's root: the leaf weight of the
  // mean gradient and hessian is added to the bias (set to it the first
  // time); returns whether centering goes on (the change is more than 1% of
  // the bias before it).
  bool center_bias(float mean_gradient, float mean_hessian, const Regularization& reg, bool first);

  enum Pruning { kNoPruning = 0, kPrePruning = 1, kPostPruning = 2 };
  void set_pruning(Pruning p) { pruning_ = p; }
  // true: a layer where no node splits finishes its tree (xgboost's rule: a
  // node that can not split is a leaf) instead of being tried again (TF's)
  void set_finish_unsplit(bool on) { finish_unsplit_ = on; }
  // Predictions from the first `n` trees only (-1: all of them), as
  // multi_predict() of parsnip asks: a setting of the model, not of its
  // variables (training ignores it: set it around a prediction only).
  void set_tree_limit(int n) { tree_limit_ = n; }
  // Monotone and interaction constraints per feature (null: none; kept by
  // the caller). A node's bounds and sets come from its ancestors' splits
  // and the values stored: past a split on a monotone feature, the left
  // subtree's values are at most (increasing) or at least (decreasing) the
  // mean of the two children's values, the right subtree's the other way.
  void set_constraints(const TreeConstraints* c) { constraints_ = c; }

  // Each feature's summed split gains over the trees grown so far.
  std::vector<std::pair<std::string, double>> importances(const std::vector<Feature>& feats) const;

 private:
  // After a layer's nodes split where they could (`split` per slot), the
  // state moves on.
  void finish_layer(int tree, int layer, const std::vector<unsigned char>& split);

  // Node `node`'s value bounds and (with interaction constraints) its sets,
  // from its ancestors in tree `tree`.
  void node_constraints(int tree, int node, float& lo, float& hi,
                        std::vector<std::uint64_t>& sets) const;

  // grow_layer()'s splits for K logits: per class sums, K leaf values per
  // node (a node that splits does so for every class, on the gain summed
  // over the classes; see offer_feature_classes()), in float as the one-logit
  // trees.
  void grow_classes(int tree, const LayerNodes& nodes, int t_count, const Accumulator& acc,
                    const std::vector<float>& zeros, const Bucketizer& buckets,
                    const Regularization& reg, float learning_rate, float per,
                    std::vector<unsigned char>& split);

  // walk_rows() for K logits: per data row K base values, per batch row K
  // logits (row-major).
  template <class B>
  void walk_rows_classes(const FeatureBatch& batch, const Bucketizer& buckets, RowCache& cache,
                         B* all_bins, int r0, int r1, std::size_t lo, std::size_t hi, int finished,
                         int current, float* logits) const;

  // forward() for batch rows [r0, r1) whose data row lies in [lo, hi).
  template <class B>
  void walk_rows(const FeatureBatch& batch, const Bucketizer& buckets, RowCache& cache, B* all_bins,
                 int r0, int r1, std::size_t lo, std::size_t hi, int finished, int current,
                 float* logits) const;

  // Node n of `tree`, or its nearest ancestor that post-pruning left.
  // (inline, defined in ensemble.cpp, its one user: the tree walks call it
  // per row)
  inline std::size_t surviving(int tree, int n) const;

  // The flat index of the node a row with buckets `bins` reaches in `tree`
  // from node `n` (the direction taken without a branch: rows go either way
  // at random). (inline, defined in ensemble.cpp, its one user: the tree
  // walks call it per row and tree)
  template <class B>
  inline std::size_t leaf(int tree, const B* bins, std::size_t n = 0) const;

  int n_trees_ = 100, max_depth_ = 6, classes_ = 1;
  Pruning pruning_ = kNoPruning;
  bool finish_unsplit_ = false;
  int tree_limit_ = -1;
  const TreeConstraints* constraints_ = nullptr;
  Parameter* cover_ = nullptr;
  std::int64_t nodes_ = 127;
  Parameter *feature_ = nullptr, *threshold_ = nullptr, *value_ = nullptr, *gain_ = nullptr,
            *state_ = nullptr;
};

}  // namespace trees
}  // namespace cppestimators
