// Engine unit tests: the DNN model's gradients against finite differences
// (every activation, embeddings in the input layer), dropout only in
// training, and names and shapes of its variables.
#include <testthat.h>

#include <cmath>
#include <string>
#include <vector>

#include <cppestimators/model/layers/activation.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

struct DnnFixture {
  std::vector<double> x{0.3, -1.2, 0.8, 0.5,  -0.4, 1.1, -0.7, 0.2,
                        0.9, -0.3, 0.6, -1.0, 0.4,  0.7, -0.6};
  std::vector<std::string> c{"a", "b", "a", "c", "b"};
  std::vector<double> y{0.5, -1.0, 1.5, 0.2, -0.3};
  Dataset data;
  EstimatorSpec spec;
  DnnFixture(const std::string& activation, double dropout = 0) {
    data.n = 5;
    data.features = {doubles("x", x, 3), strings("c", c)};
    data.labels = y.data();
    Spec vocab = column("vocabulary_list", "c");
    vocab.strs["key"] = {"c"};
    vocab.strs["vocabulary"] = {"a", "b", "c"};
    Spec emb = column("embedding", "c_embedding");
    emb.lists["categorical_column"] = {vocab};
    emb.nums["dimension"] = {2};
    spec = linear({numeric("x", 3), emb}, "SGD", 0.01);
    spec.model.kind = "dnn";
    spec.model.nums["hidden_units"] = {4, 3};
    spec.model.strs["activation_fn"] = {activation};
    if (dropout > 0) spec.model.nums["dropout"] = {dropout};
    spec.seed = 11;
  }
};

// The summed squared loss of the batch, and the model's gradients of it.
double loss_and_grads(Estimator& est, const Dataset& data, FeatureBatch& batch, Workspace& ws,
                      FeatureSet::Binding& b, std::vector<Gradient>* grads) {
  int rows[5] = {0, 1, 2, 3, 4};
  est.model().features().gather(b, rows, 5, batch);
  std::vector<float> logits(5), labels(5), pe(5), dl(5);
  for (int i = 0; i < 5; ++i)
    labels[static_cast<std::size_t>(i)] = static_cast<float>(data.labels[i]);
  est.model().forward(batch, Mode::Eval, ws, logits.data());
  const double loss = est.head().loss(logits.data(), labels.data(), 5, pe.data(), dl.data());
  if (grads) *grads = est.model().backward(batch, dl.data(), ws);
  return loss;
}

// An estimator bound to the fixture's five rows, with a batch and workspace.
struct Bound {
  Estimator est;
  std::unique_ptr<FeatureSet::Binding> binding;
  FeatureBatch batch;
  std::unique_ptr<Workspace> ws;
  Bound(const DnnFixture& f) : est(f.spec) {
    const FeatureSet& fs = est.model().features();
    binding = fs.bind(f.data);
    fs.allocate(*binding, 5, batch);
    ws = est.model().new_workspace(batch, 5, 1);
  }
};

// Largest mismatch between analytic and central-difference gradients over
// every parameter value.
double worst_gradient_error(const std::string& activation) {
  DnnFixture f(activation);
  Bound b(f);
  Estimator& est = b.est;
  FeatureBatch& batch = b.batch;
  std::vector<Gradient> grads;
  loss_and_grads(est, f.data, batch, *b.ws, *b.binding, &grads);
  double worst = 0;
  for (const Gradient& g : grads) {
    Parameter& p = *g.param;
    std::vector<float> analytic(p.value.size(), 0.0f);
    if (g.sparse) {
      for (std::size_t k = 0; k < g.count; ++k)
        for (std::size_t j = 0; j < p.row_width; ++j)
          analytic[static_cast<std::size_t>(g.rows[k]) * p.row_width + j] =
              g.values[k * p.row_width + j];
    } else {
      analytic.assign(g.dense, g.dense + p.value.size());
    }
    for (std::size_t i = 0; i < p.value.size(); ++i) {
      const float keep = p.value[i], eps = 1e-2f;
      p.value[i] = keep + eps;
      const double up = loss_and_grads(est, f.data, batch, *b.ws, *b.binding, nullptr);
      p.value[i] = keep - eps;
      const double down = loss_and_grads(est, f.data, batch, *b.ws, *b.binding, nullptr);
      p.value[i] = keep;
      const double numeric = (up - down) / (2 * eps);
      worst = std::max(worst, std::fabs(numeric - analytic[i]) / (1.0 + std::fabs(numeric)));
    }
  }
  return worst;
}

}  // namespace

context("DNN model") {
  test_that("gradients match finite differences for every activation") {
    for (const std::string& a : Activation::names()) {
      const double err = worst_gradient_error(a);
      CATCH_INFO("activation " << a);  // named in the report when the check fails
      expect_true(err < 2e-2);
    }
  }

  test_that("variables have TF's names and shapes; crelu doubles a layer's width") {
    DnnFixture f("crelu");
    Estimator est(f.spec);
    expect_true((est.find_variable("dnn/hiddenlayer_0/kernel")->shape == std::vector<int>{5, 4}));
    expect_true((est.find_variable("dnn/hiddenlayer_1/kernel")->shape == std::vector<int>{8, 3}));
    expect_true((est.find_variable("dnn/logits/kernel")->shape == std::vector<int>{6, 1}));
    expect_true((est.find_variable("dnn/logits/bias")->shape == std::vector<int>{1}));
    expect_true((est.find_variable(
                        "dnn/input_from_feature_columns/input_layer/c_embedding/embedding_weights")
                     ->shape == std::vector<int>{3, 2}));
    // Glorot-uniform kernels within their limit, zero biases
    const VariableRef* k0 = est.find_variable("dnn/hiddenlayer_0/kernel");
    bool within = true, nonzero = false;
    for (std::size_t i = 0; i < k0->size; ++i) {
      within = within && std::fabs(k0->data[i]) <= std::sqrt(6.0 / 9.0) + 1e-6;
      nonzero = nonzero || k0->data[i] != 0.0f;
    }
    expect_true((within && nonzero));
    expect_true((est.find_variable("dnn/hiddenlayer_0/bias")->data[0] == 0.0f));
  }

  test_that("dropout changes training outputs only; evaluation is deterministic") {
    DnnFixture f("relu", 0.5);
    Bound b(f);
    Estimator& est = b.est;
    FeatureBatch& batch = b.batch;
    auto& ws = b.ws;
    int rows[5] = {0, 1, 2, 3, 4};
    est.model().features().gather(*b.binding, rows, 5, batch);
    std::vector<float> e1(5), e2(5), t1(5), t2(5);
    est.model().forward(batch, Mode::Eval, *ws, e1.data());
    est.model().forward(batch, Mode::Predict, *ws, e2.data());
    est.model().forward(batch, Mode::Train, *ws, t1.data());
    est.model().forward(batch, Mode::Train, *ws, t2.data());
    expect_true((e1 == e2));
    expect_true((t1 != t2 || t1 != e1));
  }

  test_that("unknown activations and raw categorical columns are refused") {
    expect_error_as(Activation("swish"), std::invalid_argument);
    DnnFixture f("relu");
    Spec raw = column("vocabulary_list", "c");
    raw.strs["key"] = {"c"};
    raw.strs["vocabulary"] = {"a"};
    f.spec.model.lists["feature_columns"].push_back(raw);
    expect_error_as(Estimator(f.spec), std::invalid_argument);
  }
}
