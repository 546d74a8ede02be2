// An estimator's state: a Model, its head, one optimizer per parameter
// group, and the global step. Every variable — model weights, optimizer
// slots ("<variable>/<slot>") and optimizer variables (Adam's beta powers) —
// is addressable by its TF name, so that hooks, checkpoints and
// variable_value() see one table.
//
// Learning rates: before each training step every optimizer's rate is set
// from its schedule (or constant rate) at the global step, times the
// learning-rate scale that hook_reduce_lr_on_plateau() lowers. The scale is
// a variable ("learning_rate_scale") only once a model uses it, so other
// models' variables and checkpoints are unchanged; a checkpoint without it
// means a scale of 1 (estimator_io.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../features/feature_batch.h"
#include "../spec.h"
#include "heads/head.h"
#include "model.h"
#include "optimizers/optimizer.h"
#include "training_strategy.h"

namespace cppestimators {

struct EstimatorSpec {
  Spec model;  // kind ("linear") and its feature columns
  // The head's kind ("regression", "poisson_regression", ...) and its
  // numbers (a Tweedie head's power, a Huber head's delta, a quantile
  // head's levels); see heads/registry.h.
  Spec head = Spec{"regression", {}, {}, {}, {}};
  int head_n = 1;                // label_dimension (regression), n_classes or n_labels
  std::vector<Spec> optimizers;  // one per parameter group of the model
  std::uint64_t seed = 0;        // initial values of random initializers
};

// A named view into a parameter, one of its slots or an optimizer variable.
struct VariableRef {
  std::string name;
  std::vector<int> shape;
  float* data;
  std::size_t size;
  bool trainable;
  bool optional = false;  // see Parameter::optional
  bool slot = false;      // an optimizer's slot of a parameter ("<variable>/<slot>")
};

class Estimator {
 public:
  explicit Estimator(const EstimatorSpec& spec);
  Estimator(const Estimator&) = delete;
  Estimator& operator=(const Estimator&) = delete;

  const EstimatorSpec& spec() const { return spec_; }
  const Head& head() const { return *head_; }
  Model& model() { return *model_; }
  const Model& model() const { return *model_; }
  std::int64_t global_step() const { return global_step_; }
  void set_global_step(std::int64_t s);
  double learning_rate() const { return optimizers_.front()->learning_rate(); }
  // The current rate of the optimizer of parameter group `group` ("linear",
  // "dnn"); false when the model has no such group.
  bool group_learning_rate(std::string_view group, double& out) const;
  const std::vector<std::string>& groups() const { return groups_; }
  bool has_schedule() const;

  static constexpr const char* kScaleName = "learning_rate_scale";
  double learning_rate_scale() const { return lr_scale_; }
  void set_learning_rate_scale(double scale);
  bool uses_learning_rate_scale() const { return scale_in_use_; }
  // Makes the scale a variable (checkpointed, listed) from now on.
  void use_learning_rate_scale();
  // Each optimizer's rate for the step starting at the current global step.
  void update_learning_rates();

  // Initial values (zeros or seeded draws), fresh slots, global step 0.
  void initialize();

  // One training step from the last forward pass: the model's training
  // strategy computes the step's statistics, then applies them.
  void train_step(const FeatureBatch& batch, const float* logits, const float* dlogits,
                  Workspace& ws);
  // train_step() with statistics already computed (a fused step's).
  void apply_step(const StepStats& stats, Workspace& ws);
  // The optimizers, for applying statistics computed apart from train_step().
  const Optimizers& optimizers() const { return optimizers_; }
  void advance_global_step() { ++global_step_; }

  // Gives the growable variable `name` (model/parameter.h) the length of
  // `shape` (a checkpoint's); nothing for other variables. Call
  // refresh_variables() after.
  void fit_growable(const std::string& name, const std::vector<std::int64_t>& shape);
  // Rebuilds the table of variables (after growable ones changed length).
  void refresh_variables();
  // The model told its variables were overwritten from outside (a
  // checkpoint, another estimator's state; Model::variables_loaded()), the
  // table rebuilt if that changed a growable variable's length.
  void variables_loaded();
  // Every variable, global_step excluded (it is an integer), sorted by name.
  const std::vector<VariableRef>& variables() const { return variables_; }

  // The explanations of every row of `data` (Model::explain()), in blocks
  // of rows: rows x logits x (columns + 1) values into `out` (with
  // Explanation::Interactions, rows x logits x (columns + 1)^2). False when the model
  // has none.
  bool explain(const Dataset& data, int threads, std::vector<double>& out,
               Explanation kind = Explanation::Contributions) const;
  // Integrated gradients (Model::integrated_gradients()) of every row of
  // `data` from the mean input-layer row of `reference`'s rows, laid out as
  // explain()'s. False when the model has none.
  bool integrated_gradients(const Dataset& data, const Dataset& reference, int steps, int threads,
                            std::vector<double>& out) const;
  const VariableRef* find_variable(std::string_view name) const;

 private:
  void build_variable_table();
  void sort_variables();

  EstimatorSpec spec_;
  std::unique_ptr<Head> head_;
  std::unique_ptr<Model> model_;
  Optimizers optimizers_;
  std::vector<VariableRef> variables_;
  std::vector<std::string> groups_;
  std::int64_t global_step_ = 0;
  float lr_scale_ = 1.0f;
  bool scale_in_use_ = false;
};

}  // namespace cppestimators
