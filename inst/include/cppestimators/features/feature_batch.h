// One batch of features as the models read it: a dense row-major block for
// the dense columns and, for each column that yields ids, the ids of every
// row in CSR form with a weight per id. Buffers are sized once per session;
// filling a batch allocates nothing.
#pragma once
#include <cstdint>
#include <vector>

namespace cppestimators {

class SparseIds {
 public:
  // Room for `rows` rows of at most `per_row` ids each.
  void reserve(int rows, std::int64_t per_row) {
    const std::size_t cap = static_cast<std::size_t>(rows) * static_cast<std::size_t>(per_row);
    row_ptr_.assign(static_cast<std::size_t>(rows) + 1, 0);
    ids_.assign(cap, 0);
    weights_.assign(cap, 1.0f);
    rows_ = 0;
  }
  void clear() {
    rows_ = 0;
    row_ptr_[0] = 0;
  }
  // The rows and ids reserved.
  std::size_t row_capacity() const { return row_ptr_.empty() ? 0 : row_ptr_.size() - 1; }
  std::size_t id_capacity() const { return ids_.size(); }
  // Appends one id to the row in progress.
  void push(std::int64_t id, float weight = 1.0f) {
    const int k = row_ptr_[static_cast<std::size_t>(rows_)] + open_;
    ids_[static_cast<std::size_t>(k)] = id;
    weights_[static_cast<std::size_t>(k)] = weight;
    ++open_;
  }
  // Closes the row in progress.
  void end_row() {
    row_ptr_[static_cast<std::size_t>(rows_) + 1] =
        row_ptr_[static_cast<std::size_t>(rows_)] + open_;
    ++rows_;
    open_ = 0;
  }
  // Drops ids < 0 and ids with weight <= 0 (TF prunes them before every use).
  void prune() {
    int out = 0;
    for (int r = 0; r < rows_; ++r) {
      const int b = row_ptr_[static_cast<std::size_t>(r)],
                e = row_ptr_[static_cast<std::size_t>(r) + 1];
      row_ptr_[static_cast<std::size_t>(r)] = out;
      for (int k = b; k < e; ++k) {
        if (ids_[static_cast<std::size_t>(k)] < 0 ||
            !(weights_[static_cast<std::size_t>(k)] > 0.0f))
          continue;
        ids_[static_cast<std::size_t>(out)] = ids_[static_cast<std::size_t>(k)];
        weights_[static_cast<std::size_t>(out)] = weights_[static_cast<std::size_t>(k)];
        ++out;
      }
    }
    row_ptr_[static_cast<std::size_t>(rows_)] = out;
  }

  int rows() const { return rows_; }
  int begin(int r) const { return row_ptr_[static_cast<std::size_t>(r)]; }
  int end(int r) const { return row_ptr_[static_cast<std::size_t>(r) + 1]; }
  int nnz() const { return row_ptr_[static_cast<std::size_t>(rows_)]; }
  std::int64_t id(int k) const { return ids_[static_cast<std::size_t>(k)]; }
  float weight(int k) const { return weights_[static_cast<std::size_t>(k)]; }
  std::size_t capacity() const { return ids_.size(); }

 private:
  std::vector<int> row_ptr_{0};
  std::vector<std::int64_t> ids_;
  std::vector<float> weights_;
  int rows_ = 0;
  int open_ = 0;
};

class DenseRows;

struct FeatureBatch {
  int rows = 0;
  int dense_width = 0;
  // The dense values models read, rows x dense_width, row-major: either
  // contiguous at `dense_rows` (into `dense`, or into a cached block for
  // contiguous rows), or — when `dense_rows` is null — row dense_index[r] of
  // the cached block `dense_block` (models that take rows one by one read
  // shuffled batches without a copy).
  const float* dense_rows = nullptr;
  const DenseRows* dense_block = nullptr;
  const int* dense_index = nullptr;
  // Which rows of the data the batch holds (the session's indices), and how
  // many rows the data has (models may cache per-row results in a session).
  const int* row_ids = nullptr;
  std::int64_t data_rows = 0;
  // Whether no row id appears twice in the batch (set by the session from
  // its batcher; false when unknown).
  bool distinct_rows = false;
  // Whether the batch is every row of the data in order (row_ids[r] == r;
  // set by the session from its batcher; false when unknown).
  bool whole_in_order = false;
  // The examples' weights, one per batch row (set by the session in training
  // and evaluation when the input has a weight column; null: all 1).
  const float* example_weights = nullptr;
  // The labels, label_dim per batch row (set by the session in training and
  // evaluation; null in prediction).
  const float* labels = nullptr;
  std::vector<float> dense;       // storage for gathered or copied rows
  std::vector<SparseIds> sparse;  // one per id column, in column order
};

}  // namespace cppestimators
