// TF 1.12's boosted trees (boosted_trees_regressor / _classifier), grown
// layer by layer on the session loop: each training step takes per-example
// gradients and hessians from the head, computes the batch's statistics per
// (node of the current layer, feature, bucket), adds them to an accumulator,
// and after n_batches_per_layer batches grows one layer from their average
// (split rules in trees/split.h). Leaf values move by learning_rate times the
// leaf weight layer by layer; after max_depth layers a new tree starts;
// training ends by itself once n_trees trees are finished. With K >= 3
// logits (the multi-class head) every leaf holds K values, grown from each
// class's gradients and the diagonal of the softmax hessian, p_k (1 - p_k),
// as TensorFlow 2's multi-class boosted trees grow them: the split is the
// one whose gain summed over the classes is highest.
//
// The parts: the features and their quantile buckets (trees/quantiles.h),
// the batch histograms and the accumulator (trees/histograms.h), the trees
// themselves (trees/ensemble.h). Every part's state is a variable of the
// model, so checkpoints hold the whole ensemble.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "heads/head.h"
#include "model.h"
#include "training_strategy.h"
#include "trees/ensemble.h"
#include "trees/histograms.h"
#include "trees/quantiles.h"
#include "trees/split.h"

namespace cppestimators {

class BoostedTreesModel : public Model {
 public:
  static constexpr int kMaxBuckets = trees::kMaxBuckets;  // per numeric feature

  BoostedTreesModel(const Spec& spec, int units) : Model(spec, units) {
    if (units < 1) throw std::invalid_argument("boosted trees need at least one logit");
    const int k = units;
    const int n_trees = whole(spec, "n_trees", 1);
    const int max_depth = whole(spec, "max_depth", 1);
    batches_per_layer_ = whole(spec, "n_batches_per_layer", 1);
    learning_rate_ = spec.num_or("learning_rate", 0.1);
    reg_.l1 = spec.num_or("l1_regularization", 0.0);
    reg_.l2 = spec.num_or("l2_regularization", 0.0);
    reg_.tree_complexity = spec.num_or("tree_complexity", 0.0);
    reg_.min_node_weight = spec.num_or("min_node_weight", 0.0);
    if (max_depth > 20) throw std::invalid_argument("max_depth must be at most 20");
    const std::int64_t nodes = (std::int64_t{1} << (max_depth + 1)) - 1;
    if (static_cast<double>(n_trees) * nodes > static_cast<double>(1 << 24))
      throw std::invalid_argument(
          "n_trees x 2^(max_depth + 1) must be at most 2^24 tree nodes (got n_trees = " +
          std::to_string(n_trees) + ", max_depth = " + std::to_string(max_depth) +
          "); lower one of them");
    ensemble_ = trees::Ensemble(n_trees, max_depth, k);
    buckets_.build(features_, [this](const std::string& name) { return uses(name); });
    const int t = n_trees, n = static_cast<int>(nodes);
    Parameter& feature = add_var("tree_feature", {t, n}, -1.0);
    Parameter& threshold = add_var("tree_threshold", {t, n}, 0.0);
    // one logit keeps the shapes of one-logit checkpoints; K logits add a class dimension
    Parameter& value =
        add_var("tree_value", k == 1 ? std::vector<int>{t, n} : std::vector<int>{t, n, k}, 0.0);
    Parameter& gain = add_var("tree_gain", {t, n}, 0.0);
    ensemble_.attach(feature, threshold, value, gain);
    const int slots = 1 << (max_depth - 1);  // nodes of the deepest layer grown
    accumulator_.stats = &add_var("accumulator_stats", {slots, buckets_.total_bins() * 2 * k}, 0.0);
    accumulator_.totals = &add_var("accumulator_totals", {slots, 2 * k}, 0.0);
    accumulator_.classes = k;
    const int numeric = std::max(1, buckets_.numeric_count());
    Parameter& boundaries = add_var("bucket_boundaries", {numeric, kMaxBuckets - 1}, 0.0);
    Parameter& counts = add_var("bucket_counts", {numeric}, 0.0);
    buckets_.attach(boundaries, counts);
    ensemble_.attach_state(add_var("state", {trees::Ensemble::kStateSize}, 0.0));
    set_training(boosting_);
  }

  std::string kind() const override { return "boosted_trees"; }
  std::vector<std::string> groups() const override { return {"boosted_trees"}; }
  bool reads_dense_rows_by_index() const override { return true; }

  // The numeric features' quantile buckets, from the first training session.
  void begin_session(FeatureSet::Binding& binding, std::int64_t n, const DenseRows* block,
                     Mode mode, int threads) override {
    if (mode != Mode::Train || buckets_.numeric_count() == 0 ||
        ensemble_.state(trees::Ensemble::kBoundariesReady) != 0.0f || n == 0)
      return;
    buckets_.fit(features_, binding, n, block, threads);
    ensemble_.set_state(trees::Ensemble::kBoundariesReady, 1.0f);
  }

  std::unique_ptr<Workspace> new_workspace(const FeatureBatch& batch, int max_rows,
                                           int threads) const override {
    auto ws = std::make_unique<Work>();
    ws->threads = std::max(1, threads);
    const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(batch.data_rows, 0));
    const int k = ensemble_.classes();
    ws->rows.allocate(n, buckets_.features().size(), buckets_.narrow(), max_rows, k);
    ws->hist.allocate(ws->threads, max_rows, std::size_t{1} << (ensemble_.max_depth() - 1),
                      buckets_.total_bins(), k);
    return ws;
  }

  void forward(const FeatureBatch& batch, Mode, Workspace& base, float* logits) const override {
    Work& ws = static_cast<Work&>(base);
    ensemble_.forward(batch, buckets_, ws.rows, ws.threads, logits);
  }

  const std::vector<Gradient>& backward(const FeatureBatch&, const float*,
                                        Workspace& base) override {
    static_cast<Work&>(base).grads.clear();
    return static_cast<Work&>(base).grads;
  }

  // For tests and printing.
  bool training_finished() const { return ensemble_.training_finished(); }
  double finished_trees() const { return ensemble_.finished_trees(); }
  double layers_in_tree() const { return ensemble_.layers_in_tree(); }
  double attempted_layers() const { return ensemble_.attempted_layers(); }
  int feature_count() const { return static_cast<int>(buckets_.features().size()); }
  int classes() const { return ensemble_.classes(); }
  float node_value(int tree, int node, int c = 0) const {
    return ensemble_.node_value(tree, node, c);
  }
  int node_feature(int tree, int node) const { return ensemble_.node_feature(tree, node); }
  int node_threshold(int tree, int node) const { return ensemble_.node_threshold(tree, node); }
  float node_gain(int tree, int node) const { return ensemble_.node_gain(tree, node); }

 private:
  struct Work : Workspace {
    trees::RowCache rows;
    trees::Histograms hist;
    std::vector<Gradient> grads;
  };

  // Boosting layers: a step's statistics are the batch's histograms and
  // node totals; applying them adds them to the accumulator and grows the
  // layer once n_batches_per_layer batches are in.
  class Boosting : public TrainingStrategy {
   public:
    explicit Boosting(BoostedTreesModel& model) : m_(model) {}

    StepStats compute(const FeatureBatch& batch, const float* logits, const float* dlogits,
                      const Head& head, Workspace& base) override {
      if (m_.training_finished()) return {};
      Work& ws = static_cast<Work&>(base);
      const trees::Ensemble& e = m_.ensemble_;
      const int layer = static_cast<int>(e.state(trees::Ensemble::kLayer));
      const int tree = static_cast<int>(e.finished_trees());
      const int first = (1 << layer) - 1, slots = 1 << layer;
      const int threads = batch.rows >= 4096 ? ws.threads : 1;
      const auto exists = [&e, tree](int node) { return e.node_exists(tree, node); };
      if (m_.buckets_.narrow())
        return ws.hist.compute(batch, logits, dlogits, head, ws.rows.node.data(),
                               ws.rows.bins8.data(), m_.buckets_, first, slots, threads, exists);
      return ws.hist.compute(batch, logits, dlogits, head, ws.rows.node.data(),
                             ws.rows.bins16.data(), m_.buckets_, first, slots, threads, exists);
    }

    void apply(const StepStats& stats, const Optimizers&, Workspace& base) override {
      if (stats.sums == nullptr || m_.training_finished()) return;
      const Work& ws = static_cast<const Work&>(base);
      trees::Ensemble& e = m_.ensemble_;
      const int layer = static_cast<int>(e.state(trees::Ensemble::kLayer));
      const int tree = static_cast<int>(e.finished_trees());
      const int first = (1 << layer) - 1, slots = 1 << layer;
      const auto exists = [&e, tree](int node) { return e.node_exists(tree, node); };
      m_.accumulator_.add(stats, m_.buckets_.total_bins(), first, slots,
                          std::max(1, ws.hist.threads_used),
                          e.state(trees::Ensemble::kBatches) == 0.0f, exists);
      e.set_state(trees::Ensemble::kBatches, e.state(trees::Ensemble::kBatches) + 1.0f);
      if (e.state(trees::Ensemble::kBatches) < static_cast<float>(m_.batches_per_layer_)) return;
      e.grow_layer(tree, layer, ws.threads, m_.accumulator_, m_.buckets_, m_.reg_,
                   m_.learning_rate_, m_.batches_per_layer_);
    }

    bool finished() const override { return m_.training_finished(); }
    bool loss_is_batch_mean() const override { return true; }
    std::vector<std::pair<std::string, double>> importances() const override {
      return m_.ensemble_.importances(m_.buckets_.features());
    }

   private:
    BoostedTreesModel& m_;
  };

  static int whole(const Spec& spec, const char* name, double min) {
    const double v = spec.num_or(name, min);
    if (!(v >= min) || v != std::floor(v) || v > 1e9)
      throw std::invalid_argument(std::string(name) + " must be a whole number >= " +
                                  std::to_string(static_cast<int>(min)));
    return static_cast<int>(v);
  }

  Parameter& add_var(const std::string& name, std::vector<int> shape, double init) {
    Parameter p = Parameter::single("boosted_trees/" + name, std::move(shape));
    p.init = Init::Constant;
    p.init_scale = init;
    p.trainable = false;
    return add(std::move(p));
  }

  int batches_per_layer_ = 1;
  double learning_rate_ = 0.1;
  trees::Regularization reg_;
  trees::Bucketizer buckets_;
  trees::Ensemble ensemble_;
  trees::Accumulator accumulator_;
  Boosting boosting_{*this};
};

}  // namespace cppestimators
