// TF 1.12's boosted trees (boosted_trees_regressor / _classifier), grown
// layer by layer on the session loop: each training step takes per-example
// gradients and hessians from the head, adds the batch's statistics per
// (node of the current layer, feature, bucket) to an accumulator, and after
// n_batches_per_layer batches grows one layer from their average (split
// rules in trees/split.h). Leaf values move by learning_rate times the leaf
// weight layer by layer; after max_depth layers a new tree starts; training
// ends by itself once n_trees trees are finished.
//
// Features, in sorted column order: a bucketized column is one feature (its
// bucket index); an indicator column is one 0/1 feature per category; a
// numeric column (beyond TF 1.12, as later versions and LightGBM) is one
// feature per value, bucketized by at most 256 quantile buckets of the data
// of the first training session, kept with the model.
//
// The ensemble is a set of fixed-size variables (checkpointed like any
// other): per tree, a complete binary tree of 2^(max_depth+1) - 1 nodes in
// heap order (children of node i: 2i+1, 2i+2) with the split feature (-1 for
// a leaf), threshold bucket (left when bucket <= threshold), node value and
// split gain; the accumulator; the numeric buckets' boundaries; and the
// state (finished trees, layers of the current tree, attempted layers,
// batches accumulated, boundaries ready). Every value is finite.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "heads/head.h"
#include "model.h"
#include "trees/split.h"

namespace cppestimators {

class BoostedTreesModel : public Model {
 public:
  static constexpr int kMaxBuckets = 256;  // per numeric feature

  BoostedTreesModel(const Spec& spec, int units) : Model(spec, units) {
    if (units != 1)
      throw std::invalid_argument("boosted trees support one logit: regression with label_dimension = 1 or "
                                  "binary classification");
    n_trees_ = whole(spec, "n_trees", 1);
    max_depth_ = whole(spec, "max_depth", 1);
    batches_per_layer_ = whole(spec, "n_batches_per_layer", 1);
    learning_rate_ = spec.num_or("learning_rate", 0.1);
    reg_.l1 = spec.num_or("l1_regularization", 0.0);
    reg_.l2 = spec.num_or("l2_regularization", 0.0);
    reg_.tree_complexity = spec.num_or("tree_complexity", 0.0);
    reg_.min_node_weight = spec.num_or("min_node_weight", 0.0);
    if (max_depth_ > 20) throw std::invalid_argument("max_depth must be at most 20");
    nodes_ = (std::int64_t{1} << (max_depth_ + 1)) - 1;
    if (static_cast<double>(n_trees_) * nodes_ > static_cast<double>(1 << 24))
      throw std::invalid_argument("n_trees x 2^(max_depth + 1) must be at most 2^24 tree nodes (got n_trees = " +
                                  std::to_string(n_trees_) + ", max_depth = " + std::to_string(max_depth_) +
                                  "); lower one of them");
    build_features();
    const int trees = static_cast<int>(n_trees_), nodes = static_cast<int>(nodes_);
    feature_ = &add_var("tree_feature", {trees, nodes}, -1.0);
    threshold_ = &add_var("tree_threshold", {trees, nodes}, 0.0);
    value_ = &add_var("tree_value", {trees, nodes}, 0.0);
    gain_ = &add_var("tree_gain", {trees, nodes}, 0.0);
    const int slots = 1 << (max_depth_ - 1);  // nodes of the deepest layer grown
    stats_ = &add_var("accumulator_stats", {slots, total_bins_ * 2}, 0.0);
    totals_ = &add_var("accumulator_totals", {slots, 2}, 0.0);
    boundaries_ = &add_var("bucket_boundaries", {std::max(1, numeric_count_), kMaxBuckets - 1}, 0.0);
    bucket_counts_ = &add_var("bucket_counts", {std::max(1, numeric_count_)}, 0.0);
    state_ = &add_var("state", {kStateSize}, 0.0);
    set_training(boosting_);
  }

  std::string kind() const override { return "boosted_trees"; }
  std::vector<std::string> groups() const override { return {"boosted_trees"}; }
  bool reads_dense_rows_by_index() const override { return true; }
  bool training_finished() const {
    return finished_trees() >= n_trees_ || attempted_layers() > 2 * n_trees_ * max_depth_;
  }

  // The numeric features' quantile buckets, from the first training session
  // (every row up to 200,000, else 200,000 evenly spaced ones).
  void begin_session(FeatureSet::Binding& binding, std::int64_t n, const DenseRows* block, Mode mode,
                     int threads) override {
    if (mode != Mode::Train || numeric_count_ == 0 || state(kBoundariesReady) != 0.0f || n == 0) return;
    const std::int64_t m = std::min<std::int64_t>(n, 200000);
    const int width = features_.dense_width();
    std::vector<std::vector<float>> values(static_cast<std::size_t>(numeric_count_));
    for (auto& v : values) v.reserve(static_cast<std::size_t>(m));
    const int chunk = 4096;
    std::vector<int> rows(chunk);
    std::vector<float> dense(static_cast<std::size_t>(chunk) * width);
    for (std::int64_t i0 = 0; i0 < m; i0 += chunk) {
      const int count = static_cast<int>(std::min<std::int64_t>(chunk, m - i0));
      for (int k = 0; k < count; ++k) rows[static_cast<std::size_t>(k)] = static_cast<int>((i0 + k) * n / m);
      if (block == nullptr) features_.gather_dense(binding, rows.data(), count, dense.data());
      for (int k = 0; k < count; ++k) {
        const float* row = block != nullptr ? block->row(rows[static_cast<std::size_t>(k)])
                                            : dense.data() + static_cast<std::size_t>(k) * width;
        for (const Feature& f : feats_)
          if (f.kind == Feature::Numeric) values[static_cast<std::size_t>(f.numeric)].push_back(row[f.source]);
      }
    }
    // each feature's values sorted on its own (features split over the threads)
    parallel_for(numeric_count_, std::max(1, threads), [&](int j) {
      std::vector<float>& v = values[static_cast<std::size_t>(j)];
      std::sort(v.begin(), v.end());
      float* b = boundaries_->value.data() + static_cast<std::size_t>(j) * (kMaxBuckets - 1);
      int count = 0;
      for (int q = 1; q < kMaxBuckets && !v.empty(); ++q) {
        const float x = v[static_cast<std::size_t>(static_cast<std::int64_t>(q) * static_cast<std::int64_t>(v.size()) /
                                                   kMaxBuckets)];
        if (count == 0 || x > b[count - 1]) b[count++] = x;
      }
      for (int k = count; k < kMaxBuckets - 1; ++k) b[k] = 0.0f;  // unused (checkpoints hold finite values)
      bucket_counts_->value[static_cast<std::size_t>(j)] = static_cast<float>(count);
    });
    set_state(kBoundariesReady, 1.0f);
  }

  std::unique_ptr<Workspace> new_workspace(const FeatureBatch& batch, int max_rows, int threads) const override {
    auto ws = std::make_unique<Work>();
    ws->threads = std::max(1, threads);
    const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(batch.data_rows, 0));
    if (narrow_) ws->bins8.assign(n * feats_.size(), 0);
    else ws->bins16.assign(n * feats_.size(), 0);
    ws->have_bins.assign(n, 0);
    ws->base.assign(n, 0.0);
    ws->base_trees.assign(n, 0);
    ws->node_of.assign(n, 0);
    ws->node_tree.assign(n, -1);
    ws->node.assign(static_cast<std::size_t>(max_rows), 0);
    ws->hess.assign(static_cast<std::size_t>(max_rows), 0.0f);
    ws->totals.assign(static_cast<std::size_t>(ws->threads) * 2 * (std::size_t{1} << (max_depth_ - 1)), 0.0);
    const std::size_t slots = std::size_t{1} << (max_depth_ - 1);
    ws->hist.resize(static_cast<std::size_t>(ws->threads));
    for (auto& h : ws->hist) h.assign(slots * (static_cast<std::size_t>(total_bins_) * 2 + 2), 0.0f);
    ws->sums.assign(slots * (static_cast<std::size_t>(total_bins_) * 2 + 2), 0.0);
    return ws;
  }

  void forward(const FeatureBatch& batch, Mode, Workspace& base, float* logits) const override {
    Work& ws = static_cast<Work&>(base);
    const int rows = batch.rows;
    const float version = state(kBoundariesReady);
    if (version != ws.bins_version) {  // buckets of numeric features changed: recompute every row's
      std::fill(ws.have_bins.begin(), ws.have_bins.end(), 0);
      ws.bins_version = version;
    }
    const int finished = static_cast<int>(finished_trees());
    const int current = finished < n_trees_ ? finished : -1;
    if (attempted_layers() < ws.attempted_seen) {  // the ensemble was restored to an earlier one
      std::fill(ws.base_trees.begin(), ws.base_trees.end(), 0);
      std::fill(ws.base.begin(), ws.base.end(), 0.0);
      std::fill(ws.node_tree.begin(), ws.node_tree.end(), -1);
    }
    ws.attempted_seen = attempted_layers();
    const int threads = rows >= 4096 ? ws.threads : 1;
    const std::size_t n = ws.have_bins.size();
    // A data row's caches are written by one thread only: when no row
    // appears twice, the threads take ranges of the batch; otherwise ranges
    // of row ids, each thread looking through the whole batch.
    const bool distinct = batch.distinct_rows;
    parallel_for(threads, threads, [&](int t) {
      const std::size_t lo = distinct ? 0 : n * static_cast<std::size_t>(t) / threads,
                        hi = distinct ? n : n * static_cast<std::size_t>(t + 1) / threads;
      const int r0 = distinct ? rows * t / threads : 0, r1 = distinct ? rows * (t + 1) / threads : rows;
      if (narrow_) walk_rows(batch, ws, ws.bins8.data(), r0, r1, lo, hi, finished, current, logits);
      else walk_rows(batch, ws, ws.bins16.data(), r0, r1, lo, hi, finished, current, logits);
    });
  }

  const std::vector<Gradient>& backward(const FeatureBatch&, const float*, Workspace& base) override {
    static_cast<Work&>(base).grads.clear();
    return static_cast<Work&>(base).grads;
  }

  // A step's statistics: the batch's (g, h) per node of the layer and bin,
  // then the node's totals (StepStats::sums, summed over the threads).
  StepStats layer_stats(const FeatureBatch& batch, const float* logits, const float* dlogits, const Head& head,
                        Workspace& base) {
    if (training_finished()) return {};
    Work& ws = static_cast<Work&>(base);
    const int rows = batch.rows;
    const int layer = static_cast<int>(state(kLayer));
    const int tree = static_cast<int>(finished_trees());
    const int first = (1 << layer) - 1, slots = 1 << layer;
    const std::size_t stride = static_cast<std::size_t>(total_bins_) * 2 + 2;  // (g, h) per bin, then totals
    const int threads = rows >= 4096 ? ws.threads : 1;
    const float scale = 1.0f / static_cast<float>(rows);  // hessians of the batch-mean loss (gradients come scaled)
    // Each thread adds a range of the batch's rows to its own histograms, in
    // float (as TensorFlow sums them), with the nodes' totals in double.
    parallel_for(threads, threads, [&](int t) {
      const int r0 = rows * t / threads, r1 = rows * (t + 1) / threads;
      if (!head.hessian(logits + r0, nullptr, r1 - r0, ws.hess.data() + r0)) ws.no_hessian = true;
      std::vector<float>& hist = ws.hist[static_cast<std::size_t>(t)];
      std::fill(hist.begin(), hist.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(slots) * stride), 0.0f);
      double* totals = ws.totals.data() + static_cast<std::size_t>(t) * 2 * static_cast<std::size_t>(slots);
      std::fill(totals, totals + 2 * slots, 0.0);
      if (narrow_) add_rows(batch, ws, ws.bins8.data(), r0, r1, first, stride, dlogits, scale, hist.data(), totals);
      else add_rows(batch, ws, ws.bins16.data(), r0, r1, first, stride, dlogits, scale, hist.data(), totals);
    });
    if (ws.no_hessian) throw std::invalid_argument("this head has no second derivative for boosted trees");
    double* sums = ws.sums.data();
    parallel_for(threads, threads, [&](int part) {  // slots split over the threads
      for (int s = slots * part / threads; s < slots * (part + 1) / threads; ++s) {
        double* out = sums + static_cast<std::size_t>(s) * stride;
        if (!node_exists(tree, first + s)) {
          std::fill(out, out + stride, 0.0);
          continue;
        }
        for (std::size_t i = 0; i < stride; ++i) {
          double sum = 0.0;
          if (i + 2 < stride)
            for (int t = 0; t < threads; ++t) sum += ws.hist[static_cast<std::size_t>(t)][static_cast<std::size_t>(s) * stride + i];
          else
            for (int t = 0; t < threads; ++t)
              sum += ws.totals[(static_cast<std::size_t>(t) * slots + static_cast<std::size_t>(s)) * 2 + (i + 2 - stride)];
          out[i] = sum;
        }
      }
    });
    ws.stats_threads = threads;
    StepStats stats;
    stats.sums = sums;
    stats.sum_count = static_cast<std::size_t>(slots) * stride;
    return stats;
  }

  // Adds a step's statistics to the accumulator; a layer when
  // n_batches_per_layer batches are in.
  void add_layer_stats(const StepStats& stats, Workspace& base) {
    if (stats.sums == nullptr || training_finished()) return;
    const Work& ws = static_cast<const Work&>(base);
    const int layer = static_cast<int>(state(kLayer));
    const int tree = static_cast<int>(finished_trees());
    const int first = (1 << layer) - 1, slots = 1 << layer;
    const std::size_t stride = static_cast<std::size_t>(total_bins_) * 2 + 2;
    if (stats.sum_count != static_cast<std::size_t>(slots) * stride)
      throw std::logic_error("internal: boosted trees statistics of another layer");
    const int threads = std::max(1, ws.stats_threads);
    float* acc = stats_->value.data();
    float* totals = totals_->value.data();
    if (state(kBatches) == 0.0f) {
      std::fill(acc, acc + static_cast<std::size_t>(slots) * total_bins_ * 2, 0.0f);
      std::fill(totals, totals + static_cast<std::size_t>(slots) * 2, 0.0f);
    }
    parallel_for(threads, threads, [&](int part) {  // slots split over the threads
      for (int s = slots * part / threads; s < slots * (part + 1) / threads; ++s) {
        if (!node_exists(tree, first + s)) continue;
        const double* in = stats.sums + static_cast<std::size_t>(s) * stride;
        for (std::size_t i = 0; i < stride; ++i) {
          float& cell = i + 2 < stride ? acc[static_cast<std::size_t>(s) * total_bins_ * 2 + i]
                                       : totals[static_cast<std::size_t>(s) * 2 + (i + 2 - stride)];
          cell = static_cast<float>(cell + in[i]);
        }
      }
    });
    set_state(kBatches, state(kBatches) + 1.0f);
    if (state(kBatches) < static_cast<float>(batches_per_layer_)) return;
    grow_layer(tree, layer, ws.threads);
  }

  // Whether `node` of `tree` exists: the root, or a child of a split node.
  bool node_exists(int tree, int node) const {
    return node == 0 || feature_->value[static_cast<std::size_t>(tree * nodes_ + (node - 1) / 2)] >= 0.0f;
  }

  std::vector<std::pair<std::string, double>> importances() const {
    std::vector<double> sum(feats_.size(), 0.0);
    const int trees = static_cast<int>(std::min<double>(finished_trees() + 1, static_cast<double>(n_trees_)));
    for (int t = 0; t < trees; ++t)
      for (std::int64_t n = 0; n < nodes_; ++n) {
        const std::size_t i = static_cast<std::size_t>(t * nodes_ + n);
        const int f = static_cast<int>(feature_->value[i]);
        if (f >= 0) sum[static_cast<std::size_t>(f)] += gain_->value[i];
      }
    std::vector<std::pair<std::string, double>> out;
    for (std::size_t f = 0; f < feats_.size(); ++f) out.emplace_back(feats_[f].name, sum[f]);
    return out;
  }

  // For tests and printing.
  double finished_trees() const { return state(kFinished); }
  double layers_in_tree() const { return state(kLayer); }
  double attempted_layers() const { return state(kAttempted); }
  int feature_count() const { return static_cast<int>(feats_.size()); }
  float node_value(int tree, int node) const {
    return value_->value[static_cast<std::size_t>(tree * nodes_ + node)];
  }
  int node_feature(int tree, int node) const {
    return static_cast<int>(feature_->value[static_cast<std::size_t>(tree * nodes_ + node)]);
  }
  int node_threshold(int tree, int node) const {
    return static_cast<int>(threshold_->value[static_cast<std::size_t>(tree * nodes_ + node)]);
  }
  float node_gain(int tree, int node) const { return gain_->value[static_cast<std::size_t>(tree * nodes_ + node)]; }

 private:
  struct Feature {
    enum Kind { Numeric, Bucketized, Indicator } kind = Numeric;
    std::string name;
    int source = 0;      // dense offset (numeric) or sparse slot
    int category = 0;    // indicator: the category this 0/1 feature tests
    int numeric = -1;    // numeric: its row in bucket_boundaries
    int buckets = 0;
    int bin_offset = 0;  // first bin in a node's histogram
  };
  struct Work : Workspace {
    // data rows x features, a row filled when first seen: one byte per
    // bucket when every feature has at most 256, else two
    std::vector<std::uint8_t> bins8;
    std::vector<std::uint16_t> bins16;
    std::vector<unsigned char> have_bins;
    std::vector<double> base;         // per data row: the sum of finished trees' leaves
    std::vector<int> base_trees;      // how many finished trees `base` holds
    std::vector<int> node_of, node_tree;  // per data row: the node it last reached, in which tree
    double attempted_seen = 0.0;
    float bins_version = -1.0f;
    std::vector<int> node;            // per batch row: node reached in the tree being grown
    std::vector<float> hess;
    bool no_hessian = false;
    std::vector<std::vector<float>> hist;  // per thread: layer slots x (bins x (g, h), 2 unused)
    std::vector<double> totals;            // per thread and slot: the node's (g, h)
    std::vector<double> sums;              // the step's statistics (StepStats::sums)
    int stats_threads = 1;                 // threads that computed them
    std::vector<Gradient> grads;
  };
  enum StateField { kFinished, kLayer, kAttempted, kBatches, kBoundariesReady, kStateSize };

  static int whole(const Spec& spec, const char* name, double min) {
    const double v = spec.num_or(name, min);
    if (!(v >= min) || v != std::floor(v) || v > 1e9)
      throw std::invalid_argument(std::string(name) + " must be a whole number >= " + std::to_string(static_cast<int>(min)));
    return static_cast<int>(v);
  }

  Parameter& add_var(const std::string& name, std::vector<int> shape, double init) {
    Parameter p = Parameter::single("boosted_trees/" + name, std::move(shape));
    p.init = Init::Constant;
    p.init_scale = init;
    p.trainable = false;
    return add(std::move(p));
  }
  float state(StateField f) const { return state_->value[f]; }
  void set_state(StateField f, float v) { state_->value[f] = v; }

  void build_features() {
    for (std::size_t i = 0; i < features_.size(); ++i) {
      const FeatureTransform& c = features_.column(i);
      if (!uses(c.name())) continue;
      const std::string ctor = c.constructor();
      Feature f;
      f.name = c.name();
      if (ctor == "column_numeric()") {
        for (int k = 0; k < c.dense_width(); ++k) {
          f.kind = Feature::Numeric;
          f.name = c.dense_width() == 1 ? c.name() : c.name() + "[" + std::to_string(k) + "]";
          f.source = features_.dense_offset(i) + k;
          f.numeric = numeric_count_++;
          f.buckets = kMaxBuckets;
          push(f);
        }
      } else if (ctor == "column_bucketized()") {
        f.kind = Feature::Bucketized;
        f.source = features_.sparse_slot(i);
        f.buckets = static_cast<int>(c.num_buckets());
        push(f);
      } else if (ctor == "column_indicator()") {
        if (c.num_buckets() > 100000)
          throw std::invalid_argument("boosted trees: the indicator column '" + c.name() +
                                      "' has more than 100000 categories");
        for (int k = 0; k < static_cast<int>(c.num_buckets()); ++k) {
          f.kind = Feature::Indicator;
          f.name = c.name() + ":" + std::to_string(k);
          f.source = features_.sparse_slot(i);
          f.category = k;
          f.buckets = 2;
          push(f);
        }
      } else {
        throw std::invalid_argument("For now, only bucketized_column and indicator_column is supported but got: " +
                                    ctor + " '" + c.name() + "' (numeric columns are accepted too)");
      }
    }
    if (feats_.empty()) throw std::invalid_argument("boosted trees need at least one feature column");
  }
  void push(Feature f) {
    if (f.buckets > 65535) throw std::invalid_argument("boosted trees: a feature has more than 65535 buckets");
    if (f.buckets > 256) narrow_ = false;
    f.bin_offset = total_bins_;
    bin_offsets_.push_back(total_bins_);
    total_bins_ += f.buckets;
    feats_.push_back(std::move(f));
  }

  // forward() for batch rows [r0, r1) whose data row lies in [lo, hi).
  template <class B>
  void walk_rows(const FeatureBatch& batch, Work& ws, B* all_bins, int r0, int r1, std::size_t lo, std::size_t hi,
                 int finished, int current, float* logits) const {
    const std::size_t n_feats = feats_.size();
    for (int r = r0; r < r1; ++r) {
      const std::size_t id = static_cast<std::size_t>(batch.row_ids[r]);
      if (id < lo || id >= hi) continue;
      B* bins = all_bins + id * n_feats;
      if (!ws.have_bins[id]) {
        fill_bins(batch, r, bins);
        ws.have_bins[id] = 1;
      }
      for (int k = ws.base_trees[id]; k < finished; ++k)  // from the node reached while it grew
        ws.base[id] += value_->value[leaf(k, bins, ws.node_tree[id] == k ? static_cast<std::size_t>(ws.node_of[id]) : 0)];
      ws.base_trees[id] = finished;
      float cur = 0.0f;
      int node = -1;
      if (current >= 0) {
        // resume from the node the row reached at the last step in this tree
        const int from = ws.node_tree[id] == current ? ws.node_of[id] : 0;
        node = static_cast<int>(leaf(current, bins, static_cast<std::size_t>(from)) -
                                static_cast<std::size_t>(current) * static_cast<std::size_t>(nodes_));
        ws.node_of[id] = node;
        ws.node_tree[id] = current;
        cur = node_value(current, node);
      }
      ws.node[static_cast<std::size_t>(r)] = node;
      logits[r] = static_cast<float>(ws.base[id] + cur);
    }
  }

  // Batch rows [r0, r1) into one thread's histograms (slots of the layer
  // starting at node `first`) and node totals.
  template <class B>
  void add_rows(const FeatureBatch& batch, const Work& ws, const B* all_bins, int r0, int r1, int first,
                std::size_t stride, const float* dlogits, float scale, float* hist, double* totals) const {
    const std::size_t n_feats = feats_.size();
    const int* offset = bin_offsets_.data();
    // the node totals of a run of rows in one slot stay in registers (a sum
    // kept in memory would chain every row to the one before)
    int run = -1;
    double G = 0.0, H = 0.0;
    for (int r = r0; r < r1; ++r) {
      const int s = ws.node[static_cast<std::size_t>(r)] - first;
      if (s < 0) continue;  // a leaf of an earlier layer that could not split
      const float g = dlogits[r], h = ws.hess[static_cast<std::size_t>(r)] * scale;
      float* hs = hist + static_cast<std::size_t>(s) * stride;
      const B* bins = all_bins + static_cast<std::size_t>(batch.row_ids[r]) * n_feats;
      for (std::size_t f = 0; f < n_feats; ++f) {
        float* cell = hs + 2 * (static_cast<std::size_t>(offset[f]) + bins[f]);
        cell[0] += g;
        cell[1] += h;
      }
      if (s != run) {
        if (run >= 0) {
          totals[2 * run] += G;
          totals[2 * run + 1] += H;
        }
        run = s;
        G = H = 0.0;
      }
      G += g;
      H += h;
    }
    if (run >= 0) {
      totals[2 * run] += G;
      totals[2 * run + 1] += H;
    }
  }

  // Buckets of batch row r, one per feature.
  template <class B>
  void fill_bins(const FeatureBatch& batch, int r, B* out) const {
    const float* dense = nullptr;
    if (batch.dense_width > 0)
      dense = batch.dense_rows != nullptr ? batch.dense_rows + static_cast<std::size_t>(r) * batch.dense_width
                                          : batch.dense_block->row(batch.dense_index[r]);
    for (std::size_t k = 0; k < feats_.size(); ++k) {
      const Feature& f = feats_[k];
      if (f.kind == Feature::Numeric) {
        const float* b = boundaries_->value.data() + static_cast<std::size_t>(f.numeric) * (kMaxBuckets - 1);
        const int count = static_cast<int>(bucket_counts_->value[static_cast<std::size_t>(f.numeric)]);
        out[k] = static_cast<B>(trees::bucket_of(b, count, dense[f.source]));
      } else {
        const SparseIds& ids = batch.sparse[static_cast<std::size_t>(f.source)];
        if (f.kind == Feature::Bucketized) {
          out[k] = ids.end(r) > ids.begin(r) ? static_cast<B>(ids.id(ids.begin(r))) : 0;
        } else {
          out[k] = 0;
          for (int j = ids.begin(r); j < ids.end(r); ++j)
            if (ids.id(j) == f.category) out[k] = 1;
        }
      }
    }
  }

  // The flat index of the node a row with buckets `bins` reaches in `tree`
  // from node `n`
  // (the direction taken without a branch: rows go either way at random).
  template <class B>
  std::size_t leaf(int tree, const B* bins, std::size_t n = 0) const {
    const std::size_t base = static_cast<std::size_t>(tree) * static_cast<std::size_t>(nodes_);
    const float* feature = feature_->value.data() + base;
    const float* threshold = threshold_->value.data() + base;
    while (feature[n] >= 0.0f) {
      const int f = static_cast<int>(feature[n]);
      n = 2 * n + 1 + static_cast<std::size_t>(static_cast<float>(bins[f]) > threshold[n]);
    }
    return base + n;
  }

  // One layer of `tree` from the accumulated (averaged) statistics.
  void grow_layer(int tree, int layer, int threads) {
    const int first = (1 << layer) - 1, slots = 1 << layer;
    const double per = 1.0 / batches_per_layer_;
    const std::size_t base = static_cast<std::size_t>(tree) * static_cast<std::size_t>(nodes_);
    float* feature = feature_->value.data() + base;
    float* threshold = threshold_->value.data() + base;
    float* value = value_->value.data() + base;
    float* gain = gain_->value.data() + base;
    // the nodes' best splits, nodes split over the threads (each writes its own children)
    std::vector<unsigned char> split(static_cast<std::size_t>(slots), 0);
    const int t_count = slots >= 4 ? std::max(1, threads) : 1;
    parallel_for(t_count, t_count, [&](int part) {
    std::vector<double> g(kMaxBuckets), h(kMaxBuckets);
    for (int s = slots * part / t_count; s < slots * (part + 1) / t_count; ++s) {
      const int node = first + s;
      if (node > 0 && feature[(node - 1) / 2] < 0.0f) continue;  // its parent did not split: no such node
      const float* st = stats_->value.data() + static_cast<std::size_t>(s) * total_bins_ * 2;
      const double G = totals_->value[static_cast<std::size_t>(s) * 2] * per;
      const double H = totals_->value[static_cast<std::size_t>(s) * 2 + 1] * per;
      if (H < reg_.min_node_weight) continue;
      trees::Split best;
      for (std::size_t f = 0; f < feats_.size(); ++f) {
        const Feature& ft = feats_[f];
        g.resize(static_cast<std::size_t>(ft.buckets));
        h.resize(static_cast<std::size_t>(ft.buckets));
        for (int b = 0; b < ft.buckets; ++b) {
          g[static_cast<std::size_t>(b)] = st[2 * (ft.bin_offset + b)] * per;
          h[static_cast<std::size_t>(b)] = st[2 * (ft.bin_offset + b) + 1] * per;
        }
        trees::offer_feature(static_cast<int>(f), g.data(), h.data(), ft.buckets, G, H, reg_, best);
      }
      if (best.feature < 0) continue;
      feature[node] = static_cast<float>(best.feature);
      threshold[node] = static_cast<float>(best.bucket);
      gain[node] = static_cast<float>(best.gain);
      value[2 * node + 1] = static_cast<float>(value[node] + learning_rate_ * best.left_weight);
      value[2 * node + 2] = static_cast<float>(value[node] + learning_rate_ * best.right_weight);
      split[static_cast<std::size_t>(s)] = 1;
    }
    });
    const bool grew = std::find(split.begin(), split.end(), 1) != split.end();
    set_state(kBatches, 0.0f);
    set_state(kAttempted, state(kAttempted) + 1.0f);
    // A root that cannot split stays as it is (the attempt counts, as in TF);
    // a deeper layer where no node could split finishes the tree, which can
    // never grow again.
    if (!grew && layer == 0) return;
    set_state(kLayer, static_cast<float>(layer + 1));
    if (layer + 1 >= max_depth_ || !grew) {
      set_state(kFinished, state(kFinished) + 1.0f);
      set_state(kLayer, 0.0f);
    }
  }

  // Boosting layers as the model's training strategy.
  class Boosting : public TrainingStrategy {
   public:
    explicit Boosting(BoostedTreesModel& model) : model_(model) {}
    StepStats compute(const FeatureBatch& batch, const float* logits, const float* dlogits, const Head& head,
                      Workspace& ws) override {
      return model_.layer_stats(batch, logits, dlogits, head, ws);
    }
    void apply(const StepStats& stats, const Optimizers&, Workspace& ws) override {
      model_.add_layer_stats(stats, ws);
    }
    bool finished() const override { return model_.training_finished(); }
    bool loss_is_batch_mean() const override { return true; }
    std::vector<std::pair<std::string, double>> importances() const override { return model_.importances(); }

   private:
    BoostedTreesModel& model_;
  };

  Boosting boosting_{*this};
  int n_trees_ = 100, max_depth_ = 6, batches_per_layer_ = 1;
  std::int64_t nodes_ = 127;
  double learning_rate_ = 0.1;
  trees::Regularization reg_;
  std::vector<Feature> feats_;
  std::vector<int> bin_offsets_;  // feats_[f].bin_offset, contiguous
  int total_bins_ = 0, numeric_count_ = 0;
  bool narrow_ = true;  // every feature's buckets fit in a byte
  Parameter *feature_ = nullptr, *threshold_ = nullptr, *value_ = nullptr, *gain_ = nullptr, *stats_ = nullptr,
            *totals_ = nullptr, *boundaries_ = nullptr, *bucket_counts_ = nullptr,
            *state_ = nullptr;
};

}  // namespace cppestimators
