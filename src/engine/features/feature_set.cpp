// Building, binding and gathering a model's feature columns.
#include <cppestimators/features/feature_set.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace cppestimators {

FeatureSet::FeatureSet(const std::vector<Spec>& specs) {
  if (specs.empty()) throw std::invalid_argument("feature_columns must not be empty.");
  for (const Spec& s : specs) columns_.push_back(make_transform(s));
  std::sort(columns_.begin(), columns_.end(),
            [](const auto& a, const auto& b) { return a->name() < b->name(); });
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (i > 0 && columns_[i]->name() == columns_[i - 1]->name())
      throw std::invalid_argument("Duplicate feature column name found for columns: " +
                                  columns_[i]->name());
    if (columns_[i]->role() == ColumnRole::Dense) {
      dense_offset_.push_back(dense_width_);
      sparse_slot_.push_back(-1);
      dense_width_ += columns_[i]->dense_width();
    } else {
      if (columns_[i]->num_buckets() > std::numeric_limits<int>::max())
        throw std::invalid_argument(
            "column '" + columns_[i]->name() + "' has " +
            std::to_string(columns_[i]->num_buckets()) + " buckets; at most " +
            std::to_string(std::numeric_limits<int>::max()) + " are supported");
      dense_offset_.push_back(-1);
      sparse_slot_.push_back(sparse_count_++);
    }
  }
}

void FeatureSet::require_dense(const std::string& model,
                               const std::vector<std::string>& only) const {
  for (const auto& c : columns_)
    if ((only.empty() || std::find(only.begin(), only.end(), c->name()) != only.end()) &&
        c->role() == ColumnRole::Categorical && !c->one_hot_ok())
      throw std::invalid_argument(
          model +
          ": items of feature_columns must be dense columns. You can wrap a categorical "
          "column with column_embedding() or column_indicator(), or build the columns with "
          "feature_columns_from_data(data, dense = TRUE), which wraps every categorical one. "
          "Given: " +
          c->constructor() + " '" + c->name() + "'");
}

std::unique_ptr<FeatureSet::Binding> FeatureSet::bind(const Dataset& data) const {
  auto b = std::make_unique<Binding>();
  for (const auto& c : columns_) {
    if (c->role() == ColumnRole::Dense) {
      b->dense.push_back(c->bind_dense(data));
      b->ids.emplace_back();
    } else {
      b->dense.emplace_back();
      b->ids.push_back(c->bind_ids(data));
    }
  }
  return b;
}

void FeatureSet::allocate(const Binding& b, int rows, FeatureBatch& batch,
                          bool dense_buffer) const {
  batch.rows = 0;
  batch.dense_width = dense_width_;
  batch.dense.assign(dense_buffer ? static_cast<std::size_t>(rows) * dense_width_ : 0, 0.0f);
  batch.sparse.assign(static_cast<std::size_t>(sparse_count_), SparseIds());
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (sparse_slot_[i] >= 0)
      batch.sparse[static_cast<std::size_t>(sparse_slot_[i])].reserve(rows,
                                                                      b.ids[i]->max_ids_per_row());
}

void FeatureSet::ensure_capacity(const Binding& b, int rows, FeatureBatch& batch) const {
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (sparse_slot_[i] < 0) continue;
    SparseIds& s = batch.sparse[static_cast<std::size_t>(sparse_slot_[i])];
    const std::int64_t per_row = b.ids[i]->max_ids_per_row();
    if (s.row_capacity() < static_cast<std::size_t>(rows) ||
        s.id_capacity() < static_cast<std::size_t>(rows) * static_cast<std::size_t>(per_row))
      s.reserve(rows, per_row);
  }
}

void FeatureSet::gather_dense(Binding& b, const int* rows, int count, float* out) const {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (dense_offset_[i] >= 0)
      b.dense[i]->gather(rows, count, out + dense_offset_[i], dense_width_);
}

void FeatureSet::gather(Binding& b, const int* rows, int count, FeatureBatch& batch,
                        const DenseRows* block, bool in_order) const {
  batch.rows = count;
  batch.row_ids = rows;
  batch.distinct_rows = false;
  batch.dense_block = nullptr;
  batch.dense_index = nullptr;
  if (dense_width_ > 0) {
    if (block == nullptr) {
      gather_dense(b, rows, count, batch.dense.data());
      batch.dense_rows = batch.dense.data();
    } else if (in_order || (rows[count - 1] - rows[0] == count - 1 && contiguous(rows, count))) {
      batch.dense_rows = block->row(rows[0]);  // in place
    } else if (batch.dense.empty()) {          // the model reads the block's rows by index
      batch.dense_rows = nullptr;
      batch.dense_block = block;
      batch.dense_index = rows;
    } else {
      const std::size_t w = static_cast<std::size_t>(dense_width_);
      for (int r = 0; r < count; ++r)
        std::memcpy(batch.dense.data() + static_cast<std::size_t>(r) * w, block->row(rows[r]),
                    w * sizeof(float));
      batch.dense_rows = batch.dense.data();
    }
  }
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (dense_offset_[i] >= 0) {
      continue;
    } else {
      SparseIds& ids = batch.sparse[static_cast<std::size_t>(sparse_slot_[i])];
      ids.clear();
      b.ids[i]->gather(rows, count, ids);
      if (!columns_[i]->sparse_numeric()) ids.prune();
    }
  }
}

bool FeatureSet::contiguous(const int* rows, int count) {
  for (int r = 1; r < count; ++r)
    if (rows[r] != rows[r - 1] + 1) return false;
  return true;
}

}  // namespace cppestimators
