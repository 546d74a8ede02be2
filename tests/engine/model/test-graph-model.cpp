// Engine unit tests: a custom estimator's model (kind "graph", model/
// graph_model.h) through an Estimator and a Session: the split of its graph
// between the model and the head (the frontier's layout in the logits), one
// SGD step against the gradient computed by hand, in float and in double,
// and the errors of graphs the engine cannot run, naming the node.
#include <testthat.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <cppestimators/model/graph/graph.h>
#include <cppestimators/model/graph_model.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

Spec node(const std::string& op, const std::string& name, std::vector<double> inputs,
          std::vector<double> shape, const std::string& dtype) {
  Spec s;
  s.kind = op;
  s.strs["name"] = {name};
  s.strs["dtype"] = {dtype};
  if (!inputs.empty()) s.nums["inputs"] = std::move(inputs);
  s.nums["shape"] = std::move(shape);
  return s;
}

Spec variable_node(const std::string& var, std::vector<double> shape, const std::string& dtype) {
  Spec s = node("variable", var, {}, std::move(shape), dtype);
  s.strs["var"] = {var};
  return s;
}

// The node indices of the train graph below.
enum : int {
  kInput,
  kKernel,
  kMatMul,
  kBias,
  kBiasAdd,
  kRelu,
  kOutKernel,
  kPred,
  kLabels,
  kSub,
  kSquare,
  kMean,
  kSquareKernel,
  kSum,
  kConst,
  kPenalty,
  kLoss
};
constexpr double kPenaltyScale = 0.01;

// pred = relu(x K + b) V; loss = mean((pred - y)^2) + 0.01 sum(K^2), as a
// model_fn of tf$layers$dense() and tf$losses$mean_squared_error() plus a
// weight penalty builds it; predictions: pred and the hidden layer.
Spec train_graph(const std::string& dtype) {
  Spec g;
  g.kind = "graph";
  g.strs["mode"] = {"train"};
  std::vector<Spec>& n = g.lists["nodes"];
  Spec input = node("input", "input_layer/concat", {}, {-1, 2}, dtype);
  input.nums["columns"] = {0};
  n.push_back(input);
  n.push_back(variable_node("dense/kernel", {2, 3}, dtype));
  n.push_back(node("matmul", "dense/MatMul", {kInput, kKernel}, {-1, 3}, dtype));
  n.push_back(variable_node("dense/bias", {3}, dtype));
  n.push_back(node("add", "dense/BiasAdd", {kMatMul, kBias}, {-1, 3}, dtype));
  n.push_back(node("relu", "dense/Relu", {kBiasAdd}, {-1, 3}, dtype));
  n.push_back(variable_node("out/kernel", {3, 1}, dtype));
  n.push_back(node("matmul", "out/MatMul", {kRelu, kOutKernel}, {-1, 1}, dtype));
  n.push_back(node("labels", "labels", {}, {-1, 1}, dtype));
  n.push_back(node("sub", "sub", {kPred, kLabels}, {-1, 1}, dtype));
  n.push_back(node("square", "Square", {kSub}, {-1, 1}, dtype));
  n.push_back(node("reduce_mean", "Mean", {kSquare}, {}, dtype));
  n.push_back(node("square", "Square_1", {kKernel}, {2, 3}, dtype));
  n.push_back(node("reduce_sum", "Sum", {kSquareKernel}, {}, dtype));
  Spec c = node("constant", "Const", {}, {}, dtype);
  c.nums["value"] = {kPenaltyScale};
  n.push_back(c);
  n.push_back(node("mul", "mul", {kConst, kSum}, {}, dtype));
  n.push_back(node("add", "add", {kMean, kPenalty}, {}, dtype));
  g.nums["loss"] = {kLoss};
  g.strs["prediction_names"] = {"predictions", "hidden"};
  g.nums["prediction_nodes"] = {kPred, kRelu};
  return g;
}

Spec variable(const std::string& init, const std::string& name, std::vector<double> shape) {
  Spec v;
  v.kind = init;
  v.strs["name"] = {name};
  v.nums["shape"] = std::move(shape);
  return v;
}

const double kLimit = std::sqrt(6.0 / (2 + 3));

EstimatorSpec graph_estimator(Spec graph, double lr = 0.1) {
  EstimatorSpec e;
  e.model.kind = "graph";
  e.model.lists["feature_columns"] = {numeric("x", 2)};
  Spec kernel = variable("glorot_uniform", "dense/kernel", {2, 3});
  kernel.nums["limit"] = {kLimit};
  Spec out = variable("random_uniform", "out/kernel", {3, 1});
  out.nums["minval"] = {-1};
  out.nums["maxval"] = {1};
  e.model.lists["variables"] = {kernel, variable("zeros", "dense/bias", {3}), out};
  e.model.lists["graphs"] = {std::move(graph)};
  e.optimizers.push_back(optimizer("SGD", lr));
  e.seed = 5;
  return e;
}

// x is column-major, as R's matrices (ColumnView): x[r + 4 j] is row r's x_j.
struct GraphData {
  std::vector<double> x{0.5, -1.0, 1.5, 0.25, -0.75, 2.0, 1.0, 1.0};
  std::vector<double> y{0.3, -0.2, 1.1, 0.6};
  Dataset data;
  GraphData() {
    data.n = 4;
    data.features = {doubles("x", x, 2)};
    data.labels = y.data();
  }
};

std::vector<double> values_of(const Estimator& est, const std::string& name) {
  const VariableRef* v = est.find_variable(name);
  if (v == nullptr) throw std::logic_error("test: no variable " + name);
  return std::vector<double>(v->data, v->data + v->size);
}

// The graph's values and gradients computed by hand, in double, over the
// rows `batch` of the data.
struct ByHand {
  std::vector<double> pre, h, pred, dk, db, dv;
  double penalty = 0, loss = 0, se = 0;  // se: the summed squared error
  ByHand(const GraphData& d, const std::vector<double>& k, const std::vector<double>& b,
         const std::vector<double>& v, const std::vector<int>& batch = {0, 1, 2, 3}) {
    const int rows = static_cast<int>(batch.size()), n = static_cast<int>(d.data.n);
    pre.assign(3 * batch.size(), 0);
    h.assign(3 * batch.size(), 0);
    pred.assign(batch.size(), 0);
    for (int r = 0; r < rows; ++r) {
      for (int j = 0; j < 3; ++j) {
        double s = b[j];
        for (int i = 0; i < 2; ++i) s += d.x[batch[r] + n * i] * k[3 * i + j];
        pre[3 * r + j] = s;
        h[3 * r + j] = s > 0 ? s : 0;
        pred[r] += h[3 * r + j] * v[j];
      }
    }
    for (double kv : k) penalty += kPenaltyScale * kv * kv;
    for (int r = 0; r < rows; ++r) se += (pred[r] - d.y[batch[r]]) * (pred[r] - d.y[batch[r]]);
    loss = se / rows + penalty;
    dk.assign(6, 0);
    db.assign(3, 0);
    dv.assign(3, 0);
    for (int r = 0; r < rows; ++r) {
      const double dpred = 2 * (pred[r] - d.y[batch[r]]) / rows;
      for (int j = 0; j < 3; ++j) {
        dv[j] += h[3 * r + j] * dpred;
        const double dpre = pre[3 * r + j] > 0 ? dpred * v[j] : 0;
        db[j] += dpre;
        for (int i = 0; i < 2; ++i) dk[3 * i + j] += d.x[batch[r] + n * i] * dpre;
      }
    }
    for (std::size_t e = 0; e < k.size(); ++e) dk[e] += 2 * kPenaltyScale * k[e];
  }
};

std::vector<double> sgd(const std::vector<double>& before, const std::vector<double>& grad,
                        double lr) {
  std::vector<double> out(before.size());
  for (std::size_t e = 0; e < out.size(); ++e) out[e] = before[e] - lr * grad[e];
  return out;
}

double worst_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return 1e300;
  double worst = 0;
  for (std::size_t e = 0; e < a.size(); ++e) worst = std::max(worst, std::fabs(a[e] - b[e]));
  return worst;
}

// One SGD step of a session over the four rows: the variables move by
// -lr times the gradient computed by hand.
void check_one_step(const std::string& dtype, double tolerance) {
  GraphData d;
  const double lr = 0.1;
  Estimator est(graph_estimator(train_graph(dtype), lr));
  const std::vector<double> k = values_of(est, "dense/kernel"), b = values_of(est, "dense/bias"),
                            v = values_of(est, "out/kernel");
  bool inits = true;
  for (double kv : k) inits = inits && std::fabs(kv) <= kLimit && kv != 0;
  for (double bv : b) inits = inits && bv == 0;
  for (double vv : v) inits = inits && vv >= -1 && vv < 1 && vv != 0;
  expect_true(inits);
  const ByHand want(d, k, b, v);
  int active = 0;  // the relu passes some values, stops others
  for (double p : want.pre) active += p > 0 ? 1 : 0;
  CATCH_INFO("active hidden values: " << active);
  expect_true((active > 0 && active < 12));

  Session s(est, d.data, batches_of(4, 1));
  expect_true(s.run_step());
  expect_true((std::fabs(s.loss() - want.loss) < tolerance * std::max(1.0, want.loss)));
  const double ek = worst_difference(values_of(est, "dense/kernel"), sgd(k, want.dk, lr));
  const double eb = worst_difference(values_of(est, "dense/bias"), sgd(b, want.db, lr));
  const double ev = worst_difference(values_of(est, "out/kernel"), sgd(v, want.dv, lr));
  CATCH_INFO("errors: kernel " << ek << ", bias " << eb << ", out " << ev);
  expect_true(ek < tolerance);
  expect_true(eb < tolerance);
  expect_true(ev < tolerance);
  // the step did move them (the gradient is not zero)
  expect_true((worst_difference(values_of(est, "dense/bias"), b) > 1e-4));
  expect_true((est.global_step() == 1));
}

std::string estimator_error(const EstimatorSpec& spec) {
  return error_of([&] { Estimator est(spec); });
}

}  // namespace

context("graph model") {
  test_that("the frontier: what the head reads of the model part, then the predictions") {
    Estimator est(graph_estimator(train_graph("float32")));
    auto& model = static_cast<GraphModel&>(est.model());
    expect_false(model.computes_in_double());
    const graph::Graph& g = model.graph_of(Mode::Train);
    // the prediction the loss reads, the weight penalty (no rows: it sits in
    // every row of the logits), then the hidden layer
    expect_true((g.frontier == std::vector<int>{kPred, kPenalty, kRelu}));
    expect_true((g.frontier_offset == std::vector<std::int64_t>{0, 1, 2}));
    expect_true((g.frontier_width == 5));
    expect_true((est.head().logits_dim() == 5));
    expect_true((est.head().label_dim() == 1));
    expect_true(
        (est.head().prediction_keys() == std::vector<std::string>{"predictions", "hidden"}));
    expect_true((est.head().key_width("hidden") == 3));
    // the nodes that read the labels run in the head; the constant of the
    // penalty in the model, with the penalty
    for (int i : {kLabels, kSub, kSquare, kMean, kLoss}) {
      CATCH_INFO("node " << i);
      expect_true((g.side[static_cast<std::size_t>(i)] == graph::Side::Head));
    }
    for (int i : {kInput, kKernel, kPred, kConst, kPenalty, kRelu}) {
      CATCH_INFO("node " << i);
      expect_true((g.side[static_cast<std::size_t>(i)] == graph::Side::Model));
    }
    // gradients: model nodes on a path from a variable, head nodes from the
    // frontier to the loss
    expect_true((g.model_grad[kKernel] && g.model_grad[kPred] && g.model_grad[kPenalty]));
    expect_false(g.model_grad[kInput]);
    expect_false(g.model_grad[kConst]);
    expect_true((g.head_grad[kLoss] && g.head_grad[kSub] && g.head_grad[kPred]));
    expect_false(g.head_grad[kLabels]);
  }

  test_that("the model's logits hold the frontier's values, row by row") {
    GraphData d;
    Estimator est(graph_estimator(train_graph("float32")));
    const ByHand want(d, values_of(est, "dense/kernel"), values_of(est, "dense/bias"),
                      values_of(est, "out/kernel"));
    Model& model = est.model();
    model.bind_mode(Mode::Train);
    auto binding = model.features().bind(d.data);
    FeatureBatch batch;
    model.features().allocate(*binding, 4, batch);
    auto ws = model.new_workspace(batch, 4, 1);
    int rows[4] = {0, 1, 2, 3};
    model.features().gather(*binding, rows, 4, batch);
    std::vector<float> logits(4 * 5);
    model.forward(batch, Mode::Train, *ws, logits.data());
    double worst = 0;
    for (int r = 0; r < 4; ++r) {
      worst = std::max(worst, std::fabs(logits[5 * r] - want.pred[r]));
      worst = std::max(worst, std::fabs(logits[5 * r + 1] - want.penalty));
      for (int j = 0; j < 3; ++j)
        worst = std::max(worst, std::fabs(logits[5 * r + 2 + j] - want.h[3 * r + j]));
    }
    CATCH_INFO("worst " << worst);
    expect_true(worst < 1e-6);
    // predictions read their columns of the logits
    std::vector<double> hidden(12), pred(4);
    est.head().predict("hidden", logits.data(), 4, hidden.data());
    est.head().predict("predictions", logits.data(), 4, pred.data());
    expect_true((worst_difference(hidden, want.h) < 1e-6));
    expect_true((worst_difference(pred, want.pred) < 1e-6));
    // the head's loss and its gradient with respect to the frontier: the
    // penalty's in the first row only
    std::vector<float> labels(d.y.begin(), d.y.end()), pe(4), dl(20);
    const double loss = est.head().loss(logits.data(), labels.data(), 4, pe.data(), dl.data());
    expect_true((std::fabs(loss - want.loss) < 1e-6));
    bool grads = true;
    for (int r = 0; r < 4; ++r) {
      grads = grads && std::fabs(dl[5 * r] - 2 * (want.pred[r] - d.y[r]) / 4) < 1e-6;
      grads = grads && dl[5 * r + 1] == (r == 0 ? 1.0f : 0.0f);
      for (int j = 0; j < 3; ++j) grads = grads && dl[5 * r + 2 + j] == 0.0f;
    }
    expect_true(grads);
  }

  test_that("one SGD step moves the variables by the gradient computed by hand (float)") {
    check_one_step("float32", 1e-5);
  }

  test_that("a graph with a float64 tensor computes in double") {
    Estimator est(graph_estimator(train_graph("float64")));
    expect_true((static_cast<GraphModel&>(est.model()).computes_in_double()));
    check_one_step("float64", 1e-6);
  }

  test_that("steps over batches that cross epochs, the last one short: each batch's mean loss") {
    GraphData d;
    const double lr = 0.1;
    Estimator est(graph_estimator(train_graph("float32"), lr));
    std::vector<double> k = values_of(est, "dense/kernel"), b = values_of(est, "dense/bias"),
                        v = values_of(est, "out/kernel");
    Session s(est, d.data, batches_of(3, 2));
    // two epochs of 4 rows in batches of 3 (TF's repeat() then batch())
    const std::vector<std::vector<int>> batches = {{0, 1, 2}, {3, 0, 1}, {2, 3}};
    for (std::size_t step = 0; step < batches.size(); ++step) {
      const ByHand want(d, k, b, v, batches[step]);
      expect_true(s.run_step());
      k = sgd(k, want.dk, lr);
      b = sgd(b, want.db, lr);
      v = sgd(v, want.dv, lr);
      const double err = std::max({worst_difference(values_of(est, "dense/kernel"), k),
                                   worst_difference(values_of(est, "dense/bias"), b),
                                   worst_difference(values_of(est, "out/kernel"), v)});
      CATCH_INFO("step " << step << ": error " << err << ", loss " << s.loss() << " for "
                         << want.loss);
      expect_true(err < 1e-5);
      expect_true((std::fabs(s.loss() - want.loss) < 1e-5));
      expect_true((s.rows() == static_cast<int>(batches[step].size())));
    }
    expect_false(s.run_step());
  }

  test_that("an eval graph's streaming metrics and the mean of its batches' losses") {
    GraphData d;
    Spec eval = train_graph("float32");
    eval.strs["mode"] = {"eval"};
    auto metric = [](const std::string& kind, int labels, int predictions) {
      Spec m;
      m.kind = kind;
      m.strs["name"] = {kind};
      m.nums["labels"] = {static_cast<double>(labels)};
      m.nums["predictions"] = {static_cast<double>(predictions)};
      return m;
    };
    eval.lists["metrics"] = {metric("mean_squared_error", kLabels, kPred),
                             metric("root_mean_squared_error", kLabels, kPred),
                             metric("mean_absolute_error", kLabels, kPred),
                             metric("mean", -1, kPred)};
    EstimatorSpec spec = graph_estimator(train_graph("float32"));
    spec.model.lists["graphs"].push_back(eval);
    Estimator est(spec);
    const ByHand first(d, values_of(est, "dense/kernel"), values_of(est, "dense/bias"),
                       values_of(est, "out/kernel"), {0, 1, 2});
    const ByHand second(d, values_of(est, "dense/kernel"), values_of(est, "dense/bias"),
                        values_of(est, "out/kernel"), {3});
    const ByHand all(d, values_of(est, "dense/kernel"), values_of(est, "dense/bias"),
                     values_of(est, "out/kernel"));
    Session s(est, d.data, batches_of(3, 1, Mode::Eval));
    while (s.run_step()) {
    }
    double mae = 0, mean = 0;
    for (int r = 0; r < 4; ++r) {
      mae += std::fabs(all.pred[r] - d.y[r]) / 4;
      mean += all.pred[r] / 4;
    }
    const std::vector<std::pair<std::string, double>> want = {
        {"loss", (first.loss + second.loss) / 2},
        {"mean", mean},
        {"mean_absolute_error", mae},
        {"mean_squared_error", all.se / 4},
        {"root_mean_squared_error", std::sqrt(all.se / 4)}};
    const MetricList got = s.metrics().result();
    expect_true((got.size() == want.size()));
    for (std::size_t m = 0; m < std::min(got.size(), want.size()); ++m) {
      CATCH_INFO(got[m].first << " = " << got[m].second << ", by hand " << want[m].second);
      expect_true((got[m].first == want[m].first));
      expect_true((std::fabs(got[m].second - want[m].second) < 1e-5));
    }
    // the train graph's frontier is the eval graph's too; training still binds its own
    expect_true((est.head().logits_dim() == 5));
  }

  test_that("bad graphs stop with a message naming the node") {
    {
      Spec g = train_graph("float32");
      g.lists["nodes"][kMatMul].nums["inputs"] = {kInput, kBiasAdd};  // a later node
      const std::string want =
          "graph node 2 ('dense/MatMul', matmul): an input is not an earlier node";
      expect_true((error_of([&] { graph::parse_graph(g, 1); }) == want));
      expect_true((estimator_error(graph_estimator(g)) == want));
      g.lists["nodes"][kMatMul].nums["inputs"] = {kInput, kMatMul};  // itself
      expect_true((error_of([&] { graph::parse_graph(g, 1); }) == want));
      g.lists["nodes"][kMatMul].nums["inputs"] = {kInput, -1};
      expect_true((error_of([&] { graph::parse_graph(g, 1); }) == want));
      g.lists["nodes"][kMatMul].nums["inputs"] = {kInput};
      expect_true((error_of([&] { graph::parse_graph(g, 1); }) ==
                   "graph node 2 ('dense/MatMul', matmul): wrong number of inputs"));
    }
    {
      Spec g = train_graph("float32");
      g.nums["loss"] = {kSquareKernel};  // 2 x 3
      expect_true(
          (estimator_error(graph_estimator(g)) == "the loss must be a scalar, not 'Square_1'"));
      g.nums["loss"] = {kSquare};  // one value per row
      expect_true((estimator_error(graph_estimator(g)) ==
                   "the loss must be a scalar, not a tensor with a value per row ('Square')"));
      g.nums["loss"] = {kLoss + 1};
      expect_true(
          (estimator_error(graph_estimator(g)) == "the graph's loss is not one of its nodes"));
      expect_error_as(graph::parse_graph(g, 1), std::invalid_argument);
    }
    {
      Spec g = train_graph("float32");
      g.nums["prediction_nodes"] = {kPred, kSub};
      expect_true((estimator_error(graph_estimator(g)) == "the prediction 'sub' reads the labels"));
      g.nums["prediction_nodes"] = {kPred, kPenalty};
      expect_true((contains(estimator_error(graph_estimator(g)),
                            "the prediction 'mul' has no value per example")));
    }
    {
      Spec g = train_graph("float32");
      g.lists["nodes"][kKernel].strs["var"] = {"dense/kernal"};
      expect_true((estimator_error(graph_estimator(g)) ==
                   "the train graph reads the variable 'dense/kernal', which the model does not "
                   "hold"));
      g = train_graph("float32");
      g.lists["nodes"][kKernel].nums["shape"] = {3, 2};
      expect_true((estimator_error(graph_estimator(g)) ==
                   "the train graph reads the variable 'dense/kernel' with another shape than the "
                   "model's"));
      g = train_graph("float32");
      g.lists["nodes"][kInput].nums["shape"] = {-1, 3};
      expect_true((estimator_error(graph_estimator(g)) ==
                   "the input layer 'input_layer/concat' is 3 wide but its columns give 2 values"));
      g = train_graph("float32");
      g.lists["nodes"][kInput].nums["columns"] = {1};
      expect_true((estimator_error(graph_estimator(g)) ==
                   "graph node 0 ('input_layer/concat', input): a column index is out of range"));
      g = train_graph("float32");
      g.lists["nodes"][kRelu].kind = "conv2d";
      expect_true((estimator_error(graph_estimator(g)) == "the engine has no graph op 'conv2d'"));
      g = train_graph("float32");
      g.lists["nodes"][kMatMul].nums["shape"] = {-1, 3, 1};
      expect_true((estimator_error(graph_estimator(g)) ==
                   "graph node 2 ('dense/MatMul', matmul): matmul is 2-D"));
      g = train_graph("float32");
      g.lists["nodes"][kMatMul].nums["shape"] = {-1, -1};
      expect_true((estimator_error(graph_estimator(g)) ==
                   "graph node 2 ('dense/MatMul', matmul): only its first dimension may be "
                   "unknown"));
    }
  }
}
