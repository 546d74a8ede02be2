#include <cppestimators/model/combined_model.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace cppestimators {

// A member template defined here: the constructor is its only user.
template <class T>
std::unique_ptr<T> CombinedModel::part(const Spec& spec, const std::string& kind) {
  if (!spec.strs.count(kind + "_columns")) return nullptr;
  Spec p = spec;
  p.kind = kind;
  p.strs["use_columns"] = spec.strings(kind + "_columns");
  auto model = std::make_unique<T>(p, units_);
  model->set_group(static_cast<int>(groups_.size()));
  groups_.push_back(kind);
  return model;
}

CombinedModel::CombinedModel(const Spec& spec, int units) : Model(spec, units) {
  linear_ = part<LinearModel>(spec, "linear");
  dnn_ = part<DnnModel>(spec, "dnn");
  if (groups_.empty())
    throw std::invalid_argument(
        "Either linear_feature_columns or dnn_feature_columns must be defined.");
}

std::string CombinedModel::kind() const { return "combined"; }
std::vector<std::string> CombinedModel::groups() const { return groups_; }
bool CombinedModel::reads_dense_rows_by_index() const { return true; }
std::vector<Parameter*> CombinedModel::parameters() {
  std::vector<Parameter*> out;
  for (Model* part : parts())
    for (Parameter* p : part->parameters()) out.push_back(p);
  return out;
}

std::unique_ptr<Workspace> CombinedModel::new_workspace(const FeatureBatch& batch, int max_rows,
                                                        int threads) const {
  auto ws = std::make_unique<Work>();
  ws->threads = threads;
  if (linear_) ws->linear = linear_->new_workspace(batch, max_rows, threads);
  if (dnn_) ws->dnn = dnn_->new_workspace(batch, max_rows, threads);
  ws->logits.assign(static_cast<std::size_t>(max_rows) * units_, 0.0f);
  return ws;
}

void CombinedModel::forward(const FeatureBatch& batch, Mode mode, Workspace& base,
                            float* logits) const {
  Work& ws = static_cast<Work&>(base);
  if (!ws.seeded && ws.dnn) {  // the session seeds the outer workspace after creating it
    ws.dnn->rng = ws.rng;
    ws.seeded = true;
  }
  if (ws.dnn) ws.dnn->kernel = ws.kernel;  // likewise the session's kernel
  if (linear_) linear_->forward(batch, mode, *ws.linear, logits);
  if (!dnn_) return;
  if (!linear_) {
    dnn_->forward(batch, mode, *ws.dnn, logits);
    return;
  }
  dnn_->forward(batch, mode, *ws.dnn, ws.logits.data());
  const std::size_t m = static_cast<std::size_t>(batch.rows) * units_;
  for (std::size_t i = 0; i < m; ++i) logits[i] += ws.logits[i];
}

const std::vector<Gradient>& CombinedModel::backward(const FeatureBatch& batch,
                                                     const float* dlogits, Workspace& base) {
  Work& ws = static_cast<Work&>(base);
  ws.grads.clear();
  if (linear_) {
    const auto& g = linear_->backward(batch, dlogits, *ws.linear);
    ws.grads.insert(ws.grads.end(), g.begin(), g.end());
  }
  if (dnn_) {
    const auto& g = dnn_->backward(batch, dlogits, *ws.dnn);
    ws.grads.insert(ws.grads.end(), g.begin(), g.end());
  }
  return ws.grads;
}

std::vector<Model*> CombinedModel::parts() const {
  std::vector<Model*> out;
  if (linear_) out.push_back(linear_.get());
  if (dnn_) out.push_back(dnn_.get());
  return out;
}

int CombinedModel::explained_input_width() const {
  if (!dnn_) return -1;
  const int terms = linear_ ? units_ * static_cast<int>(features_.size() + 1) : 0;
  return dnn_->explained_input_width() + terms;
}

bool CombinedModel::input_rows(const FeatureBatch& batch, float* x) const {
  if (!dnn_) return false;
  const std::size_t w = static_cast<std::size_t>(dnn_->explained_input_width());
  const std::size_t width = static_cast<std::size_t>(explained_input_width());
  const std::size_t rows = static_cast<std::size_t>(batch.rows);
  std::vector<float> deep(rows * w);
  dnn_->input_rows(batch, deep.data());
  std::vector<double> terms;
  if (linear_) {
    terms.resize(rows * (width - w));
    linear_->explain(batch, 1, terms.data(), Explanation::Contributions);
  }
  for (std::size_t r = 0; r < rows; ++r) {
    std::copy(deep.begin() + static_cast<std::ptrdiff_t>(r * w),
              deep.begin() + static_cast<std::ptrdiff_t>((r + 1) * w), x + r * width);
    for (std::size_t j = 0; j < width - w; ++j)
      x[r * width + w + j] = static_cast<float>(terms[r * (width - w) + j]);
  }
  return true;
}

bool CombinedModel::integrated_gradients(const FeatureBatch& batch, const float* baseline,
                                         int steps, int threads, double* out) const {
  if (!dnn_) return false;
  if (!dnn_->integrated_gradients(batch, baseline, steps, threads, out)) return false;
  if (!linear_) return true;
  const std::size_t side = features_.size() + 1;
  const std::size_t k = static_cast<std::size_t>(units_);
  const std::size_t rows = static_cast<std::size_t>(batch.rows);
  const float* mean = baseline + dnn_->explained_input_width();  // the terms' means, per logit
  std::vector<double> terms(rows * k * side);
  linear_->explain(batch, threads, terms.data(), Explanation::Contributions);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < k; ++c) {
      double* cell = out + (r * k + c) * side;
      const double* term = terms.data() + (r * k + c) * side;
      const float* m = mean + c * side;
      for (std::size_t j = 0; j + 1 < side; ++j) {
        cell[j] += term[j] - m[j];
        cell[side - 1] += m[j];
      }
      cell[side - 1] += term[side - 1];  // the bias
    }
  return true;
}

}  // namespace cppestimators
