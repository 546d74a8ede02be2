// Trainable state: a parameter is one float buffer (with its optimizer
// slots) that one or more named variables view, e.g. the dense weights of
// every numeric column of a linear model packed into one block. Gradients
// are dense (a buffer the size of the parameter) or sparse (distinct rows
// with one gradient row each), as TF's IndexedSlices.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cppestimators {

enum class Init {
  Zeros,
  TruncatedNormal,
  GlorotUniform,
  Constant,
  Normal,   // init_offset + init_scale * N(0, 1)
  Uniform,  // init_offset + init_scale * U[0, 1)
  Values    // init_values, repeated over the value when shorter
};          // Constant: init_scale everywhere

struct ParamView {
  std::string name;        // TF variable name, e.g. "linear/linear_model/x/weights"
  std::vector<int> shape;  // e.g. {inputs, units}
  std::size_t offset = 0;  // in floats
  std::size_t size = 0;
};

struct Parameter {
  std::vector<ParamView> views;
  std::vector<float> value;
  std::size_t row_width = 1;  // floats per row, for sparse updates
  int group = 0;              // which optimizer updates it
  bool trainable = true;
  Init init = Init::Zeros;
  double init_scale = 0.0;         // truncated normal: sd; Glorot uniform: limit
  double init_offset = 0.0;        // truncated normal, normal: mean; uniform: minimum
  std::vector<float> init_values;  // Init::Values
  // false: the optimizer's L1/L2 penalties leave it alone (a bias fitted as
  // glmnet fits its intercept)
  bool regularized = true;
  // Its one view's first dimension grows with training (the node arrays of
  // the histogram trees): checkpoints of any length restore into it, and
  // initialization empties it. Never trainable.
  bool growable = false;
  // A checkpoint without it restores (growable ones then emptied): a
  // variable added after checkpoints of its model were written.
  bool optional = false;
  // Box constraints, per value (empty: none): every optimizer update ends
  // by clamping the values it changed into [lower, upper] (a projected
  // step; FTRL's per-coordinate solution under the box, exactly).
  std::vector<float> lower, upper;
  std::vector<std::vector<float>> slots;

  // A parameter seen as one variable of the given shape.
  static Parameter single(const std::string& name, std::vector<int> shape, int group = 0);
  std::size_t rows() const { return value.size() / row_width; }
};

struct Gradient {
  Parameter* param = nullptr;
  bool sparse = false;
  const float* dense = nullptr;        // param->value.size() values
  const std::int64_t* rows = nullptr;  // sparse: distinct, ascending row indices
  const float* values = nullptr;       // sparse: count x row_width
  std::size_t count = 0;
  // sparse: the gradient of a dense variable whose other rows have a zero
  // gradient (a DNN kernel's rows of ids no row of the batch holds). Applied
  // by rows when the optimizer leaves such rows as they are
  // (Optimizer::keeps_rows_without_gradient()), else densely, as the dense
  // gradient it is.
  bool zero_elsewhere = false;
};

// Sets a growable parameter's length (first dimension `rows`, its other
// dimensions kept).
void resize_growable(Parameter& p, std::size_t rows);

// A dense gradient of `p` held in `g` (p.value.size() values).
Gradient dense_gradient(Parameter& p, const std::vector<float>& g);

}  // namespace cppestimators
