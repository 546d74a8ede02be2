// The Model interface: named parameters (TF variable names), a forward pass
// from a FeatureBatch to logits, and a backward pass from d(loss)/d(logits)
// to gradients. Models own no per-batch buffers: a session asks its model
// for a Workspace sized for its batches, so that nested sessions (evaluation
// during training) never share scratch space.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "../data/rng.h"
#include "../features/feature_batch.h"
#include "../features/feature_set.h"
#include "../math/gemm.h"
#include "../spec.h"
#include "mode.h"
#include "parameter.h"
#include "training_strategy.h"

namespace cppestimators {

class Collective;

// A streamed training set, chunk by chunk, for a model that keeps its own
// copy of every row (Model::keep_streamed_rows()).
class RowChunks {
 public:
  virtual ~RowChunks() = default;
  // The next chunk: rows rows[0..count) of `binding`; 0 when the pass ended.
  virtual int next(FeatureSet::Binding*& binding, const int*& rows) = 0;
  // Starts the next pass over the rows.
  virtual void next_pass() = 0;
};

class Workspace {
 public:
  virtual ~Workspace() = default;
  int threads = 1;  // how many threads a step may use (options(cppestimators.threads))
  Rng rng;          // the session's draws (dropout), seeded by the session
  gemm::Kernel kernel = gemm::Kernel::Portable;  // the matrix-product kernel, set by the session
};

// What Model::explain() computes: exact contributions (SHAP values,
// summing to the logit), SHAP interaction values, or TensorFlow's
// directional feature contributions of boosted trees (each split's change
// of the prediction along the row's path through the trees in order, to
// the split's column): of the logit (Directional) or of its sigmoid
// (DirectionalLogistic, a binary classifier's as TensorFlow gave them).
enum class Explanation { Contributions, Interactions, Directional, DirectionalLogistic };

class Model {
 public:
  // `spec`: the model's spec, with its feature columns and, optionally,
  // "use_columns": the names of the ones this model uses (default: all).
  Model(const Spec& spec, int units);
  virtual ~Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  virtual std::string kind() const = 0;
  // Owners of the parameter groups, one optimizer each (e.g. {"linear"}).
  virtual std::vector<std::string> groups() const = 0;
  virtual std::unique_ptr<Workspace> new_workspace(const FeatureBatch& batch, int max_rows,
                                                   int threads) const = 0;
  // Whether the model reads a batch's dense values by row index (see
  // FeatureBatch) rather than as one contiguous block.
  virtual bool reads_dense_rows_by_index() const;
  // Whether a step of `mode` over a batch (`whole`: every row in order)
  // reads the batch's features; when not, the session gathers only its row
  // ids (the histogram trees train from their bins).
  virtual bool reads_batch_features(Mode mode, bool whole) const;
  // Whether a training session fills batches of features at all (false: the
  // model copied the rows it trains on when the session began, and refuses
  // batches; the session then sizes no feature buffers).
  virtual bool reads_training_batches() const { return true; }
  // logits: rows x units, row-major.
  virtual void forward(const FeatureBatch& batch, Mode mode, Workspace& ws,
                       float* logits) const = 0;
  // Gradients of the summed loss, given dlogits (rows x units) of the batch
  // the last forward() saw; the list lives in `ws`.
  virtual const std::vector<Gradient>& backward(const FeatureBatch& batch, const float* dlogits,
                                                Workspace& ws) = 0;

  // Called when a session over `n` rows starts, before its first step, with
  // the data's binding and cached dense block (or null), and the threads
  // the session may use.
  virtual void begin_session(FeatureSet::Binding& binding, std::int64_t n, const DenseRows* block,
                             Mode mode, int threads);

  // Whether a training session over a streamed dataset first gives the
  // model every row through keep_streamed_rows(), then trains as over rows
  // in memory with no features to read (the histogram trees: their bins).
  virtual bool keeps_streamed_rows() const;
  // Reads every row of `chunks` (two passes at most) into the model's own
  // copy for the next training session; returns the rows kept (this
  // rank's, across processes: set_collective() comes first).
  virtual std::int64_t keep_streamed_rows(RowChunks& chunks, int threads);

  // Called by a session of mode `mode` when it starts and before each of its
  // steps (a custom estimator's graphs differ by mode; others ignore it).
  virtual void bind_mode(Mode mode);

  // Per-prediction explanations of a batch: per row, logit and feature
  // column of the model (features().column(c)), the column's contribution
  // to the logit, then the logit's baseline, which the contributions add up
  // to the logit from: `out` is rows x logits x (columns + 1). With
  // `interactions`, per row and logit a (columns + 1) x (columns + 1)
  // matrix instead: the interaction values of each pair of columns (a
  // column's own on the diagonal; row c sums to c's contribution), the
  // baseline in the last cell. False when the model has no explanations
  // (nothing is written).
  virtual bool explain(const FeatureBatch& batch, int threads, double* out,
                       Explanation kind = Explanation::Contributions) const;

  // Integrated gradients (Sundararajan, Taly and Yan 2017) for models of
  // an input layer: input_rows() writes the batch's input-layer rows
  // (rows x input_width()); integrated_gradients() integrates each logit's
  // gradient with respect to the input layer along the straight path from
  // `baseline` (an input-layer row: the mean of reference rows' input_rows())
  // to each row, by the midpoint rule over `steps` steps, times the row's
  // difference from the baseline, summed per feature column: `out` laid
  // out as explain()'s, the baseline cell the logit at `baseline`. The
  // defaults: no input layer (-1, false).
  virtual int explained_input_width() const;
  virtual bool input_rows(const FeatureBatch& batch, float* x) const;
  virtual bool integrated_gradients(const FeatureBatch& batch, const float* baseline, int steps,
                                    int threads, double* out) const;

  // Called when a streaming session moved to a new window of rows: row
  // indices now name other examples, so per-row caches are stale.
  virtual void rows_replaced(Workspace& ws);

  // How the model trains (training_strategy.h): gradient steps through the
  // optimizers unless the model chose otherwise.
  TrainingStrategy& training() { return *training_; }
  const TrainingStrategy& training() const { return *training_; }

  const FeatureSet& features() const { return features_; }
  int units() const { return units_; }
  // Every parameter of the model (a model made of parts lists theirs).
  virtual std::vector<Parameter*> parameters();
  // Puts every parameter in optimizer group g (for a model used as a part).
  void set_group(int g);
  // Whether the model uses the feature column named `name` (a part of a
  // combined model sees every column but uses its own).
  bool uses(const std::string& name) const;

  // Initial values: zeros, or draws from `rng` (seeded by the run config);
  // growable parameters emptied.
  void initialize(Rng& rng);

  // Whether a growable parameter changed length since the last call (the
  // estimator then rebuilds its table of variables).
  bool take_resized() {
    const bool r = resized_;
    resized_ = false;
    return r;
  }
  // Called after variables were overwritten from outside (a checkpoint
  // restored, state copied) or initialized, so that caches derived from
  // them are rebuilt.
  virtual void variables_loaded();

  // The ranks a distributed training session's begin_session() may meet
  // (set by the session around that call; null otherwise).
  // `observer`: this rank holds no rows (a socket cluster's chief).
  void set_collective(Collective* c, bool observer = false) {
    collective_ = c;
    observer_ = observer;
  }

 protected:
  Collective* collective_ = nullptr;
  bool observer_ = false;  // see set_collective()
  bool resized_ = false;   // see take_resized()
  // For a model trained otherwise than by gradient steps (boosted trees).
  void set_training(TrainingStrategy& t) { training_ = &t; }
  Parameter& add(Parameter p);
  // The starting values ("bias_init", one or one per unit) and penalty
  // ("bias_regularized") a spec gives a model's bias, if any.
  static void start_bias(const Spec& spec, Parameter& bias);
  FeatureSet features_;
  int units_;
  std::vector<std::string> use_;
  std::deque<Parameter> params_;  // stable addresses

 private:
  GradientStep gradient_step_{*this};
  TrainingStrategy* training_ = &gradient_step_;
};

}  // namespace cppestimators
