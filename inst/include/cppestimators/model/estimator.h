// The estimator's state: a linear model over dense feature columns, its head,
// its optimizer with slots, and the global step. Variables are addressable by
// TensorFlow-style names so that hooks, checkpoints and variable_value() see
// one consistent table.
#pragma once
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../features/dense_layout.h"
#include "head.h"
#include "optimizer.h"

namespace cppestimators {

struct EstimatorSpec {
  std::string head = "regression";  // a name known to make_head()
  int head_n = 1;  // label_dimension (regression) or n_classes (classifiers)
  std::vector<NumericColumnSpec> columns;
  OptimizerSpec optimizer;
};

// One parameter tensor with its gradient and optimizer slots.
struct ParamBlock {
  std::vector<float> value, grad;
  std::vector<std::vector<float>> slots;
};

// A named view into a parameter block (or a slot of it).
struct VariableRef {
  std::string name;
  std::vector<int> shape;
  float* data;
  std::size_t size;
  bool trainable;
};

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMap = Eigen::Map<RowMatrix>;
using ConstRowMap = Eigen::Map<const RowMatrix>;

class Estimator {
 public:
  explicit Estimator(const EstimatorSpec& spec)
      : spec_(spec), layout_(spec.columns), head_(make_head(spec.head, spec.head_n)),
        optimizer_(make_optimizer(spec.optimizer)) {
    const int d = layout_.width(), u = head_->logits_dim();
    init_block(weights_, static_cast<std::size_t>(d) * u);
    init_block(bias_, static_cast<std::size_t>(u));
    build_variable_table();
    initialize();
  }
  Estimator(const Estimator&) = delete;
  Estimator& operator=(const Estimator&) = delete;

  const EstimatorSpec& spec() const { return spec_; }
  const DenseLayout& layout() const { return layout_; }
  const Head& head() const { return *head_; }
  Optimizer& optimizer() { return *optimizer_; }
  std::int64_t global_step() const { return global_step_; }
  void set_global_step(std::int64_t s) { global_step_ = s; }
  int input_width() const { return layout_.width(); }
  int units() const { return head_->logits_dim(); }

  // Linear models start from zeros (TF's default for linear weights and bias).
  void initialize() {
    reset_block(weights_);
    reset_block(bias_);
    optimizer_->reset_extra();
    global_step_ = 0;
  }

  // logits[rows x units] = X[rows x D] W + b
  void forward(const float* x, int rows, float* logits) const {
    const int d = layout_.width(), u = units();
    ConstRowMap X(x, rows, d);
    ConstRowMap W(weights_.value.data(), d, u);
    RowMap L(logits, rows, u);
    Eigen::Map<const Eigen::RowVectorXf> b(bias_.value.data(), u);
    L.noalias() = X * W;
    L.rowwise() += b;
  }

  // Gradients of the summed loss, then one optimizer update; global step + 1.
  void backward_and_apply(const float* x, const float* dlogits, int rows) {
    const int d = layout_.width(), u = units();
    ConstRowMap X(x, rows, d);
    ConstRowMap dL(dlogits, rows, u);
    RowMap gW(weights_.grad.data(), d, u);
    Eigen::Map<Eigen::RowVectorXf> gb(bias_.grad.data(), u);
    gW.noalias() = X.transpose() * dL;
    gb.noalias() = dL.colwise().sum();
    apply(weights_);
    apply(bias_);
    optimizer_->finish_step();
    ++global_step_;
  }

  void advance_global_step() { ++global_step_; }


  // Every variable, global_step excluded (it is an integer), sorted by name.
  const std::vector<VariableRef>& variables() const { return variables_; }
  const VariableRef* find_variable(const std::string& name) const {
    for (const auto& v : variables_)
      if (v.name == name) return &v;
    return nullptr;
  }

 private:
  void init_block(ParamBlock& b, std::size_t n) {
    b.value.assign(n, 0.0f);
    b.grad.assign(n, 0.0f);
    b.slots.clear();
    for (std::size_t s = 0; s < optimizer_->slot_names().size(); ++s) b.slots.emplace_back(n, 0.0f);
  }
  void reset_block(ParamBlock& b) {
    std::fill(b.value.begin(), b.value.end(), 0.0f);
    const auto init = optimizer_->slot_initial_values();
    for (std::size_t s = 0; s < b.slots.size(); ++s)
      std::fill(b.slots[s].begin(), b.slots[s].end(), init[s]);
  }
  void apply(ParamBlock& b) {
    float* ptrs[4] = {nullptr, nullptr, nullptr, nullptr};
    for (std::size_t s = 0; s < b.slots.size() && s < 4; ++s) ptrs[s] = b.slots[s].data();
    optimizer_->apply(b.value.data(), b.grad.data(), ptrs, b.value.size());
  }

  void add_variable(const std::string& name, std::vector<int> shape, ParamBlock& b,
                    std::size_t offset, std::size_t size) {
    variables_.push_back({name, shape, b.value.data() + offset, size, true});
    const auto slots = optimizer_->slot_names();
    for (std::size_t s = 0; s < slots.size(); ++s)
      variables_.push_back({name + "/" + slots[s], shape, b.slots[s].data() + offset, size, false});
  }

  void build_variable_table() {
    const int u = units();
    const std::string scope = "linear/linear_model/";
    for (std::size_t c = 0; c < layout_.columns().size(); ++c) {
      const auto& col = layout_.columns()[c];
      add_variable(scope + col.name + "/weights", {col.width, u}, weights_,
                   static_cast<std::size_t>(layout_.offset(c)) * u,
                   static_cast<std::size_t>(col.width) * u);
    }
    add_variable(scope + "bias_weights", {u}, bias_, 0, static_cast<std::size_t>(u));
    for (auto& ev : optimizer_->extra_variables())
      variables_.push_back({ev.first, {}, ev.second, 1, false});
    std::sort(variables_.begin(), variables_.end(),
              [](const VariableRef& a, const VariableRef& b) { return a.name < b.name; });
  }

  EstimatorSpec spec_;
  DenseLayout layout_;
  std::unique_ptr<Head> head_;
  std::unique_ptr<Optimizer> optimizer_;
  ParamBlock weights_, bias_;
  std::vector<VariableRef> variables_;
  std::int64_t global_step_ = 0;
};

}  // namespace cppestimators
