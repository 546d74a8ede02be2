#include <cppestimators/model/coordinate_descent.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <cppestimators/features/transform.h>
#include <cppestimators/model/heads/head.h>
#include <cppestimators/parallel.h>

namespace cppestimators {

namespace {

constexpr int kChunk = 4096;  // rows gathered at a time while the design is built
// a coordinate sweep has converged once no weight's move lowers the
// quadratic model by more than this share of the session's first loss; a
// session once a Newton step lowers the penalized loss by less than
// kOuterTolerance of it
constexpr double kInnerTolerance = 1e-7;
constexpr double kOuterTolerance = 1e-9;
constexpr int kMaxSweeps = 10000;  // per Newton step, over the changed weights
constexpr int kMaxHalvings = 30;
// the least second derivative of a row's loss (times its weight): a logistic
// row the model is sure of still moves its working response finitely (glmnet
// bounds the probabilities by 1e-5 for the same reason)
constexpr double kMinHessian = 1e-5;

[[noreturn]] void refuse_batches() {
  throw std::invalid_argument(
      "the coordinate-descent solver steps over every row of the data in memory, in order: "
      "batch_size must be the number of rows and shuffle FALSE");
}

double soft_threshold(double a, double l1) {
  if (a > l1) return a - l1;
  if (a < -l1) return a + l1;
  return 0.0;
}

}  // namespace

CoordinateDescent::CoordinateDescent(const Spec& spec, int units)
    : units_(units), l1_(spec.num_or("solver_l1", 0.0)), l2_(spec.num_or("solver_l2", 0.0)) {
  if (!(l1_ >= 0.0) || !(l2_ >= 0.0) || !std::isfinite(l1_) || !std::isfinite(l2_))
    throw std::invalid_argument("the coordinate-descent solver's penalties must be numbers >= 0");
}

void CoordinateDescent::set_blocks(std::vector<Block> blocks, Parameter* bias) {
  blocks_ = std::move(blocks);
  bias_ = bias;
  coords_ = 0;
  for (const Block& b : blocks_) coords_ = std::max(coords_, b.first + b.count);
  weight_row_.assign(static_cast<std::size_t>(coords_), nullptr);
  lower_row_.assign(static_cast<std::size_t>(coords_), nullptr);
  upper_row_.assign(static_cast<std::size_t>(coords_), nullptr);
  const std::size_t u = static_cast<std::size_t>(units_);
  for (const Block& b : blocks_) {
    Parameter& p = *b.param;
    for (std::int64_t k = 0; k < b.count; ++k) {
      const std::size_t at = static_cast<std::size_t>(k) * u;
      const std::size_t j = static_cast<std::size_t>(b.first + k);
      weight_row_[j] = p.value.data() + at;
      if (!p.lower.empty()) {
        lower_row_[j] = p.lower.data() + at;
        upper_row_[j] = p.upper.data() + at;
      }
    }
  }
}

void CoordinateDescent::begin_session(const FeatureSet& features, FeatureSet::Binding& binding,
                                      std::int64_t n, const DenseRows* block, int threads) {
  threads_ = std::max(1, threads);
  rows_ = 0;
  finished_ = false;
  scale_ = 0.0;
  col_ptr_.clear();
  row_idx_.clear();
  values_.clear();
  if (n <= 0) return;
  if (n >= std::numeric_limits<int>::max())
    throw std::invalid_argument("the coordinate-descent solver takes at most 2^31 - 2 rows");
  const std::size_t C = static_cast<std::size_t>(coords_);
  const int width = features.dense_width();
  bool any_dense = false;
  for (const Block& b : blocks_) any_dense = any_dense || b.dense;
  std::vector<int> idx(kChunk);
  std::vector<float> dense(any_dense && block == nullptr ? static_cast<std::size_t>(kChunk) * width
                                                         : 0);
  // id blocks whose column holds its values column by column (a sparse
  // matrix) are copied from them; the others gather rows
  std::vector<BoundIds::ColumnMajor> by_column(blocks_.size());
  std::vector<unsigned char> in_place(blocks_.size(), 0);
  for (std::size_t b = 0; b < blocks_.size(); ++b)
    if (!blocks_[b].dense)
      in_place[b] =
          binding.ids[static_cast<std::size_t>(blocks_[b].column)]->column_major(by_column[b]) &&
          by_column[b].width == blocks_[b].count;
  std::vector<SparseIds> ids(blocks_.size());
  for (std::size_t b = 0; b < blocks_.size(); ++b)
    if (!blocks_[b].dense && !in_place[b])
      ids[b].reserve(
          kChunk,
          std::max<std::int64_t>(
              1, binding.ids[static_cast<std::size_t>(blocks_[b].column)]->max_ids_per_row()));
  col_ptr_.assign(C + 1, 0);
  std::vector<std::int64_t> fill;
  std::int64_t merged = 0;
  // two passes over the rows: the count of each coordinate's values, then
  // the values (a row's repeated id adds to the value it already has)
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      for (std::size_t j = 0; j < C; ++j) col_ptr_[j + 1] += col_ptr_[j];
      row_idx_.assign(static_cast<std::size_t>(col_ptr_[C]), 0);
      values_.assign(static_cast<std::size_t>(col_ptr_[C]), 0.0f);
      fill.assign(col_ptr_.begin(), col_ptr_.end() - 1);
    }
    const auto add = [&](std::int64_t j, int row, float x) {
      if (pass == 0) {
        ++col_ptr_[static_cast<std::size_t>(j) + 1];
        return;
      }
      std::int64_t& p = fill[static_cast<std::size_t>(j)];
      if (p > col_ptr_[static_cast<std::size_t>(j)] &&
          row_idx_[static_cast<std::size_t>(p - 1)] == row) {
        values_[static_cast<std::size_t>(p - 1)] += x;
        ++merged;
        return;
      }
      row_idx_[static_cast<std::size_t>(p)] = row;
      values_[static_cast<std::size_t>(p)] = x;
      ++p;
    };
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      if (!in_place[b]) continue;
      const BoundIds::ColumnMajor& m = by_column[b];
      for (std::int64_t k = 0; k < m.width; ++k)
        for (int e = m.p[k]; e < m.p[k + 1]; ++e) {
          if (m.x[e] == 0.0 || m.i[e] >= n) continue;
          add(blocks_[b].first + k, m.i[e],
              static_cast<float>(m.scale ? m.x[e] / m.scale[k] : m.x[e]));
        }
    }
    for (std::int64_t r0 = 0; r0 < n; r0 += kChunk) {
      const int count = static_cast<int>(std::min<std::int64_t>(kChunk, n - r0));
      for (int k = 0; k < count; ++k) idx[static_cast<std::size_t>(k)] = static_cast<int>(r0 + k);
      if (!dense.empty()) features.gather_dense(binding, idx.data(), count, dense.data());
      for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const Block& bl = blocks_[b];
        if (bl.dense) {
          for (int k = 0; k < count; ++k) {
            const float* row = block != nullptr
                                   ? block->row(r0 + k)
                                   : dense.data() + static_cast<std::size_t>(k) * width;
            for (std::int64_t c = 0; c < bl.count; ++c)
              if (row[c] != 0.0f) add(bl.first + c, static_cast<int>(r0 + k), row[c]);
          }
          continue;
        }
        if (in_place[b]) continue;
        SparseIds& s = ids[b];
        s.clear();
        binding.ids[static_cast<std::size_t>(bl.column)]->gather(idx.data(), count, s);
        if (!features.column(static_cast<std::size_t>(bl.column)).sparse_numeric()) s.prune();
        for (int k = 0; k < count; ++k)
          for (int e = s.begin(k); e < s.end(k); ++e) {
            const std::int64_t id = s.id(e);
            if (id < 0 || id >= bl.count || s.weight(e) == 0.0f) continue;
            add(bl.first + id, static_cast<int>(r0 + k), s.weight(e));
          }
      }
    }
  }
  if (merged > 0) {  // close the gaps the merged values left
    std::int64_t out = 0;
    for (std::size_t j = 0; j < C; ++j) {
      const std::int64_t b = col_ptr_[j], e = fill[j];
      col_ptr_[j] = out;
      for (std::int64_t p = b; p < e; ++p, ++out) {
        row_idx_[static_cast<std::size_t>(out)] = row_idx_[static_cast<std::size_t>(p)];
        values_[static_cast<std::size_t>(out)] = values_[static_cast<std::size_t>(p)];
      }
    }
    col_ptr_[C] = out;
    row_idx_.resize(static_cast<std::size_t>(out));
    values_.resize(static_cast<std::size_t>(out));
    row_idx_.shrink_to_fit();
    values_.shrink_to_fit();
  }
  for (float x : values_)
    if (!std::isfinite(x))
      throw std::invalid_argument(
          "the coordinate-descent solver met a value that is not finite (NA, NaN or Inf) in "
          "the features");
  const std::size_t rows = static_cast<std::size_t>(n);
  resid_.assign(2 * rows, 0.0);
  dlogit_.assign(rows, 0.0);
  mean_.assign(C, 0.0);
  curv_.assign(C, 0.0);
  delta_.assign(C, 0.0);
  moved_.assign(C, 0);
  changed_.clear();
  changed_.reserve(std::min<std::size_t>(C, 1 << 16));
  rows_ = n;
}

void CoordinateDescent::release() {
  rows_ = 0;
  for (auto* v : {&col_ptr_, &changed_}) std::vector<std::int64_t>().swap(*v);
  std::vector<int>().swap(row_idx_);
  for (auto* v : {&values_, &f_, &trial_, &grad_, &hess_, &per_example_})
    std::vector<float>().swap(*v);
  for (auto* v : {&resid_, &dlogit_, &mean_, &curv_, &delta_}) std::vector<double>().swap(*v);
  std::vector<unsigned char>().swap(moved_);
}

void CoordinateDescent::logits_of(float* out) const {
  const std::size_t n = static_cast<std::size_t>(rows_), U = static_cast<std::size_t>(units_);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t u = 0; u < U; ++u) out[i * U + u] = bias_->value[u];
  for (std::int64_t j = 0; j < coords_; ++j) {
    const float* w = weight_row_[static_cast<std::size_t>(j)];
    if (w == nullptr) continue;
    for (std::size_t u = 0; u < U; ++u) {
      if (w[u] == 0.0f) continue;
      for (std::int64_t p = col_ptr_[static_cast<std::size_t>(j)];
           p < col_ptr_[static_cast<std::size_t>(j) + 1]; ++p)
        out[static_cast<std::size_t>(row_idx_[static_cast<std::size_t>(p)]) * U + u] +=
            w[u] * values_[static_cast<std::size_t>(p)];
    }
  }
}

StepStats CoordinateDescent::compute(const FeatureBatch&, const float*, const float*, const Head&,
                                     Workspace&) {
  refuse_batches();
}

void CoordinateDescent::apply(const StepStats&, const Optimizers&, Workspace&) {}

bool CoordinateDescent::fused_step(const FeatureBatch& batch, const Head& head, Workspace&,
                                   float* logits, float* per_example, double& loss,
                                   StepStats& stats) {
  if (!ready() || !batch.whole_in_order || batch.rows != rows_) refuse_batches();
  if (batch.labels == nullptr) throw std::logic_error("internal: a training step without labels");
  const int n = static_cast<int>(rows_);
  const std::size_t nu = static_cast<std::size_t>(n) * static_cast<std::size_t>(units_);
  if (f_.size() != nu) {
    f_.assign(nu, 0.0f);
    trial_.assign(nu, 0.0f);
    grad_.assign(nu, 0.0f);
    hess_.assign(nu, 0.0f);
  }
  const std::size_t pe = static_cast<std::size_t>(n) * head.per_example_dim();
  if (per_example_.size() != pe) per_example_.assign(pe, 0.0f);
  logits_of(logits);
  loss = head.loss(logits, batch.labels, n, per_example, nullptr, batch.example_weights);
  stats = StepStats{};
  if (!std::isfinite(loss)) return true;
  if (scale_ <= 0.0) scale_ = std::max(std::fabs(loss), std::numeric_limits<double>::min());
  std::copy(logits, logits + nu, f_.begin());
  double fall = 0.0;
  bool settled = true;
  for (int u = 0; u < units_; ++u) {
    fall += newton_step(head, batch, u);
    settled = settled && settled_;
  }
  // (glmnet's rule: no weight moved by more than the tolerance in the
  // step's first sweep over every weight)
  if (settled || fall <= kOuterTolerance * scale_) {
    finished_ = true;
    release();  // (a fitted model keeps no copy of its data)
  }
  return true;
}

double CoordinateDescent::sweep(const std::vector<std::int64_t>* coords, int u, double h_sum) {
  const std::int64_t count = coords ? static_cast<std::int64_t>(coords->size()) : coords_;
  double largest = 0.0;
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t j = coords ? (*coords)[static_cast<std::size_t>(k)] : k;
    const std::size_t js = static_cast<std::size_t>(j);
    const double c = curv_[js];
    if (weight_row_[js] == nullptr || !(c > 1e-12 * h_sum)) continue;  // a constant column
    const double m = mean_[js];
    const std::int64_t p0 = col_ptr_[js], p1 = col_ptr_[js + 1];
    // sum_i h_i (x_ij - m_j) r_i, with r_i's shared shift folded away
    double g = -m * resid_sum_;
    for (std::int64_t p = p0; p < p1; ++p) {
      const std::size_t i = static_cast<std::size_t>(row_idx_[static_cast<std::size_t>(p)]);
      g += resid_[2 * i] * values_[static_cast<std::size_t>(p)] * resid_[2 * i + 1];
    }
    const double w = weight_row_[js][u] + delta_[js];
    double nw = soft_threshold(c * w + g, l1_) / (c + 2.0 * l2_);
    if (lower_row_[js] != nullptr)
      nw = std::min<double>(std::max<double>(nw, lower_row_[js][u]), upper_row_[js][u]);
    const double d = nw - w;
    if (d == 0.0) continue;
    if (!moved_[js]) {
      moved_[js] = 1;
      changed_.push_back(j);
    }
    delta_[js] += d;
    for (std::int64_t p = p0; p < p1; ++p)
      resid_[2 * static_cast<std::size_t>(row_idx_[static_cast<std::size_t>(p)]) + 1] -=
          d * values_[static_cast<std::size_t>(p)];
    resid_sum_ -= d * m * h_sum;
    largest = std::max(largest, c * d * d);
  }
  return largest;
}

double CoordinateDescent::penalty_change(double t, int u) const {
  double out = 0.0;
  for (std::int64_t j : changed_) {
    const std::size_t js = static_cast<std::size_t>(j);
    const double w = weight_row_[js][u], nw = w + t * delta_[js];
    out += l1_ * (std::fabs(nw) - std::fabs(w)) + l2_ * (nw * nw - w * w);
  }
  return out;
}

double CoordinateDescent::newton_step(const Head& head, const FeatureBatch& batch, int u) {
  const int n = static_cast<int>(rows_);
  const std::size_t U = static_cast<std::size_t>(units_), us = static_cast<std::size_t>(u);
  const float* v = batch.example_weights;
  const double loss0 = head.loss(f_.data(), batch.labels, n, per_example_.data(), grad_.data(), v);
  if (!head.hessian(f_.data(), batch.labels, n, hess_.data(), v))
    throw std::invalid_argument(
        "the coordinate-descent solver needs a loss with second derivatives; this head has none");
  // the working response of each row (the Newton step of its logit alone)
  double h_sum = 0.0, hr = 0.0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    const double vi = v ? v[i] : 1.0;
    double h = hess_[i * U + us];
    if (vi > 0.0)
      h = std::max(h, kMinHessian * vi);
    else
      h = 0.0;
    resid_[2 * i] = h;
    resid_[2 * i + 1] = h > 0.0 ? -grad_[i * U + us] / h : 0.0;
    h_sum += h;
    hr += h * resid_[2 * i + 1];
  }
  if (!(h_sum > 0.0)) return 0.0;
  // the intercept first: the centred columns leave it alone
  const double intercept = hr / h_sum;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) resid_[2 * i + 1] -= intercept;
  resid_sum_ = 0.0;
  // each column's hessian-weighted mean and centred curvature (columns
  // split over the threads when there are enough values)
  const int pieces = col_ptr_.back() >= (1 << 18) ? threads_ : 1;
  parallel_for(pieces, pieces, [&](int piece) {
    for (std::int64_t j = coords_ * piece / pieces; j < coords_ * (piece + 1) / pieces; ++j) {
      const std::size_t js = static_cast<std::size_t>(j);
      double s = 0.0, s2 = 0.0;
      for (std::int64_t p = col_ptr_[js]; p < col_ptr_[js + 1]; ++p) {
        const double h =
            resid_[2 * static_cast<std::size_t>(row_idx_[static_cast<std::size_t>(p)])];
        const double x = values_[static_cast<std::size_t>(p)];
        s += h * x;
        s2 += h * x * x;
      }
      mean_[js] = s / h_sum;
      curv_[js] = std::max(0.0, s2 - s * s / h_sum);
    }
  });
  for (std::int64_t j : changed_) {
    delta_[static_cast<std::size_t>(j)] = 0.0;
    moved_[static_cast<std::size_t>(j)] = 0;
  }
  changed_.clear();
  const double tol = kInnerTolerance * scale_;
  // (the intercept's move counts as a weight's)
  settled_ = h_sum * intercept * intercept < tol;
  for (int full = 0; full < 100; ++full) {
    if (sweep(nullptr, u, h_sum) < tol) break;
    settled_ = false;
    for (int k = 0; k < kMaxSweeps; ++k)
      if (sweep(&changed_, u, h_sum) < tol) break;
  }
  // the step of each logit: the intercept, the slopes' moves of the
  // centred columns
  double bias_step = intercept;
  for (std::int64_t j : changed_)
    bias_step -= delta_[static_cast<std::size_t>(j)] * mean_[static_cast<std::size_t>(j)];
  std::fill(dlogit_.begin(), dlogit_.end(), bias_step);
  for (std::int64_t j : changed_) {
    const std::size_t js = static_cast<std::size_t>(j);
    for (std::int64_t p = col_ptr_[js]; p < col_ptr_[js + 1]; ++p)
      dlogit_[static_cast<std::size_t>(row_idx_[static_cast<std::size_t>(p)])] +=
          delta_[js] * values_[static_cast<std::size_t>(p)];
  }
  // the longest step (1, 1/2, ...) that lowers the penalized loss
  double t = 1.0;
  for (int k = 0; k < kMaxHalvings; ++k, t *= 0.5) {
    std::copy(f_.begin(), f_.end(), trial_.begin());
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
      trial_[i * U + us] = static_cast<float>(f_[i * U + us] + t * dlogit_[i]);
    const double lt = head.loss(trial_.data(), batch.labels, n, per_example_.data(), nullptr, v);
    const double change = lt - loss0 + penalty_change(t, u);
    if (!std::isfinite(change) || change > 0.0) continue;
    for (std::int64_t j : changed_) {
      const std::size_t js = static_cast<std::size_t>(j);
      double w = weight_row_[js][u] + t * delta_[js];
      if (lower_row_[js] != nullptr)
        w = std::min<double>(std::max<double>(w, lower_row_[js][u]), upper_row_[js][u]);
      weight_row_[js][u] = static_cast<float>(w);
    }
    bias_->value[us] = static_cast<float>(bias_->value[us] + t * bias_step);
    f_.swap(trial_);
    return -change;
  }
  return 0.0;
}

}  // namespace cppestimators
