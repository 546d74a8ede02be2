// Boosted trees grown by histograms ("depthwise", xgboost's hist; or
// "lossguide", LightGBM's leaf-wise), next to TensorFlow's layer-by-layer
// growth (boosted_trees.h). One training step grows one whole round of
// trees (one tree, or one per class with K >= 3 logits, as xgboost grows
// multi-class models) from the step's batch: the gradients and hessians of
// every row once, then trees/hist_grower.h. The rows are binned once per
// training session (trees/hist_bins.h); with a batch of every row in order
// (train() of a data frame), the running predictions of every row are kept
// and moved by each new tree's leaves, so a step costs one tree.
//
// The ensemble is stored as node arrays of the nodes grown (growable
// variables, model/parameter.h): per tree its node count and categories
// count; per node its feature (-1: a leaf), left child (right = left + 1,
// indices within the tree), threshold (numeric: left when x <= threshold;
// bucketized: left when the bucket <= threshold; categorical: the offset
// of its category set within the tree's categories), where missing values
// go, value (the learning rate times the node's weight; a leaf's is its
// prediction), gain and cover (hessian sum). A category set is stored as
// its size then its categories. Prediction walks raw values, so a model
// needs no bins once trained; the cuts stay with it for further training.
#pragma once
#include <cmath>
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
#include "trees/hist_bins.h"
#include "trees/hist_grower.h"
#include "trees/tree_shap.h"

namespace cppestimators {

class Head;

class HistBoostedTreesModel : public Model {
 public:
  HistBoostedTreesModel(const Spec& spec, int units);

  std::string kind() const override;
  std::vector<std::string> groups() const override;
  bool reads_dense_rows_by_index() const override;

  // A training session's data, binned by new_workspace() (the cuts come
  // from the first training session).
  void begin_session(FeatureSet::Binding& binding, std::int64_t n, const DenseRows* block,
                     Mode mode, int threads) override;
  void rows_replaced(Workspace& base) override;
  // A streamed dataset: a first pass samples the rows for the cuts (when
  // the model has none yet) and counts them, a second bins them; the next
  // training session trains from these bins.
  bool keeps_streamed_rows() const override;
  std::int64_t keep_streamed_rows(RowChunks& chunks, int threads) override;

  std::unique_ptr<Workspace> new_workspace(const FeatureBatch& batch, int max_rows,
                                           int threads) const override;
  void forward(const FeatureBatch& batch, Mode mode, Workspace& base, float* logits) const override;
  const std::vector<Gradient>& backward(const FeatureBatch&, const float*,
                                        Workspace& base) override;
  void variables_loaded() override;
  // Not in training over every row in order with the rows binned: the
  // running predictions (or a walk of the trees over the bins) serve.
  bool reads_batch_features(Mode mode, bool whole) const override;

  // TreeSHAP of every tree (trees/tree_shap.h): per row and logit, one
  // contribution per feature column (or the interaction values of each
  // pair), and the base score plus the trees' expected values.
  bool explain(const FeatureBatch& batch, int threads, double* out,
               Explanation kind = Explanation::Contributions) const override;

  // Predictions from the first n rounds only (-1: all), for multi_predict().
  void set_tree_limit(int n) { tree_limit_ = n; }
  int rounds() const { return static_cast<int>(state_->value[kRounds]); }
  int classes() const { return classes_; }
  const trees::HistFeatures& features_binned() const { return feats_; }

  enum StateField { kRounds, kUnused1, kAttempted, kUnused3, kCutsReady, kStateSize };

 private:
  struct Work : Workspace {
    trees::BinMatrix bins;
    bool binned = false;
    std::vector<double> preds;  // data rows x K: base score + every tree, when valid
    int preds_rounds = -1;      // the rounds `preds` holds (-1: not valid)
    std::vector<trees::GradPair> gh;
    std::vector<float> hess, dl, per_example, moved;
    std::vector<int> rows;
    std::vector<char> use;
    trees::Grower grower;
    std::vector<trees::GrownTree> grown;       // the step's trees, one per class
    std::vector<std::vector<int>> grown_rows;  // the rows each tree saw
    std::unique_ptr<trees::RankSums> across;   // training across processes
    double marker = 1.0;
    // leaf renewal (absolute error, quantiles): the rows' residuals (with
    // their weights when weighted) grouped by leaf, and where each leaf's
    // group starts
    std::vector<float> renew_resid;
    std::vector<std::pair<double, double>> renew;
    std::vector<int> renew_start;
  };

  class Boosting : public TrainingStrategy {
   public:
    explicit Boosting(HistBoostedTreesModel& model) : m_(model) {}
    StepStats compute(const FeatureBatch& batch, const float* logits, const float* dlogits,
                      const Head& head, Workspace& base) override;
    void apply(const StepStats& stats, const Optimizers&, Workspace& base) override;
    bool finished() const override;
    bool computes_across_ranks() const override { return true; }
    std::vector<std::pair<std::string, double>> importances() const override;

   private:
    HistBoostedTreesModel& m_;
  };

  // The compiled ensemble prediction walks (rebuilt from the variables
  // after a restore, extended as trees are added).
  struct Compiled {
    struct Node {
      int feature, left;
      int bin;  // numeric, bucketized: left when 0 < bin <= this (the walk over bins)
      float threshold, value;
      int bits;   // categorical: its set's first word in `cat_bits` (-1: not categorical)
      int count;  // categorical: the column's categories (ids at or past it go right)
      bool default_left;
    };
    // Whether a row whose value of the node's feature is `v` (an id for a
    // categorical feature; NaN: missing) goes left.
    bool goes_left(const Node& n, double v) const {
      // (a value or an id compared as float, as the split was found)
      const bool left = n.bits >= 0 ? in_set(n, static_cast<std::int64_t>(v))
                                    : static_cast<float>(v) <= n.threshold;
      return std::isnan(v) ? n.default_left : left;
    }
    std::vector<Node> nodes;
    std::vector<std::int64_t> tree_start;  // n_trees + 1
    std::vector<std::uint64_t> cat_bits;   // each category set as a bitset of its column's ids
    // the trees as TreeSHAP reads them (indexed as `nodes`): a split's group
    // is its feature's column, its cover the node's hessian sum
    std::vector<trees::ShapNode> shap;
    std::vector<int> shap_depth;  // per tree
    // Whether category `id` is in node n's set.
    bool in_set(const Node& n, std::int64_t id) const {
      return id >= 0 && id < n.count &&
             ((cat_bits[static_cast<std::size_t>(n.bits) + static_cast<std::size_t>(id >> 6)] >>
               (id & 63)) &
              1U) != 0;
    }
    std::int64_t epoch = -1;
  };
  void compile() const;
  // Prediction walks the trees tree by tree over blocks of this many rows
  // (of up to kMaxWalkClasses logits each; with more logits, fewer rows).
  static constexpr int kWalkBlock = 64;
  static constexpr int kMaxWalkClasses = 16;

  // Batch row r's value of every feature, into x (one per feature, in
  // order): a numeric column's value, a categorical or ordinal column's id;
  // NaN where missing.
  void row_values(const FeatureBatch& batch, int r, double* x) const;
  // Tree t's predictions for `rows` rows of values (row_values(), `nf` a
  // row), added to out[j * stride] for row j: the rows walk the tree level
  // by level together (their loads overlap, the steps take no branch).
  void add_tree_values(int t, const double* x, std::size_t nf, int rows, double* out,
                       std::size_t stride) const;
  // The same by the row's bins (a training session's row).
  float tree_value_binned(int t, const trees::BinMatrix& x, std::int64_t row) const;
  void base_score(const Head& head, const FeatureBatch& batch, trees::RankSums* across);
  // Sets the leaves of `tree`, grown for logit c, to `rate` times the
  // `level` quantile of their rows' residuals (see the definition).
  static void renew_leaves(const FeatureBatch& batch, const float* logits, const Head& head, int c,
                           double level, const std::vector<int>& leaf_of, double rate,
                           trees::GrownTree& tree, Work& w);
  // Whether global row `g` is in round `round`'s sample of rows (a hash of
  // the row's global index: the same rows whatever the ranks).
  bool sampled(std::int64_t g, int round) const;
  void append(const trees::GrownTree& t);
  Parameter& var(const std::string& name, std::vector<int> shape, double init, bool growable);
  // Monotone and interaction constraints of the spec (by column name) into
  // grow_, per feature.
  void constraints(const Spec& spec);

  int n_trees_ = 100;
  int classes_ = 1;
  trees::GrowParams grow_;
  trees::TreeConstraints constraints_;  // grow_'s constraints point into it
  double subsample_ = 1.0, colsample_ = 1.0;
  std::uint64_t seed_ = 0;
  // this rank's shard of the rows across processes (global row of local
  // row i: shard_ + i * shards_)
  int shard_ = 0, shards_ = 1;
  trees::HistFeatures feats_;
  int tree_limit_ = -1;
  Parameter *state_ = nullptr, *base_ = nullptr;
  Parameter *tree_nodes_ = nullptr, *tree_cats_ = nullptr, *categories_ = nullptr;
  Parameter *n_feature_ = nullptr, *n_left_ = nullptr, *n_threshold_ = nullptr,
            *n_default_ = nullptr, *n_value_ = nullptr, *n_gain_ = nullptr, *n_cover_ = nullptr;
  std::vector<std::int64_t> tree_start_, cat_start_;  // per stored tree, n + 1
  std::int64_t epoch_ = 0;                            // bumped when variables are replaced
  mutable Compiled compiled_;
  // the training session's data, for new_workspace()
  mutable FeatureSet::Binding* pending_binding_ = nullptr;
  mutable const DenseRows* pending_block_ = nullptr;
  mutable bool session_binned_ = false;  // the training session's rows are binned
  mutable std::int64_t pending_n_ = 0;
  // a streamed dataset's bins, for the next training session
  mutable trees::BinMatrix held_bins_;
  mutable bool held_ = false;
  Boosting boosting_{*this};
};

}  // namespace cppestimators
