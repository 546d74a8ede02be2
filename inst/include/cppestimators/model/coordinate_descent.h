// A linear model fitted as glmnet fits one: each training step is one
// proximal Newton step over every row (the loss's second-order expansion at
// the current logits, solved by cyclic coordinate descent with the L1 and
// L2 penalties exactly, then a step along the change that halves until the
// penalized loss falls). The slopes are solved on columns centred on their
// hessian-weighted means without centring the data (the means are carried
// in two numbers, as glmnet handles sparse columns), so zeros stay zeros
// and the intercept never fights the slopes; the model's own variables
// (weights of the uncentred values, bias) take the solution exactly.
//
// The objective is FTRL's with its strengths per step (R/parsnip_fit.R):
//   sum_i v_i loss_i + l1 * sum |w| + l2 * sum w^2
// over the weights of numeric and id columns; the bias is not penalized.
// The rows are copied once per training session, column by column (the
// design: 8 bytes a non-zero value), when the session starts; steps read
// no batch features. One process; embedding columns have no place in it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../features/feature_set.h"
#include "../spec.h"
#include "training_strategy.h"

namespace cppestimators {

class CoordinateDescent : public TrainingStrategy {
 public:
  // The weights the solver fits: coordinates [first, first + count) are the
  // rows of `param` (units values per row). Their values come from the
  // dense block's columns [0, count) (`dense`) or from the ids of id column
  // `column` of the feature set (weighted; id k is coordinate first + k).
  struct Block {
    Parameter* param;
    std::int64_t first, count;
    int column;
    bool dense;
  };

  CoordinateDescent(const Spec& spec, int units);

  // Set by the model before training: its weight blocks and its bias.
  void set_blocks(std::vector<Block> blocks, Parameter* bias);

  // Copies rows [0, n) of the data, column by column.
  void begin_session(const FeatureSet& features, FeatureSet::Binding& binding, std::int64_t n,
                     const DenseRows* block, int threads);
  bool ready() const { return rows_ > 0; }

  StepStats compute(const FeatureBatch& batch, const float* logits, const float* dlogits,
                    const Head& head, Workspace& ws) override;
  void apply(const StepStats& stats, const Optimizers& optimizers, Workspace& ws) override;
  bool fused_step(const FeatureBatch& batch, const Head& head, Workspace& ws, float* logits,
                  float* per_example, double& loss, StepStats& stats) override;
  bool finished() const override { return finished_; }

 private:
  // Frees the design and the buffers (training ended).
  void release();
  // logits = bias + X W, from the design.
  void logits_of(float* out) const;
  // One proximal Newton step of unit u from the logits in f_; returns the
  // fall of the penalized loss (0 when no step lowers it).
  double newton_step(const Head& head, const FeatureBatch& batch, int u);
  // Cyclic coordinate descent over `coords` (all when null) of unit u's
  // quadratic model; returns the largest curvature * change^2.
  double sweep(const std::vector<std::int64_t>* coords, int u, double h_sum);
  // The change of the penalty when unit u's weights move by t * delta_.
  double penalty_change(double t, int u) const;

  int units_;
  int threads_ = 1;
  double l1_, l2_;
  std::vector<Block> blocks_;
  Parameter* bias_ = nullptr;
  // per coordinate: its row of weights (units values) and of box limits
  // (null: none)
  std::vector<float*> weight_row_;
  std::vector<const float*> lower_row_, upper_row_;

  // the design, column-major: coordinate j's rows and values
  std::int64_t rows_ = 0, coords_ = 0;
  std::vector<std::int64_t> col_ptr_;
  std::vector<int> row_idx_;
  std::vector<float> values_;

  // the step's working buffers (sized by begin_session)
  std::vector<float> f_, trial_, grad_, hess_, per_example_;
  // per row, side by side (one cache line a row in the sweeps): the second
  // derivative of its loss (times its weight) and its working residual
  std::vector<double> resid_;
  std::vector<double> dlogit_, mean_, curv_, delta_;
  std::vector<std::int64_t> changed_;  // the coordinates delta_ moved
  std::vector<unsigned char> moved_;   // per coordinate: in changed_
  double resid_sum_ = 0.0;             // sum of hessian * residual
  double scale_ = 0.0;                 // the loss of the session's first step
  bool finished_ = false;
  bool settled_ = false;  // the last Newton step's first sweep moved no weight by much
};

}  // namespace cppestimators
