// TF's DNN (dnn_regressor / dnn_classifier): an input layer that
// concatenates, in sorted column-name order, numeric values, one-hot
// (bucketized) and multi-hot (indicator) vectors and combined embeddings;
// then hidden layers h = activation(h W + b), each followed in training by
// inverted dropout; then the logits layer. Kernels are Glorot-uniform, biases
// zero, embedding tables truncated normal; variables live under "dnn/".
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../features/feature_batch.h"
#include "../spec.h"
#include "layers/activation.h"
#include "layers/input_layer.h"
#include "mode.h"
#include "model.h"
#include "parameter.h"

namespace cppestimators {

class DnnModel : public Model {
 public:
  DnnModel(const Spec& spec, int units);

  std::string kind() const override;
  std::vector<std::string> groups() const override;
  int input_width() const { return input_.width(); }

  std::unique_ptr<Workspace> new_workspace(const FeatureBatch& batch, int max_rows,
                                           int threads) const override;

  void forward(const FeatureBatch& batch, Mode mode, Workspace& base, float* logits) const override;

  const std::vector<Gradient>& backward(const FeatureBatch& batch, const float* dlogits,
                                        Workspace& base) override;

  int explained_input_width() const override { return input_.width(); }
  bool input_rows(const FeatureBatch& batch, float* x) const override;
  bool integrated_gradients(const FeatureBatch& batch, const float* baseline, int steps,
                            int threads, double* out) const override;

 private:
  struct Work : Workspace {
    std::vector<float> x, dx, da, dz, dz2;
    std::vector<std::vector<float>> z, a, out, gw, gb;
    std::vector<std::vector<unsigned char>> kept;  // dropout: which outputs were kept
    InputLayer::Scratch input;
    std::vector<Gradient> grads;
    bool last_dropout = false;
    // the first layer's kernel gradient by rows (sparse inputs): the rows'
    // indices, their values, and which rows this step touched
    std::vector<std::int64_t> g_rows, touched;
    std::vector<float> g_values;
    std::vector<std::uint32_t> stamp;
    std::uint32_t step = 0;
  };

  static const float* layer_output(const Work& ws, std::size_t k);

  // The hidden layers and logits of n input-layer rows x (no dropout),
  // the layers' values kept in ws; then the gradient of logit `logit` of
  // each row with respect to its input row, into dx (n x input width).
  void forward_from(const float* x, int n, Work& ws, float* logits) const;
  void input_gradient(int n, int logit, Work& ws, float* dx) const;

  std::vector<int> input_columns_;  // each input-layer column's index in the feature set
  // integrated_gradients(): the largest gap between a row's contributions
  // and its logit before the row is integrated again with 4x the steps
  static constexpr double kGap = 1e-4;
  static constexpr int kRefinements = 4;

  // out = in W_k + b_k, rows split over threads when the product is large;
  // each row starts as the bias and the product is added to it
  // When `activated` is given, the activation of each row goes there too.
  void dense(const float* in, int rows, int fan_in, std::size_t k, float* out, const Work& ws,
             float* activated = nullptr) const;

  // Threads for a product of rows x fan_in x units multiply-adds: one unless
  // it is large enough to pay for waking the others.
  static int threads_for(const Work& ws, int rows, int fan_in, int units);
  static constexpr double kParallelMacs = 1 << 18;

  // A first layer over sparse inputs: a sparse matrix's column
  // (column_numeric(sparse = TRUE)) and indicator columns of at least
  // kSparseInputWidth buckets are left out of the input block; their ids
  // add weight x kernel row to the first layer (a sparse x dense product)
  // and their kernel rows' gradients are summed the same way, so a step
  // costs their non-zeros, not rows x width. The kernel and the model are
  // the dense input layer's (explanations still read the whole block).
  static constexpr int kSparseInputWidth = 4096;
  struct Segment {
    int compact, full, width;  // offsets in the input block and in the kernel's rows
  };
  struct SparseInput {
    int slot, full;  // the batch's sparse slot, the first kernel row
  };
  std::vector<int> block_columns_;   // the input-layer columns in the block (all if none sparse)
  std::vector<Segment> segments_;    // the block's runs of kernel rows
  std::vector<SparseInput> sparse_;  // the columns read sparse
  int block_width_ = 0;
  // z = x W_0 + b_0 (x: the block) plus the sparse inputs' rows, then the
  // activation into `activated`
  void first_layer(const FeatureBatch& batch, const float* x, int rows, Work& ws) const;
  // The first layer's kernel gradient by rows (the block's and the rows of
  // the batch's ids: a zero_elsewhere gradient); and, when dx is given, the
  // block's gradient dZ W_0^T
  Gradient first_layer_gradient(const FeatureBatch& batch, const float* x, int rows,
                                const float* dz, float* dx, Work& ws) const;

  Activation act_;
  double dropout_;
  std::vector<int> hidden_;
  InputLayer input_;
  std::vector<Parameter*> kernels_, biases_;
};

}  // namespace cppestimators
