#include <cppestimators/model/estimator.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <cppestimators/data/rng.h>
#include <cppestimators/model/graph_model.h>
#include <cppestimators/model/heads/registry.h>
#include <cppestimators/model/optimizers/registry.h>
#include <cppestimators/model/registry.h>

namespace cppestimators {

Estimator::Estimator(const EstimatorSpec& spec) : spec_(spec) {
  if (spec.model.kind == "graph") {
    // a custom estimator: the head runs the label part of the model's graphs
    model_ = make_model(spec.model, 0);
    head_ = static_cast<GraphModel&>(*model_).make_head();
  } else {
    head_ = make_head(spec.head, spec.head_n);
    model_ = make_model(spec.model, head_->logits_dim());
  }
  const auto groups = model_->groups();
  groups_ = groups;
  if (spec.optimizers.size() != groups.size())
    throw std::invalid_argument("internal: the model has " + std::to_string(groups.size()) +
                                " parameter groups but " + std::to_string(spec.optimizers.size()) +
                                " optimizers were given");
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

void Estimator::set_global_step(std::int64_t s) {
  global_step_ = s;
  update_learning_rates();
}

bool Estimator::group_learning_rate(std::string_view group, double& out) const {
  for (std::size_t g = 0; g < groups_.size(); ++g)
    if (groups_[g] == group) {
      out = optimizers_[g]->learning_rate();
      return true;
    }
  return false;
}

bool Estimator::has_schedule() const {
  for (const auto& o : optimizers_)
    if (o->has_schedule()) return true;
  return false;
}

void Estimator::set_learning_rate_scale(double scale) {
  lr_scale_ = static_cast<float>(scale);
  update_learning_rates();
}

void Estimator::use_learning_rate_scale() {
  if (scale_in_use_) return;
  scale_in_use_ = true;
  variables_.push_back({kScaleName, {}, &lr_scale_, 1, false});
  sort_variables();
}

void Estimator::update_learning_rates() {
  for (auto& o : optimizers_) o->set_step(global_step_, lr_scale_);
}

void Estimator::initialize() {
  Rng rng(spec_.seed);
  model_->initialize(rng);
  if (model_->take_resized()) refresh_variables();
  global_step_ = 0;
  lr_scale_ = 1.0f;
  update_learning_rates();
  for (Parameter* pp : model_->parameters()) {
    Parameter& p = *pp;
    if (p.slots.empty()) continue;
    Optimizer& opt = *optimizers_[static_cast<std::size_t>(p.group)];
    const auto init = opt.slot_initial_values();
    for (std::size_t s = 0; s < p.slots.size(); ++s)
      std::fill(p.slots[s].begin(), p.slots[s].end(), init[s]);
    if (p.init == Init::Values) {
      float* slots[Optimizer::kMaxSlots] = {nullptr, nullptr, nullptr, nullptr};
      for (std::size_t s = 0; s < p.slots.size(); ++s) slots[s] = p.slots[s].data();
      opt.set_regularized(p.regularized);
      opt.start_from(p.value.data(), slots, p.value.size());
      opt.set_regularized(true);
    }
  }
  for (auto& o : optimizers_) o->reset_extra();
}

void Estimator::train_step(const FeatureBatch& batch, const float* logits, const float* dlogits,
                           Workspace& ws) {
  TrainingStrategy& training = model_->training();
  update_learning_rates();
  training.apply(training.compute(batch, logits, dlogits, *head_, ws), optimizers_, ws);
  if (model_->take_resized()) refresh_variables();
  ++global_step_;
}

void Estimator::apply_step(const StepStats& stats, Workspace& ws) {
  update_learning_rates();
  model_->training().apply(stats, optimizers_, ws);
  if (model_->take_resized()) refresh_variables();
  ++global_step_;
}

const VariableRef* Estimator::find_variable(std::string_view name) const {
  auto it = std::lower_bound(variables_.begin(), variables_.end(), name,
                             [](const VariableRef& v, std::string_view n) { return v.name < n; });
  return (it != variables_.end() && it->name == name) ? &*it : nullptr;
}

void Estimator::build_variable_table() {
  for (Parameter* pp : model_->parameters()) {
    Parameter& p = *pp;
    const Optimizer& opt = *optimizers_[static_cast<std::size_t>(p.group)];
    const auto slots = opt.slot_names();
    for (const ParamView& v : p.views) {
      variables_.push_back(
          {v.name, v.shape, p.value.data() + v.offset, v.size, p.trainable, p.optional});
      for (std::size_t s = 0; s < p.slots.size(); ++s)
        variables_.push_back({v.name + "/" + slots[s], v.shape, p.slots[s].data() + v.offset,
                              v.size, false, false, true});
    }
  }
  for (auto& o : optimizers_)
    for (auto& ev : o->extra_variables()) variables_.push_back({ev.first, {}, ev.second, 1, false});
  sort_variables();
}

void Estimator::fit_growable(const std::string& name, const std::vector<std::int64_t>& shape) {
  for (Parameter* p : model_->parameters()) {
    if (!p->growable || p->views.front().name != name) continue;
    const std::vector<int>& mine = p->views.front().shape;
    if (shape.size() != mine.size() || shape.empty() || shape[0] < 0 || shape[0] > (1LL << 31) - 1)
      return;  // restore()'s check names the mismatch
    for (std::size_t d = 1; d < shape.size(); ++d)
      if (shape[d] != mine[d]) return;
    resize_growable(*p, static_cast<std::size_t>(shape[0]));
  }
}

void Estimator::variables_loaded() {
  model_->variables_loaded();
  if (model_->take_resized()) refresh_variables();
}

void Estimator::refresh_variables() {
  variables_.clear();
  build_variable_table();
  if (scale_in_use_) variables_.push_back({kScaleName, {}, &lr_scale_, 1, false});
  sort_variables();
}

void Estimator::sort_variables() {
  std::sort(variables_.begin(), variables_.end(),
            [](const VariableRef& a, const VariableRef& b) { return a.name < b.name; });
}

namespace {

// Calls each(batch, first row) for the rows of `data` gathered in blocks of
// up to 4,096 rows, in order; stops at the first block each() refuses.
template <class F>
bool each_block(const FeatureSet& features, const Dataset& data, F&& each) {
  if (data.n == 0) return true;
  auto binding = features.bind(data);
  const int block = static_cast<int>(std::min<std::int64_t>(data.n, 4096));
  FeatureBatch batch;
  features.allocate(*binding, block, batch);
  std::vector<int> rows(static_cast<std::size_t>(block));
  for (std::int64_t r0 = 0; r0 < data.n; r0 += block) {
    const int count = static_cast<int>(std::min<std::int64_t>(block, data.n - r0));
    for (int i = 0; i < count; ++i) rows[static_cast<std::size_t>(i)] = static_cast<int>(r0 + i);
    features.gather(*binding, rows.data(), count, batch, nullptr, r0 == 0);
    if (!each(batch, r0)) return false;
  }
  return true;
}

}  // namespace

bool Estimator::explain(const Dataset& data, int threads, std::vector<double>& out,
                        Explanation kind) const {
  const FeatureSet& features = model_->features();
  const std::size_t side = features.size() + 1;
  const std::size_t width = static_cast<std::size_t>(head_->logits_dim()) *
                            (kind == Explanation::Interactions ? side * side : side);
  out.assign(static_cast<std::size_t>(data.n) * width, 0.0);
  if (data.n == 0)  // (whether the model can)
    return model_->explain(FeatureBatch(), threads, out.data(), kind);
  return each_block(features, data, [&](const FeatureBatch& batch, std::int64_t r0) {
    return model_->explain(batch, threads, out.data() + static_cast<std::size_t>(r0) * width, kind);
  });
}

bool Estimator::integrated_gradients(const Dataset& data, const Dataset& reference, int steps,
                                     int threads, std::vector<double>& out) const {
  const int width = model_->explained_input_width();
  if (width < 0) return false;
  const FeatureSet& features = model_->features();
  const std::size_t w = static_cast<std::size_t>(width);
  // the reference rows' mean input-layer row, in double
  std::vector<double> sum(w, 0.0);
  std::vector<float> rows_x, baseline(w, 0.0f);
  if (reference.n < 1) throw std::invalid_argument("integrated gradients need reference rows");
  each_block(features, reference, [&](const FeatureBatch& batch, std::int64_t) {
    rows_x.resize(static_cast<std::size_t>(batch.rows) * w);
    model_->input_rows(batch, rows_x.data());
    for (int r = 0; r < batch.rows; ++r)
      for (std::size_t j = 0; j < w; ++j) sum[j] += rows_x[static_cast<std::size_t>(r) * w + j];
    return true;
  });
  for (std::size_t j = 0; j < w; ++j)
    baseline[j] = static_cast<float>(sum[j] / static_cast<double>(reference.n));
  const std::size_t per_row = static_cast<std::size_t>(head_->logits_dim()) * (features.size() + 1);
  out.assign(static_cast<std::size_t>(data.n) * per_row, 0.0);
  return each_block(features, data, [&](const FeatureBatch& batch, std::int64_t r0) {
    return model_->integrated_gradients(batch, baseline.data(), steps, threads,
                                        out.data() + static_cast<std::size_t>(r0) * per_row);
  });
}

}  // namespace cppestimators
