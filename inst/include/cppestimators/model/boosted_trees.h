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
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../features/feature_batch.h"
#include "../features/feature_set.h"
#include "../spec.h"
#include "mode.h"
#include "model.h"
#include "parameter.h"
#include "training_strategy.h"
#include "trees/constraints.h"
#include "trees/ensemble.h"
#include "trees/histograms.h"
#include "trees/quantiles.h"
#include "trees/split.h"

namespace cppestimators {

class Head;

class BoostedTreesModel : public Model {
 public:
  BoostedTreesModel(const Spec& spec, int units);

  std::string kind() const override;
  std::vector<std::string> groups() const override;
  bool reads_dense_rows_by_index() const override;

  // The numeric features' quantile buckets, from the first training session.
  void begin_session(FeatureSet::Binding& binding, std::int64_t n, const DenseRows* block,
                     Mode mode, int threads) override;

  // A checkpoint's accumulator of the older kind (a row per place of the
  // deepest layer, no `accumulator_nodes`) given its nodes.
  void variables_loaded() override;

  // TreeSHAP of every tree walked (the finished ones and the one being
  // grown), with the covers recorded at training (each split's share of
  // its node's hessian sum, from the statistics that split it); or
  // TensorFlow's directional feature contributions: along the row's path
  // in each tree, each split's change of the node value goes to the
  // split's column, the trees' roots to the baseline. Throws when the
  // model has no covers (saved before they were recorded).
  bool explain(const FeatureBatch& batch, int threads, double* out,
               Explanation kind = Explanation::Contributions) const override;

  // A streaming session's new window: every row's buckets, finished trees
  // and node are recomputed (TF's path for data not held in memory).
  void rows_replaced(Workspace& base) override;

  std::unique_ptr<Workspace> new_workspace(const FeatureBatch& batch, int max_rows,
                                           int threads) const override;

  void forward(const FeatureBatch& batch, Mode, Workspace& base, float* logits) const override;

  const std::vector<Gradient>& backward(const FeatureBatch&, const float*,
                                        Workspace& base) override;

  // See Ensemble::set_tree_limit().
  void set_tree_limit(int n) { ensemble_.set_tree_limit(n); }
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
  float node_cover(int tree, int node) const { return ensemble_.node_cover(tree, node); }

 private:
  struct Work : Workspace {
    trees::RowCache rows;
    trees::Histograms hist;
    trees::LayerNodes layer;  // the nodes of the layer being grown
    std::vector<Gradient> grads;
  };

  // Boosting layers: a step's statistics are the batch's histograms and
  // node totals; applying them adds them to the accumulator and grows the
  // layer once n_batches_per_layer batches are in.
  class Boosting : public TrainingStrategy {
   public:
    explicit Boosting(BoostedTreesModel& model);

    StepStats compute(const FeatureBatch& batch, const float* logits, const float* dlogits,
                      const Head& head, Workspace& base) override;

    // Whether the head's gradients and hessians are TF's closed-form ones
    // of the logistic loss, p = 1 / (e^-x + 1), g = (p - y) / B, h = p (1 -
    // p) (trees/histograms.h computes them from the labels). TF takes them
    // without example weights; with weights they are the same formulas times
    // w, so that weight 2 on a row and the row twice round alike.
    static bool closed_form(const Head& head);

    // The step in one pass (Histograms::fused()) for a batch of every row in
    // order with one logit and the closed-form gradients, where the walk of
    // every row in order applies.
    bool fused_step(const FeatureBatch& batch, const Head& head, Workspace& base, float* logits,
                    float* per_example, double& loss, StepStats& stats) override;
    bool needs_head_gradients(const Head& head) const override;

    void apply(const StepStats& stats, const Optimizers&, Workspace& base) override;

    bool finished() const override;
    bool loss_is_batch_mean() const override;
    std::vector<std::pair<std::string, double>> importances() const override;

   private:
    // compute()'s end: with center_bias, the batch's mean gradient and
    // hessian instead of the sums.
    void centered(StepStats& stats, int rows, Work& ws) const;

    BoostedTreesModel& m_;
  };

  // Whether the bias is still being centered (TF's center_bias_needed).
  bool centering() const { return centering_ != nullptr && centering_->value[0] == 0.0f; }

  // One centering step from the accumulated batch means (averaged over the
  // `per` batches, as TF's bias accumulator takes them); the growing
  // statistics start afresh.
  void center(float per);

  static int whole(const Spec& spec, const char* name, double min);

  Parameter& add_var(const std::string& name, std::vector<int> shape, double init,
                     bool growable = false);

  // Layers deeper than this grow through compute() (the statistics of the
  // nodes with rows), not fused_step() (those of every node that exists).
  static constexpr int kFusedLayers = 10;

  int batches_per_layer_ = 1;
  bool across_ = false;  // training on a cluster of ranks (set by begin_session())
  float learning_rate_ = 0.1f;
  bool center_bias_ = false;
  Parameter* centering_ = nullptr;  // (done, steps) with center_bias
  trees::Regularization reg_;
  trees::Bucketizer buckets_;
  trees::Ensemble ensemble_;
  trees::TreeConstraints constraints_;  // ensemble_ reads it
  trees::Accumulator accumulator_;
  Boosting boosting_{*this};
};

}  // namespace cppestimators
