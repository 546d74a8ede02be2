// Engine unit tests: the linear model with id and embedding columns, sparse
// gradients, and each optimizer's sparse update against hand-computed values.
#include <testthat.h>

#include <cmath>
#include <string>
#include <vector>

#include <cppestimators/model/embedding_lookup.h>
#include <cppestimators/model/optimizers/optimizer.h>
#include <cppestimators/model/optimizers/registry.h>
#include <cppestimators/model/parameter.h>
#include <cppestimators/model/sparse_grad.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {
bool near(double a, double b, double tol = 1e-6) { return std::fabs(a - b) <= tol; }

Spec vocab(const std::string& key, std::vector<std::string> words) {
  Spec s = column("vocabulary_list", key);
  s.strs["key"] = {key};
  s.strs["vocabulary"] = std::move(words);
  return s;
}

// One sparse update of a 3-row, 1-wide table: rows 0 and 2 get gradients.
std::vector<float> sparse_step(const std::string& name, float lr, std::vector<float> w,
                               std::vector<std::vector<float>>* slots_out = nullptr, int steps = 1,
                               bool touch_second = true) {
  auto opt = make_optimizer(optimizer(name, lr));
  std::vector<std::vector<float>> slots;
  for (float v : opt->slot_initial_values()) slots.push_back(std::vector<float>(3, v));
  float* ptrs[4] = {nullptr, nullptr, nullptr, nullptr};
  for (std::size_t i = 0; i < slots.size(); ++i) ptrs[i] = slots[i].data();
  for (int s = 0; s < steps; ++s) {
    const std::int64_t rows[2] = {0, 2};
    const float g[2] = {0.3f, -0.5f};
    opt->apply_sparse(w.data(), ptrs, 1, 3, rows, g, (s == 0 || touch_second) ? 2 : 0);
    opt->finish_step();
  }
  if (slots_out) *slots_out = slots;
  return w;
}
}  // namespace

context("Sparse optimizer updates") {
  test_that("Ftrl from zero: w = -g lr / sqrt(0.1 + g^2) on the rows looked up only") {
    std::vector<std::vector<float>> s;
    auto w = sparse_step("Ftrl", 0.2f, {0, 0, 0}, &s);
    expect_true((near(w[0], -0.1376494403) && w[1] == 0.0f && near(w[2], 0.1690308509)));
    expect_true((near(s[0][0], 0.19) && s[0][1] == 0.1f && near(s[1][2], -0.5)));
  }
  test_that("Adagrad and SGD leave untouched rows alone") {
    auto w = sparse_step("Adagrad", 0.1f, {0.5f, 0.5f, 0.5f});
    expect_true((near(w[0], 0.4311752798) && w[1] == 0.5f));
    auto v = sparse_step("SGD", 0.1f, {0.5f, 0.5f, 0.5f});
    expect_true((near(v[0], 0.47) && v[1] == 0.5f && near(v[2], 0.55)));
  }
  test_that("Adam decays every row's moments, so rows keep moving without gradients (TF 1.x)") {
    std::vector<std::vector<float>> s;
    auto w = sparse_step("Adam", 0.1f, {0.5f, 0.5f, 0.5f}, &s, 2, false);
    // step 1: m0 = 0.03, v0 = 9e-5, w0 = 0.5 - 0.1 * sqrt(0.001)/0.1 * 0.03/sqrt(9e-5) = 0.4
    // step 2 (no gradient): m0 = 0.027, v0 = 8.991e-5; lr_t = 0.1 sqrt(1-0.998001)/(1-0.81)
    const double lr2 = 0.1 * std::sqrt(1 - 0.999 * 0.999) / (1 - 0.81);
    expect_true((near(w[0], 0.4 - lr2 * 0.027 / (std::sqrt(8.991e-5) + 1e-8), 1e-5)));
    expect_true((w[1] == 0.5f));
    expect_true((near(s[0][0], 0.027, 1e-7) && near(s[1][0], 8.991e-5, 1e-8)));
  }
  test_that("RMSProp leaves the mean square of untouched rows at one") {
    std::vector<std::vector<float>> s;
    auto w = sparse_step("RMSProp", 0.1f, {0.5f, 0.5f, 0.5f}, &s);
    expect_true((near(w[0], 0.4685341612) && w[1] == 0.5f && s[0][1] == 1.0f));
  }
}

context("Sparse gradients") {
  test_that("duplicate ids are summed; rows come out distinct and ascending") {
    Parameter p = Parameter::single("t", {5, 2});
    SparseGrad g;
    g.reserve(4, 2);
    g.begin();
    g.add(3, 0, 1.0f);
    g.add(1, 1, 2.0f);
    g.add(3, 1, 0.5f);
    const float src[4] = {1, 10, 100, 1000};  // rows x 2
    Gradient out;
    g.finish(src, p, out);
    expect_true((out.sparse && out.count == 2));
    expect_true((out.rows[0] == 1 && out.rows[1] == 3));
    expect_true((out.values[0] == 200 && out.values[1] == 2000));
    expect_true((out.values[2] == 51 && out.values[3] == 510));
  }
}

context("Embedding lookups") {
  test_that("sum, mean and sqrtn combine weighted rows; an empty row gives zeros") {
    Parameter table = Parameter::single("e", {3, 2});
    table.value = {1, 2, 3, 4, 5, 6};
    SparseIds ids;
    ids.reserve(2, 2);
    ids.push(0, 1.0f);
    ids.push(2, 3.0f);
    ids.end_row();
    ids.end_row();
    for (const char* comb : {"sum", "mean", "sqrtn"}) {
      EmbeddingParams p;
      p.dimension = 2;
      p.combiner = comb;
      EmbeddingLookup lookup(p, &table);
      EmbeddingLookup::Scratch s;
      lookup.reserve(s, ids);
      float out[4] = {-1, -1, -1, -1};
      lookup.forward(ids, s, out);
      const double scale = std::string(comb) == "sum"    ? 1.0
                           : std::string(comb) == "mean" ? 0.25
                                                         : 1 / std::sqrt(10.0);
      expect_true((near(out[0], 16 * scale, 1e-5) && near(out[1], 20 * scale, 1e-5)));
      expect_true((out[2] == 0.0f && out[3] == 0.0f));
    }
  }
}

context("Linear model") {
  test_that("id columns get one weight row per bucket; SGD moves only the rows seen") {
    std::vector<std::string> c{"b", "b", "a"};
    std::vector<double> x{1, 2, 3}, y{1, 1, 1};
    Dataset d;
    d.n = 3;
    d.features = {strings("c", c), doubles("x", x)};
    d.labels = y.data();
    Estimator est(linear({vocab("c", {"a", "b", "z"}), numeric("x")}, "SGD", 0.1));
    expect_true((est.find_variable("linear/linear_model/c/weights") != nullptr));
    expect_true(
        (est.find_variable("linear/linear_model/c/weights")->shape == (std::vector<int>{3, 1})));
    SessionOptions o;
    o.batch_size = 3;
    Session s(est, d, o);
    expect_true((s.run_step()));
    // from zero: dlogits = 2 (0 - 1) = -2 per row; w_b = 0.1 * 4, w_a = 0.1 * 2, w_z = 0
    const float* w = est.find_variable("linear/linear_model/c/weights")->data;
    expect_true((near(w[0], 0.2) && near(w[1], 0.4) && w[2] == 0.0f));
    expect_true((near(*est.find_variable("linear/linear_model/bias_weights")->data, 0.6)));
    expect_true((near(est.find_variable("linear/linear_model/x/weights")->data[0], 0.1 * 2 * 6)));
  }
  test_that("an embedding column trains its table and its weights, seeded") {
    std::vector<std::string> c{"a", "b"};
    std::vector<double> y{1, -1};
    Dataset d;
    d.n = 2;
    d.features = {strings("c", c)};
    d.labels = y.data();
    Spec e = column("embedding", "c_embedding");
    e.lists["categorical_column"] = {vocab("c", {"a", "b"})};
    e.nums["dimension"] = {3};
    EstimatorSpec spec = linear({e}, "SGD", 0.1);
    spec.seed = 42;
    Estimator est(spec), again(spec);
    const VariableRef* t = est.find_variable("linear/linear_model/c_embedding/embedding_weights");
    expect_true((t != nullptr && t->shape == (std::vector<int>{2, 3})));
    bool same = true, bounded = true;
    for (std::size_t i = 0; i < t->size; ++i) {
      same = same && t->data[i] == again.find_variable(t->name)->data[i];
      bounded = bounded && std::fabs(t->data[i]) <= 2.0 / std::sqrt(3.0) + 1e-6;
    }
    expect_true((same && bounded));
    std::vector<float> before(t->data, t->data + t->size);
    SessionOptions o;
    o.batch_size = 2;
    o.num_epochs = -1;
    Session s(est, d, o);
    for (int i = 0; i < 50; ++i) s.run_step();
    bool moved = false;
    for (std::size_t i = 0; i < t->size; ++i) moved = moved || t->data[i] != before[i];
    expect_true((moved));
    expect_true((s.loss() < 0.05));
  }
}
