// How a model trains, as one interface the estimator and the session call
// without asking which model they hold: gradient steps through the
// optimizers (linear, DNN and combined models) or boosting layers (boosted
// trees, model/boosted_trees.h).
//
// A training step is two calls. compute() turns the last forward pass into
// the step's statistics and changes no variable; apply() folds them into the
// model (an optimizer update; adding to the layer's accumulator and growing
// the layer when it is complete). The statistics are flat buffers, so that a
// data-parallel backend could add them up across processes between the two
// calls; with one process, compute() then apply() is the whole step.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "optimizers/optimizer.h"
#include "parameter.h"

namespace cppestimators {

class Head;
class Model;
class Workspace;
struct FeatureBatch;

// The estimator's optimizers, one per parameter group of its model.
using Optimizers = std::vector<std::unique_ptr<Optimizer>>;

// What compute() hands to apply(); the buffers live in the session's
// workspace and stay valid until its next step.
struct StepStats {
  // A gradient step: the gradients of the batch's summed loss.
  const std::vector<Gradient>* gradients = nullptr;
  // A boosting step: the batch's (gradient, hessian) sums, per node of the
  // layer being grown, one pair per bin and then the node's totals.
  double* sums = nullptr;
  std::size_t sum_count = 0;
  // How many batches the statistics add up (more than one when they are
  // several ranks' combined, session/step_exchange.h).
  int batches = 1;
  // Whether there is anything to apply (not when training had finished).
  bool empty() const { return gradients == nullptr && sums == nullptr; }
};

class TrainingStrategy {
 public:
  virtual ~TrainingStrategy() = default;

  // (a) The statistics of one step from the last forward pass over `batch`:
  // its `logits` and `dlogits` (the gradients of the loss as the session
  // reports it), the head for second derivatives.
  virtual StepStats compute(const FeatureBatch& batch, const float* logits, const float* dlogits,
                            const Head& head, Workspace& ws) = 0;
  // (b) Applies statistics from compute() (possibly summed with other
  // processes' since).
  virtual void apply(const StepStats& stats, const Optimizers& optimizers, Workspace& ws) = 0;

  // (a') Optionally, the forward pass, the loss and compute() in one pass
  // (boosting a batch of every row in order): when it can, writes the
  // batch's logits and its per-example losses (without weights, as the
  // head's), sets `loss` to the summed (weighted) loss and `stats` to what
  // compute() would give, and returns true; the session then skips its own
  // forward pass and loss. The default cannot.
  virtual bool fused_step(const FeatureBatch& batch, const Head& head, Workspace& ws, float* logits,
                          float* per_example, double& loss, StepStats& stats);

  // Whether training has nothing left to do (boosting: every tree grown).
  virtual bool finished() const;
  // Whether the reported loss is the batch's mean (TF's SUM_OVER_BATCH_SIZE)
  // rather than its sum; the session then also scales the logit gradients.
  virtual bool loss_is_batch_mean() const;
  // Whether compute() reads the head's logit gradients (`dlogits`); when
  // not, the session computes only the loss and passes null.
  virtual bool needs_head_gradients(const Head& head) const;
  // Whether compute() itself talks to the other ranks of a training across
  // processes (a histogram tree's nodes are summed over the ranks as it
  // grows): every rank then calls it in every round, a rank without rows
  // with an empty batch.
  virtual bool computes_across_ranks() const { return false; }
  // Named importances of the model's inputs learnt by training (boosting:
  // summed split gains); none for gradient steps.
  virtual std::vector<std::pair<std::string, double>> importances() const;
};

// Gradient steps: the model's backward pass, then each trainable parameter's
// optimizer update (dense or by rows).
class GradientStep : public TrainingStrategy {
 public:
  explicit GradientStep(Model& model);

  StepStats compute(const FeatureBatch& batch, const float* logits, const float* dlogits,
                    const Head& head, Workspace& ws) override;

  void apply(const StepStats& stats, const Optimizers& optimizers, Workspace& ws) override;

 private:
  Model& model_;
  std::vector<float> dense_;  // a zero_elsewhere gradient made dense (sized once)
};

}  // namespace cppestimators
