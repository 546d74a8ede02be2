// Engine unit tests: head losses and gradients, streaming metrics.
#include <testthat.h>

#include <cmath>
#include <algorithm>
#include <memory>
#include <vector>
#include <stdexcept>

#include <cppestimators/math/fast_math.h>
#include <cppestimators/model/heads/binary.h>
#include <cppestimators/model/heads/head.h>
#include <cppestimators/model/heads/metric_accumulator.h>
#include <cppestimators/model/heads/multi_class.h>
#include <cppestimators/model/heads/registry.h>
#include <cppestimators/model/heads/regression.h>

using namespace cppestimators;

context("Heads") {
  test_that("regression: squared error, gradient 2 * (yhat - y)") {
    RegressionHead h(1);
    float logits[2] = {1.0f, 3.0f}, labels[2] = {2.0f, 0.0f}, pe[2], dl[2];
    double total = h.loss(logits, labels, 2, pe, dl);
    expect_true((pe[0] == 1.0f && pe[1] == 9.0f));
    expect_true(total == 10.0);
    expect_true((dl[0] == -2.0f && dl[1] == 6.0f));
  }

  test_that("binary: sigmoid cross-entropy at logit 0 is log(2)") {
    BinaryHead h;
    float logits[1] = {0.0f}, labels[1] = {1.0f}, pe[1], dl[1];
    h.loss(logits, labels, 1, pe, dl);
    expect_true(std::fabs(pe[0] - std::log(2.0f)) < 1e-6);
    expect_true(std::fabs(dl[0] + 0.5f) < 1e-6);
  }

  test_that(
      "binary: the vectorized loss, gradient and hessian agree with double precision at every "
      "scale") {
    // 1001 logits from -100 to 100 (an odd count: the scalar tail runs too), soft and hard labels
    const int n = 1001;
    std::vector<float> x(n), y(n), pe(n), dl(n), hess(n), hess_only(n);
    for (int i = 0; i < n; ++i) {
      x[static_cast<std::size_t>(i)] = -100.0f + 0.2f * static_cast<float>(i) + (i % 7) * 1e-3f;
      y[static_cast<std::size_t>(i)] = (i % 3) * 0.5f;
    }
    const double total =
        fast::logistic_loss(x.data(), y.data(), n, pe.data(), dl.data(), hess.data());
    fast::logistic_hessian(x.data(), n, hess_only.data());
    BinaryHead h;
    std::vector<float> pe2(n), dl2(n), h2(n);
    const double head_total = h.loss(x.data(), y.data(), n, pe2.data(), dl2.data());
    expect_true(h.hessian(x.data(), y.data(), n, h2.data()));
    double sum = 0.0, worst_loss = 0.0, worst_grad = 0.0, worst_hess = 0.0;
    int differ = 0;
    for (int i = 0; i < n; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      const double xd = x[k], yd = y[k];
      const double loss = std::max(xd, 0.0) - xd * yd + std::log1p(std::exp(-std::fabs(xd)));
      const double p = 1.0 / (1.0 + std::exp(-xd));
      sum += loss;
      worst_loss = std::max(worst_loss, std::fabs(pe[k] - loss) / std::max(loss, 1e-30));
      worst_grad = std::max(worst_grad, std::fabs(dl[k] - (p - yd)));
      // relative, absolute under 1e-30 (logits below -87 give 0, not a subnormal)
      const double e = std::exp(-std::fabs(xd)),
                   ph = e / ((1.0 + e) * (1.0 + e));  // p (1 - p) without cancellation
      worst_hess = std::max(worst_hess, std::fabs(hess[k] - ph) / std::max(ph, 1e-30));
      if (hess_only[k] != hess[k] || pe2[k] != pe[k] || dl2[k] != dl[k] || h2[k] != hess[k])
        ++differ;
    }
    expect_true(differ == 0);  // the head's loss and hessian are these
    expect_true(worst_loss < 1e-6);
    expect_true(worst_grad < 1e-7);
    expect_true(worst_hess < 1e-5);
    expect_true(std::fabs(total - sum) < 1e-6 * sum);
    expect_true(head_total == total);
  }

  test_that("multi-class: softmax cross-entropy of equal logits is log(K)") {
    MultiClassHead h(3);
    float logits[3] = {1.0f, 1.0f, 1.0f}, labels[1] = {2.0f}, pe[1], dl[3];
    h.loss(logits, labels, 1, pe, dl);
    expect_true(std::fabs(pe[0] - std::log(3.0f)) < 1e-6);
    expect_true(std::fabs(dl[2] - (1.0f / 3 - 1)) < 1e-6);
  }

  test_that("every head's logit gradient matches central finite differences of its summed loss") {
    struct Case {
      const char* head;
      int n;  // label dimension or classes
      std::vector<float> logits, labels;
    };
    // three rows each; logits chosen away from kinks, large enough to exercise
    // the stable forms (|logit| of 4 and more)
    const Case cases[] = {
        {"regression",
         2,
         {0.3f, -1.2f, 2.5f, 0.1f, -0.7f, 4.0f},
         {1.0f, -1.0f, 0.5f, 0.5f, -2.0f, 3.0f}},
        {"binary", 2, {0.4f, -4.5f, 2.2f}, {1.0f, 0.0f, 0.0f}},
        {"multi_class",
         4,
         {0.2f, -0.5f, 1.1f, 0.0f, 5.0f, -3.0f, 0.3f, 0.9f, -1.0f, -1.5f, 2.0f, 0.4f},
         {2.0f, 0.0f, 3.0f}},
    };
    for (const Case& c : cases) {
      auto h = make_head(c.head, c.n);
      const int rows = 3, width = h->logits_dim();
      std::vector<float> logits = c.logits,
                         pe(static_cast<std::size_t>(rows) * h->per_example_dim()),
                         grad(logits.size());
      h->loss(logits.data(), c.labels.data(), rows, pe.data(), grad.data());
      double worst = 0.0;
      for (std::size_t i = 0; i < logits.size(); ++i) {
        const float eps = 1e-2f;
        std::vector<float> up = logits, down = logits;
        up[i] += eps;
        down[i] -= eps;
        const double numeric = (h->loss(up.data(), c.labels.data(), rows, pe.data(), nullptr) -
                                h->loss(down.data(), c.labels.data(), rows, pe.data(), nullptr)) /
                               (2.0 * eps);
        worst = std::max(worst, std::fabs(numeric - grad[i]) / std::max(1.0, std::fabs(numeric)));
      }
      expect_true(worst < 2e-3);
      expect_true(static_cast<int>(logits.size()) == rows * width);
    }
  }

  test_that("the registry maps names to heads; an unknown name is an error") {
    for (const char* name : {"regression", "binary", "multi_class"})
      expect_true(make_head(name, 3)->name() == name);
    expect_true(make_head("regression", 2)->default_prediction_key() == "predictions");
    expect_true(make_head("binary", 2)->default_prediction_key() == "logistic");
    expect_true(make_head("multi_class", 3)->default_prediction_key() == "probabilities");
    expect_error_as(make_head("poisson", 1), std::invalid_argument);
  }

  test_that("metrics reset to zero and AUC of a perfect ranking is 1") {
    BinaryHead h;
    std::unique_ptr<MetricAccumulator> mp = h.new_metrics();
    MetricAccumulator& m = *mp;
    float logits[4] = {-3.0f, -1.0f, 1.0f, 3.0f}, labels[4] = {0, 0, 1, 1}, pe[4];
    double loss = h.loss(logits, labels, 4, pe, nullptr);
    m.update(logits, labels, pe, 4, loss);
    auto r = m.result();
    double auc = -1, acc = -1;
    for (auto& kv : r) {
      if (kv.first == "auc") auc = kv.second;
      if (kv.first == "accuracy") acc = kv.second;
    }
    expect_true(std::fabs(auc - 1.0) < 1e-3);
    expect_true(acc == 1.0);
    m.reset();
    expect_true(m.batches() == 0);
  }

  // Weight 2 on a row is that row twice: the same summed loss, gradients of
  // the weighted loss (twice that row's), hessians likewise, and the same
  // weighted metrics; weight 0 drops a row.
  test_that(
      "weights multiply losses, gradients, hessians and metric counts (weight 2 = the row twice)") {
    struct Case {
      const char* head;
      int n;
      std::vector<float> logits, labels;  // three rows
    };
    const Case cases[] = {
        {"regression", 1, {0.3f, -1.2f, 2.5f}, {1.0f, -1.0f, 0.5f}},
        {"regression",
         2,
         {0.3f, -1.2f, 2.5f, 0.1f, -0.7f, 4.0f},
         {1.0f, -1.0f, 0.5f, 0.5f, -2.0f, 3.0f}},
        {"binary", 2, {0.4f, -4.5f, 2.2f}, {1.0f, 0.0f, 0.0f}},
        {"multi_class",
         4,
         {0.2f, -0.5f, 1.1f, 0.0f, 5.0f, -3.0f, 0.3f, 0.9f, -1.0f, -1.5f, 2.0f, 0.4f},
         {2.0f, 0.0f, 3.0f}},
    };
    const float w[3] = {2.0f, 0.0f, 1.0f};
    const int dup_rows[3] = {0, 0, 2};  // the weighted rows spelt out
    for (const Case& c : cases) {
      auto h = make_head(c.head, c.n);
      const int lw = h->logits_dim(), yw = h->label_dim(), pw = h->per_example_dim();
      std::vector<float> pe(3 * pw), dl(3 * lw), hess(3 * lw);
      const double weighted = h->loss(c.logits.data(), c.labels.data(), 3, pe.data(), dl.data(), w);
      std::vector<float> dx, dy;
      for (int r : dup_rows) {
        dx.insert(dx.end(), c.logits.begin() + r * lw, c.logits.begin() + (r + 1) * lw);
        dy.insert(dy.end(), c.labels.begin() + r * yw, c.labels.begin() + (r + 1) * yw);
      }
      std::vector<float> dpe(3 * pw), ddl(3 * lw), dhess(3 * lw);
      const double dup = h->loss(dx.data(), dy.data(), 3, dpe.data(), ddl.data());
      expect_true(std::fabs(weighted - dup) < 1e-6 * std::max(1.0, std::fabs(dup)));
      for (int j = 0; j < lw; ++j) {
        expect_true(std::fabs(dl[j] - (ddl[j] + ddl[lw + j])) < 1e-6);  // row 0, weight 2
        expect_true(dl[lw + j] == 0.0f);                                // row 1, weight 0
        expect_true(dl[2 * lw + j] == ddl[2 * lw + j]);                 // row 2, weight 1
      }
      // per-example losses stay unweighted (TF's unreduced loss)
      std::vector<float> upe(3 * pw);
      h->loss(c.logits.data(), c.labels.data(), 3, upe.data(), nullptr);
      expect_true(pe == upe);
      if (h->hessian(c.logits.data(), c.labels.data(), 3, hess.data(), w)) {
        std::vector<float> plain(3 * lw);
        h->hessian(c.logits.data(), c.labels.data(), 3, plain.data());
        for (int k = 0; k < 3 * lw; ++k) expect_true(hess[k] == w[k / lw] * plain[k]);
      }
      auto mw = h->new_metrics(), md = h->new_metrics();
      mw->update(c.logits.data(), c.labels.data(), pe.data(), 3, weighted, w);
      md->update(dx.data(), dy.data(), dpe.data(), 3, dup);
      const MetricList a = mw->result(), b = md->result();
      expect_true(a.size() == b.size());
      for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
        expect_true(a[k].first == b[k].first);
        expect_true(std::fabs(a[k].second - b[k].second) < 1e-6);
      }
    }
  }

  test_that("weighted metrics: sum(w * v) / sum(w), and 0 when the weights sum to 0") {
    RegressionHead h(1);
    float logits[2] = {1.0f, 3.0f}, labels[2] = {2.0f, 0.0f}, pe[2];
    const float w[2] = {3.0f, 1.0f}, zero[2] = {0.0f, 0.0f};
    const double loss = h.loss(logits, labels, 2, pe, nullptr, w);
    expect_true(loss == 3.0 * 1.0 + 1.0 * 9.0);
    auto m = h.new_metrics();
    m->update(logits, labels, pe, 2, loss, w);
    for (auto& kv : m->result()) {
      if (kv.first == "average_loss") expect_true(std::fabs(kv.second - 12.0 / 4.0) < 1e-12);
      if (kv.first == "label/mean") expect_true(std::fabs(kv.second - 6.0 / 4.0) < 1e-12);
      if (kv.first == "prediction/mean") expect_true(std::fabs(kv.second - 6.0 / 4.0) < 1e-12);
      if (kv.first == "loss") expect_true(kv.second == 12.0);
    }
    m->reset();
    m->update(logits, labels, pe, 2, 0.0, zero);
    for (auto& kv : m->result())
      if (kv.first != "loss") expect_true(kv.second == 0.0);
  }
}
