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

#include "../math/fast_math.h"
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
  BoostedTreesModel(const Spec& spec, int units) : Model(spec, units) {
    if (units < 1) throw std::invalid_argument("boosted trees need at least one logit");
    const int k = units;
    const int n_trees = whole(spec, "n_trees", 1);
    const int max_depth = whole(spec, "max_depth", 1);
    batches_per_layer_ = whole(spec, "n_batches_per_layer", 1);
    learning_rate_ = static_cast<float>(spec.num_or("learning_rate", 0.1));
    reg_.l1 = static_cast<float>(spec.num_or("l1_regularization", 0.0));
    reg_.l2 = static_cast<float>(spec.num_or("l2_regularization", 0.0));
    reg_.tree_complexity = static_cast<float>(spec.num_or("tree_complexity", 0.0));
    reg_.min_node_weight = static_cast<float>(spec.num_or("min_node_weight", 0.0));
    const double epsilon = spec.num_or("quantile_sketch_epsilon", 0.01);
    if (!(epsilon > 0.0 && epsilon < 1.0) || trees::quantiles_for(epsilon) > 65533)
      throw std::invalid_argument("quantile_sketch_epsilon must be in (0, 1) and at least 1/65533");
    const std::string pruning = spec.str_or("pruning_mode", "none");
    if (pruning != "none" && pruning != "pre" && pruning != "post")
      throw std::invalid_argument("pruning_mode mode must be one of: none, post, pre");
    center_bias_ = spec.flag_or("center_bias", false);
    if (max_depth > 20) throw std::invalid_argument("max_depth must be at most 20");
    const std::int64_t nodes = (std::int64_t{1} << (max_depth + 1)) - 1;
    if (static_cast<double>(n_trees) * nodes > static_cast<double>(1 << 24))
      throw std::invalid_argument(
          "n_trees x 2^(max_depth + 1) must be at most 2^24 tree nodes (got n_trees = " +
          std::to_string(n_trees) + ", max_depth = " + std::to_string(max_depth) +
          "); lower one of them");
    if (k > 1 && center_bias_)
      throw std::invalid_argument(
          "center_bias needs one logit: it is not supported with n_classes > 2");
    ensemble_ = trees::Ensemble(n_trees, max_depth, k);
    ensemble_.set_pruning(pruning == "pre"    ? trees::Ensemble::kPrePruning
                          : pruning == "post" ? trees::Ensemble::kPostPruning
                                              : trees::Ensemble::kNoPruning);
    buckets_.build(
        features_, [this](const std::string& name) { return uses(name); }, epsilon);
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
    // without numeric features, the shape models saved before the sketch had
    const int width = buckets_.numeric_count() > 0 ? buckets_.boundary_capacity() : 255;
    Parameter& boundaries = add_var("bucket_boundaries", {numeric, width}, 0.0);
    Parameter& counts = add_var("bucket_counts", {numeric}, 0.0);
    buckets_.attach(boundaries, counts);
    ensemble_.attach_state(add_var("state", {trees::Ensemble::kStateSize}, 0.0));
    // (centering done, centering steps taken): only with center_bias,
    // so that models without it keep their variables
    if (center_bias_) centering_ = &add_var("center_bias", {2}, 0.0);
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

  // A streaming session's new window: every row's buckets, finished trees
  // and node are recomputed (TF's path for data not held in memory).
  void rows_replaced(Workspace& base) override { static_cast<Work&>(base).rows.forget_rows(); }

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
      const float* g = dlogits;
      // the binary head's gradients are TF's closed form, computed with the histograms
      ws.hist.closed_form = closed_form(head) && batch.labels != nullptr;
      if (!ws.hist.closed_form && g == nullptr)
        throw std::logic_error("internal: boosted trees need the head's gradients");
      const int* reached = e.nodes_reached(batch, ws.rows);
      StepStats stats =
          m_.buckets_.narrow()
              ? ws.hist.compute(batch, logits, g, head, reached, ws.rows.bins8.data(), m_.buckets_,
                                first, slots, threads, exists)
              : ws.hist.compute(batch, logits, g, head, reached, ws.rows.bins16.data(), m_.buckets_,
                                first, slots, threads, exists);
      if (m_.centering()) {  // the batch's mean gradient and hessian (every row at the root)
        double* tot = ws.hist.sums.data() + trees::node_stride(m_.buckets_.total_bins()) - 2;
        tot[0] = static_cast<float>(tot[0]) / static_cast<float>(batch.rows);
        tot[1] = static_cast<float>(tot[1]) / static_cast<float>(batch.rows);
      }
      return stats;
    }

    // Whether the head's gradients and hessians are TF's closed-form ones
    // of the logistic loss, p = 1 / (e^-x + 1), g = (p - y) / B, h = p (1 -
    // p) (trees/histograms.h computes them from the labels). TF takes them
    // without example weights; with weights they are the same formulas times
    // w, so that weight 2 on a row and the row twice round alike.
    static bool closed_form(const Head& head) { return head.name() == "binary"; }
    bool needs_head_gradients(const Head& head) const override { return !closed_form(head); }

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
      if (m_.centering()) {
        m_.center(static_cast<float>(m_.batches_per_layer_));
        return;
      }
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

  // Whether the bias is still being centered (TF's center_bias_needed).
  bool centering() const { return centering_ != nullptr && centering_->value[0] == 0.0f; }

  // One centering step from the accumulated batch means (averaged over the
  // `per` batches, as TF's bias accumulator takes them); the growing
  // statistics start afresh.
  void center(float per) {
    const float* tot = accumulator_.node(0);
    const float g = per == 1.0f ? tot[0] : tot[0] / per, h = per == 1.0f ? tot[1] : tot[1] / per;
    const bool more = ensemble_.center_bias(g, h, reg_, centering_->value[1] == 0.0f);
    centering_->value[1] += 1.0f;
    if (!more) centering_->value[0] = 1.0f;
    ensemble_.set_state(trees::Ensemble::kBatches, 0.0f);
  }

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
  float learning_rate_ = 0.1f;
  bool center_bias_ = false;
  Parameter* centering_ = nullptr;  // (done, steps) with center_bias
  trees::Regularization reg_;
  trees::Bucketizer buckets_;
  trees::Ensemble ensemble_;
  trees::Accumulator accumulator_;
  Boosting boosting_{*this};
};

}  // namespace cppestimators
