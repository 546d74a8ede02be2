// An embedding column in a model: looks up each row's ids in a table and
// combines them with their weights — "sum": sum(w e); "mean": sum(w e) /
// sum(w); "sqrtn": sum(w e) / sqrt(sum(w^2)) — optionally clipping each row
// of the table to `max_norm` first. A row without ids gives zeros. The
// backward pass scatters into the rows looked up (a sparse gradient); the
// clipping factor is treated as a constant there.
#pragma once
#include <vector>

#include "../features/feature_batch.h"
#include "../features/transform.h"
#include "parameter.h"
#include "sparse_grad.h"

namespace cppestimators {

class EmbeddingLookup {
 public:
  EmbeddingLookup(const EmbeddingParams& p, Parameter* table);
  int dimension() const { return p_.dimension; }
  bool trainable() const { return p_.trainable; }

  // Scratch of one session.
  struct Scratch {
    std::vector<float> coef;  // per id of the batch
    SparseGrad grad;
  };
  void reserve(Scratch& s, const SparseIds& ids) const;

  // out: rows x dimension.
  void forward(const SparseIds& ids, Scratch& s, float* out) const;

  // dout: rows x dimension, the gradient of the combined vectors.
  void backward(const SparseIds& ids, Scratch& s, const float* dout, Gradient& g) const;

 private:
  EmbeddingParams p_;
  Parameter* table_;
};

}  // namespace cppestimators
