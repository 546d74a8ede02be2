#include <cppestimators/model/linear_model.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <cppestimators/distributed/collective.h>
#include <cppestimators/features/feature_set.h>
#include <cppestimators/features/transform.h>
#include <cppestimators/parallel.h>

namespace cppestimators {

// Row-major float matrices over buffers the model does not own (here, not in
// model.h: only the sources that compute with Eigen parse it).
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMap = Eigen::Map<RowMatrix>;
using ConstRowMap = Eigen::Map<const RowMatrix>;

LinearModel::LinearModel(const Spec& spec, int units) : Model(spec, units) {
  const std::string scope = kScope;
  const int u = units_;
  // one weight block over the batch's whole dense block; the rows of dense
  // columns another part of a combined model uses stay zero
  Parameter p;
  p.value.assign(static_cast<std::size_t>(features_.dense_width()) * u, 0.0f);
  p.row_width = static_cast<std::size_t>(u);
  for (std::size_t i = 0; i < features_.size(); ++i) {
    const FeatureTransform& c = features_.column(i);
    if (c.role() != ColumnRole::Dense) continue;
    const std::size_t offset = static_cast<std::size_t>(features_.dense_offset(i)) * u;
    const std::size_t size = static_cast<std::size_t>(c.dense_width()) * u;
    if (uses(c.name()))
      p.views.push_back({scope + c.name() + "/weights", {c.dense_width(), u}, offset, size});
    else
      unused_dense_.push_back({offset, size});
  }
  if (!p.views.empty()) dense_ = &add(std::move(p));
  for (std::size_t i = 0; i < features_.size(); ++i) {
    const FeatureTransform& c = features_.column(i);
    if (c.role() == ColumnRole::Dense || !uses(c.name())) continue;
    const int slot = features_.sparse_slot(i);
    const int buckets = static_cast<int>(c.num_buckets());
    if (c.role() == ColumnRole::Embedding) {
      const EmbeddingParams& ep = *c.embedding();
      Parameter table =
          Parameter::single(scope + c.name() + "/embedding_weights", {buckets, ep.dimension});
      table.init = Init::TruncatedNormal;
      table.init_scale = ep.init_stddev;
      table.trainable = ep.trainable;
      Parameter* t = &add(std::move(table));
      Parameter* w = &add(Parameter::single(scope + c.name() + "/weights", {ep.dimension, u}));
      embedded_.push_back({slot, EmbeddingLookup(ep, t), w, static_cast<int>(i)});
    } else {
      Parameter* w = &add(Parameter::single(scope + c.name() + "/weights", {buckets, u}));
      sparse_.push_back({slot, w, static_cast<int>(i)});
    }
  }
  bias_ = &add(Parameter::single(scope + "bias_weights", {u}));
  start_bias(spec, *bias_);
  limits(spec);
  if (spec.str_or("solver", "") == "coordinate_descent") solve_by_coordinates(spec);
}

void LinearModel::solve_by_coordinates(const Spec& spec) {
  if (!embedded_.empty())
    throw std::invalid_argument(
        "the coordinate-descent solver fits weights of numeric and categorical columns; "
        "embedding column '" +
        features_.column(static_cast<std::size_t>(embedded_.front().column)).name() +
        "' has none: use an optimizer");
  if (!unused_dense_.empty())
    throw std::invalid_argument("the coordinate-descent solver fits a whole linear model");
  std::vector<CoordinateDescent::Block> blocks;
  std::int64_t first = 0;
  if (dense_) {
    blocks.push_back({dense_, 0, features_.dense_width(), -1, true});
    first = features_.dense_width();
  }
  for (const Sparse& c : sparse_) {
    const std::int64_t buckets = static_cast<std::int64_t>(c.weights->rows());
    blocks.push_back({c.weights, first, buckets, c.column, false});
    first += buckets;
  }
  solver_ = std::make_unique<CoordinateDescent>(spec, units_);
  solver_->set_blocks(std::move(blocks), bias_);
  set_training(*solver_);
}

bool LinearModel::reads_batch_features(Mode mode, bool whole) const {
  // (the solver reads its own copy; a batch it cannot take is refused by it)
  return !(solver_ && mode == Mode::Train) && Model::reads_batch_features(mode, whole);
}

bool LinearModel::reads_training_batches() const { return solver_ == nullptr; }

void LinearModel::begin_session(FeatureSet::Binding& binding, std::int64_t n,
                                const DenseRows* block, Mode mode, int threads) {
  if (!solver_ || mode != Mode::Train) return;
  if (collective_ != nullptr && collective_->size() > 1)
    throw std::invalid_argument(
        "the coordinate-descent solver trains in one process, not across processes");
  solver_->begin_session(features_, binding, n, block, threads);
}

void LinearModel::limits(const Spec& spec) {
  if (spec.strs.count("limit_columns") == 0) return;
  const std::vector<std::string>& names = spec.strings("limit_columns");
  const std::vector<double>& lower = spec.numbers("lower_limits");
  const std::vector<double>& upper = spec.numbers("upper_limits");
  if (lower.size() != names.size() || upper.size() != names.size())
    throw std::invalid_argument("lower_limits, upper_limits: one of each per column");
  const auto bound = [](Parameter& p, std::size_t b, std::size_t e, double lo, double hi) {
    if (p.lower.empty()) {
      p.lower.assign(p.value.size(), -std::numeric_limits<float>::infinity());
      p.upper.assign(p.value.size(), std::numeric_limits<float>::infinity());
    }
    std::fill(p.lower.begin() + static_cast<std::ptrdiff_t>(b),
              p.lower.begin() + static_cast<std::ptrdiff_t>(e), static_cast<float>(lo));
    std::fill(p.upper.begin() + static_cast<std::ptrdiff_t>(b),
              p.upper.begin() + static_cast<std::ptrdiff_t>(e), static_cast<float>(hi));
  };
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (!(lower[k] <= 0.0 && upper[k] >= 0.0))
      throw std::invalid_argument("the limits of '" + names[k] +
                                  "' must hold 0 (lower <= 0 <= upper): weights start at 0");
    bool found = false;
    for (std::size_t i = 0; i < features_.size() && !found; ++i) {
      const FeatureTransform& c = features_.column(i);
      if (c.name() != names[k] || !uses(c.name())) continue;
      found = true;
      if (c.role() == ColumnRole::Dense) {
        const std::size_t offset = static_cast<std::size_t>(features_.dense_offset(i)) * units_;
        bound(*dense_, offset, offset + static_cast<std::size_t>(c.dense_width()) * units_,
              lower[k], upper[k]);
      } else if (c.role() == ColumnRole::Embedding) {
        throw std::invalid_argument("the limits of '" + names[k] +
                                    "': an embedding column's weights have no sign to limit");
      } else {
        for (Sparse& s : sparse_)
          if (s.column == static_cast<int>(i))
            bound(*s.weights, 0, s.weights->value.size(), lower[k], upper[k]);
      }
    }
    if (!found)
      throw std::invalid_argument("lower_limits, upper_limits: no feature column '" + names[k] +
                                  "' in the linear model");
  }
}

std::string LinearModel::kind() const { return "linear"; }
bool LinearModel::reads_dense_rows_by_index() const { return true; }
std::vector<std::string> LinearModel::groups() const { return {"linear"}; }

std::unique_ptr<Workspace> LinearModel::new_workspace(const FeatureBatch& batch, int max_rows,
                                                      int threads) const {
  auto ws = std::make_unique<Work>();
  ws->threads = std::max(1, threads);
  const std::size_t u = static_cast<std::size_t>(units_);
  if (dense_) ws->g_dense.assign(dense_->value.size(), 0.0f);
  // dense rows come by index from a cached block: a buffer of chunk_rows
  // rows per thread (no chunk of a batch holds more)
  ws->chunk_rows = std::min(kChunk, std::max(1, max_rows));
  if (dense_ && batch.dense.empty())
    ws->chunk_size =
        static_cast<std::size_t>(ws->threads) * ws->chunk_rows * features_.dense_width();
  if (dense_ && ws->threads > 1)
    ws->partial.assign(static_cast<std::size_t>(ws->threads) * dense_->value.size(), 0.0f);
  ws->g_bias.assign(u, 0.0f);
  ws->sparse.resize(sparse_.size());
  for (std::size_t c = 0; c < sparse_.size(); ++c)
    if (static_cast<std::size_t>(sparse_[c].slot) < batch.sparse.size())  // (none: the solver's)
      ws->sparse[c].reserve(batch.sparse[static_cast<std::size_t>(sparse_[c].slot)].capacity(), u);
  ws->embedded.resize(embedded_.size());
  for (std::size_t c = 0; c < embedded_.size(); ++c) {
    const Embedded& e = embedded_[c];
    EmbeddedWork& w = ws->embedded[c];
    const std::size_t d = static_cast<std::size_t>(e.lookup.dimension());
    e.lookup.reserve(w.scratch, batch.sparse[static_cast<std::size_t>(e.slot)]);
    w.out.assign(static_cast<std::size_t>(max_rows) * d, 0.0f);
    w.dout.assign(static_cast<std::size_t>(max_rows) * d, 0.0f);
    w.g_weights.assign(d * u, 0.0f);
  }
  ws->grads.reserve(params_.size());
  return ws;
}

void LinearModel::forward(const FeatureBatch& batch, Mode, Workspace& base, float* logits) const {
  Work& ws = static_cast<Work&>(base);
  const int rows = batch.rows, u = units_;
  ws.chunk_start = -1;  // a new batch
  RowMap L(logits, rows, u);
  const Eigen::Map<const Eigen::RowVectorXf> b(bias_->value.data(), u);
  L = b.replicate(rows, 1);
  if (dense_) {
    // chunk by chunk of rows, the same arithmetic whether the rows are
    // contiguous or copied from a cached block (so both give identical
    // weights); large batches split their chunks over the threads
    const int d = batch.dense_width;
    const Split sp = split(ws, rows, d);
    ready_chunks(batch, ws);
    parallel_for(sp.threads, sp.threads, [&](int t) {
      for (int c = sp.chunks * t / sp.threads; c < sp.chunks * (t + 1) / sp.threads; ++c) {
        const int start = c * sp.rows, count = std::min(sp.rows, rows - start);
        ConstRowMap X(dense_chunk(batch, start, count, ws, t, sp.threads == 1), count, d);
        if (u == 1) {  // one output: a matrix-vector product
          Eigen::Map<const Eigen::VectorXf> w(dense_->value.data(), d);
          Eigen::Map<Eigen::VectorXf>(logits + start, count).noalias() += X * w;
        } else {
          ConstRowMap W(dense_->value.data(), d, u);
          RowMap(logits + static_cast<std::size_t>(start) * u, count, u).noalias() += X * W;
        }
      }
    });
  }
  for (const Sparse& c : sparse_) {
    const SparseIds& ids = batch.sparse[static_cast<std::size_t>(c.slot)];
    const float* W = c.weights->value.data();
    // a large table's rows are scattered: ask for all of them before summing
    for (int k = 0; k < ids.nnz(); ++k)
      __builtin_prefetch(W + static_cast<std::size_t>(ids.id(k)) * u);
    for (int r = 0; r < rows; ++r) {
      float* l = logits + static_cast<std::size_t>(r) * u;
      for (int k = ids.begin(r); k < ids.end(r); ++k) {
        const float w = ids.weight(k);
        const float* row = W + static_cast<std::size_t>(ids.id(k)) * u;
        for (int j = 0; j < u; ++j) l[j] += w * row[j];
      }
    }
  }
  for (std::size_t c = 0; c < embedded_.size(); ++c) {
    const Embedded& e = embedded_[c];
    EmbeddedWork& w = ws.embedded[c];
    const int d = e.lookup.dimension();
    e.lookup.forward(batch.sparse[static_cast<std::size_t>(e.slot)], w.scratch, w.out.data());
    ConstRowMap E(w.out.data(), rows, d);
    ConstRowMap We(e.weights->value.data(), d, u);
    L.noalias() += E * We;
  }
}

bool LinearModel::explain(const FeatureBatch& batch, int /*threads*/, double* out,
                          Explanation kind) const {
  if (kind != Explanation::Contributions) return false;
  const int rows = batch.rows, u = units_;
  const std::size_t columns = features_.size(), width = columns + 1;
  std::fill(out, out + static_cast<std::size_t>(rows) * u * width, 0.0);
  auto cell = [&](int r, int j, std::size_t c) -> double& {
    return out[(static_cast<std::size_t>(r) * u + static_cast<std::size_t>(j)) * width + c];
  };
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < u; ++j) cell(r, j, columns) = bias_->value[static_cast<std::size_t>(j)];
  if (dense_ != nullptr) {
    for (std::size_t i = 0; i < columns; ++i) {
      const FeatureTransform& c = features_.column(i);
      if (c.role() != ColumnRole::Dense || !uses(c.name())) continue;
      const int offset = features_.dense_offset(i), w = c.dense_width();
      for (int r = 0; r < rows; ++r) {
        const float* x = batch.dense_rows != nullptr
                             ? batch.dense_rows + static_cast<std::size_t>(r) * batch.dense_width
                             : batch.dense_block->row(batch.dense_index[r]);
        for (int k = 0; k < w; ++k)
          for (int j = 0; j < u; ++j)
            cell(r, j, i) +=
                static_cast<double>(x[offset + k]) *
                dense_
                    ->value[static_cast<std::size_t>(offset + k) * u + static_cast<std::size_t>(j)];
      }
    }
  }
  for (const Sparse& c : sparse_) {
    const SparseIds& ids = batch.sparse[static_cast<std::size_t>(c.slot)];
    const float* W = c.weights->value.data();
    for (int r = 0; r < rows; ++r)
      for (int k = ids.begin(r); k < ids.end(r); ++k)
        for (int j = 0; j < u; ++j)
          cell(r, j, static_cast<std::size_t>(c.column)) +=
              static_cast<double>(ids.weight(k)) *
              W[static_cast<std::size_t>(ids.id(k)) * u + static_cast<std::size_t>(j)];
  }
  for (const Embedded& e : embedded_) {
    const SparseIds& ids = batch.sparse[static_cast<std::size_t>(e.slot)];
    const int d = e.lookup.dimension();
    EmbeddingLookup::Scratch scratch;
    e.lookup.reserve(scratch, ids);
    std::vector<float> v(static_cast<std::size_t>(rows) * d);
    e.lookup.forward(ids, scratch, v.data());
    for (int r = 0; r < rows; ++r)
      for (int k = 0; k < d; ++k)
        for (int j = 0; j < u; ++j)
          cell(r, j, static_cast<std::size_t>(e.column)) +=
              static_cast<double>(v[static_cast<std::size_t>(r) * d + k]) *
              e.weights->value[static_cast<std::size_t>(k) * u + static_cast<std::size_t>(j)];
  }
  return true;
}

const std::vector<Gradient>& LinearModel::backward(const FeatureBatch& batch, const float* dlogits,
                                                   Workspace& base) {
  Work& ws = static_cast<Work&>(base);
  const int rows = batch.rows, u = units_;
  ConstRowMap dL(dlogits, rows, u);
  ws.grads.clear();
  if (dense_) {
    // each thread sums its chunks (last first: with one thread, the forward
    // pass left that chunk in the buffer) into its own partial gradient;
    // the partials are added in thread order, so a thread count gives one result
    const int d = batch.dense_width;
    const Split sp = split(ws, rows, d);
    const int threads = sp.threads;
    const std::size_t size = dense_->value.size();
    ready_chunks(batch, ws);
    parallel_for(threads, threads, [&](int t) {
      float* g =
          threads == 1 ? ws.g_dense.data() : ws.partial.data() + static_cast<std::size_t>(t) * size;
      RowMap gW(g, d, u);
      gW.setZero();
      for (int c = sp.chunks * (t + 1) / threads - 1; c >= sp.chunks * t / threads; --c) {
        const int start = c * sp.rows, count = std::min(sp.rows, rows - start);
        ConstRowMap X(dense_chunk(batch, start, count, ws, t, threads == 1), count, d);
        if (u == 1) {
          Eigen::Map<Eigen::VectorXf>(g, d).noalias() +=
              X.transpose() * Eigen::Map<const Eigen::VectorXf>(dlogits + start, count);
        } else {
          gW.noalias() += X.transpose() * dL.middleRows(start, count);
        }
      }
    });
    if (threads > 1) {
      std::copy(ws.partial.begin(), ws.partial.begin() + static_cast<std::ptrdiff_t>(size),
                ws.g_dense.begin());
      for (int t = 1; t < threads; ++t)
        for (std::size_t i = 0; i < size; ++i)
          ws.g_dense[i] += ws.partial[static_cast<std::size_t>(t) * size + i];
    }
    for (const auto& range : unused_dense_)
      std::fill_n(ws.g_dense.begin() + static_cast<std::ptrdiff_t>(range.first), range.second,
                  0.0f);
    ws.grads.push_back(dense_gradient(*dense_, ws.g_dense));
  }
  for (std::size_t c = 0; c < sparse_.size(); ++c) {
    const SparseIds& ids = batch.sparse[static_cast<std::size_t>(sparse_[c].slot)];
    SparseGrad& g = ws.sparse[c];
    g.begin();
    for (int r = 0; r < rows; ++r)
      for (int k = ids.begin(r); k < ids.end(r); ++k) g.add(ids.id(k), r, ids.weight(k));
    ws.grads.emplace_back();
    g.finish(dlogits, *sparse_[c].weights, ws.grads.back());
  }
  for (std::size_t c = 0; c < embedded_.size(); ++c) {
    const Embedded& e = embedded_[c];
    EmbeddedWork& w = ws.embedded[c];
    const int d = e.lookup.dimension();
    ConstRowMap E(w.out.data(), rows, d);
    ConstRowMap We(e.weights->value.data(), d, u);
    RowMap gWe(w.g_weights.data(), d, u);
    gWe.noalias() = E.transpose() * dL;
    ws.grads.push_back(dense_gradient(*e.weights, w.g_weights));
    if (e.lookup.trainable()) {
      RowMap dE(w.dout.data(), rows, d);
      dE.noalias() = dL * We.transpose();
      ws.grads.emplace_back();
      e.lookup.backward(batch.sparse[static_cast<std::size_t>(e.slot)], w.scratch, w.dout.data(),
                        ws.grads.back());
    }
  }
  Eigen::Map<Eigen::RowVectorXf> gb(ws.g_bias.data(), u);
  gb.noalias() = dL.colwise().sum();
  ws.grads.push_back(dense_gradient(*bias_, ws.g_bias));
  return ws.grads;
}

const float* LinearModel::dense_chunk(const FeatureBatch& b, int start, int count, Work& ws, int t,
                                      bool reuse) {
  const std::size_t d = static_cast<std::size_t>(b.dense_width);
  if (b.dense_rows != nullptr) return b.dense_rows + static_cast<std::size_t>(start) * d;
  float* buf = ws.chunk.data() + static_cast<std::size_t>(t) * ws.chunk_rows * d;
  if (reuse) {
    if (ws.chunk_batch == &b && ws.chunk_index == b.dense_index && ws.chunk_start == start)
      return buf;  // still there from the forward pass
    ws.chunk_batch = &b;
    ws.chunk_index = b.dense_index;
    ws.chunk_start = start;
  }
  for (int r = 0; r < count; ++r)
    std::memcpy(buf + static_cast<std::size_t>(r) * d, b.dense_block->row(b.dense_index[start + r]),
                d * sizeof(float));
  return buf;
}

LinearModel::Split LinearModel::split(const Work& ws, int rows, int d) {
  Split sp{1, kChunk, 0};
  if (ws.threads > 1 && rows > 1 && static_cast<std::size_t>(rows) * d >= kParallelValues) {
    sp.threads = std::min(ws.threads, rows);
    sp.rows = std::min(kChunk, (rows + sp.threads - 1) / sp.threads);
  }
  sp.chunks = (rows + sp.rows - 1) / sp.rows;
  sp.threads = std::min(sp.threads, sp.chunks);
  return sp;
}

}  // namespace cppestimators
