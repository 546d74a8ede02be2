#include <cppestimators/model/graph/graph.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace cppestimators {
namespace graph {

namespace {

// What ops.h says of each op, in the enum's order.
struct OpFacts {
  const char* name;
  int arity;
  bool differentiable;
  char family;  // 'o' other, 'u' unary, 'b' binary
};

#define CPPESTIMATORS_OP_FACTS(E, name, arity, diff) {name, arity, diff, 'o'},
#define CPPESTIMATORS_UNARY_FACTS(E, name, F, diff) {name, 1, diff, 'u'},
#define CPPESTIMATORS_BINARY_FACTS(E, name, F, diff) {name, 2, diff, 'b'},
constexpr OpFacts kOps[] = {CPPESTIMATORS_GRAPH_OPS(
    CPPESTIMATORS_OP_FACTS, CPPESTIMATORS_UNARY_FACTS, CPPESTIMATORS_BINARY_FACTS)};
#undef CPPESTIMATORS_OP_FACTS
#undef CPPESTIMATORS_UNARY_FACTS
#undef CPPESTIMATORS_BINARY_FACTS
constexpr std::size_t kOpCount = sizeof(kOps) / sizeof(kOps[0]);

const OpFacts& facts(Op op) { return kOps[static_cast<std::size_t>(op)]; }

std::string where(const Node& n, std::size_t i) {
  return "graph node " + std::to_string(i) + " ('" + n.name + "', " + op_name(n.op) + ")";
}

std::vector<int> ints(const Spec& s, const char* field) {
  std::vector<int> out;
  auto it = s.nums.find(field);
  if (it == s.nums.end()) return out;
  for (double v : it->second) out.push_back(static_cast<int>(v));
  return out;
}

}  // namespace

Op op_of(const std::string& kind) {
  for (std::size_t i = 0; i < kOpCount; ++i)
    if (kind == kOps[i].name) return static_cast<Op>(i);
  throw std::invalid_argument("the engine has no graph op '" + kind + "'");
}

const char* op_name(Op op) {
  return static_cast<std::size_t>(op) < kOpCount ? facts(op).name : "?";
}

int arity(Op op) { return facts(op).arity; }

bool is_unary(Op op) { return facts(op).family == 'u'; }

bool is_binary(Op op) { return facts(op).family == 'b'; }

MetricKind metric_of(const std::string& kind) {
  static const std::pair<const char*, MetricKind> kinds[] = {
      {"accuracy", MetricKind::Accuracy},
      {"mean", MetricKind::Mean},
      {"mean_squared_error", MetricKind::MeanSquaredError},
      {"root_mean_squared_error", MetricKind::RootMeanSquaredError},
      {"mean_absolute_error", MetricKind::MeanAbsoluteError},
      {"precision", MetricKind::Precision},
      {"recall", MetricKind::Recall},
      {"auc", MetricKind::Auc}};
  for (const auto& k : kinds)
    if (kind == k.first) return k.second;
  throw std::invalid_argument("unknown metric kind '" + kind + "'");
}

DType dtype_of(const std::string& name) {
  if (name == "float32") return DType::Float32;
  if (name == "float64") return DType::Float64;
  if (name == "int32") return DType::Int32;
  if (name == "int64") return DType::Int64;
  if (name == "bool") return DType::Bool;
  throw std::invalid_argument("unknown dtype '" + name + "'");
}

bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64; }

bool differentiable(Op op) { return facts(op).differentiable; }

std::int64_t Node::per_row() const {
  std::int64_t n = 1;
  for (std::size_t d = batched() ? 1 : 0; d < shape.size(); ++d) n *= shape[d];
  return n;
}

std::vector<std::int64_t> Node::dims(int rows) const {
  std::vector<std::int64_t> d = shape;
  if (batched()) d[0] = rows;
  return d;
}

Graph parse_graph(const Spec& spec, int n_columns) {
  Graph g;
  g.mode = spec.str_or("mode", "train");
  const auto& nodes = spec.children("nodes");
  g.nodes.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Spec& s = nodes[i];
    Node n;
    n.op = op_of(s.kind);
    n.name = s.str_or("name", s.kind);
    n.dtype = dtype_of(s.str_or("dtype", "float32"));
    n.inputs = ints(s, "inputs");
    if (s.nums.count("shape"))
      for (double d : s.numbers("shape")) n.shape.push_back(static_cast<std::int64_t>(d));
    for (std::size_t d = 0; d < n.shape.size(); ++d)
      if (n.shape[d] < (d == 0 ? -1 : 0))
        throw std::invalid_argument(where(n, i) + ": only its first dimension may be unknown");
    const int want = arity(n.op);
    if ((want >= 0 && static_cast<int>(n.inputs.size()) != want) || (want < 0 && n.inputs.empty()))
      throw std::invalid_argument(where(n, i) + ": wrong number of inputs");
    for (int in : n.inputs)
      if (in < 0 || in >= static_cast<int>(i))
        throw std::invalid_argument(where(n, i) + ": an input is not an earlier node");
    if (s.nums.count("value")) n.value = s.numbers("value");
    n.columns = ints(s, "columns");
    n.axes = ints(s, "axes");
    n.var = s.str_or("var", "");
    n.axis = static_cast<int>(s.num_or("axis", -1));
    n.keep_dims = s.flag_or("keep_dims", false);
    n.transpose_a = s.flag_or("transpose_a", false);
    n.transpose_b = s.flag_or("transpose_b", false);
    n.full_loss = s.flag_or("compute_full_loss", false);
    n.alpha = s.num_or("alpha", 0.2);
    n.rate = s.num_or("rate", 0.0);
    n.depth = s.num_or("depth", 0.0);
    n.on_value = s.num_or("on_value", 1.0);
    n.off_value = s.num_or("off_value", 0.0);
    switch (n.op) {
      case Op::Constant:
        if (n.batched() || static_cast<std::int64_t>(n.value.size()) != n.per_row())
          throw std::invalid_argument(where(n, i) + ": its values do not fill its shape");
        break;
      case Op::Input:
        for (int c : n.columns)
          if (c < 0 || c >= n_columns)
            throw std::invalid_argument(where(n, i) + ": a column index is out of range");
        if (!n.batched() || n.shape.size() != 2)
          throw std::invalid_argument(where(n, i) + ": an input layer is [rows, width]");
        break;
      case Op::Labels:
        if (!n.batched() || n.shape.size() > 2)
          throw std::invalid_argument(where(n, i) + ": labels are [rows] or [rows, k]");
        if (g.labels >= 0) throw std::invalid_argument(where(n, i) + ": a second labels node");
        g.labels = static_cast<int>(i);
        break;
      case Op::Variable:
        if (n.var.empty()) throw std::invalid_argument(where(n, i) + ": no variable name");
        break;
      case Op::Dropout:
        if (!(n.rate >= 0.0 && n.rate < 1.0))
          throw std::invalid_argument(where(n, i) + ": the dropout rate must be in [0, 1)");
        break;
      case Op::MatMul:
        if (n.shape.size() != 2) throw std::invalid_argument(where(n, i) + ": matmul is 2-D");
        break;
      default:
        break;
    }
    if (n.dtype == DType::Float64) g.needs_double = true;
    g.nodes.push_back(std::move(n));
  }
  const int count = static_cast<int>(g.nodes.size());
  g.loss = static_cast<int>(spec.num_or("loss", -1));
  if (g.loss >= count) throw std::invalid_argument("the graph's loss is not one of its nodes");
  if (g.loss >= 0 && g.nodes[static_cast<std::size_t>(g.loss)].per_row() != 1)
    throw std::invalid_argument("the loss must be a scalar, not '" +
                                g.nodes[static_cast<std::size_t>(g.loss)].name + "'");
  if (g.loss >= 0 && g.nodes[static_cast<std::size_t>(g.loss)].batched())
    throw std::invalid_argument("the loss must be a scalar, not a tensor with a value per row ('" +
                                g.nodes[static_cast<std::size_t>(g.loss)].name + "')");
  if (spec.strs.count("prediction_names")) g.prediction_names = spec.strings("prediction_names");
  g.prediction_nodes = ints(spec, "prediction_nodes");
  if (g.prediction_names.size() != g.prediction_nodes.size())
    throw std::invalid_argument("the graph's predictions need one name per node");
  for (int p : g.prediction_nodes)
    if (p < 0 || p >= count) throw std::invalid_argument("a prediction is not a node of the graph");
  for (const Spec& m : spec.children("metrics")) {
    MetricSpec ms;
    ms.kind = metric_of(m.kind);
    ms.name = m.str_or("name", m.kind);
    ms.labels = static_cast<int>(m.num_or("labels", -1));
    ms.predictions = static_cast<int>(m.num_or("predictions", -1));
    ms.weights = static_cast<int>(m.num_or("weights", -1));
    ms.num_thresholds = static_cast<int>(m.num_or("num_thresholds", 200));
    for (int v : {ms.labels, ms.predictions, ms.weights})
      if (v >= count) throw std::invalid_argument("metric '" + ms.name + "' reads no node");
    if (ms.predictions < 0)
      throw std::invalid_argument("metric '" + ms.name + "' has no predictions");
    g.metrics.push_back(ms);
  }
  return g;
}

void analyse(Graph& g, const std::vector<char>& trains, bool in_double) {
  g.pack = in_double ? 2 : 1;
  const std::size_t n = g.nodes.size();
  // which nodes read the labels (directly or through others)
  std::vector<char> on_labels(n, 0), on_data(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& x = g.nodes[i];
    on_labels[i] = x.op == Op::Labels;
    on_data[i] = x.op == Op::Input || x.op == Op::Variable;
    for (int in : x.inputs) {
      on_labels[i] = on_labels[i] || on_labels[static_cast<std::size_t>(in)];
      on_data[i] = on_data[i] || on_data[static_cast<std::size_t>(in)];
    }
  }
  g.side.assign(n, Side::Model);
  for (std::size_t i = 0; i < n; ++i) g.side[i] = on_labels[i] ? Side::Head : Side::Model;
  // the head's roots: the loss and the metrics' inputs
  std::vector<int> head_roots;
  if (g.loss >= 0) head_roots.push_back(g.loss);
  for (const MetricSpec& m : g.metrics)
    for (int v : {m.labels, m.predictions, m.weights})
      if (v >= 0) head_roots.push_back(v);
  g.head_needed.assign(n, 0);
  g.model_needed.assign(n, 0);
  std::vector<char> read_by_head(n, 0);
  for (int r : head_roots) g.head_needed[static_cast<std::size_t>(r)] = 1;
  for (std::size_t i = n; i-- > 0;) {
    if (!g.head_needed[i]) continue;
    const Node& x = g.nodes[i];
    // a node of the model part that the head needs: the head reads it
    // (batched) or recomputes it (constants, which read nothing batched)
    if (g.side[i] == Side::Model && on_data[i]) {
      g.head_needed[i] = 0;
      read_by_head[i] = 1;
      continue;
    }
    for (int in : x.inputs) g.head_needed[static_cast<std::size_t>(in)] = 1;
  }
  // the frontier: what the head reads of the model part; a tensor without
  // rows (the loss itself, a penalty on the weights) goes in every row of
  // the logits, the head reads the first and its gradient comes back there
  g.frontier.clear();
  for (std::size_t i = 0; i < n; ++i) {
    if (!read_by_head[i]) continue;
    g.frontier.push_back(static_cast<int>(i));
  }
  for (int p : g.prediction_nodes) {
    const Node& x = g.nodes[static_cast<std::size_t>(p)];
    if (on_labels[static_cast<std::size_t>(p)])
      throw std::invalid_argument("the prediction '" + x.name + "' reads the labels");
    if (!x.batched())
      throw std::invalid_argument("the prediction '" + x.name +
                                  "' has no value per example (its first dimension must be "
                                  "the batch)");
    if (std::find(g.frontier.begin(), g.frontier.end(), p) == g.frontier.end())
      g.frontier.push_back(p);
  }
  g.frontier_offset.clear();
  g.frontier_width = 0;
  for (int f : g.frontier) {
    g.frontier_offset.push_back(g.frontier_width);
    g.frontier_width += g.nodes[static_cast<std::size_t>(f)].per_row() * g.pack;
    g.model_needed[static_cast<std::size_t>(f)] = 1;
  }
  for (std::size_t i = n; i-- > 0;) {
    if (!g.model_needed[i]) continue;
    for (int in : g.nodes[i].inputs) g.model_needed[static_cast<std::size_t>(in)] = 1;
  }
  // gradients: model nodes on a path from a trainable variable; head nodes
  // on a path from the frontier to the loss
  g.model_grad.assign(n, 0);
  g.head_grad.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& x = g.nodes[i];
    if (g.side[i] == Side::Model) {
      // a trainable variable, or an input layer over a trainable embedding
      char v = (x.op == Op::Variable || x.op == Op::Input) && i < trains.size() && trains[i];
      if (differentiable(x.op))
        for (int in : x.inputs) v = v || g.model_grad[static_cast<std::size_t>(in)];
      g.model_grad[i] = v && g.model_needed[i] && is_float(x.dtype);
    }
  }
  std::vector<char> from_frontier(n, 0);
  for (int f : g.frontier)
    from_frontier[static_cast<std::size_t>(f)] = g.model_grad[static_cast<std::size_t>(f)];
  for (std::size_t i = 0; i < n; ++i) {
    if (!g.head_needed[i] || !differentiable(g.nodes[i].op)) continue;
    for (int in : g.nodes[i].inputs)
      from_frontier[i] = from_frontier[i] || from_frontier[static_cast<std::size_t>(in)];
  }
  // a head node carries a gradient when it leads from the frontier to the loss
  if (g.loss >= 0) {
    std::vector<char> to_loss(n, 0);
    to_loss[static_cast<std::size_t>(g.loss)] = 1;
    for (std::size_t i = n; i-- > 0;) {
      if (!to_loss[i] || !differentiable(g.nodes[i].op)) continue;
      for (int in : g.nodes[i].inputs) to_loss[static_cast<std::size_t>(in)] = 1;
    }
    for (std::size_t i = 0; i < n; ++i)
      g.head_grad[i] = to_loss[i] && from_frontier[i] && is_float(g.nodes[i].dtype);
  }
}

}  // namespace graph
}  // namespace cppestimators
