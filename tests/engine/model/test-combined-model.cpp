// Engine unit tests: the wide & deep model (model/combined_model.h): its
// variables are those of a linear model on its linear columns and a DNN on
// its DNN columns, and its logits are the sum of theirs.
#include <testthat.h>

#include <cmath>
#include <string>
#include <vector>

#include <cppestimators/math/gemm.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

bool near(double a, double b) { return std::fabs(a - b) < 1e-5; }

EstimatorSpec combined_spec() {
  EstimatorSpec spec = linear({numeric("a"), numeric("b")}, "SGD", 0.1);
  spec.model.kind = "combined";
  spec.model.strs["linear_columns"] = {"a"};
  spec.model.strs["dnn_columns"] = {"b"};
  spec.model.nums["hidden_units"] = {3};
  spec.optimizers.push_back(optimizer("SGD", 0.1));  // one per part
  return spec;
}
EstimatorSpec dnn_spec() {
  EstimatorSpec spec = linear({numeric("b")}, "SGD", 0.1);
  spec.model.kind = "dnn";
  spec.model.nums["hidden_units"] = {3};
  return spec;
}

// The logits of a predict session over `data`.
std::vector<float> logits_of(Estimator& est, const Dataset& data) {
  SessionOptions o = batches_of(static_cast<int>(data.n), 1, Mode::Predict);
  o.kernel = gemm::best_available();
  Session s(est, data, o);
  while (s.run_step()) {
  }
  return s.predictions();
}

// Copies every variable of `to` from the variable of the same name in `from`.
bool copy_variables(const Estimator& from, Estimator& to) {
  for (const VariableRef& v : to.variables()) {
    const VariableRef* src = from.find_variable(v.name);
    if (src == nullptr || src->size != v.size) return false;
    for (std::size_t i = 0; i < v.size; ++i) v.data[i] = src->data[i];
  }
  return true;
}

}  // namespace

context("Combined model") {
  test_that("logits are the linear part's plus the DNN part's") {
    std::vector<double> a{1.0, -2.0, 0.5}, b{0.3, 1.5, -0.7};
    Dataset data;
    data.n = 3;
    data.features = {doubles("a", a), doubles("b", b)};
    EstimatorSpec spec = combined_spec();
    spec.seed = 5;
    Estimator wide_deep(spec);
    // every variable set to known, nonzero values (biases included)
    int k = 0;
    for (const VariableRef& v : wide_deep.variables())
      for (std::size_t i = 0; i < v.size; ++i, ++k)
        v.data[i] = static_cast<float>(0.25 * std::sin(1.0 + k) + 0.1);
    expect_true(wide_deep.find_variable("linear/linear_model/a/weights") != nullptr);
    expect_true(wide_deep.find_variable("linear/linear_model/b/weights") ==
                nullptr);  // b is the DNN's
    expect_true(wide_deep.find_variable("dnn/hiddenlayer_0/kernel") != nullptr);
    expect_true(wide_deep.find_variable("dnn/hiddenlayer_0/kernel")->shape ==
                (std::vector<int>{1, 3}));

    Estimator wide(linear({numeric("a")}, "SGD", 0.1)), deep(dnn_spec());
    expect_true(copy_variables(wide_deep, wide));
    expect_true(copy_variables(wide_deep, deep));
    expect_true(wide.variables().size() + deep.variables().size() == wide_deep.variables().size());

    const std::vector<float> both = logits_of(wide_deep, data), lin = logits_of(wide, data),
                             dnn = logits_of(deep, data);
    expect_true(both.size() == 3);
    const float w = wide.find_variable("linear/linear_model/a/weights")->data[0];
    const float bias = wide.find_variable("linear/linear_model/bias_weights")->data[0];
    bool dnn_matters = false;
    for (std::size_t r = 0; r < 3; ++r) {
      expect_true(near(lin[r], w * a[r] + bias));
      expect_true(near(both[r], lin[r] + dnn[r]));
      dnn_matters = dnn_matters || std::fabs(dnn[r]) > 1e-3;
    }
    expect_true(dnn_matters);
  }
}
