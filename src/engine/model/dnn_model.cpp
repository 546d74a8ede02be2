#include <cppestimators/model/dnn_model.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

#include <cppestimators/features/transform.h>
#include <cppestimators/math/gemm.h>
#include <cppestimators/parallel.h>

namespace cppestimators {

DnnModel::DnnModel(const Spec& spec, int units)
    : Model(spec, units),
      act_(spec.str_or("activation_fn", "relu")),
      dropout_(spec.num_or("dropout", 0.0)) {
  features_.require_dense("a DNN", use_);
  for (double h : spec.numbers("hidden_units")) {
    if (!(h >= 1)) throw std::invalid_argument("hidden_units must be positive whole numbers");
    hidden_.push_back(static_cast<int>(h));
  }
  if (hidden_.empty()) throw std::invalid_argument("hidden_units must not be empty");
  if (!(dropout_ >= 0.0 && dropout_ < 1.0))
    throw std::invalid_argument("dropout must be in [0, 1)");
  for (std::size_t i = 0; i < features_.size(); ++i)
    if (uses(features_.column(i).name())) {
      input_.append(features_, i, "dnn/input_from_feature_columns/input_layer/",
                    [this](Parameter p) -> Parameter& { return add(std::move(p)); });
      input_columns_.push_back(static_cast<int>(i));
    }
  // the inputs read sparse, and the block of the others
  for (std::size_t c = 0; c < input_.size(); ++c) {
    const InputLayer::Column& col = input_.column(c);
    const FeatureTransform& t = features_.column(static_cast<std::size_t>(input_columns_[c]));
    if (col.kind == InputLayer::Column::Hot &&
        (t.sparse_numeric() || col.width >= kSparseInputWidth)) {
      sparse_.push_back({col.source, col.offset});
      continue;
    }
    block_columns_.push_back(static_cast<int>(c));
    if (!segments_.empty() && segments_.back().full + segments_.back().width == col.offset)
      segments_.back().width += col.width;
    else
      segments_.push_back({block_width_, col.offset, col.width});
    block_width_ += col.width;
  }
  int fan_in = input_.width();
  for (std::size_t k = 0; k <= hidden_.size(); ++k) {
    const bool logits = k == hidden_.size();
    const int out = logits ? units_ : hidden_[k];
    const std::string scope = logits ? "dnn/logits/" : "dnn/hiddenlayer_" + std::to_string(k) + "/";
    Parameter w = Parameter::single(scope + "kernel", {fan_in, out});
    w.init = Init::GlorotUniform;
    w.init_scale = std::sqrt(6.0 / (fan_in + out));
    kernels_.push_back(&add(std::move(w)));
    biases_.push_back(&add(Parameter::single(scope + "bias", {out})));
    if (logits) start_bias(spec, *biases_.back());
    fan_in = logits ? out : out * act_.width_factor();
  }
}

std::string DnnModel::kind() const { return "dnn"; }

std::vector<std::string> DnnModel::groups() const { return {"dnn"}; }

std::unique_ptr<Workspace> DnnModel::new_workspace(const FeatureBatch& batch, int max_rows,
                                                   int threads) const {
  auto ws = std::make_unique<Work>();
  ws->threads = std::max(1, threads);
  const std::size_t rows = static_cast<std::size_t>(max_rows);
  // (sparse inputs: the block of the others only)
  const std::size_t width =
      static_cast<std::size_t>(sparse_.empty() ? input_.width() : block_width_);
  ws->x.assign(rows * width, 0.0f);
  ws->dx.assign(input_.has_trainable_embedding() ? rows * width : 0, 0.0f);
  for (std::size_t k = 0; k < hidden_.size(); ++k) {
    const std::size_t h = static_cast<std::size_t>(hidden_[k]);
    ws->z.emplace_back(rows * h, 0.0f);
    ws->a.emplace_back(rows * h * act_.width_factor(), 0.0f);
    ws->out.emplace_back(dropout_ > 0.0 ? rows * h * act_.width_factor() : 0, 0.0f);
    ws->kept.emplace_back(dropout_ > 0.0 ? rows * h * act_.width_factor() : 0, 0);
  }
  std::size_t widest = static_cast<std::size_t>(std::max(units_, input_.width()));
  for (int h : hidden_)
    widest = std::max(widest, static_cast<std::size_t>(h) * act_.width_factor());
  ws->da.assign(rows * widest, 0.0f);
  ws->dz.assign(rows * widest, 0.0f);
  ws->dz2.assign(rows * widest, 0.0f);
  for (std::size_t k = 0; k < kernels_.size(); ++k) {
    ws->gw.emplace_back(kernels_[k]->value.size(), 0.0f);
    ws->gb.emplace_back(biases_[k]->value.size(), 0.0f);
  }
  input_.reserve(ws->input, batch, max_rows);
  ws->grads.reserve(params_.size());
  return ws;
}

void DnnModel::forward(const FeatureBatch& batch, Mode mode, Workspace& base, float* logits) const {
  Work& ws = static_cast<Work&>(base);
  const int rows = batch.rows;
  const bool sparse = !sparse_.empty();
  if (sparse)
    input_.forward(batch, &block_columns_, ws.x.data(), static_cast<std::size_t>(block_width_),
                   ws.input);
  else
    input_.forward(batch, nullptr, ws.x.data(), static_cast<std::size_t>(input_.width()), ws.input);
  const float* prev = ws.x.data();
  int fan_in = input_.width();
  for (std::size_t k = 0; k < hidden_.size(); ++k) {
    const int h = hidden_[k];
    if (k == 0 && sparse)
      first_layer(batch, ws.x.data(), rows, ws);
    else
      dense(prev, rows, fan_in, k, ws.z[k].data(), ws, ws.a[k].data());
    prev = ws.a[k].data();
    fan_in = h * act_.width_factor();
    if (mode == Mode::Train && dropout_ > 0.0) {  // inverted dropout, training only
      const float keep = static_cast<float>(1.0 - dropout_), scale = 1.0f / keep;
      const std::size_t m = static_cast<std::size_t>(rows) * fan_in;
      float* o = ws.out[k].data();
      unsigned char* kept = ws.kept[k].data();
      for (std::size_t i = 0; i < m; ++i) {
        kept[i] = ws.rng.uniform() < keep;
        o[i] = kept[i] ? ws.a[k][i] * scale : 0.0f;
      }
      prev = o;
    }
  }
  ws.last_dropout = mode == Mode::Train && dropout_ > 0.0;
  dense(prev, rows, fan_in, hidden_.size(), logits, ws);
}

const std::vector<Gradient>& DnnModel::backward(const FeatureBatch& batch, const float* dlogits,
                                                Workspace& base) {
  Work& ws = static_cast<Work&>(base);
  const int rows = batch.rows;
  ws.grads.clear();
  const float* dz = dlogits;
  int out = units_;
  for (std::size_t k = kernels_.size(); k-- > 0;) {
    const int fan_in = k == 0 ? input_.width() : hidden_[k - 1] * act_.width_factor();
    const float* in = k == 0 ? ws.x.data() : layer_output(ws, k - 1);
    const bool sparse_first = k == 0 && !sparse_.empty();
    Gradient gk;
    const int threads = threads_for(ws, rows, fan_in, out);
    if (sparse_first) {
      // (by rows, with the block's gradient dx; across processes the
      // exchange sends it as the dense gradient it stands for)
      gk = first_layer_gradient(batch, in, rows, dz, ws.dx.empty() ? nullptr : ws.dx.data(), ws);
    } else {
      // the kernel's gradient X^T dZ, its columns (or, for narrow layers, its
      // rows) split over the threads: every value is computed as on one
      // thread, so the thread count does not change the result
      const bool by_columns = out >= fan_in;
      parallel_for(threads, threads, [&](int t) {
        const int span = by_columns ? out : fan_in;
        const int c0 = span * t / threads, c = span * (t + 1) / threads - c0;
        if (c == 0) return;
        if (by_columns)
          gemm::multiply(ws.kernel, true, false, fan_in, c, rows, in, fan_in, dz + c0, out,
                         ws.gw[k].data() + c0, out, false);
        else
          gemm::multiply(ws.kernel, true, false, c, out, rows, in + c0, fan_in, dz, out,
                         ws.gw[k].data() + static_cast<std::size_t>(c0) * out, out, false);
      });
      gk = dense_gradient(*kernels_[k], ws.gw[k]);
    }
    float* gb = ws.gb[k].data();  // the bias gradient: dZ's rows summed, in row order
    std::fill(gb, gb + out, 0.0f);
    for (int r = 0; r < rows; ++r) {
      const float* row = dz + static_cast<std::size_t>(r) * out;
#pragma omp simd
      for (int j = 0; j < out; ++j) gb[j] += row[j];
    }
    ws.grads.push_back(gk);
    ws.grads.push_back(dense_gradient(*biases_[k], ws.gb[k]));
    if (k == 0 && (ws.dx.empty() || sparse_first)) break;
    float* da = k == 0 ? ws.dx.data() : ws.da.data();
    const float* W = kernels_[k]->value.data();
    // the input's gradient dZ W^T, then (below the first layer) through the
    // dropout mask and the activation of hidden layer k - 1, rows split over
    // the threads
    const int h = k == 0 ? 0 : hidden_[k - 1];
    // two buffers in turn: a thread writes the next gradient while another
    // may still read this one
    float* next_dz = dz == ws.dz.data() ? ws.dz2.data() : ws.dz.data();
    parallel_for(threads, threads, [&](int t) {
      const int r0 = rows * t / threads, n = rows * (t + 1) / threads - r0;
      if (n == 0) return;
      float* da_rows = da + static_cast<std::size_t>(r0) * fan_in;
      gemm::multiply(ws.kernel, false, true, n, fan_in, out,
                     dz + static_cast<std::size_t>(r0) * out, out, W, out, da_rows, fan_in, false);
      if (k == 0) return;
      const std::size_t first = static_cast<std::size_t>(r0) * fan_in,
                        m = static_cast<std::size_t>(n) * fan_in;
      if (ws.last_dropout) {
        const float scale = static_cast<float>(1.0 / (1.0 - dropout_));
        const unsigned char* kept = ws.kept[k - 1].data() + first;
        for (std::size_t i = 0; i < m; ++i) da_rows[i] = kept[i] ? da_rows[i] * scale : 0.0f;
      }
      act_.backward(ws.z[k - 1].data() + static_cast<std::size_t>(r0) * h,
                    ws.a[k - 1].data() + first, da_rows, n, h,
                    next_dz + static_cast<std::size_t>(r0) * h);
    });
    if (k == 0) break;
    dz = next_dz;
    out = h;
  }
  // embeddings: the gradient of their slice of the input
  if (!ws.dx.empty()) {
    if (sparse_.empty())
      input_.backward(batch, nullptr, ws.dx.data(), static_cast<std::size_t>(input_.width()),
                      ws.input, ws.grads);
    else
      input_.backward(batch, &block_columns_, ws.dx.data(), static_cast<std::size_t>(block_width_),
                      ws.input, ws.grads);
  }
  return ws.grads;
}

void DnnModel::first_layer(const FeatureBatch& batch, const float* x, int rows, Work& ws) const {
  const int units = hidden_[0];
  const float* W = kernels_[0]->value.data();
  const float* b = biases_[0]->value.data();
  const int threads = threads_for(ws, rows, std::max(1, block_width_), units);
  float* z0 = ws.z[0].data();
  parallel_for(threads, threads, [&](int t) {
    const int r0 = rows * t / threads, n = rows * (t + 1) / threads - r0;
    if (n == 0) return;
    float* Z = z0 + static_cast<std::size_t>(r0) * units;
    std::fill(Z, Z + static_cast<std::size_t>(n) * units, 0.0f);
    for (const Segment& g : segments_)  // the block's products, run by run of kernel rows
      gemm::multiply(ws.kernel, false, false, n, units, g.width,
                     x + static_cast<std::size_t>(r0) * block_width_ + g.compact, block_width_,
                     W + static_cast<std::size_t>(g.full) * units, units, Z, units, true);
    for (const SparseInput& in : sparse_) {  // each id's weight times its kernel row
      const SparseIds& ids = batch.sparse[static_cast<std::size_t>(in.slot)];
      for (int r = 0; r < n; ++r) {
        float* z = Z + static_cast<std::size_t>(r) * units;
        for (int k = ids.begin(r0 + r); k < ids.end(r0 + r); ++k) {
          const float w = ids.weight(k);
          const float* row = W + static_cast<std::size_t>(in.full + ids.id(k)) * units;
#pragma omp simd
          for (int j = 0; j < units; ++j) z[j] += w * row[j];
        }
      }
    }
    for (int r = 0; r < n; ++r) {
      float* z = Z + static_cast<std::size_t>(r) * units;
#pragma omp simd
      for (int j = 0; j < units; ++j) z[j] += b[j];
    }
    act_.forward(Z, n, units,
                 ws.a[0].data() + static_cast<std::size_t>(r0) * units * act_.width_factor());
  });
}

Gradient DnnModel::first_layer_gradient(const FeatureBatch& batch, const float* x, int rows,
                                        const float* dz, float* dx, Work& ws) const {
  const int units = hidden_[0];
  const std::size_t u = static_cast<std::size_t>(units);
  float* g = ws.gw[0].data();
  for (const Segment& s : segments_)  // X^T dZ into the block's kernel rows
    gemm::multiply(ws.kernel, true, false, s.width, units, rows, x + s.compact, block_width_, dz,
                   units, g + static_cast<std::size_t>(s.full) * units, units, false);
  // the rows of the batch's ids: zeroed and noted once each, then each
  // id's weight times its row's dZ added
  if (ws.stamp.size() != kernels_[0]->rows()) ws.stamp.assign(kernels_[0]->rows(), 0);
  if (++ws.step == 0) {  // (the stamps wrapped around)
    std::fill(ws.stamp.begin(), ws.stamp.end(), 0);
    ws.step = 1;
  }
  ws.touched.clear();
  for (const SparseInput& in : sparse_) {
    const SparseIds& ids = batch.sparse[static_cast<std::size_t>(in.slot)];
    for (int k = 0; k < ids.nnz(); ++k) {
      const std::size_t row = static_cast<std::size_t>(in.full + ids.id(k));
      if (ws.stamp[row] != ws.step) {
        ws.stamp[row] = ws.step;
        ws.touched.push_back(static_cast<std::int64_t>(row));
        std::fill(g + row * u, g + (row + 1) * u, 0.0f);
      }
    }
  }
  for (const SparseInput& in : sparse_) {  // each id's row: its weight times the row's dZ
    const SparseIds& ids = batch.sparse[static_cast<std::size_t>(in.slot)];
    for (int r = 0; r < rows; ++r) {
      const float* d = dz + static_cast<std::size_t>(r) * units;
      for (int k = ids.begin(r); k < ids.end(r); ++k) {
        const float w = ids.weight(k);
        float* row = g + static_cast<std::size_t>(in.full + ids.id(k)) * units;
#pragma omp simd
        for (int j = 0; j < units; ++j) row[j] += w * d[j];
      }
    }
  }
  if (dx != nullptr) {
    const float* W = kernels_[0]->value.data();
    for (const Segment& s : segments_)  // dZ W^T over the block's columns
      gemm::multiply(ws.kernel, false, true, rows, s.width, units, dz, units,
                     W + static_cast<std::size_t>(s.full) * units, units, dx + s.compact,
                     block_width_, false);
  }
  // the rows in order: the block's runs and the ids' rows, merged
  std::sort(ws.touched.begin(), ws.touched.end());
  ws.g_rows.clear();
  std::size_t t = 0;
  for (const Segment& s : segments_) {
    for (; t < ws.touched.size() && ws.touched[t] < s.full; ++t) ws.g_rows.push_back(ws.touched[t]);
    for (int r = 0; r < s.width; ++r) ws.g_rows.push_back(s.full + r);
  }
  for (; t < ws.touched.size(); ++t) ws.g_rows.push_back(ws.touched[t]);
  ws.g_values.resize(ws.g_rows.size() * u);
  for (std::size_t k = 0; k < ws.g_rows.size(); ++k)
    std::copy(g + static_cast<std::size_t>(ws.g_rows[k]) * u,
              g + static_cast<std::size_t>(ws.g_rows[k] + 1) * u,
              ws.g_values.begin() + static_cast<std::ptrdiff_t>(k * u));
  Gradient out;
  out.param = kernels_[0];
  out.sparse = true;
  out.zero_elsewhere = true;
  out.rows = ws.g_rows.data();
  out.values = ws.g_values.data();
  out.count = ws.g_rows.size();
  return out;
}

bool DnnModel::input_rows(const FeatureBatch& batch, float* x) const {
  auto base = new_workspace(batch, std::max(1, batch.rows), 1);
  Work& ws = static_cast<Work&>(*base);
  input_.forward(batch, nullptr, x, static_cast<std::size_t>(input_.width()), ws.input);
  return true;
}

void DnnModel::forward_from(const float* x, int n, Work& ws, float* logits) const {
  const float* prev = x;
  int fan_in = input_.width();
  for (std::size_t k = 0; k < hidden_.size(); ++k) {
    dense(prev, n, fan_in, k, ws.z[k].data(), ws, ws.a[k].data());
    prev = ws.a[k].data();
    fan_in = hidden_[k] * act_.width_factor();
  }
  ws.last_dropout = false;
  dense(prev, n, fan_in, hidden_.size(), logits, ws);
}

void DnnModel::input_gradient(int n, int logit, Work& ws, float* dx) const {
  float* dz = ws.dz.data();
  std::fill(dz, dz + static_cast<std::size_t>(n) * units_, 0.0f);
  for (int r = 0; r < n; ++r) dz[static_cast<std::size_t>(r) * units_ + logit] = 1.0f;
  int out = units_;
  for (std::size_t k = kernels_.size(); k-- > 0;) {
    const int fan_in = k == 0 ? input_.width() : hidden_[k - 1] * act_.width_factor();
    float* da = k == 0 ? dx : ws.da.data();
    gemm::multiply(ws.kernel, false, true, n, fan_in, out, dz, out, kernels_[k]->value.data(), out,
                   da, fan_in, false);
    if (k == 0) break;
    const int h = hidden_[k - 1];
    float* next = dz == ws.dz.data() ? ws.dz2.data() : ws.dz.data();
    act_.backward(ws.z[k - 1].data(), ws.a[k - 1].data(), da, n, h, next);
    dz = next;
    out = h;
  }
}

bool DnnModel::integrated_gradients(const FeatureBatch& batch, const float* baseline, int steps,
                                    int threads, double* out) const {
  const int rows = batch.rows, k = units_;
  const std::size_t w = static_cast<std::size_t>(input_.width());
  const std::size_t side = features_.size() + 1;
  if (rows == 0) return true;
  steps = std::max(1, steps);
  auto base = new_workspace(batch, std::max(rows, 1024), threads);
  Work& ws = static_cast<Work&>(*base);
  std::vector<float> x(static_cast<std::size_t>(rows) * w);
  input_.forward(batch, nullptr, x.data(), w, ws.input);
  // the logits at the baseline and at every row: what the contributions
  // add up to
  std::vector<float> at_base(static_cast<std::size_t>(k)),
      at_row(static_cast<std::size_t>(rows) * k);
  forward_from(baseline, 1, ws, at_base.data());
  forward_from(x.data(), rows, ws, at_row.data());
  std::vector<double> mean(w);
  // the rows of `todo`, `steps_now` steps each, rows x steps points at a time
  const auto integrate = [&](const std::vector<int>& todo, int steps_now) {
    const int block = std::max(1, 1024 / steps_now);
    const int most = block * steps_now;
    auto work = new_workspace(batch, most, threads);
    Work& wk = static_cast<Work&>(*work);
    std::vector<float> path(static_cast<std::size_t>(most) * w), grad(path.size()),
        logits(static_cast<std::size_t>(most) * k);
    for (std::size_t t0 = 0; t0 < todo.size(); t0 += static_cast<std::size_t>(block)) {
      const int nr = static_cast<int>(std::min<std::size_t>(block, todo.size() - t0));
      const int n = nr * steps_now;
      for (int i = 0; i < nr; ++i) {
        const float* xi = x.data() + static_cast<std::size_t>(todo[t0 + i]) * w;
        for (int s = 0; s < steps_now; ++s) {
          const float alpha = (static_cast<float>(s) + 0.5f) / static_cast<float>(steps_now);
          float* p = path.data() + (static_cast<std::size_t>(i) * steps_now + s) * w;
          for (std::size_t j = 0; j < w; ++j) p[j] = baseline[j] + alpha * (xi[j] - baseline[j]);
        }
      }
      forward_from(path.data(), n, wk, logits.data());
      for (int c = 0; c < k; ++c) {
        input_gradient(n, c, wk, grad.data());
        for (int i = 0; i < nr; ++i) {
          const int r = todo[t0 + i];
          const float* xi = x.data() + static_cast<std::size_t>(r) * w;
          std::fill(mean.begin(), mean.end(), 0.0);
          for (int s = 0; s < steps_now; ++s) {
            const float* g = grad.data() + (static_cast<std::size_t>(i) * steps_now + s) * w;
            for (std::size_t j = 0; j < w; ++j) mean[j] += g[j];
          }
          double* cell = out + (static_cast<std::size_t>(r) * k + c) * side;
          std::fill(cell, cell + side, 0.0);
          cell[side - 1] = at_base[static_cast<std::size_t>(c)];
          for (std::size_t col = 0; col < input_.size(); ++col) {
            const std::size_t b = static_cast<std::size_t>(input_.column(col).offset),
                              e = b + static_cast<std::size_t>(input_.column(col).width);
            double sum = 0.0;
            for (std::size_t j = b; j < e; ++j)
              sum += (static_cast<double>(xi[j]) - baseline[j]) * mean[j] / steps_now;
            cell[static_cast<std::size_t>(input_columns_[col])] += sum;
          }
        }
      }
    }
  };
  // rows whose contributions miss their logits by more than kGap (a
  // piecewise-linear activation's kinks cost the midpoint rule an error
  // of order 1 / steps) are integrated again with 4x the steps, at most
  // kRefinements times
  std::vector<int> todo(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) todo[static_cast<std::size_t>(r)] = r;
  for (int round = 0; !todo.empty(); ++round, steps *= 4) {
    integrate(todo, steps);
    if (round == kRefinements) break;
    std::vector<int> again;
    for (int r : todo)
      for (int c = 0; c < k; ++c) {
        const double* cell = out + (static_cast<std::size_t>(r) * k + c) * side;
        double sum = 0.0;
        for (std::size_t j = 0; j < side; ++j) sum += cell[j];
        if (std::abs(sum - at_row[static_cast<std::size_t>(r) * k + c]) > kGap) {
          again.push_back(r);
          break;
        }
      }
    todo.swap(again);
  }
  return true;
}

const float* DnnModel::layer_output(const Work& ws, std::size_t k) {
  return ws.last_dropout ? ws.out[k].data() : ws.a[k].data();
}

void DnnModel::dense(const float* in, int rows, int fan_in, std::size_t k, float* out,
                     const Work& ws, float* activated) const {
  const int units = static_cast<int>(biases_[k]->value.size());
  const int threads = threads_for(ws, rows, fan_in, units);
  const float* W = kernels_[k]->value.data();
  const float* b = biases_[k]->value.data();
  parallel_for(threads, threads, [&](int t) {
    const int r0 = rows * t / threads, n = rows * (t + 1) / threads - r0;
    if (n == 0) return;
    float* Z = out + static_cast<std::size_t>(r0) * units;
    // the product, then the bias added: the arithmetic of a model_fn's
    // tf$layers$dense (matmul, then add), so that both give the same values
    gemm::multiply(ws.kernel, false, false, n, units, fan_in,
                   in + static_cast<std::size_t>(r0) * fan_in, fan_in, W, units, Z, units, false);
    for (int r = 0; r < n; ++r) {
      float* z = Z + static_cast<std::size_t>(r) * units;
#pragma omp simd
      for (int j = 0; j < units; ++j) z[j] += b[j];
    }
    if (activated != nullptr)
      act_.forward(Z, n, units,
                   activated + static_cast<std::size_t>(r0) * units * act_.width_factor());
  });
}

int DnnModel::threads_for(const Work& ws, int rows, int fan_in, int units) {
  const double macs = static_cast<double>(rows) * fan_in * units;
  if (ws.threads <= 1 || rows < 2 * ws.threads || macs < kParallelMacs) return 1;
  return ws.threads;
}

}  // namespace cppestimators
