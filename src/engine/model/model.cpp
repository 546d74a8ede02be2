#include <cppestimators/model/model.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace cppestimators {

Model::Model(const Spec& spec, int units)
    : features_(spec.children("feature_columns")), units_(units) {
  if (spec.strs.count("use_columns")) use_ = spec.strings("use_columns");
}

bool Model::reads_dense_rows_by_index() const { return false; }

void Model::begin_session(FeatureSet::Binding& /*binding*/, std::int64_t /*n*/,
                          const DenseRows* /*block*/, Mode /*mode*/, int /*threads*/) {}

void Model::rows_replaced(Workspace& /*ws*/) {}

void Model::bind_mode(Mode /*mode*/) {}

bool Model::explain(const FeatureBatch& /*batch*/, int /*threads*/, double* /*out*/,
                    Explanation /*kind*/) const {
  return false;
}

int Model::explained_input_width() const { return -1; }

bool Model::input_rows(const FeatureBatch&, float*) const { return false; }

bool Model::integrated_gradients(const FeatureBatch&, const float*, int, int, double*) const {
  return false;
}

std::vector<Parameter*> Model::parameters() {
  std::vector<Parameter*> out;
  for (Parameter& p : params_) out.push_back(&p);
  return out;
}

void Model::set_group(int g) {
  for (Parameter* p : parameters()) p->group = g;
}

bool Model::uses(const std::string& name) const {
  return use_.empty() || std::find(use_.begin(), use_.end(), name) != use_.end();
}

void Model::initialize(Rng& rng) {
  for (Parameter* pp : parameters()) {
    Parameter& p = *pp;
    switch (p.init) {
      case Init::Zeros:
        std::fill(p.value.begin(), p.value.end(), 0.0f);
        break;
      case Init::TruncatedNormal:
        for (float& v : p.value)
          v = static_cast<float>(p.init_offset + rng.truncated_normal(p.init_scale));
        break;
      case Init::Normal:
        for (float& v : p.value)
          v = static_cast<float>(p.init_offset + p.init_scale * rng.normal());
        break;
      case Init::Uniform:
        for (float& v : p.value)
          v = static_cast<float>(p.init_offset + p.init_scale * rng.uniform());
        break;
      case Init::GlorotUniform:
        for (float& v : p.value) v = static_cast<float>((2.0 * rng.uniform() - 1.0) * p.init_scale);
        break;
      case Init::Constant:
        std::fill(p.value.begin(), p.value.end(), static_cast<float>(p.init_scale));
        break;
      case Init::Values:
        for (std::size_t i = 0; i < p.value.size(); ++i)
          p.value[i] = p.init_values.empty() ? 0.0f : p.init_values[i % p.init_values.size()];
        break;
    }
    if (p.growable && !p.value.empty()) {
      resize_growable(p, 0);
      resized_ = true;
    }
  }
  variables_loaded();
}

void Model::variables_loaded() {}

bool Model::reads_batch_features(Mode, bool) const { return true; }

bool Model::keeps_streamed_rows() const { return false; }

std::int64_t Model::keep_streamed_rows(RowChunks&, int) {
  throw std::logic_error("internal: the " + kind() + " model keeps no streamed rows");
}

void Model::start_bias(const Spec& spec, Parameter& bias) {
  if (spec.has("bias_init")) {
    const std::vector<double>& v = spec.numbers("bias_init");
    if (v.size() != 1 && v.size() != bias.value.size())
      throw std::invalid_argument("bias_init must have 1 or " + std::to_string(bias.value.size()) +
                                  " values, not " + std::to_string(v.size()));
    bias.init = Init::Values;
    bias.init_values.assign(v.begin(), v.end());
  }
  if (spec.has("bias_regularized")) bias.regularized = spec.num("bias_regularized") != 0.0;
}

Parameter& Model::add(Parameter p) {
  params_.push_back(std::move(p));
  return params_.back();
}

}  // namespace cppestimators
