#include <cppestimators/model/graph_model.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <cppestimators/features/feature_set.h>
#include <cppestimators/features/transform.h>
#include <cppestimators/model/heads/auc.h>

namespace cppestimators {

using graph::Graph;
using graph::Node;
using graph::Op;
using graph::Tape;

namespace {

Parameter graph_variable(const Spec& v) {
  std::vector<int> shape;
  for (double d : v.numbers("shape")) shape.push_back(static_cast<int>(d));
  Parameter p = Parameter::single(v.str("name"), shape);
  p.trainable = v.flag_or("trainable", true);
  const std::string& init = v.kind;
  if (init == "zeros") {
    p.init = Init::Zeros;
  } else if (init == "ones" || init == "constant") {
    p.init = Init::Constant;
    p.init_scale = init == "ones" ? 1.0 : v.num_or("value", 0.0);
  } else if (init == "glorot_uniform") {
    p.init = Init::GlorotUniform;
    p.init_scale = v.num("limit");
  } else if (init == "truncated_normal" || init == "glorot_normal") {
    p.init = Init::TruncatedNormal;
    p.init_offset = v.num_or("mean", 0.0);
    p.init_scale = v.num_or("stddev", 1.0);
  } else if (init == "random_normal") {
    p.init = Init::Normal;
    p.init_offset = v.num_or("mean", 0.0);
    p.init_scale = v.num_or("stddev", 1.0);
  } else if (init == "random_uniform") {
    p.init = Init::Uniform;
    p.init_offset = v.num_or("minval", 0.0);
    p.init_scale = v.num_or("maxval", 1.0) - p.init_offset;
  } else {
    throw std::invalid_argument("variable '" + p.views[0].name + "': unknown initializer '" + init +
                                "'");
  }
  return p;
}

}  // namespace

// ---------------------------------------------------------------- the model

template <class T>
struct GraphModel::Work : Workspace {
  const Graph* graph = nullptr;
  Tape<T> tape;
  std::vector<float> scratch;  // a float input layer read into T values
  std::vector<std::vector<float>> pgrad;
  std::vector<Gradient> grads;
  std::vector<char> reached;  // the variables the last backward pass reached
  InputLayer::Scratch input;  // the model's input columns
  int rows = 0;
};

GraphModel::GraphModel(const Spec& spec, int units) : Model(spec, units) {
  features_.require_dense("tf$feature_column$input_layer()");
  // the graphs index the columns in the spec's order; the feature set keeps
  // them sorted by name
  for (const Spec& cs : spec.children("feature_columns")) {
    const std::string& name = cs.str("name");
    std::size_t i = 0;
    while (i < features_.size() && features_.column(i).name() != name) ++i;
    if (i == features_.size())
      throw std::invalid_argument("internal: no feature column '" + name + "'");
    // an embedding column's table named as TF's input_layer() names it
    input_.append(features_, i, "input_layer/",
                  [this](Parameter p) -> Parameter& { return add(std::move(p)); });
  }
  for (const Spec& v : spec.children("variables")) {
    Parameter& p = add(graph_variable(v));
    vars_.push_back(&p);
    var_names_.push_back(p.views[0].name);
  }
  for (const Spec& g : spec.children("graphs")) install(g);
}

GraphModel::~GraphModel() = default;

std::string GraphModel::kind() const { return "graph"; }

std::vector<std::string> GraphModel::groups() const { return {"graph"}; }

void GraphModel::install(const Spec& graph_spec) {
  auto g =
      std::make_unique<Graph>(graph::parse_graph(graph_spec, static_cast<int>(features_.size())));
  std::vector<char> trains(g->nodes.size(), 0);
  for (std::size_t i = 0; i < g->nodes.size(); ++i) {
    Node& n = g->nodes[i];
    if (n.op == Op::Input) {
      std::int64_t width = 0;
      for (int c : n.columns) {
        const InputLayer::Column& col = input_.column(static_cast<std::size_t>(c));
        width += col.width;
        if (col.kind != InputLayer::Column::Embedded) continue;
        // its gradient flows from this input node to the table
        trains[i] = trains[i] || col.lookup->trainable();
        for (std::size_t j = 0; j < i; ++j)
          if (g->nodes[j].op == Op::Input &&
              std::find(g->nodes[j].columns.begin(), g->nodes[j].columns.end(), c) !=
                  g->nodes[j].columns.end())
            throw std::invalid_argument("the " + g->mode +
                                        " graph reads an embedding column in two input layers; "
                                        "read it once and reuse the tensor");
      }
      if (width != n.shape[1])
        throw std::invalid_argument("the input layer '" + n.name + "' is " +
                                    std::to_string(n.shape[1]) + " wide but its columns give " +
                                    std::to_string(width) + " values");
    }
    if (n.op != Op::Variable) continue;
    auto it = std::find(var_names_.begin(), var_names_.end(), n.var);
    if (it == var_names_.end())
      throw std::invalid_argument("the " + g->mode + " graph reads the variable '" + n.var +
                                  "', which the model does not hold");
    n.param = static_cast<int>(it - var_names_.begin());
    const Parameter& p = *vars_[static_cast<std::size_t>(n.param)];
    std::vector<std::int64_t> shape(p.views[0].shape.begin(), p.views[0].shape.end());
    if (shape != n.shape)
      throw std::invalid_argument("the " + g->mode + " graph reads the variable '" + n.var +
                                  "' with another shape than the model's");
    trains[i] = p.trainable;
  }
  if (g->needs_double && !double_) {
    // values become doubles: the graphs installed so far are laid out again
    double_ = true;
    for (auto& other : graphs_)
      if (other) {
        std::vector<char> t(other->nodes.size(), 0);
        for (std::size_t k = 0; k < other->nodes.size(); ++k)
          if (other->nodes[k].op == Op::Variable)
            t[k] = vars_[static_cast<std::size_t>(other->nodes[k].param)]->trainable;
        graph::analyse(*other, t, true);
      }
  }
  graph::analyse(*g, trains, double_);
  graphs_[index(mode_of(g->mode))] = std::move(g);
}

const Graph& GraphModel::graph_of(Mode mode) const {
  const auto& g = graphs_[index(mode)];
  if (!g)
    throw std::invalid_argument(std::string("internal: the custom estimator has no ") +
                                mode_name(mode) + " graph");
  return *g;
}

const Graph& GraphModel::bound() const { return graph_of(static_cast<Mode>(bound_)); }

void GraphModel::bind_mode(Mode mode) {
  const Graph& g = graph_of(mode);
  bound_ = index(mode);
  units_ = static_cast<int>(g.frontier_width);
}

std::unique_ptr<Workspace> GraphModel::new_workspace(const FeatureBatch& batch, int max_rows,
                                                     int threads) const {
  const Graph& g = bound();
  std::vector<char> grads(g.model_grad);
  auto setup = [&](auto& ws) {
    ws->threads = std::max(1, threads);
    ws->graph = &g;
    ws->tape.reserve(g, g.model_needed, grads, std::max(1, max_rows));
    ws->pgrad.resize(vars_.size());
    for (std::size_t v = 0; v < vars_.size(); ++v)
      if (vars_[v]->trainable) ws->pgrad[v].assign(vars_[v]->value.size(), 0.0f);
    ws->grads.reserve(vars_.size() + input_.size());
    input_.reserve(ws->input, batch, max_rows);
  };
  if (double_) {
    auto ws = std::make_unique<Work<double>>();
    setup(ws);
    return ws;
  }
  auto ws = std::make_unique<Work<float>>();
  setup(ws);
  return ws;
}

template <class T>
void GraphModel::fill_input_t(const Node& n, const FeatureBatch& batch, T* x,
                              std::vector<float>& scratch, InputLayer::Scratch& input) const {
  const std::size_t width = static_cast<std::size_t>(n.shape[1]);
  const std::size_t m = width * static_cast<std::size_t>(batch.rows);
  if constexpr (std::is_same<T, float>::value) {
    input_.forward(batch, &n.columns, x, width, input);
  } else {  // the layer's float values, then as T
    if (scratch.size() < m) scratch.resize(m);
    input_.forward(batch, &n.columns, scratch.data(), width, input);
    std::copy(scratch.data(), scratch.data() + m, x);
  }
}

void GraphModel::forward(const FeatureBatch& batch, Mode, Workspace& base, float* logits) const {
  if (double_)
    forward_t(batch, static_cast<Work<double>&>(base), logits);
  else
    forward_t(batch, static_cast<Work<float>&>(base), logits);
}

template <class T>
void GraphModel::forward_t(const FeatureBatch& batch, Work<T>& ws, float* logits) const {
  const Graph& g = *ws.graph;
  const int rows = batch.rows;
  ws.rows = rows;
  graph::ExecEnv env;
  env.kernel = ws.kernel;
  env.rng = &ws.rng;
  env.threads = ws.threads;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (!g.model_needed[i]) continue;
    const Node& n = g.nodes[i];
    T* y = ws.tape.val[i].data();
    if (n.op == Op::Input) {
      fill_input_t(n, batch, y, ws.scratch, ws.input);
    } else if (n.op == Op::Variable) {
      const std::vector<float>& v = vars_[static_cast<std::size_t>(n.param)]->value;
      std::copy(v.begin(), v.end(), y);
    } else {
      graph::forward_node(g, i, ws.tape, rows, env);
    }
  }
  const std::size_t width = static_cast<std::size_t>(g.frontier_width);
  for (std::size_t f = 0; f < g.frontier.size(); ++f) {
    const Node& n = g.nodes[static_cast<std::size_t>(g.frontier[f])];
    const T* v = ws.tape.val[static_cast<std::size_t>(g.frontier[f])].data();
    const std::size_t per = static_cast<std::size_t>(n.per_row());
    const std::size_t off = static_cast<std::size_t>(g.frontier_offset[f]);
    for (int r = 0; r < rows; ++r) {
      const T* src = n.batched() ? v + static_cast<std::size_t>(r) * per : v;
      float* dst = logits + static_cast<std::size_t>(r) * width + off;
      if (g.pack == 1) {
        for (std::size_t e = 0; e < per; ++e) dst[e] = static_cast<float>(src[e]);
      } else {
        for (std::size_t e = 0; e < per; ++e) {
          const float hi = static_cast<float>(src[e]);
          dst[2 * e] = hi;
          dst[2 * e + 1] = static_cast<float>(static_cast<double>(src[e]) - hi);
        }
      }
    }
  }
}

const std::vector<Gradient>& GraphModel::backward(const FeatureBatch& batch, const float* dlogits,
                                                  Workspace& base) {
  if (double_) return backward_t(batch, dlogits, static_cast<Work<double>&>(base));
  return backward_t(batch, dlogits, static_cast<Work<float>&>(base));
}

template <class T>
const std::vector<Gradient>& GraphModel::backward_t(const FeatureBatch& batch, const float* dlogits,
                                                    Work<T>& ws) {
  const Graph& g = *ws.graph;
  const int rows = ws.rows;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.model_grad[i]) {
      auto& gr = ws.tape.grad[i];
      std::fill(gr.begin(), gr.begin() + g.nodes[i].size(rows), T(0));
    }
  const std::size_t width = static_cast<std::size_t>(g.frontier_width);
  for (std::size_t f = 0; f < g.frontier.size(); ++f) {
    const std::size_t node = static_cast<std::size_t>(g.frontier[f]);
    if (!g.model_grad[node]) continue;
    const Node& n = g.nodes[node];
    T* d = ws.tape.grad[node].data();
    const std::size_t per = static_cast<std::size_t>(n.per_row());
    const std::size_t off = static_cast<std::size_t>(g.frontier_offset[f]);
    // a tensor without rows sat in every row: its gradient is their sum
    for (int r = 0; r < rows; ++r) {
      const float* src = dlogits + static_cast<std::size_t>(r) * width + off;
      T* dst = n.batched() ? d + static_cast<std::size_t>(r) * per : d;
      for (std::size_t e = 0; e < per; ++e)
        dst[e] += static_cast<T>(src[e * static_cast<std::size_t>(g.pack)]);
    }
  }
  graph::ExecEnv env;
  env.kernel = ws.kernel;
  env.threads = ws.threads;
  for (std::size_t i = g.nodes.size(); i-- > 0;)
    if (g.model_grad[i] && g.nodes[i].op != Op::Variable && g.nodes[i].op != Op::Input)
      graph::backward_node(g, i, ws.tape, rows, g.model_grad, env);
  for (auto& pg : ws.pgrad) std::fill(pg.begin(), pg.end(), 0.0f);
  std::vector<char>& reached = ws.reached;
  reached.assign(vars_.size(), 0);  // sized once: no allocation after the first step
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op != Op::Variable || !g.model_grad[i]) continue;
    const std::size_t v = static_cast<std::size_t>(n.param);
    const T* d = ws.tape.grad[i].data();
    float* out = ws.pgrad[v].data();
    for (std::size_t e = 0; e < ws.pgrad[v].size(); ++e) out[e] += static_cast<float>(d[e]);
    reached[v] = 1;
  }
  ws.grads.clear();
  for (std::size_t v = 0; v < vars_.size(); ++v)
    if (reached[v]) ws.grads.push_back(dense_gradient(*vars_[v], ws.pgrad[v]));
  // embedding tables: their slice of an input layer's gradient, by id
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op != Op::Input || !g.model_grad[i]) continue;
    input_.backward(batch, &n.columns, ws.tape.grad[i].data(), static_cast<std::size_t>(n.shape[1]),
                    ws.input, ws.grads);
  }
  return ws.grads;
}

// ----------------------------------------------------------------- the head

namespace {

// Streaming metrics of an eval graph (TF 1.x's tf.metrics), over the values
// the head computes from each batch.
class GraphMetrics : public MetricAccumulator {
 public:
  GraphMetrics(const GraphHead& head, const Graph* g);

 private:
  struct State {
    double num = 0, den = 0;        // means: sum(w v), sum(w)
    double tp = 0, fp = 0, fn = 0;  // precision, recall
    ThresholdAuc auc;
  };
  void clear() override;
  void accumulate(const float* logits, const float* labels, const float* weights,
                  int rows) override;
  void append(MetricList& out) const override;

  const GraphHead& head_;
  const Graph* graph_;
  std::vector<State> states_;
  std::vector<double> l_, p_, w_;  // one batch's values of a metric's inputs
};

}  // namespace

class GraphHead : public Head {
 public:
  explicit GraphHead(const GraphModel& model) : model_(model) {}

  std::string name() const override { return "graph"; }
  int logits_dim() const override { return static_cast<int>(model_.bound().frontier_width); }
  int label_dim() const override {
    const Graph& g = model_.bound();
    if (g.labels < 0) {
      if (model_.has_graph(Mode::Train)) {
        const Graph& t = model_.graph_of(Mode::Train);
        if (t.labels >= 0)
          return static_cast<int>(t.nodes[static_cast<std::size_t>(t.labels)].per_row());
      }
      return 1;
    }
    return static_cast<int>(g.nodes[static_cast<std::size_t>(g.labels)].per_row());
  }
  int per_example_dim() const override { return 1; }
  bool scalar_loss() const override { return true; }
  void check_labels(const double* labels, std::int64_t n, int width) const override {
    const Graph& g = model_.bound();
    if (g.labels < 0) return;
    const Node& l = g.nodes[static_cast<std::size_t>(g.labels)];
    if (width != l.per_row())
      throw std::invalid_argument("the labels tensor of the model_fn holds " +
                                  std::to_string(l.per_row()) +
                                  " values per example but the "
                                  "input's response has " +
                                  std::to_string(width));
    const bool whole = !graph::is_float(l.dtype);
    for (std::int64_t i = 0; i < n * width; ++i) {
      const double v = labels[i];
      if (!std::isfinite(v))
        throw std::invalid_argument("label " + std::to_string(i / width + 1) +
                                    " is missing or not finite");
      if (whole && v != std::trunc(v))
        throw std::invalid_argument("label " + std::to_string(i / width + 1) + " (" +
                                    std::to_string(v) +
                                    ") is not a whole number, but the "
                                    "labels tensor is " +
                                    l.name + " of an integer dtype");
    }
  }
  std::vector<std::string> prediction_keys() const override {
    return model_.bound().prediction_names;
  }
  std::string default_prediction_key() const override {
    const auto& names = model_.bound().prediction_names;
    return names.empty() ? std::string() : names.front();
  }
  int key_width(const std::string& key) const override {
    const Graph& g = model_.bound();
    return static_cast<int>(g.nodes[static_cast<std::size_t>(prediction(g, key))].per_row());
  }
  void predict(const std::string& key, const float* logits, int rows, double* out) const override {
    const Graph& g = model_.bound();
    const int node = prediction(g, key);
    const std::size_t f = static_cast<std::size_t>(
        std::find(g.frontier.begin(), g.frontier.end(), node) - g.frontier.begin());
    const std::size_t per =
        static_cast<std::size_t>(g.nodes[static_cast<std::size_t>(node)].per_row());
    const std::size_t width = static_cast<std::size_t>(g.frontier_width);
    const std::size_t pack = static_cast<std::size_t>(g.pack);
    for (int r = 0; r < rows; ++r) {
      const float* src = logits + static_cast<std::size_t>(r) * width +
                         static_cast<std::size_t>(g.frontier_offset[f]);
      for (std::size_t e = 0; e < per; ++e)
        out[static_cast<std::size_t>(r) * per + e] =
            pack == 1 ? static_cast<double>(src[e])
                      : static_cast<double>(src[2 * e]) + static_cast<double>(src[2 * e + 1]);
    }
  }
  std::unique_ptr<MetricAccumulator> new_metrics() const override {
    const Graph* g = model_.has_graph(Mode::Eval) ? &model_.graph_of(Mode::Eval) : nullptr;
    return std::make_unique<GraphMetrics>(*this, g);
  }

  // Runs the head's part of `g` over a batch: the frontier read from the
  // logits, the labels, then the nodes `purpose` marks. Returns the loss
  // (0 without one); with `dlogits`, its gradient with respect to the
  // frontier.
  double run(const Graph& g, const float* logits, const float* labels, int rows, float* dlogits,
             const std::vector<char>* purpose = nullptr) const {
    if (model_.computes_in_double())
      return run_t(g, tape_d_, logits, labels, rows, dlogits, purpose);
    return run_t(g, tape_f_, logits, labels, rows, dlogits, purpose);
  }
  // A head node's value after run(), as doubles.
  template <class F>
  void read(const Graph& g, int node, int rows, F f) const {
    const std::size_t n =
        static_cast<std::size_t>(g.nodes[static_cast<std::size_t>(node)].size(rows));
    if (model_.computes_in_double()) {
      const double* v = tape_d_.val[static_cast<std::size_t>(node)].data();
      for (std::size_t e = 0; e < n; ++e) f(e, v[e]);
    } else {
      const float* v = tape_f_.val[static_cast<std::size_t>(node)].data();
      for (std::size_t e = 0; e < n; ++e) f(e, static_cast<double>(v[e]));
    }
  }

 private:
  static int prediction(const Graph& g, const std::string& key) {
    for (std::size_t k = 0; k < g.prediction_names.size(); ++k)
      if (g.prediction_names[k] == key) return g.prediction_nodes[k];
    throw std::invalid_argument("the model_fn's predictions have no key '" + key + "'");
  }

  double unweighted_loss(const float* logits, const float* labels, int rows, float* per_example,
                         float* dlogits) const override {
    const Graph& g = model_.bound();
    if (g.loss < 0) throw std::invalid_argument("the model_fn returned no loss");
    const double loss = run(g, logits, labels, rows, dlogits);
    // a custom model's loss is the batch's: every example reports it
    for (int r = 0; r < rows; ++r) per_example[r] = static_cast<float>(loss);
    return loss;
  }

  template <class T>
  double run_t(const Graph& g, Tape<T>& t, const float* logits, const float* labels, int rows,
               float* dlogits, const std::vector<char>* purpose) const {
    const std::vector<char>& needed = purpose ? *purpose : g.head_needed;
    if (t.capacity < rows || tape_graph_ != &g) {
      std::vector<char> values(needed);
      for (int f : g.frontier) values[static_cast<std::size_t>(f)] = 1;
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = values[i] || g.head_needed[i];
      t.reserve(g, values, g.head_grad, std::max(rows, t.capacity));
      tape_graph_ = &g;
    }
    const std::size_t width = static_cast<std::size_t>(g.frontier_width);
    for (std::size_t f = 0; f < g.frontier.size(); ++f) {
      const std::size_t node = static_cast<std::size_t>(g.frontier[f]);
      const Node& n = g.nodes[node];
      if (t.val[node].empty()) continue;
      T* v = t.val[node].data();
      const std::size_t per = static_cast<std::size_t>(n.per_row());
      const std::size_t off = static_cast<std::size_t>(g.frontier_offset[f]);
      const int take = n.batched() ? rows : 1;
      const std::size_t pack = static_cast<std::size_t>(g.pack);
      for (int r = 0; r < take; ++r) {
        const float* src = logits + static_cast<std::size_t>(r) * width + off;
        for (std::size_t e = 0; e < per; ++e)
          v[static_cast<std::size_t>(r) * per + e] =
              pack == 1 ? static_cast<T>(src[e])
                        : static_cast<T>(static_cast<double>(src[2 * e]) +
                                         static_cast<double>(src[2 * e + 1]));
      }
    }
    if (g.labels >= 0 && needed[static_cast<std::size_t>(g.labels)]) {
      T* v = t.val[static_cast<std::size_t>(g.labels)].data();
      const std::size_t m =
          static_cast<std::size_t>(g.nodes[static_cast<std::size_t>(g.labels)].size(rows));
      for (std::size_t e = 0; e < m; ++e) v[e] = static_cast<T>(labels[e]);
    }
    graph::ExecEnv env;
    env.rng = &rng_;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      if (!needed[i] || g.nodes[i].op == Op::Labels) continue;
      graph::forward_node(g, i, t, rows, env);
    }
    const double loss = g.loss >= 0 && !t.val[static_cast<std::size_t>(g.loss)].empty()
                            ? static_cast<double>(t.val[static_cast<std::size_t>(g.loss)][0])
                            : 0.0;
    if (dlogits == nullptr) return loss;
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      if (g.head_grad[i])
        std::fill(t.grad[i].begin(), t.grad[i].begin() + g.nodes[i].size(rows), T(0));
    if (g.head_grad[static_cast<std::size_t>(g.loss)])
      t.grad[static_cast<std::size_t>(g.loss)][0] = T(1);
    // the frontier's nodes were computed by the model: their gradients stop here
    for (std::size_t i = g.nodes.size(); i-- > 0;)
      if (g.head_grad[i] && g.side[i] == graph::Side::Head)
        graph::backward_node(g, i, t, rows, g.head_grad, env);
    std::fill(dlogits, dlogits + static_cast<std::size_t>(rows) * width, 0.0f);
    for (std::size_t f = 0; f < g.frontier.size(); ++f) {
      const std::size_t node = static_cast<std::size_t>(g.frontier[f]);
      if (!g.head_grad[node]) continue;
      const Node& n = g.nodes[node];
      const T* d = t.grad[node].data();
      const std::size_t per = static_cast<std::size_t>(n.per_row());
      const std::size_t off = static_cast<std::size_t>(g.frontier_offset[f]);
      const int take = n.batched() ? rows : 1;
      for (int r = 0; r < take; ++r)
        for (std::size_t e = 0; e < per; ++e)
          dlogits[static_cast<std::size_t>(r) * width + off +
                  e * static_cast<std::size_t>(g.pack)] =
              static_cast<float>(d[static_cast<std::size_t>(r) * per + e]);
    }
    return loss;
  }

  const GraphModel& model_;
  mutable Tape<float> tape_f_;
  mutable Tape<double> tape_d_;
  mutable const Graph* tape_graph_ = nullptr;
  mutable Rng rng_{0x5DEECE66DULL};
};

std::unique_ptr<Head> GraphModel::make_head() { return std::make_unique<GraphHead>(*this); }

namespace {

GraphMetrics::GraphMetrics(const GraphHead& head, const Graph* g)
    : MetricAccumulator(1), head_(head), graph_(g) {
  report_average_loss(false);
  if (g != nullptr) states_.resize(g->metrics.size());
  if (g != nullptr)
    for (const graph::MetricSpec& m : g->metrics)
      if (m.kind == graph::MetricKind::Auc && m.num_thresholds != ThresholdAuc::kThresholds)
        throw std::invalid_argument(
            "tf$metrics$auc(): num_thresholds must be 200 (TensorFlow's "
            "default), the one the engine computes");
}

void GraphMetrics::clear() {
  for (State& s : states_) s = State();
}

void GraphMetrics::accumulate(const float* logits, const float* labels, const float*, int rows) {
  if (graph_ == nullptr || graph_->metrics.empty()) return;
  const Graph& g = *graph_;
  head_.run(g, logits, labels, rows, nullptr);
  std::vector<double>&l = l_, &p = p_, &w = w_;
  for (std::size_t k = 0; k < g.metrics.size(); ++k) {
    const graph::MetricSpec& m = g.metrics[k];
    State& s = states_[k];
    auto fetch = [&](int node, std::vector<double>& out) {
      out.clear();
      if (node < 0) return;
      const Node& n = g.nodes[static_cast<std::size_t>(node)];
      out.resize(static_cast<std::size_t>(n.size(rows)));
      head_.read(g, node, rows, [&](std::size_t e, double v) { out[e] = v; });
    };
    fetch(m.predictions, p);
    fetch(m.labels, l);
    fetch(m.weights, w);
    const std::size_t count = p.size();
    if (!l.empty() && l.size() != count)
      throw std::invalid_argument("metric '" + m.name + "': labels and predictions differ in size");
    auto weight = [&](std::size_t e) {
      if (w.empty()) return 1.0;
      if (w.size() == 1) return w[0];
      if (w.size() == count) return w[e];
      const std::size_t per = count / static_cast<std::size_t>(rows);
      return w[e / std::max<std::size_t>(per, 1)];  // one weight per row
    };
    // (the kind chosen once, each loop over the values plain)
    const auto each = [&](auto add) {
      for (std::size_t e = 0; e < count; ++e) add(weight(e), p[e], l.empty() ? 0.0 : l[e]);
    };
    using K = graph::MetricKind;
    switch (m.kind) {
      case K::Accuracy:
        each([&](double we, double pv, double lv) {
          s.num += we * (pv == lv ? 1.0 : 0.0);
          s.den += we;
        });
        break;
      case K::Mean:
        each([&](double we, double pv, double) {
          s.num += we * pv;
          s.den += we;
        });
        break;
      case K::MeanSquaredError:
      case K::RootMeanSquaredError:
        each([&](double we, double pv, double lv) {
          s.num += we * (pv - lv) * (pv - lv);
          s.den += we;
        });
        break;
      case K::MeanAbsoluteError:
        each([&](double we, double pv, double lv) {
          s.num += we * std::abs(pv - lv);
          s.den += we;
        });
        break;
      case K::Precision:
      case K::Recall:
        each([&](double we, double pv, double lv) {
          const bool pp = pv != 0.0, ll = lv != 0.0;
          if (pp && ll) s.tp += we;
          if (pp && !ll) s.fp += we;
          if (!pp && ll) s.fn += we;
        });
        break;
      case K::Auc:
        each([&](double we, double pv, double lv) {
          s.auc.add(static_cast<float>(pv), lv != 0.0, we);
        });
        break;
    }
  }
}

void GraphMetrics::append(MetricList& out) const {
  if (graph_ == nullptr) return;
  for (std::size_t k = 0; k < graph_->metrics.size(); ++k) {
    const graph::MetricSpec& m = graph_->metrics[k];
    const State& s = states_[k];
    double v = 0.0;
    using K = graph::MetricKind;
    switch (m.kind) {
      case K::Precision:
        v = s.tp + s.fp > 0 ? s.tp / (s.tp + s.fp) : 0.0;
        break;
      case K::Recall:
        v = s.tp + s.fn > 0 ? s.tp / (s.tp + s.fn) : 0.0;
        break;
      case K::Auc:
        v = s.auc.value(false);
        break;
      case K::RootMeanSquaredError:
        v = std::sqrt(mean(s.num, s.den));
        break;
      default:
        v = mean(s.num, s.den);
    }
    out.emplace_back(m.name, v);
  }
}

}  // namespace

}  // namespace cppestimators
