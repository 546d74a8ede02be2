// Engine unit tests: the heads of one element-wise loss (pointwise.h) and the
// multi-label head, against TensorFlow's head tests (tensorflow/estimator's
// regression_head_test.py and multi_label_head_test.py: the Poisson and
// logistic-regression heads' losses and predictions, the multi-label head's
// losses and tf.metrics (v1) evaluation metrics), and each loss's
// derivatives against finite differences.
#include <testthat.h>

#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cppestimators/math/pointwise_loss.h>
#include <cppestimators/model/heads/head.h>
#include <cppestimators/model/heads/multi_label.h>
#include <cppestimators/model/heads/pointwise.h>
#include <cppestimators/model/heads/registry.h>
#include <cppestimators/spec.h>

using namespace cppestimators;

namespace {

bool near(double a, double b, double tol) { return std::fabs(a - b) <= tol; }

std::map<std::string, double> metrics_of(const Head& h, const std::vector<float>& logits,
                                         const std::vector<float>& labels, int rows,
                                         const float* weights = nullptr) {
  std::vector<float> pe(static_cast<std::size_t>(rows) * h.per_example_dim());
  const double loss = h.loss(logits.data(), labels.data(), rows, pe.data(), nullptr, weights);
  auto m = h.new_metrics();
  m->update(logits.data(), labels.data(), pe.data(), rows, loss, weights);
  std::map<std::string, double> out;
  for (const auto& kv : m->result()) out[kv.first] = kv.second;
  return out;
}

Spec head_spec(const std::string& kind, const std::string& num = "", std::vector<double> v = {}) {
  Spec s;
  s.kind = kind;
  if (!num.empty()) s.nums[num] = std::move(v);
  return s;
}

}  // namespace

context("Element-wise heads") {
  test_that("Poisson: TF's PoissonRegressionHead test_train loss, test_predict predictions") {
    auto h = make_head(head_spec("poisson_regression"), 1);
    std::vector<float> x = {0.0f, -1.0f, 1.0f}, y = {1.0f, 2.0f, 3.0f}, pe(3), dl(3);
    const double total = h->loss(x.data(), y.data(), 3, pe.data(), dl.data());
    // TF: per example [1.0, 3.020, 1.482] (with Stirling's term), mean 1.834
    expect_true(near(pe[0], 1.0, 1e-6));
    expect_true(near(pe[1], 3.0196859, 1e-5));
    expect_true(near(pe[2], 1.4823634, 1e-5));
    expect_true(near(total / 3.0, 1.8340164, 1e-5));
    // gradient exp(f) - y
    expect_true(near(dl[1], std::exp(-1.0) - 2.0, 1e-6));
    std::vector<double> pred(3), lg(3);
    h->predict("predictions", x.data(), 3, pred.data());
    h->predict("logits", x.data(), 3, lg.data());
    expect_true((near(pred[1], 0.36787944, 1e-7) && near(pred[2], 2.7182817, 1e-6)));
    expect_true(lg[1] == -1.0);
    expect_true((h->prediction_keys() == std::vector<std::string>{"predictions", "logits"}));
    const auto m = metrics_of(*h, x, y, 3);
    expect_true(near(m.at("average_loss"), 1.8340164, 1e-5));
    expect_true(near(m.at("prediction/mean"), 1.3620537, 1e-6));
    expect_true(near(m.at("label/mean"), 2.0, 1e-12));
    // glm()'s deviance: 2 sum(y log(y / mu) - (y - mu)) / n
    double dev = 0.0;
    for (int i = 0; i < 3; ++i) {
      const double mu = std::exp(static_cast<double>(x[i])), yi = y[i];
      dev += 2.0 * (yi * std::log(yi / mu) - (yi - mu));
    }
    expect_true(near(m.at("deviance"), dev / 3.0, 1e-6));
    expect_error_as(make_head(head_spec("poisson_regression"), 1)
                        ->check_labels(std::vector<double>{1.0, -1.0}.data(), 2, 1),
                    std::invalid_argument);
  }

  test_that("logistic regression: TF's LogisticRegressionHead loss, predictions, label range") {
    auto h = make_head(head_spec("logistic_regression"), 1);
    std::vector<float> x = {0.0f, -1.0f, 1.0f}, y = {0.4f, 0.6f, 0.8f}, pe(3);
    const double total = h->loss(x.data(), y.data(), 3, pe.data(), nullptr);
    expect_true((near(pe[0], 0.69314718, 1e-6) && near(pe[1], 0.91326169, 1e-6) &&
                 near(pe[2], 0.51326169, 1e-6)));
    expect_true(near(total / 3.0, 0.70655685, 1e-6));
    std::vector<double> pred(3);
    h->predict("predictions", x.data(), 3, pred.data());
    expect_true((near(pred[0], 0.5, 1e-7) && near(pred[1], 0.26894142, 1e-7) &&
                 near(pred[2], 0.73105858, 1e-7)));
    const auto m = metrics_of(*h, x, y, 3);
    expect_true((near(m.at("prediction/mean"), 0.5, 1e-6) && near(m.at("label/mean"), 0.6, 1e-6)));
    std::string msg;
    try {
      h->check_labels(std::vector<double>{0.4, 1.2, 0.8}.data(), 3, 1);
    } catch (const std::invalid_argument& e) {
      msg = e.what();
    }
    expect_true(msg == "labels of a logistic_regression head must be in [0, 1]; got 1.2 at row 2");
  }

  test_that("each loss's gradient and hessian are its finite differences") {
    const std::vector<std::pair<PointwiseKind, double>> kinds = {{PointwiseKind::Poisson, 0.0},
                                                                 {PointwiseKind::Tweedie, 1.5},
                                                                 {PointwiseKind::Gamma, 0.0},
                                                                 {PointwiseKind::PseudoHuber, 1.3},
                                                                 {PointwiseKind::Logistic, 0.0}};
    for (const auto& k : kinds) {
      PointwiseLoss l{k.first, k.second};
      for (double f : {-1.7, -0.2, 0.4, 1.9})
        for (double y : {0.3, 1.0, 2.5}) {
          const double yy = k.first == PointwiseKind::Logistic ? y / 3.0 : y;
          double g, h, g1, h1, g0, h0;
          l.derivatives(f, yy, g, h);
          const double e = 1e-5;
          expect_true(near(g, (l.value(f + e, yy) - l.value(f - e, yy)) / (2 * e), 1e-5));
          l.derivatives(f + e, yy, g1, h1);
          l.derivatives(f - e, yy, g0, h0);
          expect_true(near(h, (g1 - g0) / (2 * e), 1e-5));
        }
    }
    // Huber (TF's huber_loss), absolute error and quantiles: first
    // derivatives away from the kinks, a second derivative of 1
    for (const auto& k :
         std::vector<std::pair<PointwiseKind, double>>{{PointwiseKind::Huber, 1.0},
                                                       {PointwiseKind::Absolute, 0.0},
                                                       {PointwiseKind::Quantile, 0.9}}) {
      PointwiseLoss l{k.first, k.second};
      for (double f : {-2.5, -0.3, 0.6, 3.1}) {
        double g, h;
        l.derivatives(f, 0.1, g, h);
        expect_true(near(g, (l.value(f + 1e-6, 0.1) - l.value(f - 1e-6, 0.1)) / 2e-6, 1e-6));
        expect_true(h == 1.0);
      }
    }
    // TF's huber_loss values: 0.5 r^2 inside delta, delta (|r| - delta / 2) outside
    PointwiseLoss huber{PointwiseKind::Huber, 1.0};
    expect_true(near(huber.value(0.5, 0.0), 0.125, 1e-12));
    expect_true(near(huber.value(-3.0, 0.0), 2.5, 1e-12));
  }

  test_that("Tweedie and Gamma deviances are glm()'s unit deviances") {
    PointwiseLoss gamma{PointwiseKind::Gamma, 0.0}, tw{PointwiseKind::Tweedie, 1.5};
    // Gamma: 2 ((y - mu) / mu - log(y / mu)) at y = 2, mu = 1: 2 (1 - log 2)
    expect_true(near(gamma.deviance(2.0, 1.0), 2.0 * (1.0 - std::log(2.0)), 1e-12));
    // Tweedie p = 1.5 at y = 0: 2 mu^0.5 / 0.5 = 4 sqrt(mu)
    expect_true(near(tw.deviance(0.0, 4.0), 8.0, 1e-12));
    expect_true(near(tw.deviance(3.0, 3.0), 0.0, 1e-12));
    expect_error_as(make_head(head_spec("tweedie", "power", {2.0}), 1), std::invalid_argument);
    expect_error_as(make_head(head_spec("huber", "delta", {0.0}), 1), std::invalid_argument);
    expect_error_as(make_head(head_spec("gamma_regression"), 1)
                        ->check_labels(std::vector<double>{0.0}.data(), 1, 1),
                    std::invalid_argument);
  }

  test_that("quantile head: one logit per level, sorted predictions, pinball and coverage") {
    auto h = make_head(head_spec("quantile", "levels", {0.1, 0.5, 0.9}), 1);
    expect_true((h->logits_dim() == 3 && h->label_dim() == 1 && h->per_example_dim() == 3));
    // a row whose logits cross: predictions are them sorted
    std::vector<float> x = {2.0f, 1.0f, 3.0f, 0.0f, 0.5f, 1.0f}, y = {1.5f, 2.0f}, pe(6), dl(6);
    h->loss(x.data(), y.data(), 2, pe.data(), dl.data());
    // pinball at 0.1 of (y = 1.5, f = 2): 0.9 * 0.5; gradient 1 - 0.1
    expect_true((near(pe[0], 0.45, 1e-6) && near(dl[0], 0.9, 1e-6)));
    // at 0.9 of (y = 1.5, f = 3): 0.1 * 1.5; at 0.5 of (y = 1.5, f = 1): 0.25, gradient -0.5
    expect_true((near(pe[2], 0.15, 1e-6) && near(pe[1], 0.25, 1e-6) && near(dl[1], -0.5, 1e-6)));
    std::vector<double> pred(6);
    h->predict("predictions", x.data(), 2, pred.data());
    expect_true((pred == std::vector<double>{1.0, 2.0, 3.0, 0.0, 0.5, 1.0}));
    const auto m = metrics_of(*h, x, y, 2);
    // the metrics read the sorted predictions: row 1 (1, 2, 3) with y 1.5,
    // row 2 (0, 0.5, 1) with y 2
    expect_true(near(m.at("pinball_loss/0.1"), (0.1 * 0.5 + 0.1 * 2.0) / 2, 1e-6));
    expect_true(near(m.at("coverage/0.5"), 0.5, 1e-12));
    expect_true(near(m.at("coverage/0.9"), 0.5, 1e-12));
    expect_true(near(m.at("interval_coverage"), 0.5, 1e-12));
    expect_error_as(make_head(head_spec("quantile", "levels", {0.5, 0.1}), 1),
                    std::invalid_argument);
    expect_error_as(make_head(head_spec("quantile", "levels", {1.0}), 1), std::invalid_argument);
    // the trees start from the labels' quantiles and renew leaves at each level
    std::vector<float> base(3);
    std::vector<float> labels = {5, 1, 4, 2, 3};
    expect_true(h->exact_base_logits(labels.data(), nullptr, 5, base.data()));
    expect_true((base == std::vector<float>{1, 3, 5}));
    expect_true(h->leaf_quantile(2) == 0.9);
  }

  test_that("weighted quantiles minimize the weighted pinball loss") {
    std::vector<std::pair<double, double>> vw = {{3, 1}, {1, 1}, {2, 1}, {10, 0}};
    expect_true(weighted_quantile(vw, 0.5) == 2.0);
    std::vector<std::pair<double, double>> heavy = {{1, 1}, {2, 5}, {3, 1}};
    expect_true(weighted_quantile(heavy, 0.2) == 2.0);
    expect_true(weighted_quantile(heavy, 0.1) == 1.0);
    std::vector<std::pair<double, double>> none;
    expect_true(std::isnan(weighted_quantile(none, 0.5)));
  }
}

context("Multi-label head") {
  test_that("TF's MultiLabelHead eval: loss, auc, per-class and threshold metrics") {
    MultiLabelHead h(2);
    std::vector<float> x = {-1.0f, 1.0f, -1.5f, 1.5f}, y = {1, 0, 1, 1}, pe(2);
    h.loss(x.data(), y.data(), 2, pe.data(), nullptr);
    expect_true((near(pe[0], 1.31326169, 1e-6) && near(pe[1], 0.9514133, 1e-6)));
    const auto m = metrics_of(h, x, y, 2);
    expect_true(near(m.at("average_loss"), 1.1323375, 1e-6));
    // tf.metrics.auc (200 thresholds, trapezoidal) over the four pairs
    expect_true(near(m.at("auc"), 1.0 / 3.0, 1e-3));
    expect_true(near(m.at("auc_precision_recall"), 0.76388887, 1e-4));
    expect_true(near(m.at("probability_mean/class0"), 0.22568347, 1e-6));
    expect_true(near(m.at("probability_mean/class1"), 0.77431653, 1e-6));
    expect_true((near(m.at("auc/class0"), 0.0, 1e-6) && near(m.at("auc/class1"), 1.0, 1e-6)));
    expect_true(near(m.at("auc_precision_recall/class0"), 1.0, 1e-6));
    expect_true(near(m.at("accuracy/positive_threshold_0.5"), 0.25, 1e-12));
    expect_true(near(m.at("precision/positive_threshold_0.5"), 0.5, 1e-12));
    expect_true(near(m.at("recall/positive_threshold_0.5"), 1.0 / 3.0, 1e-12));
    expect_true(near(m.at("hamming_loss"), 0.75, 1e-12));
  }

  test_that("TF's weighted multi-label loss and metrics") {
    MultiLabelHead h(2);
    std::vector<float> x = {-10, 10, -15, 10}, y = {1, 0, 1, 1}, w = {1, 2}, pe(2), dl(4);
    // TF's SUM reduction: 1 * 10 + 2 * 7.5
    const double total = h.loss(x.data(), y.data(), 2, pe.data(), dl.data(), w.data());
    expect_true(near(total, 25.0, 1e-3));
    // the gradient of the mean over labels, times the weight
    expect_true(near(dl[0], (1.0 / (1.0 + std::exp(10.0)) - 1.0) / 2.0, 1e-6));
    expect_true(near(dl[3], 2.0 * (1.0 / (1.0 + std::exp(-10.0)) - 1.0) / 2.0, 1e-6));
    const auto m = metrics_of(h, x, y, 2, w.data());
    expect_true(near(m.at("average_loss"), 25.0 / 3.0, 1e-3));
    expect_true(near(m.at("auc"), 0.2, 1e-4));
    expect_true(near(m.at("auc_precision_recall"), 0.7833, 1e-4));
    // a label that is never on, and labels that are not multi-hot
    std::vector<double> never = {0, 1, 0, 0};
    h.check_labels(never.data(), 2, 2);
    expect_error_as(h.check_labels(std::vector<double>{2, 0}.data(), 1, 2), std::invalid_argument);
    expect_error_as(h.check_labels(std::vector<double>{1, 0, 1}.data(), 1, 3),
                    std::invalid_argument);
    expect_error_as(MultiLabelHead(1), std::invalid_argument);
  }
}

context("Multi-label head's names") {
  test_that("per-label metrics are named by the labels' names when the head has them") {
    auto h = make_head(
        [] {
          Spec s;
          s.kind = "multi_label";
          s.strs["labels"] = {"a", "b"};
          return s;
        }(),
        2);
    std::vector<float> x = {-1.0f, 1.0f, -1.5f, 1.5f}, y = {1, 0, 1, 1};
    const auto m = metrics_of(*h, x, y, 2);
    expect_true(near(m.at("probability_mean/a"), 0.22568347, 1e-6));
    expect_true(near(m.at("auc/b"), 1.0, 1e-6));
    expect_true(m.count("auc/class0") == 0);
  }
}
