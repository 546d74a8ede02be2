#include <cppestimators/model/layers/input_layer.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace cppestimators {

int InputLayer::width_of(const FeatureTransform& c) {
  switch (c.role()) {
    case ColumnRole::Dense:
      return c.dense_width();
    case ColumnRole::Embedding:
      return c.embedding()->dimension;
    case ColumnRole::Indicator:
      return static_cast<int>(c.num_buckets());
    case ColumnRole::Categorical:  // bucketized columns read as one-hot; the others have no dense
                                   // view
      return c.one_hot_ok() ? static_cast<int>(c.num_buckets()) : -1;
  }
  return -1;
}

void InputLayer::append(const FeatureSet& features, std::size_t i, const std::string& table_scope,
                        const AddParameter& add) {
  const FeatureTransform& c = features.column(i);
  Column col;
  col.width = width_of(c);
  if (col.width < 0)
    throw std::invalid_argument("internal: the categorical column '" + c.name() +
                                "' has no dense view (FeatureSet::require_dense() refuses it)");
  col.offset = width_;
  if (c.role() == ColumnRole::Dense) {
    col.kind = Column::Dense;
    col.source = features.dense_offset(i);
  } else if (c.role() == ColumnRole::Embedding) {
    const EmbeddingParams& ep = *c.embedding();
    Parameter table = Parameter::single(table_scope + c.name() + "/embedding_weights",
                                        {static_cast<int>(c.num_buckets()), ep.dimension});
    table.init = Init::TruncatedNormal;
    table.init_scale = ep.init_stddev;
    table.trainable = ep.trainable;
    col.kind = Column::Embedded;
    col.source = features.sparse_slot(i);
    col.lookup = std::make_shared<EmbeddingLookup>(ep, &add(std::move(table)));
  } else {  // bucketized (one-hot) or indicator (multi-hot)
    col.kind = Column::Hot;
    col.source = features.sparse_slot(i);
  }
  width_ += col.width;
  columns_.push_back(std::move(col));
}

bool InputLayer::has_trainable_embedding() const {
  return std::any_of(columns_.begin(), columns_.end(), [](const Column& c) {
    return c.kind == Column::Embedded && c.lookup->trainable();
  });
}

void InputLayer::reserve(Scratch& s, const FeatureBatch& batch, int max_rows) const {
  s.emb.resize(columns_.size());
  const std::size_t rows = static_cast<std::size_t>(std::max(1, max_rows));
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const Column& col = columns_[c];
    if (col.kind != Column::Embedded) continue;
    col.lookup->reserve(s.emb[c].lookup, batch.sparse[static_cast<std::size_t>(col.source)]);
    s.emb[c].values.assign(rows * static_cast<std::size_t>(col.width), 0.0f);
  }
}

void InputLayer::forward(const FeatureBatch& batch, const std::vector<int>* which, float* out,
                         std::size_t stride, Scratch& s) const {
  const int rows = batch.rows;
  for (int r = 0; r < rows; ++r) {  // the block's columns of this layer, zeroed for the hot ones
    float* row = out + static_cast<std::size_t>(r) * stride;
    std::fill(row, row + stride, 0.0f);
  }
  each(which, [&](std::size_t ci, std::size_t offset) {
    const Column& c = columns_[ci];
    const std::size_t w = static_cast<std::size_t>(c.width);
    if (c.kind == Column::Dense) {
      for (int r = 0; r < rows; ++r) {
        const float* src = batch.dense_rows != nullptr
                               ? batch.dense_rows + static_cast<std::size_t>(r) * batch.dense_width
                               : batch.dense_block->row(batch.dense_index[r]);
        std::memcpy(out + static_cast<std::size_t>(r) * stride + offset, src + c.source,
                    w * sizeof(float));
      }
    } else if (c.kind == Column::Hot) {
      const SparseIds& ids = batch.sparse[static_cast<std::size_t>(c.source)];
      for (int r = 0; r < rows; ++r)
        for (int k = ids.begin(r); k < ids.end(r); ++k)
          out[static_cast<std::size_t>(r) * stride + offset +
              static_cast<std::size_t>(ids.id(k))] += ids.weight(k);
    } else {
      Scratch::Embedded& e = s.emb[ci];
      c.lookup->forward(batch.sparse[static_cast<std::size_t>(c.source)], e.lookup,
                        e.values.data());
      for (int r = 0; r < rows; ++r)
        std::memcpy(out + static_cast<std::size_t>(r) * stride + offset,
                    e.values.data() + static_cast<std::size_t>(r) * w, w * sizeof(float));
    }
  });
}

template <class T>
void InputLayer::backward(const FeatureBatch& batch, const std::vector<int>* which, const T* d,
                          std::size_t stride, Scratch& s, std::vector<Gradient>& grads) const {
  const int rows = batch.rows;
  each(which, [&](std::size_t ci, std::size_t offset) {
    const Column& c = columns_[ci];
    if (c.kind != Column::Embedded || !c.lookup->trainable()) return;
    const std::size_t w = static_cast<std::size_t>(c.width);
    Scratch::Embedded& e = s.emb[ci];
    for (int r = 0; r < rows; ++r) {
      const T* src = d + static_cast<std::size_t>(r) * stride + offset;
      float* dst = e.values.data() + static_cast<std::size_t>(r) * w;
      for (std::size_t k = 0; k < w; ++k) dst[k] = static_cast<float>(src[k]);
    }
    grads.emplace_back();
    c.lookup->backward(batch.sparse[static_cast<std::size_t>(c.source)], e.lookup, e.values.data(),
                       grads.back());
  });
}

template void InputLayer::backward<float>(const FeatureBatch&, const std::vector<int>*,
                                          const float*, std::size_t, Scratch&,
                                          std::vector<Gradient>&) const;
template void InputLayer::backward<double>(const FeatureBatch&, const std::vector<int>*,
                                           const double*, std::size_t, Scratch&,
                                           std::vector<Gradient>&) const;

}  // namespace cppestimators
