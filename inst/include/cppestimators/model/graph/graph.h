// The graph of a custom estimator (R's estimator(model_fn)): the nodes a
// model_fn built with the package's `tf` object, run forward and
// differentiated in reverse mode by the engine.
//
// A graph arrives as a Spec of kind "graph" (R/tf_graph.R builds it):
//   lists "nodes": one Spec per node, in creation order (every input has a
//     smaller index, so the order is topological). A node's kind is its op;
//     nums "inputs" (indices of its input nodes), "shape" (its static shape,
//     -1 in the first dimension for the batch's rows; at most one -1),
//     strs "dtype" ("float32", "float64", "int32", "int64", "bool") and
//     "name" (TensorFlow's tensor name, for messages), and its attributes.
//   nums "loss": the node of the loss (a scalar), or absent / -1;
//   strs "prediction_names" and nums "prediction_nodes": predict()'s keys;
//   lists "metrics": kind (accuracy, auc, mean, mean_squared_error,
//     root_mean_squared_error, mean_absolute_error, precision, recall),
//     strs "name", nums "labels", "predictions", "weights" (nodes; -1: none;
//     `mean` reads its values from "predictions"), "num_thresholds" (auc);
//   strs "mode": "train", "eval" or "infer".
//
// Ops (attributes in brackets; "x" the first input, "y" the second):
//   input [columns]: the feature columns (indices in the model's columns)
//     concatenated in that order as a DNN's input layer reads them
//     (dense values, one-hot or multi-hot buckets, embeddings, whose
//     tables the model holds and trains); [rows, width]
//   labels: the batch's labels, [rows] or [rows, k]
//   constant [value: row-major values]; variable [var: its name]
//   element-wise, the table of ops.h: unary (relu, exp, ...; leaky_relu
//     [alpha]) and binary with numpy broadcasting (add, ..., pow; the
//     comparisons give bools and no gradient)
//   matmul [transpose_a, transpose_b]: 2-D only
//   softmax, log_softmax: over the last axis
//   reduce_sum reduce_mean reduce_max reduce_min [axes: none = all,
//     keep_dims]
//   reshape: the node's shape (squeeze and expand_dims too); the rows stay
//     rows: the values per row do not change
//   cast: to the node's dtype (to an integer: toward zero; to bool: != 0)
//   concat [axis]; argmax argmin [axis] (int64)
//   one_hot [depth, on_value, off_value]: a new last axis
//   dropout [rate]: inverted dropout wherever the node is (R builds it only
//     where TF would drop: tf$layers$dropout(training = TRUE), contrib's
//     dropout, whose is_training defaults to TRUE, tf$nn$dropout)
//   sigmoid_xent (labels, logits), softmax_xent (labels, logits: over the
//     last axis), sparse_softmax_xent (integer labels, logits),
//     log_poisson_loss (targets, log_input) [compute_full_loss]: the
//     element-wise losses are math/pointwise_loss.h's, the heads' own
//
// Execution: the nodes that depend on the labels (and the constants they
// read) run in the head (GraphHead), the others in the model (GraphModel).
// The model's "logits" are the frontier: the row-wise tensors of the model
// part that the label part reads, then the predictions, concatenated per
// row. Values are float, or double when the graph holds a float64 tensor
// (tfestimators passed data frames to custom models as float64 matrices);
// a double frontier value travels in the (float) logits as two floats, its
// float rounding and the rest, which keeps ~48 bits: predict() of a
// float64 softmax sums to 1 within 1e-14, as TensorFlow's does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../spec.h"
#include "ops.h"

namespace cppestimators {
namespace graph {

// The ops, from their table (ops.h).
#define CPPESTIMATORS_OP_ENUM(E, ...) E,
enum class Op {
  CPPESTIMATORS_GRAPH_OPS(CPPESTIMATORS_OP_ENUM, CPPESTIMATORS_OP_ENUM, CPPESTIMATORS_OP_ENUM)
};
#undef CPPESTIMATORS_OP_ENUM

enum class DType { Float32, Float64, Int32, Int64, Bool };

// The op of a node kind ("relu"); throws std::invalid_argument naming it
// when there is none.
Op op_of(const std::string& kind);
const char* op_name(Op op);
DType dtype_of(const std::string& name);
bool is_float(DType t);
// Whether the op passes gradients to its inputs.
bool differentiable(Op op);
// How many inputs it takes (-1: one or more).
int arity(Op op);
// Whether it is applied element by element to one input, or to two with
// broadcasting (ops.h's UNARY and BINARY).
bool is_unary(Op op);
bool is_binary(Op op);

struct Node {
  Op op = Op::Identity;
  std::vector<int> inputs;
  std::vector<std::int64_t> shape;  // -1 first: the batch's rows
  DType dtype = DType::Float32;
  std::string name;
  // attributes
  std::vector<double> value;  // constant
  std::vector<int> columns;   // input
  std::vector<int> axes;      // reductions (empty: all)
  std::string var;            // variable
  int param = -1;             // variable: the model's parameter index
  int axis = -1;              // concat, argmax/argmin
  bool keep_dims = false, transpose_a = false, transpose_b = false;
  bool full_loss = false;  // log_poisson_loss: Stirling's term
  double alpha = 0.2, rate = 0.0, depth = 0, on_value = 1, off_value = 0;

  bool batched() const { return !shape.empty() && shape[0] < 0; }
  // Values in one row (batched) or in all (not batched).
  std::int64_t per_row() const;
  // The shape with the rows filled in.
  std::vector<std::int64_t> dims(int rows) const;
  std::int64_t size(int rows) const { return batched() ? per_row() * rows : per_row(); }
};

// The metrics a graph's eval_metric_ops may hold (R's tf$metrics).
enum class MetricKind {
  Accuracy,
  Mean,
  MeanSquaredError,
  RootMeanSquaredError,
  MeanAbsoluteError,
  Precision,
  Recall,
  Auc
};
// The kind of a metric's name ("auc"); throws std::invalid_argument naming
// it when there is none.
MetricKind metric_of(const std::string& kind);

struct MetricSpec {
  MetricKind kind = MetricKind::Mean;
  std::string name;
  int labels = -1, predictions = -1, weights = -1;
  int num_thresholds = 200;
};

// Where a node runs.
enum class Side { Model, Head };

struct Graph {
  std::string mode;
  std::vector<Node> nodes;
  int loss = -1;
  int labels = -1;  // the labels node, if any
  std::vector<std::string> prediction_names;
  std::vector<int> prediction_nodes;
  std::vector<MetricSpec> metrics;

  // Filled by analyse():
  std::vector<Side> side;
  std::vector<char> model_needed;  // model-side nodes the frontier needs
  std::vector<char> head_needed;   // head-side nodes the loss or metrics need
  std::vector<char> model_grad;    // model nodes a trainable variable's gradient flows through
  std::vector<char> head_grad;     // head nodes through which the loss reaches the frontier
  std::vector<int> frontier;       // model nodes the head reads, then predictions
  std::vector<std::int64_t> frontier_offset;  // their offsets in a row of logits
  std::int64_t frontier_width = 0;            // floats per row of logits
  int pack = 1;                               // floats per frontier value (2: double)
  bool needs_double = false;
};

// Parses and checks a graph spec; `n_columns`: the model's feature columns.
// Throws std::invalid_argument naming the node at fault.
Graph parse_graph(const Spec& spec, int n_columns);

// Splits the graph between the model and the head and lays out the
// frontier; `trains[i]`: whether node i is a variable whose parameter
// trains. Throws std::invalid_argument for graphs the split cannot run
// (the loss reads a variable after the labels, predictions that read the
// labels, a tensor of the model part that the head reads without rows).
// `in_double`: whether values are doubles (then pack = 2).
void analyse(Graph& g, const std::vector<char>& trains, bool in_double);

}  // namespace graph
}  // namespace cppestimators
