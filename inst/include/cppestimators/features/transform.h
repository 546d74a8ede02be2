// The feature-transform interface: one class per kind of feature column.
// A transform is built from its spec once per estimator; bind() resolves it
// against one session's data (checking types, shapes and missing values up
// front) and returns a bound reader that fills a batch without allocating.
// Columns either yield dense values (numeric) or ids with weights (every
// categorical kind and the wrappers around them); models decide how to use
// them through role().
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "../data/dataset.h"
#include "../spec.h"
#include "feature_batch.h"

namespace cppestimators {

enum class ColumnRole {
  Dense,        // numeric values
  Categorical,  // ids: sparse weights in a linear model, refused by input layers
  Indicator,    // ids read as a multi-hot vector of num_buckets values
  Embedding     // ids looked up in a trainable table and combined
};

// Settings of an embedding column.
struct EmbeddingParams {
  int dimension = 1;
  std::string combiner = "mean";  // "mean", "sqrtn" or "sum"
  double max_norm = 0.0;          // <= 0: no clipping
  bool trainable = true;
  double init_stddev = 1.0;  // truncated normal, redrawn beyond 2 sd
};

class BoundDense {
 public:
  virtual ~BoundDense() = default;
  // Writes row rows[r]'s values at out + r * stride. Safe to call from
  // several threads at once for different rows (a cached block is built so).
  virtual void gather(const int* rows, int count, float* out, int stride) = 0;
};

class BoundIds {
 public:
  virtual ~BoundIds() = default;
  // An upper bound on the ids one row yields.
  virtual std::int64_t max_ids_per_row() const = 0;
  // Appends one CSR row per requested row to `out` (which the caller cleared).
  // Ids are not pruned: a crossed column hashes them as they are.
  virtual void gather(const int* rows, int count, SparseIds& out) = 0;
  // From now on, every value of a row takes a position in its CSR row, id -1
  // (pruned later) when it yields none, so that a parallel list of weights
  // lines up with the ids (column_categorical_weighted()). Columns whose
  // values always yield one id each need not do anything.
  virtual void keep_positions() {}
  // A column that holds its values column by column (a sparse matrix's
  // compressed columns) describes them: position k's non-zeros are entries
  // p[k] .. p[k + 1] of i (rows, ascending) and x, each divided by
  // scale[k] when scale is not null (as gather() gives them). False: the
  // caller gathers rows.
  struct ColumnMajor {
    const int* p = nullptr;
    const int* i = nullptr;
    const double* x = nullptr;
    const double* scale = nullptr;
    std::int64_t width = 0;
  };
  virtual bool column_major(ColumnMajor& /*out*/) const { return false; }
};

class FeatureTransform {
 public:
  explicit FeatureTransform(const Spec& spec) : name_(spec.str("name")) {}
  virtual ~FeatureTransform() = default;
  const std::string& name() const { return name_; }
  // The R constructor this column comes from, for messages.
  virtual std::string constructor() const = 0;
  virtual ColumnRole role() const = 0;

  // Dense columns.
  virtual int dense_width() const { return 0; }
  virtual std::unique_ptr<BoundDense> bind_dense(const Dataset&) const {
    throw std::logic_error("feature column '" + name_ + "' has no dense values");
  }
  // Columns that yield ids.
  virtual std::int64_t num_buckets() const { return 0; }
  virtual std::unique_ptr<BoundIds> bind_ids(const Dataset&) const {
    throw std::logic_error("feature column '" + name_ + "' yields no ids");
  }
  // A bucketized column is categorical, and input layers may also read it
  // as a one-hot vector.
  virtual bool one_hot_ok() const { return false; }
  // A sparse numeric column (column_numeric(sparse = TRUE)): its ids are the
  // positions of a row's non-zero values and its weights the values, read
  // by models as the numbers they are (never pruned: a value may be < 0).
  virtual bool sparse_numeric() const { return false; }
  virtual const EmbeddingParams* embedding() const { return nullptr; }

 private:
  std::string name_;
};

// Builds the transform of a column spec (src/engine/features/registry.cpp).
std::unique_ptr<FeatureTransform> make_transform(const Spec& spec);

// A transform that must yield ids (the input of a wrapper or a cross);
// `user` names the column that needs it, for the message.
std::unique_ptr<FeatureTransform> make_categorical(const Spec& spec, const std::string& user);

}  // namespace cppestimators
