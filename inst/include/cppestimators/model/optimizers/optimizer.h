// The optimizer interface, with TF 1.x semantics. Hyperparameters arrive
// complete in the spec (their defaults live in one place: the R
// constructors optimizer_*()). Each parameter has its own slot buffers,
// allocated once; updates are in place and allocate nothing.
//
// Sparse updates (ids of categorical columns, embedding rows) touch only the
// rows looked up, which for element-wise rules (SGD, Adagrad, Ftrl,
// RMSProp) is the default below; Adam overrides it to decay every row's
// moments, as tf.train.AdamOptimizer did.
//
// The rate the update rules read (lr_) is set before each step by
// set_step(): the spec's constant `learning_rate`, or its "schedule" child
// (learning_rate_schedule.h) at the step's global step, times the
// estimator's learning-rate scale (hook_reduce_lr_on_plateau()). Every rule,
// Adam's bias-corrected step included, uses that rate as TF uses a decayed
// learning-rate tensor.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../../spec.h"
#include "learning_rate_schedule.h"

namespace cppestimators {

class Optimizer {
 public:
  static constexpr int kMaxSlots = 4;

  // `scope` prefixes the optimizer's own variables (Adam's beta powers) so
  // that two optimizers can live in one model: "" or e.g. "dnn/".
  Optimizer(const Spec& spec, std::string scope);
  virtual ~Optimizer() = default;

  const std::string& name() const { return spec_.kind; }
  // The rate of the current (or last) step, scale included.
  float learning_rate() const { return lr_; }
  bool has_schedule() const { return schedule_ != nullptr; }
  // The unscaled rate of the step starting at `global_step`.
  double scheduled_rate(std::int64_t global_step) const;
  void set_step(std::int64_t global_step, double scale);
  // Suffixes of the slot variables ("<variable>/<suffix>", as TF names them).
  virtual std::vector<std::string> slot_names() const;
  virtual std::vector<float> slot_initial_values() const;
  // Variables the optimizer keeps outside the slots, with scoped names.
  virtual std::vector<std::pair<std::string, float*>> extra_variables();
  virtual void reset_extra();
  // Whether the parameters updated next take the optimizer's L1/L2
  // penalties (only FTRL has any): set before each parameter's update.
  virtual void set_regularized(bool) {}
  // Called once after the slots of a parameter whose initial values are not
  // zero took their initial values: the optimizers whose weights are a
  // function of their slots (FTRL) make the slots agree with the values.
  virtual void start_from(const float* /*param*/, float* const* /*slots*/, std::size_t /*n*/) {}

  // param[0..n) -= update(grad, slots)
  virtual void apply_dense(float* param, const float* grad, float* const* slots, std::size_t n) = 0;
  // rows: distinct row indices; grad: count x width; param and slots: whole tables.
  virtual void apply_sparse(float* param, float* const* slots, std::size_t width,
                            std::size_t table_rows, const std::int64_t* rows, const float* grad,
                            std::size_t count);
  // Whether a dense update with a zero gradient leaves a value and its
  // slots as they are (SGD, Adagrad, FTRL without growing penalties or
  // shrinkage), so that only the rows with a gradient need an update.
  virtual bool keeps_rows_without_gradient() const { return false; }
  // Called once after every parameter was updated in a step.
  virtual void finish_step();

 protected:
  float param(const char* field) const;
  Spec spec_;
  std::string scope_;
  float lr_;
  std::int64_t step_ = 0;  // the global step of the step being taken

 private:
  double base_lr_;
  std::unique_ptr<LearningRateSchedule> schedule_;
};

}  // namespace cppestimators
