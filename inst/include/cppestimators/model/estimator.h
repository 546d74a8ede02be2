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
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "heads/registry.h"
#include "optimizers/registry.h"
#include "registry.h"

namespace cppestimators {

struct EstimatorSpec {
  Spec model;  // kind ("linear") and its feature columns
  std::string head = "regression";
  int head_n = 1;                // label_dimension (regression) or n_classes
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
};

class Estimator {
 public:
  explicit Estimator(const EstimatorSpec& spec)
      : spec_(spec),
        head_(make_head(spec.head, spec.head_n)),
        model_(make_model(spec.model, head_->logits_dim())) {
    const auto groups = model_->groups();
    groups_ = groups;
    if (spec.optimizers.size() != groups.size())
      throw std::invalid_argument(
          "internal: the model has " + std::to_string(groups.size()) + " parameter groups but " +
          std::to_string(spec.optimizers.size()) + " optimizers were given");
    for (std::size_t g = 0; g < groups.size(); ++g)
      optimizers_.push_back(
          make_optimizer(spec.optimizers[g], groups.size() > 1 ? groups[g] + "/" : ""));
    for (Parameter* pp : model_->parameters()) {
      Parameter& p = *pp;
      const Optimizer& opt = *optimizers_[static_cast<std::size_t>(p.group)];
      p.slots.clear();
      if (p.trainable)
        for (std::size_t s = 0; s < opt.slot_names().size(); ++s)
          p.slots.emplace_back(p.value.size(), 0.0f);
    }
    build_variable_table();
    initialize();
  }
  Estimator(const Estimator&) = delete;
  Estimator& operator=(const Estimator&) = delete;

  const EstimatorSpec& spec() const { return spec_; }
  const Head& head() const { return *head_; }
  Model& model() { return *model_; }
  const Model& model() const { return *model_; }
  std::int64_t global_step() const { return global_step_; }
  void set_global_step(std::int64_t s) {
    global_step_ = s;
    update_learning_rates();
  }
  double learning_rate() const { return optimizers_.front()->learning_rate(); }
  // The current rate of the optimizer of parameter group `group` ("linear",
  // "dnn"); false when the model has no such group.
  bool group_learning_rate(std::string_view group, double& out) const {
    for (std::size_t g = 0; g < groups_.size(); ++g)
      if (groups_[g] == group) {
        out = optimizers_[g]->learning_rate();
        return true;
      }
    return false;
  }
  const std::vector<std::string>& groups() const { return groups_; }
  bool has_schedule() const {
    for (const auto& o : optimizers_)
      if (o->has_schedule()) return true;
    return false;
  }

  static constexpr const char* kScaleName = "learning_rate_scale";
  double learning_rate_scale() const { return lr_scale_; }
  void set_learning_rate_scale(double scale) {
    lr_scale_ = static_cast<float>(scale);
    update_learning_rates();
  }
  bool uses_learning_rate_scale() const { return scale_in_use_; }
  // Makes the scale a variable (checkpointed, listed) from now on.
  void use_learning_rate_scale() {
    if (scale_in_use_) return;
    scale_in_use_ = true;
    variables_.push_back({kScaleName, {}, &lr_scale_, 1, false});
    sort_variables();
  }
  // Each optimizer's rate for the step starting at the current global step.
  void update_learning_rates() {
    for (auto& o : optimizers_) o->set_step(global_step_, lr_scale_);
  }

  // Initial values (zeros or seeded draws), fresh slots, global step 0.
  void initialize() {
    Rng rng(spec_.seed);
    model_->initialize(rng);
    for (Parameter* pp : model_->parameters()) {
      Parameter& p = *pp;
      if (p.slots.empty()) continue;
      const auto init = optimizers_[static_cast<std::size_t>(p.group)]->slot_initial_values();
      for (std::size_t s = 0; s < p.slots.size(); ++s)
        std::fill(p.slots[s].begin(), p.slots[s].end(), init[s]);
    }
    for (auto& o : optimizers_) o->reset_extra();
    global_step_ = 0;
    lr_scale_ = 1.0f;
    update_learning_rates();
  }

  // One training step from the last forward pass: the model's training
  // strategy computes the step's statistics, then applies them.
  void train_step(const FeatureBatch& batch, const float* logits, const float* dlogits,
                  Workspace& ws) {
    TrainingStrategy& training = model_->training();
    update_learning_rates();
    training.apply(training.compute(batch, logits, dlogits, *head_, ws), optimizers_, ws);
    ++global_step_;
  }
  // The optimizers, for applying statistics computed apart from train_step().
  const Optimizers& optimizers() const { return optimizers_; }
  void advance_global_step() { ++global_step_; }

  // Every variable, global_step excluded (it is an integer), sorted by name.
  const std::vector<VariableRef>& variables() const { return variables_; }
  const VariableRef* find_variable(std::string_view name) const {
    auto it = std::lower_bound(variables_.begin(), variables_.end(), name,
                               [](const VariableRef& v, std::string_view n) { return v.name < n; });
    return (it != variables_.end() && it->name == name) ? &*it : nullptr;
  }

 private:
  void build_variable_table() {
    for (Parameter* pp : model_->parameters()) {
      Parameter& p = *pp;
      const Optimizer& opt = *optimizers_[static_cast<std::size_t>(p.group)];
      const auto slots = opt.slot_names();
      for (const ParamView& v : p.views) {
        variables_.push_back({v.name, v.shape, p.value.data() + v.offset, v.size, p.trainable});
        for (std::size_t s = 0; s < p.slots.size(); ++s)
          variables_.push_back(
              {v.name + "/" + slots[s], v.shape, p.slots[s].data() + v.offset, v.size, false});
      }
    }
    for (auto& o : optimizers_)
      for (auto& ev : o->extra_variables())
        variables_.push_back({ev.first, {}, ev.second, 1, false});
    sort_variables();
  }
  void sort_variables() {
    std::sort(variables_.begin(), variables_.end(),
              [](const VariableRef& a, const VariableRef& b) { return a.name < b.name; });
  }

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
