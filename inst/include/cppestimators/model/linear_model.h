// TF's linear model (linear_model with sparse_combiner = "sum"):
//   logits = X W + sum over id columns of sum_k w_k W_c[id_k] + E W_e + b
// where X holds the numeric columns (one packed weight block, a variable
// per column), id columns (categorical, bucketized, crossed, weighted,
// indicator) get one weight row per bucket updated sparsely, and embedding
// columns are dense inputs of `dimension` values with a trainable table.
// Weights start at zero; variables live under "linear/linear_model/".
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../features/feature_batch.h"
#include "../spec.h"
#include "coordinate_descent.h"
#include "embedding_lookup.h"
#include "mode.h"
#include "model.h"
#include "parameter.h"
#include "sparse_grad.h"

namespace cppestimators {

class LinearModel : public Model {
 public:
  static constexpr const char* kScope = "linear/linear_model/";
  static constexpr int kChunk = 256;  // rows per product: a chunk of copied rows stays in cache
  static constexpr std::size_t kParallelValues = 1
                                                 << 16;  // dense values of a batch worth 2 threads

  LinearModel(const Spec& spec, int units);

  std::string kind() const override;
  bool reads_dense_rows_by_index() const override;
  // With the coordinate-descent solver (spec "solver"), training copies the
  // rows once when its session starts and its steps read no batch features.
  bool reads_batch_features(Mode mode, bool whole) const override;
  bool reads_training_batches() const override;
  void begin_session(FeatureSet::Binding& binding, std::int64_t n, const DenseRows* block,
                     Mode mode, int threads) override;
  std::vector<std::string> groups() const override;

  std::unique_ptr<Workspace> new_workspace(const FeatureBatch& batch, int max_rows,
                                           int threads) const override;

  void forward(const FeatureBatch& batch, Mode, Workspace& base, float* logits) const override;

  const std::vector<Gradient>& backward(const FeatureBatch& batch, const float* dlogits,
                                        Workspace& base) override;

  // Each feature column's term of the logits (its weights times its values,
  // or its ids' weights summed), and the bias as the baseline: the terms
  // still to be centred on their means (R/explain.R). No interactions.
  bool explain(const FeatureBatch& batch, int threads, double* out,
               Explanation kind = Explanation::Contributions) const override;

 private:
  // The spec's lower_limits / upper_limits (per column, by name) as box
  // constraints of the column's weights (model/parameter.h).
  void limits(const Spec& spec);
  // Trains by the coordinate-descent solver (coordinate_descent.h).
  void solve_by_coordinates(const Spec& spec);

  struct Sparse {
    int slot;
    Parameter* weights;
    int column;  // in the feature set
  };
  struct Embedded {
    int slot;
    EmbeddingLookup lookup;
    Parameter* weights;
    int column;
  };
  struct EmbeddedWork {
    EmbeddingLookup::Scratch scratch;
    std::vector<float> out, dout, g_weights;
  };
  struct Work : Workspace {
    std::vector<float> g_dense, g_bias, chunk, partial;
    int chunk_rows = kChunk;  // rows of `chunk` per thread
    // the size of `chunk` once a batch reads rows by index (0: never; it is
    // allocated then: a session over rows in order never needs it)
    std::size_t chunk_size = 0;
    // which rows `chunk` holds (reset by every forward pass)
    const FeatureBatch* chunk_batch = nullptr;
    const int* chunk_index = nullptr;
    int chunk_start = -1;
    std::vector<SparseGrad> sparse;
    std::vector<EmbeddedWork> embedded;
    std::vector<Gradient> grads;
  };
  // Rows [start, start + count) of the batch's dense values, contiguous: in
  // place, or copied (one memcpy per row) from a cached block into thread
  // t's chunk buffer. `reuse`: one thread, so the buffer may still hold them.
  static const float* dense_chunk(const FeatureBatch& b, int start, int count, Work& ws, int t,
                                  bool reuse);
  // The chunk buffers, allocated the first time a batch reads rows by index.
  static void ready_chunks(const FeatureBatch& b, Work& ws) {
    if (b.dense_rows == nullptr && ws.chunk.size() < ws.chunk_size)
      ws.chunk.assign(ws.chunk_size, 0.0f);
  }
  // How a batch's dense products are cut: chunks of at most kChunk rows, and
  // at least one chunk per thread when the batch holds enough values to pay
  // for waking other threads. A function of (rows, width, threads) only, so
  // contiguous and cached rows are cut alike.
  struct Split {
    int threads, rows, chunks;
  };
  static Split split(const Work& ws, int rows, int d);

  Parameter* dense_ = nullptr;
  std::vector<std::pair<std::size_t, std::size_t>> unused_dense_;  // (offset, size) in dense_
  Parameter* bias_ = nullptr;
  std::vector<Sparse> sparse_;
  std::vector<Embedded> embedded_;
  std::unique_ptr<CoordinateDescent> solver_;  // null: gradient steps
};

}  // namespace cppestimators
