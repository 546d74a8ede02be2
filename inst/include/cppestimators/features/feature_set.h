// The feature columns of a model, in sorted name order (as TF's linear_model
// and input_layer iterate them): built once per estimator, bound once per
// session, and gathered batch by batch into a FeatureBatch. Dense columns
// sit side by side in the batch's dense block; every other column gets its
// own CSR slot, pruned of invalid ids (< 0) and weights (<= 0).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../data/dataset.h"
#include "../spec.h"
#include "feature_batch.h"
#include "transform.h"

namespace cppestimators {

// Rows of dense values, row-major (the cached block of features/dense_block.h).
class DenseRows {
 public:
  virtual ~DenseRows() = default;
  virtual const float* row(std::int64_t r) const = 0;
};

class FeatureSet {
 public:
  struct Binding {
    std::vector<std::unique_ptr<BoundDense>> dense;  // per column (null for id columns)
    std::vector<std::unique_ptr<BoundIds>> ids;      // per column (null for dense columns)
  };

  explicit FeatureSet(const std::vector<Spec>& specs);

  std::size_t size() const { return columns_.size(); }
  const FeatureTransform& column(std::size_t i) const { return *columns_[i]; }
  int dense_width() const { return dense_width_; }
  int dense_offset(std::size_t i) const { return dense_offset_[i]; }
  int sparse_slot(std::size_t i) const { return sparse_slot_[i]; }
  int sparse_count() const { return sparse_count_; }

  // For models whose input layer needs dense values (DNNs): every column must
  // be numeric, bucketized, an indicator or an embedding (TF's message).
  // `only`: the names of the columns to check (empty: all).
  void require_dense(const std::string& model, const std::vector<std::string>& only = {}) const;

  std::unique_ptr<Binding> bind(const Dataset& data) const;

  // Sizes `batch` for batches of up to `rows` rows; `dense_buffer`: whether
  // dense rows are gathered or copied into the batch (not needed when they are
  // read from a cached block by a model that takes rows one by one).
  void allocate(const Binding& b, int rows, FeatureBatch& batch, bool dense_buffer = true) const;

  // Grows the batch's id slots where a new binding (a streamed window) may
  // yield more ids per row than the one it was sized for.
  void ensure_capacity(const Binding& b, int rows, FeatureBatch& batch) const;

  // The dense columns of the given rows into `out` (count x dense_width).
  void gather_dense(Binding& b, const int* rows, int count, float* out) const;

  // `block`: the dense columns of every row, or null to gather them from the
  // data column by column. `in_order`: the caller knows that `rows` are
  // 0, 1, ..., count - 1 (else it is checked).
  void gather(Binding& b, const int* rows, int count, FeatureBatch& batch,
              const DenseRows* block = nullptr, bool in_order = false) const;

 private:
  static bool contiguous(const int* rows, int count);

  std::vector<std::unique_ptr<FeatureTransform>> columns_;
  std::vector<int> dense_offset_, sparse_slot_;
  int dense_width_ = 0, sparse_count_ = 0;
};

}  // namespace cppestimators
