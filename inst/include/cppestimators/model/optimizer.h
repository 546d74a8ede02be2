// TensorFlow 1.x optimizers: the same update rules, slots and defaults.
// Every parameter block has its own slot buffers, allocated once; apply()
// updates in place and allocates nothing.
#pragma once
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace cppestimators {

struct OptimizerSpec {
  std::string name = "Ftrl";
  float learning_rate = 0.2f;
  // Adagrad / Ftrl
  float initial_accumulator_value = 0.1f;
  // Ftrl
  float learning_rate_power = -0.5f;
  float l1 = 0.0f;
  float l2 = 0.0f;
  float l2_shrinkage = 0.0f;
  // Adam
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  // Adam (1e-8) and RMSProp (1e-10); negative means "the optimizer's default"
  float epsilon = -1.0f;
  // RMSProp
  float decay = 0.9f;
  float momentum = 0.0f;
};

class Optimizer {
 public:
  explicit Optimizer(const OptimizerSpec& spec) : spec_(spec) {}
  virtual ~Optimizer() = default;
  const OptimizerSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }
  // Suffixes of the slot variables, e.g. {"Ftrl", "Ftrl_1"}; names are
  // "<variable>/<suffix>" as in TensorFlow checkpoints.
  virtual std::vector<std::string> slot_names() const = 0;
  virtual std::vector<float> slot_initial_values() const = 0;
  // Variables the optimizer keeps outside the slots (Adam's beta powers).
  virtual std::vector<std::pair<std::string, float*>> extra_variables() { return {}; }
  virtual void reset_extra() {}
  // Updates param[0..n) given grad and this parameter's slots.
  virtual void apply(float* param, const float* grad, float* const* slots, std::size_t n) = 0;
  // Called once after all parameter blocks were updated in a step.
  virtual void finish_step() {}

 protected:
  OptimizerSpec spec_;
};

class SgdOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;
  std::vector<std::string> slot_names() const override { return {}; }
  std::vector<float> slot_initial_values() const override { return {}; }
  void apply(float* p, const float* g, float* const*, std::size_t n) override {
    const float lr = spec_.learning_rate;
    for (std::size_t i = 0; i < n; ++i) p[i] -= lr * g[i];
  }
};

class AdagradOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;
  std::vector<std::string> slot_names() const override { return {"Adagrad"}; }
  std::vector<float> slot_initial_values() const override {
    return {spec_.initial_accumulator_value};
  }
  void apply(float* p, const float* g, float* const* s, std::size_t n) override {
    const float lr = spec_.learning_rate;
    float* acc = s[0];
    for (std::size_t i = 0; i < n; ++i) {
      acc[i] += g[i] * g[i];
      p[i] -= lr * g[i] / std::sqrt(acc[i]);
    }
  }
};

class FtrlOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;
  std::vector<std::string> slot_names() const override { return {"Ftrl", "Ftrl_1"}; }
  std::vector<float> slot_initial_values() const override {
    return {spec_.initial_accumulator_value, 0.0f};
  }
  void apply(float* p, const float* g, float* const* s, std::size_t n) override {
    const float lr = spec_.learning_rate, l1 = spec_.l1, l2 = spec_.l2;
    const float power = spec_.learning_rate_power;
    const bool sqrt_power = (power == -0.5f);
    float* accum = s[0];
    float* linear = s[1];
    for (std::size_t i = 0; i < n; ++i) {
      // l2 shrinkage adds 2 * l2_shrinkage * w to the gradient used by `linear`
      const float grad = g[i];
      const float grad_shr = grad + 2.0f * spec_.l2_shrinkage * p[i];
      const float acc_new = accum[i] + grad * grad;
      const float pow_new = sqrt_power ? std::sqrt(acc_new) : std::pow(acc_new, -power);
      const float pow_old = sqrt_power ? std::sqrt(accum[i]) : std::pow(accum[i], -power);
      linear[i] += grad_shr - (pow_new - pow_old) / lr * p[i];
      const float quadratic = pow_new / lr + 2.0f * l2;
      const float lin = linear[i];
      if (std::fabs(lin) > l1) {
        const float sign = lin > 0.0f ? 1.0f : -1.0f;
        p[i] = (sign * l1 - lin) / quadratic;
      } else {
        p[i] = 0.0f;
      }
      accum[i] = acc_new;
    }
  }
};

class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(const OptimizerSpec& spec) : Optimizer(spec) {
    if (spec_.epsilon < 0) spec_.epsilon = 1e-8f;
    reset_extra();
  }
  std::vector<std::string> slot_names() const override { return {"Adam", "Adam_1"}; }
  std::vector<float> slot_initial_values() const override { return {0.0f, 0.0f}; }
  std::vector<std::pair<std::string, float*>> extra_variables() override {
    return {{"beta1_power", &beta1_power_}, {"beta2_power", &beta2_power_}};
  }
  void reset_extra() override {
    beta1_power_ = spec_.beta1;
    beta2_power_ = spec_.beta2;
  }
  void apply(float* p, const float* g, float* const* s, std::size_t n) override {
    const float b1 = spec_.beta1, b2 = spec_.beta2, eps = spec_.epsilon;
    const float lr_t =
        spec_.learning_rate * std::sqrt(1.0f - beta2_power_) / (1.0f - beta1_power_);
    float* m = s[0];
    float* v = s[1];
    for (std::size_t i = 0; i < n; ++i) {
      m[i] += (g[i] - m[i]) * (1.0f - b1);
      v[i] += (g[i] * g[i] - v[i]) * (1.0f - b2);
      p[i] -= lr_t * m[i] / (std::sqrt(v[i]) + eps);
    }
  }
  void finish_step() override {
    beta1_power_ *= spec_.beta1;
    beta2_power_ *= spec_.beta2;
  }

 private:
  float beta1_power_ = 0.9f;
  float beta2_power_ = 0.999f;
};

class RmsPropOptimizer : public Optimizer {
 public:
  explicit RmsPropOptimizer(const OptimizerSpec& spec) : Optimizer(spec) {
    if (spec_.epsilon < 0) spec_.epsilon = 1e-10f;
  }
  std::vector<std::string> slot_names() const override { return {"RMSProp", "RMSProp_1"}; }
  // TF initialises the mean square slot to ones, the momentum slot to zeros.
  std::vector<float> slot_initial_values() const override { return {1.0f, 0.0f}; }
  void apply(float* p, const float* g, float* const* s, std::size_t n) override {
    const float lr = spec_.learning_rate, decay = spec_.decay, mo = spec_.momentum;
    const float eps = spec_.epsilon;
    float* ms = s[0];
    float* mom = s[1];
    for (std::size_t i = 0; i < n; ++i) {
      ms[i] += (g[i] * g[i] - ms[i]) * (1.0f - decay);
      mom[i] = mo * mom[i] + lr * g[i] / std::sqrt(ms[i] + eps);
      p[i] -= mom[i];
    }
  }
};

inline std::unique_ptr<Optimizer> make_optimizer(const OptimizerSpec& spec) {
  if (!(spec.learning_rate > 0.0f))
    throw std::invalid_argument("`learning_rate` must be a positive number");
  if (spec.name == "SGD") return std::make_unique<SgdOptimizer>(spec);
  if (spec.name == "Adagrad") return std::make_unique<AdagradOptimizer>(spec);
  if (spec.name == "Ftrl") return std::make_unique<FtrlOptimizer>(spec);
  if (spec.name == "Adam") return std::make_unique<AdamOptimizer>(spec);
  if (spec.name == "RMSProp") return std::make_unique<RmsPropOptimizer>(spec);
  throw std::invalid_argument("Unsupported optimizer name: " + spec.name +
                              ". Supported names are: Adagrad, Adam, Ftrl, RMSProp, SGD");
}

}  // namespace cppestimators
