#include <cppestimators/model/trees/ensemble.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <cppestimators/features/feature_batch.h>
#include <cppestimators/parallel.h>
#include <cppestimators/model/parameter.h>
#include <cppestimators/model/trees/constraints.h>
#include <cppestimators/model/trees/histograms.h>
#include <cppestimators/model/trees/quantiles.h>
#include <cppestimators/model/trees/split.h>

namespace cppestimators {
namespace trees {

void RowCache::spell_out() {
  if (all_base_trees == -2) return;
  std::fill(base_trees.begin(), base_trees.end(), all_base_trees);
  std::fill(node_tree.begin(), node_tree.end(), all_node_tree);
  std::fill(have_bins.begin(), have_bins.end(), 1);
  all_base_trees = all_node_tree = -2;
}

void RowCache::forget_rows() {
  all_base_trees = all_node_tree = -2;
  std::fill(have_bins.begin(), have_bins.end(), 0);
  std::fill(base.begin(), base.end(), 0.0);
  std::fill(base_trees.begin(), base_trees.end(), 0);
  std::fill(node_of.begin(), node_of.end(), 0);
  std::fill(node_tree.begin(), node_tree.end(), -1);
}

void RowCache::allocate(std::size_t data_rows, std::size_t features, bool narrow, int max_rows,
                        int classes) {
  if (narrow)
    bins8.assign(data_rows * features, 0);
  else
    bins16.assign(data_rows * features, 0);
  have_bins.assign(data_rows, 0);
  base.assign(data_rows * static_cast<std::size_t>(classes), 0.0);
  base_trees.assign(data_rows, 0);
  node_of.assign(data_rows, 0);
  node_tree.assign(data_rows, -1);
  node.assign(static_cast<std::size_t>(max_rows), 0);
}

Ensemble::Ensemble(int n_trees, int max_depth, int classes)
    : n_trees_(n_trees),
      max_depth_(max_depth),
      classes_(classes),
      nodes_((std::int64_t{1} << (max_depth + 1)) - 1) {}

void Ensemble::attach(Parameter& feature, Parameter& threshold, Parameter& value, Parameter& gain) {
  feature_ = &feature;
  threshold_ = &threshold;
  value_ = &value;
  gain_ = &gain;
}

inline std::size_t Ensemble::surviving(int tree, int n) const {
  while (n > 0 && !node_exists(tree, n)) n = (n - 1) / 2;
  return static_cast<std::size_t>(n);
}

template <class B>
inline std::size_t Ensemble::leaf(int tree, const B* bins, std::size_t n) const {
  const std::size_t base = static_cast<std::size_t>(tree) * static_cast<std::size_t>(nodes_);
  const float* feature = feature_->value.data() + base;
  const float* threshold = threshold_->value.data() + base;
  while (feature[n] >= 0.0f) {
    const int f = static_cast<int>(feature[n]);
    n = 2 * n + 1 + static_cast<std::size_t>(static_cast<float>(bins[f]) > threshold[n]);
  }
  return base + n;
}

template <class B>
void Ensemble::walk_all_rows(RowCache& cache, const B* all_bins, std::size_t n_feats, int r0,
                             int r1, int finished, int current, float* logits) const {
  const int had = cache.all_base_trees, tree = cache.all_node_tree;
  const int* feat = cache.tree_feature.data();
  const int* thr = cache.tree_threshold.data();
  const float* val = cache.tree_value.data();
  int* node_of = cache.node_of.data();
  double* base = cache.base.data();
  if (had < finished)  // trees finished since: each from the node reached while it grew
    for (int r = r0; r < r1; ++r) {
      const B* bins = all_bins + static_cast<std::size_t>(r) * n_feats;
      for (int k = had; k < finished; ++k)
        base[r] += value_->value[leaf(k, bins, k == tree ? surviving(k, node_of[r]) : 0)];
    }
  if (current < 0) {  // every tree finished: no row is in a tree being grown
    for (int r = r0; r < r1; ++r) logits[r] = static_cast<float>(base[r] + 0.0f);
    std::fill(cache.node.begin() + r0, cache.node.begin() + r1, -1);
    return;
  }
  const bool resume = current == tree;  // from the node each row reached at the last step
  for (int r = r0; r < r1; ++r) {
    const B* bins = all_bins + static_cast<std::size_t>(r) * n_feats;
    int node = resume ? node_of[r] : 0;
    // one layer grew since the last step: at most one step down, taken
    // without a branch (a leaf that did not split stays), then any more
    const int f = feat[node];
    const int child = 2 * node + 1 + (static_cast<int>(bins[f < 0 ? 0 : f]) > thr[node]);
    node = f < 0 ? node : child;
    for (int g; (g = feat[node]) >= 0;)
      node = 2 * node + 1 + (static_cast<int>(bins[g]) > thr[node]);
    node_of[r] = node;
    logits[r] = static_cast<float>(base[r] + val[node]);
  }
}

template <class B>
void Ensemble::walk_rows_classes(const FeatureBatch& batch, const Bucketizer& buckets,
                                 RowCache& cache, B* all_bins, int r0, int r1, std::size_t lo,
                                 std::size_t hi, int finished, int current, float* logits) const {
  const std::size_t n_feats = buckets.features().size();
  const std::size_t k = static_cast<std::size_t>(classes_);
  const float* values = value_->value.data();
  for (int r = r0; r < r1; ++r) {
    const std::size_t id = static_cast<std::size_t>(batch.row_ids[r]);
    if (id < lo || id >= hi) continue;
    B* bins = all_bins + id * n_feats;
    if (!cache.have_bins[id]) {
      buckets.fill(batch, r, bins);
      cache.have_bins[id] = 1;
    }
    double* base = cache.base.data() + id * k;
    for (int t = cache.base_trees[id]; t < finished; ++t) {
      const std::size_t at =
          leaf(t, bins, cache.node_tree[id] == t ? static_cast<std::size_t>(cache.node_of[id]) : 0);
      for (std::size_t c = 0; c < k; ++c) base[c] += values[at * k + c];
    }
    cache.base_trees[id] = finished;
    float* out = logits + static_cast<std::size_t>(r) * k;
    int node = -1;
    if (current >= 0) {
      const int from = cache.node_tree[id] == current ? cache.node_of[id] : 0;
      const std::size_t at = leaf(current, bins, static_cast<std::size_t>(from));
      node = static_cast<int>(at -
                              static_cast<std::size_t>(current) * static_cast<std::size_t>(nodes_));
      cache.node_of[id] = node;
      cache.node_tree[id] = current;
      for (std::size_t c = 0; c < k; ++c) out[c] = static_cast<float>(base[c] + values[at * k + c]);
    } else {
      for (std::size_t c = 0; c < k; ++c) out[c] = static_cast<float>(base[c]);
    }
    cache.node[static_cast<std::size_t>(r)] = node;
  }
}

template <class B>
void Ensemble::walk_rows(const FeatureBatch& batch, const Bucketizer& buckets, RowCache& cache,
                         B* all_bins, int r0, int r1, std::size_t lo, std::size_t hi, int finished,
                         int current, float* logits) const {
  const std::size_t n_feats = buckets.features().size();
  const int* feat = cache.tree_feature.data();
  const int* thr = cache.tree_threshold.data();
  const float* val = cache.tree_value.data();
  for (int r = r0; r < r1; ++r) {
    const std::size_t id = static_cast<std::size_t>(batch.row_ids[r]);
    if (id < lo || id >= hi) continue;
    B* bins = all_bins + id * n_feats;
    if (!cache.have_bins[id]) {
      buckets.fill(batch, r, bins);
      cache.have_bins[id] = 1;
    }
    if (cache.base_trees[id] < finished) {
      for (int k = cache.base_trees[id]; k < finished; ++k)  // from the node reached while it grew
        cache.base[id] += value_->value[leaf(
            k, bins, cache.node_tree[id] == k ? surviving(k, cache.node_of[id]) : 0)];
      cache.base_trees[id] = finished;
    }
    float cur = 0.0f;
    int node = -1;
    if (current >= 0) {
      // resume from the node the row reached at the last step in this tree
      // (thresholds are bucket ids: whole numbers, compared as integers)
      const bool resume = cache.node_tree[id] == current;
      node = resume ? cache.node_of[id] : 0;
      const int from = node;
      for (int f; (f = feat[node]) >= 0;)
        node = 2 * node + 1 + (static_cast<int>(bins[f]) > thr[node]);
      if (node != from) cache.node_of[id] = node;  // (unchanged lines stay clean)
      if (!resume) {
        cache.node_of[id] = node;
        cache.node_tree[id] = current;
      }
      cur = val[node];
    }
    cache.node[static_cast<std::size_t>(r)] = node;
    logits[r] = static_cast<float>(cache.base[id] + cur);
  }
}

template void Ensemble::walk_all_rows<std::uint8_t>(RowCache& cache, const std::uint8_t* all_bins,
                                                    std::size_t n_feats, int r0, int r1,
                                                    int finished, int current, float* logits) const;
template void Ensemble::walk_all_rows<std::uint16_t>(RowCache& cache, const std::uint16_t* all_bins,
                                                     std::size_t n_feats, int r0, int r1,
                                                     int finished, int current,
                                                     float* logits) const;

bool Ensemble::has_covers() const {
  if (cover_ == nullptr) return false;
  bool split = false;
  for (std::size_t i = 0; i < feature_->value.size(); ++i) {
    if (cover_->value[i] != 0.0f) return true;
    split = split || feature_->value[i] >= 0.0f;
  }
  return !split;  // (no split: nothing to share)
}

void Ensemble::walked_trees(int& finished, int& current) const {
  finished = static_cast<int>(finished_trees());
  current = finished < n_trees_ ? finished : -1;
  if (tree_limit_ >= 0 && tree_limit_ < finished + (current >= 0 ? 1 : 0)) {
    finished = std::min(finished, tree_limit_);
    current = -1;
  }
}

void Ensemble::begin_walk(RowCache& cache, int& finished, int& current) const {
  const float version = state(kBoundariesReady);
  if (version !=
      cache.bins_version) {  // buckets of numeric features changed: recompute every row's
    cache.spell_out();
    std::fill(cache.have_bins.begin(), cache.have_bins.end(), 0);
    cache.bins_version = version;
  }
  walked_trees(finished, current);
  if (attempted_layers() < cache.attempted_seen) {  // the ensemble was restored to an earlier one
    cache.spell_out();
    std::fill(cache.base_trees.begin(), cache.base_trees.end(), 0);
    std::fill(cache.base.begin(), cache.base.end(), 0.0);
    std::fill(cache.node_tree.begin(), cache.node_tree.end(), -1);
  }
  cache.attempted_seen = attempted_layers();
  if (current >= 0 && classes_ == 1) {
    const std::size_t at = static_cast<std::size_t>(current) * static_cast<std::size_t>(nodes_);
    cache.tree_feature.resize(static_cast<std::size_t>(nodes_));
    cache.tree_threshold.resize(static_cast<std::size_t>(nodes_));
    cache.tree_value.resize(static_cast<std::size_t>(nodes_));
    for (std::size_t i = 0; i < static_cast<std::size_t>(nodes_); ++i) {
      const float f = feature_->value[at + i];
      cache.tree_feature[i] = f >= 0.0f ? static_cast<int>(f) : -1;
      cache.tree_threshold[i] = static_cast<int>(std::floor(threshold_->value[at + i]));
      cache.tree_value[i] = value_->value[at + i];
    }
  }
}

void Ensemble::forward(const FeatureBatch& batch, const Bucketizer& buckets, RowCache& cache,
                       int session_threads, float* logits) const {
  const int rows = batch.rows;
  int finished = 0, current = -1;
  begin_walk(cache, finished, current);
  const int threads = rows >= 4096 ? session_threads : 1;
  if (walks_in_order(batch, cache)) {
    // every row in order again: the shared state moves on for all of them
    parallel_for(threads, threads, [&](int t) {
      const int r0 = rows * t / threads, r1 = rows * (t + 1) / threads;
      if (buckets.narrow())
        walk_all_rows(cache, cache.bins8.data(), buckets.features().size(), r0, r1, finished,
                      current, logits);
      else
        walk_all_rows(cache, cache.bins16.data(), buckets.features().size(), r0, r1, finished,
                      current, logits);
    });
    cache.all_base_trees = finished;
    cache.all_node_tree = current;
    return;
  }
  cache.spell_out();
  const std::size_t n = cache.have_bins.size();
  // A data row's caches are written by one thread only: when no row
  // appears twice, the threads take ranges of the batch; otherwise ranges
  // of row ids, each thread looking through the whole batch.
  const bool distinct = batch.distinct_rows;
  parallel_for(threads, threads, [&](int t) {
    const std::size_t lo = distinct ? 0 : n * static_cast<std::size_t>(t) / threads,
                      hi = distinct ? n : n * static_cast<std::size_t>(t + 1) / threads;
    const int r0 = distinct ? rows * t / threads : 0,
              r1 = distinct ? rows * (t + 1) / threads : rows;
    if (classes_ > 1) {
      if (buckets.narrow())
        walk_rows_classes(batch, buckets, cache, cache.bins8.data(), r0, r1, lo, hi, finished,
                          current, logits);
      else
        walk_rows_classes(batch, buckets, cache, cache.bins16.data(), r0, r1, lo, hi, finished,
                          current, logits);
    } else if (buckets.narrow()) {
      walk_rows(batch, buckets, cache, cache.bins8.data(), r0, r1, lo, hi, finished, current,
                logits);
    } else {
      walk_rows(batch, buckets, cache, cache.bins16.data(), r0, r1, lo, hi, finished, current,
                logits);
    }
  });
  if (classes_ == 1 && batch.whole_in_order) {  // every row now shares its state
    cache.all_base_trees = finished;
    cache.all_node_tree = current;
  }
}

bool Ensemble::walks_in_order(const FeatureBatch& batch, const RowCache& cache) const {
  return classes_ == 1 && batch.whole_in_order && cache.all_base_trees != -2;
}

const int* Ensemble::nodes_reached(const FeatureBatch& batch, const RowCache& cache) const {
  return classes_ == 1 && batch.whole_in_order && cache.all_base_trees != -2 &&
                 cache.all_node_tree >= 0
             ? cache.node_of.data()
             : cache.node.data();
}

void Ensemble::layer_nodes(int tree, int layer, LayerNodes& out) const {
  out.first = (1 << layer) - 1;
  out.width = 1 << layer;
  out.slot.assign(static_cast<std::size_t>(out.width), -1);
  out.nodes.clear();
  for (int s = 0; s < out.width; ++s)
    if (node_exists(tree, out.first + s)) {
      out.slot[static_cast<std::size_t>(s)] = static_cast<int>(out.nodes.size());
      out.nodes.push_back(out.first + s);
    }
}

void Ensemble::node_constraints(int tree, int node, float& lo, float& hi,
                                std::vector<std::uint64_t>& sets) const {
  lo = -std::numeric_limits<float>::infinity();
  hi = std::numeric_limits<float>::infinity();
  const TreeConstraints& c = *constraints_;
  const std::size_t words = static_cast<std::size_t>(c.words);
  sets.assign(words, ~std::uint64_t{0});
  const std::size_t base = static_cast<std::size_t>(tree) * static_cast<std::size_t>(nodes_);
  const float* feature = feature_->value.data() + base;
  const float* value = value_->value.data() + base;  // (one logit)
  // the path from the root down: each ancestor and whether the path goes left
  int path[64];
  int depth = 0;
  for (int n = node; n > 0 && depth < 64; n = (n - 1) / 2) path[depth++] = n;
  for (int d = depth - 1; d >= 0; --d) {
    const int child = path[d], parent = (child - 1) / 2;
    const int f = static_cast<int>(feature[parent]);
    if (f < 0) continue;
    if (!c.monotone.empty() && c.monotone[static_cast<std::size_t>(f)] != 0) {
      const int dir = c.monotone[static_cast<std::size_t>(f)];
      const float mid = 0.5f * (value[2 * parent + 1] + value[2 * parent + 2]);
      const bool left = child == 2 * parent + 1;
      if ((dir > 0) == left)
        hi = std::min(hi, mid);
      else
        lo = std::max(lo, mid);
    }
    if (words > 0)
      for (std::size_t w = 0; w < words; ++w)
        sets[w] &= c.sets[static_cast<std::size_t>(f) * words + w];
  }
}

void Ensemble::grow_layer(int tree, const LayerNodes& nodes, int threads, Accumulator& acc,
                          const Bucketizer& buckets, const Regularization& reg, float learning_rate,
                          int batches_per_layer) {
  const std::vector<Feature>& feats = buckets.features();
  const int total_bins = buckets.total_bins();
  const int layer = static_cast<int>(state(kLayer)), count = nodes.count();
  const float per = static_cast<float>(batches_per_layer);
  const std::size_t base = static_cast<std::size_t>(tree) * static_cast<std::size_t>(nodes_);
  float* feature = feature_->value.data() + base;
  float* threshold = threshold_->value.data() + base;
  float* value = value_->value.data() + base;
  float* gain = gain_->value.data() + base;
  // the nodes' best splits, nodes split over the threads (each writes its own children)
  std::vector<unsigned char> split(static_cast<std::size_t>(count), 0);
  acc.index(nodes.first, nodes.width);
  // a node no batch reached: statistics of zeros (split as TensorFlow splits it)
  const std::vector<float> zeros(static_cast<std::size_t>(total_bins) * 2 *
                                 static_cast<std::size_t>(classes_));
  const int t_count = count >= 4 ? std::max(1, threads) : 1;
  if (classes_ > 1) {
    grow_classes(tree, nodes, t_count, acc, zeros, buckets, reg, learning_rate, per, split);
    finish_layer(tree, layer, split);
    return;
  }
  const TreeConstraints* cons = constraints_;
  const std::size_t words = cons != nullptr ? static_cast<std::size_t>(cons->words) : 0;
  parallel_for(t_count, t_count, [&](int part) {
    std::vector<std::uint64_t> sets;
    for (int s = count * part / t_count; s < count * (part + 1) / t_count; ++s) {
      const int node = nodes.nodes[static_cast<std::size_t>(s)];
      const int row = acc.row_of(node);
      const float* st = row >= 0 ? acc.bins(row, total_bins) : zeros.data();
      Split best;
      // the node's value bounds as bounds of its children's weights
      float lo = -std::numeric_limits<float>::infinity(), hi = -lo;
      if (cons != nullptr) node_constraints(tree, node, lo, hi, sets);
      const bool monotone = cons != nullptr && !cons->monotone.empty();
      for (std::size_t f = 0; f < feats.size(); ++f) {
        if (words > 0 && !shares_a_set(sets.data(), cons->sets.data() + f * words, cons->words))
          continue;
        if (monotone) {
          const WeightBounds b = {(lo - value[node]) / learning_rate,
                                  (hi - value[node]) / learning_rate, cons->monotone[f]};
          offer_feature(static_cast<int>(f), st + 2 * feats[f].bin_offset, per, feats[f].buckets,
                        reg, best, &b);
        } else {
          offer_feature(static_cast<int>(f), st + 2 * feats[f].bin_offset, per, feats[f].buckets,
                        reg, best);
        }
      }
      if (best.feature < 0) continue;
      if (pruning_ == kPrePruning && best.gain < 0.0f) continue;  // TF keeps zero gains
      feature[node] = static_cast<float>(best.feature);
      threshold[node] = static_cast<float>(best.bucket);
      gain[node] = best.gain;
      value[2 * node + 1] = value[node] + learning_rate * best.left_weight;
      value[2 * node + 2] = value[node] + learning_rate * best.right_weight;
      if (cover_ != nullptr) {
        float* cover = cover_->value.data() + base;
        cover[2 * node + 1] = best.left_hessian;
        cover[2 * node + 2] = best.right_hessian;
      }
      if (monotone) {  // (the bounds exactly, whatever the rounding of the weights)
        for (int c : {2 * node + 1, 2 * node + 2}) value[c] = std::min(hi, std::max(lo, value[c]));
      }
      split[static_cast<std::size_t>(s)] = 1;
    }
  });
  finish_layer(tree, layer, split);
}

void Ensemble::finish_layer(int tree, int layer, const std::vector<unsigned char>& split) {
  const bool grew = std::find(split.begin(), split.end(), 1) != split.end();
  set_state(kBatches, 0.0f);
  set_state(kAttempted, state(kAttempted) + 1.0f);
  // A layer where no node split leaves the tree as it is: the attempt
  // counts and the same nodes are tried again with the next statistics,
  // as in TF (so pre-pruning may end training by the attempts' limit).
  if (!grew && !finish_unsplit_) return;
  set_state(kLayer, static_cast<float>(layer + 1));
  if (layer + 1 >= max_depth_ || !grew) {
    if (pruning_ == kPostPruning) post_prune(tree);
    set_state(kFinished, state(kFinished) + 1.0f);
    set_state(kLayer, 0.0f);
  }
}

void Ensemble::grow_classes(int tree, const LayerNodes& nodes, int t_count, const Accumulator& acc,
                            const std::vector<float>& zeros, const Bucketizer& buckets,
                            const Regularization& reg, float learning_rate, float per,
                            std::vector<unsigned char>& split) {
  const std::vector<Feature>& feats = buckets.features();
  const int total_bins = buckets.total_bins(), k = classes_;
  const std::size_t kk = static_cast<std::size_t>(k);
  const int count = nodes.count();
  const std::size_t base = static_cast<std::size_t>(tree) * static_cast<std::size_t>(nodes_);
  float* feature = feature_->value.data() + base;
  float* threshold = threshold_->value.data() + base;
  float* value = value_->value.data() + base * kk;
  float* gain = gain_->value.data() + base;
  const std::size_t words =
      constraints_ != nullptr ? static_cast<std::size_t>(constraints_->words) : 0;
  parallel_for(t_count, t_count, [&](int part) {
    std::vector<std::uint64_t> sets;
    std::vector<float> scratch(kClassScratch * kk);
    ClassSplit best;
    best.left_weight.assign(kk, 0.0f);
    best.right_weight.assign(kk, 0.0f);
    for (int s = count * part / t_count; s < count * (part + 1) / t_count; ++s) {
      const int node = nodes.nodes[static_cast<std::size_t>(s)];
      const int row = acc.row_of(node);
      const float* st = row >= 0 ? acc.bins(row, total_bins) : zeros.data();
      best.feature = -1;
      float lo, hi;
      if (words > 0) node_constraints(tree, node, lo, hi, sets);
      for (std::size_t f = 0; f < feats.size(); ++f) {
        if (words > 0 &&
            !shares_a_set(sets.data(), constraints_->sets.data() + f * words, constraints_->words))
          continue;
        offer_feature_classes(static_cast<int>(f),
                              st + 2 * kk * static_cast<std::size_t>(feats[f].bin_offset), per,
                              feats[f].buckets, k, reg, scratch.data(), best);
      }
      if (best.feature < 0) continue;
      if (pruning_ == kPrePruning && best.gain < 0.0f) continue;  // TF keeps zero gains
      feature[node] = static_cast<float>(best.feature);
      threshold[node] = static_cast<float>(best.bucket);
      gain[node] = best.gain;
      const std::size_t left = (2 * static_cast<std::size_t>(node) + 1) * kk, right = left + kk,
                        self = static_cast<std::size_t>(node) * kk;
      if (cover_ != nullptr) {
        float* cover = cover_->value.data() + base;
        cover[2 * node + 1] = best.left_hessian;
        cover[2 * node + 2] = best.right_hessian;
      }
      for (std::size_t c = 0; c < kk; ++c) {
        value[left + c] = value[self + c] + learning_rate * best.left_weight[c];
        value[right + c] = value[self + c] + learning_rate * best.right_weight[c];
      }
      split[static_cast<std::size_t>(s)] = 1;
    }
  });
}

void Ensemble::post_prune(int tree) {
  const std::size_t base = static_cast<std::size_t>(tree) * static_cast<std::size_t>(nodes_);
  float* feature = feature_->value.data() + base;
  float* threshold = threshold_->value.data() + base;
  const std::int64_t k = classes_;
  float* value = value_->value.data() + base * static_cast<std::size_t>(k);  // K per node
  float* gain = gain_->value.data() + base;
  // children come after their parent in heap order: a backward pass
  // visits every node after its subtree
  for (std::int64_t n = nodes_ / 2 - 1; n >= 0; --n) {
    if (feature[n] < 0.0f || !(gain[n] < 0.0f)) continue;
    const std::int64_t l = 2 * n + 1, r = 2 * n + 2;
    if (feature[l] >= 0.0f || feature[r] >= 0.0f) continue;
    for (std::int64_t c : {l, r}) {
      for (std::int64_t j = 0; j < k; ++j) value[c * k + j] = 0.0f;
      gain[c] = 0.0f;
      threshold[c] = 0.0f;
      if (cover_ != nullptr) cover_->value[base + static_cast<std::size_t>(c)] = 0.0f;
    }
    feature[n] = -1.0f;
    threshold[n] = 0.0f;
    gain[n] = 0.0f;
  }
}

bool Ensemble::center_bias(float mean_gradient, float mean_hessian, const Regularization& reg,
                           bool first) {
  const float logits = leaf_fit(mean_gradient, mean_hessian, reg).weight;
  float& root = value_->value[0];
  if (first) {
    root = logits;
    return true;
  }
  const float current = root;
  const bool more = std::abs(logits / current) > 0.01f;
  root = current + logits;
  return more;
}

std::vector<std::pair<std::string, double>> Ensemble::importances(
    const std::vector<Feature>& feats) const {
  std::vector<double> sum(feats.size(), 0.0);
  const int trees =
      static_cast<int>(std::min<double>(finished_trees() + 1, static_cast<double>(n_trees_)));
  for (int t = 0; t < trees; ++t)
    for (std::int64_t n = 0; n < nodes_; ++n) {
      const std::size_t i = static_cast<std::size_t>(t * nodes_ + n);
      const int f = static_cast<int>(feature_->value[i]);
      if (f >= 0) sum[static_cast<std::size_t>(f)] += gain_->value[i];
    }
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t f = 0; f < feats.size(); ++f) out.emplace_back(feats[f].name, sum[f]);
  return out;
}

}  // namespace trees
}  // namespace cppestimators
