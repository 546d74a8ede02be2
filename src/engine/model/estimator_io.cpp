#include <cppestimators/model/estimator_io.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace cppestimators {

bool snapshot(const Estimator& est, CheckpointData& out) {
  const auto& vars = est.variables();
  out.global_step = est.global_step();
  out.tensors.resize(vars.size());
  bool finite = true;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const VariableRef& v = vars[i];
    TensorRecord& t = out.tensors[i];
    t.name = v.name;
    t.shape.assign(v.shape.begin(), v.shape.end());
    t.data.assign(v.data, v.data + v.size);
    for (float x : t.data) finite = finite && std::isfinite(x);
  }
  return finite;
}

void restore(Estimator& est, const CheckpointData& in, const std::string& source) {
  const TensorRecord* scale = nullptr;
  for (const auto& t : in.tensors)
    if (t.name == Estimator::kScaleName && t.data.size() == 1) scale = &t;
  // growable variables (tree node arrays) take the checkpoint's lengths;
  // optional ones the checkpoint lacks are emptied
  for (const VariableRef& v : est.variables()) {
    if (!v.optional) continue;
    bool held = false;
    for (const auto& t : in.tensors) held = held || t.name == v.name;
    if (held) continue;
    std::vector<std::int64_t> none(v.shape.begin(), v.shape.end());
    if (!none.empty()) none[0] = 0;
    est.fit_growable(v.name, none);
  }
  for (const auto& t : in.tensors) est.fit_growable(t.name, t.shape);
  est.refresh_variables();
  const auto& vars = est.variables();
  std::vector<const TensorRecord*> found(vars.size(), nullptr);
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const VariableRef& v = vars[i];
    if (v.name == Estimator::kScaleName) continue;
    for (const auto& t : in.tensors)
      if (t.name == v.name) found[i] = &t;
    if (found[i] == nullptr && v.optional) continue;
    if (found[i] == nullptr)
      throw std::runtime_error(source + ": checkpoint does not match this estimator: variable '" +
                               v.name + "' is missing");
    const std::vector<std::int64_t> shape(v.shape.begin(), v.shape.end());
    if (found[i]->shape != shape || found[i]->data.size() != v.size)
      throw std::runtime_error(source + ": checkpoint does not match this estimator: variable '" +
                               v.name + "' has another shape");
  }
  for (std::size_t i = 0; i < vars.size(); ++i)
    if (found[i] != nullptr) std::copy(found[i]->data.begin(), found[i]->data.end(), vars[i].data);
  if (scale != nullptr) est.use_learning_rate_scale();
  est.set_learning_rate_scale(scale != nullptr ? scale->data[0] : 1.0);
  est.set_global_step(in.global_step);
  est.variables_loaded();
}

}  // namespace cppestimators
