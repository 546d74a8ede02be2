// TF's input_layer(): the dense view of feature columns, side by side in
// the order they were appended — numeric values, one-hot (bucketized) and
// multi-hot (indicator) weights, and combined embeddings. The canned DNN
// appends its columns in sorted name order; a custom estimator's model
// appends the columns its model_fn's input layers read, and each input node
// writes a subset of them. An embedding column's table is a parameter of
// the model that owns the layer, named `<scope><column>/embedding_weights`.
// Categorical columns (linear models' sparse ids) have no dense view:
// width_of() gives -1 for them and append() refuses them.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../../features/feature_batch.h"
#include "../../features/feature_set.h"
#include "../embedding_lookup.h"
#include "../parameter.h"

namespace cppestimators {

class InputLayer {
 public:
  struct Column {
    enum Kind { Dense, Hot, Embedded } kind = Dense;
    int width = 0;
    int offset = 0;  // in the whole layer (all columns appended)
    int source = 0;  // offset in the batch's dense block, or its sparse slot
    std::shared_ptr<EmbeddingLookup> lookup;  // embedding columns: their table
  };
  // A session's scratch for the embedding columns.
  struct Scratch {
    struct Embedded {
      EmbeddingLookup::Scratch lookup;
      std::vector<float> values;  // rows x width: the combined vectors, then their gradient
    };
    std::vector<Embedded> emb;  // per column (used by embedding columns only)
  };
  using AddParameter = std::function<Parameter&(Parameter)>;

  // The column's width in an input layer: numeric values their count,
  // bucketized and indicator columns their buckets, embeddings their
  // dimension; -1 for a categorical column.
  static int width_of(const FeatureTransform& c);

  // Appends column i of `features`; an embedding column's table is
  // registered through `add`.
  void append(const FeatureSet& features, std::size_t i, const std::string& table_scope,
              const AddParameter& add);

  std::size_t size() const { return columns_.size(); }
  const Column& column(std::size_t c) const { return columns_[c]; }
  int width() const { return width_; }
  bool has_trainable_embedding() const;

  void reserve(Scratch& s, const FeatureBatch& batch, int max_rows) const;

  // Writes the batch's values of the columns `which` (indices of this layer,
  // in that order; null: every column) side by side into `out`, a block of
  // rows x stride starting at its first column.
  void forward(const FeatureBatch& batch, const std::vector<int>* which, float* out,
               std::size_t stride, Scratch& s) const;

  // From `d`, the gradient of the block forward() wrote, the gradients of
  // the trainable embedding tables among `which`, appended to `grads`.
  template <class T>
  void backward(const FeatureBatch& batch, const std::vector<int>* which, const T* d,
                std::size_t stride, Scratch& s, std::vector<Gradient>& grads) const;

 private:
  // Calls f(column index, offset in the block) for each column of `which`.
  template <class F>
  void each(const std::vector<int>* which, F f) const {
    std::size_t offset = 0;
    const std::size_t n = which != nullptr ? which->size() : columns_.size();
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t c = which != nullptr ? static_cast<std::size_t>((*which)[k]) : k;
      f(c, offset);
      offset += static_cast<std::size_t>(columns_[c].width);
    }
  }

  std::vector<Column> columns_;
  int width_ = 0;
};

}  // namespace cppestimators
