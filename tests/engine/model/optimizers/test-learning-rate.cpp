// Engine unit tests: learning-rate schedules against TF 1.x's formulas
// written out by hand for chosen steps, the optimizer's rate per step
// (schedule times scale), and the decision rule of hook_reduce_lr_on_plateau().
#include <testthat.h>

#include <cmath>
#include <vector>

#include <cppestimators/hooks/reduce_lr_on_plateau.h>
#include <cppestimators/model/optimizers/learning_rate_schedule.h>
#include <cppestimators/model/optimizers/optimizer.h>
#include <cppestimators/model/optimizers/registry.h>

#include "test-helpers.h"

using namespace cppestimators;

namespace {
Spec schedule(const std::string& kind, std::map<std::string, std::vector<double>> nums) {
  Spec s;
  s.kind = kind;
  s.nums = std::move(nums);
  return s;
}
double at(const Spec& s, std::int64_t step) { return LearningRateSchedule(s).rate(step); }
bool close(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)); }
const double kPi = 3.14159265358979323846;
}  // namespace

context("learning-rate schedules") {
  test_that("exponential, inverse time and natural exp decay, with and without staircase") {
    auto e = schedule("exponential_decay",
                      {{"learning_rate", {0.1}}, {"decay_steps", {10}}, {"decay_rate", {0.5}}});
    expect_true(close(at(e, 0), 0.1));
    expect_true(close(at(e, 5), 0.1 * std::pow(0.5, 0.5)));
    expect_true(close(at(e, 25), 0.1 * std::pow(0.5, 2.5)));
    e.nums["staircase"] = {1};
    expect_true(close(at(e, 9), 0.1));
    expect_true(close(at(e, 10), 0.05));
    expect_true(close(at(e, 25), 0.025));
    auto inv = schedule("inverse_time_decay",
                        {{"learning_rate", {0.1}}, {"decay_steps", {4}}, {"decay_rate", {0.5}}});
    expect_true(close(at(inv, 6), 0.1 / (1 + 0.5 * 1.5)));
    inv.nums["staircase"] = {1};
    expect_true(close(at(inv, 6), 0.1 / 1.5));
    auto nat = schedule("natural_exp_decay",
                        {{"learning_rate", {0.1}}, {"decay_steps", {4}}, {"decay_rate", {0.5}}});
    expect_true(close(at(nat, 6), 0.1 * std::exp(-0.5 * 1.5)));
    nat.nums["staircase"] = {1};
    expect_true(close(at(nat, 7), 0.1 * std::exp(-0.5)));
  }

  test_that("piecewise constant switches after each boundary") {
    auto p = schedule("piecewise_constant", {{"boundaries", {3, 6}}, {"values", {1, 0.5, 0.1}}});
    const double want[] = {1, 1, 1, 1, 0.5, 0.5, 0.5, 0.1, 0.1};
    for (int step = 0; step < 9; ++step) expect_true(at(p, step) == want[step]);
    auto bad = schedule("piecewise_constant", {{"boundaries", {3}}, {"values", {1}}});
    expect_error(LearningRateSchedule{bad});
  }

  test_that("polynomial decay stops at decay_steps, or cycles") {
    auto p = schedule("polynomial_decay", {{"learning_rate", {0.1}},
                                           {"decay_steps", {10}},
                                           {"end_learning_rate", {0.01}},
                                           {"power", {2}}});
    expect_true(close(at(p, 4), 0.09 * 0.36 + 0.01));
    expect_true(close(at(p, 10), 0.01));
    expect_true(close(at(p, 15), 0.01));
    p.nums["cycle"] = {1};
    expect_true(close(at(p, 0), 0.1));
    expect_true(close(at(p, 10), 0.01));
    // step 15: decay_steps becomes 20
    expect_true(close(at(p, 15), 0.09 * 0.25 * 0.25 + 0.01));
  }

  test_that("cosine, cosine with restarts and linear cosine decay") {
    auto c = schedule("cosine_decay",
                      {{"learning_rate", {0.2}}, {"decay_steps", {8}}, {"alpha", {0.1}}});
    expect_true(close(at(c, 2), 0.2 * (0.9 * 0.5 * (1 + std::cos(kPi * 0.25)) + 0.1)));
    expect_true(close(at(c, 20), 0.2 * 0.1));
    auto r = schedule("cosine_decay_restarts", {{"learning_rate", {1}},
                                                {"first_decay_steps", {4}},
                                                {"t_mul", {2}},
                                                {"m_mul", {0.5}},
                                                {"alpha", {0}}});
    // periods [0, 4), [4, 12), [12, 28), starting at 1, 0.5, 0.25
    expect_true(close(at(r, 0), 1));
    expect_true(close(at(r, 2), 0.5 * (1 + std::cos(kPi * 0.5))));
    expect_true(close(at(r, 4), 0.5));
    expect_true(close(at(r, 8), 0.5 * 0.5 * (1 + std::cos(kPi * 0.5))));
    expect_true(close(at(r, 13), 0.25 * 0.5 * (1 + std::cos(kPi * 0.0625))));
    r.nums["t_mul"] = {1};
    expect_true(close(at(r, 6), 0.5 * 0.5 * (1 + std::cos(kPi * 0.5))));
    auto l = schedule("linear_cosine_decay", {{"learning_rate", {0.1}},
                                              {"decay_steps", {10}},
                                              {"num_periods", {0.5}},
                                              {"alpha", {0}},
                                              {"beta", {0.001}}});
    expect_true(close(at(l, 4), 0.1 * (0.6 * 0.5 * (1 + std::cos(kPi * 0.4)) + 0.001)));
    expect_true(close(at(l, 30), 0.1 * 0.001));
  }

  test_that("an optimizer's rate is the schedule's at the step, times the scale") {
    Spec spec = testing::optimizer("SGD", 0.1);
    spec.lists["schedule"].push_back(
        schedule("exponential_decay",
                 {{"learning_rate", {0.1}}, {"decay_steps", {1}}, {"decay_rate", {0.5}}}));
    auto opt = make_optimizer(spec);
    expect_true(opt->has_schedule());
    opt->set_step(3, 0.5);
    expect_true(std::fabs(opt->learning_rate() - 0.00625f) < 1e-9f);
    float w = 1.0f, g = 2.0f;
    opt->apply_dense(&w, &g, nullptr, 1);
    expect_true(std::fabs(w - (1.0f - 0.00625f * 2.0f)) < 1e-7f);
    auto plain = make_optimizer(testing::optimizer("SGD", 0.1));
    plain->set_step(100, 1.0);
    expect_true(plain->learning_rate() == 0.1f);
  }
}

context("hook_reduce_lr_on_plateau() decisions") {
  test_that("the rate falls after `patience` checks without improvement") {
    PlateauRule rule(0.5, 2, 0.0, 0, 0.0, false);
    double lr = 1;
    const double values[] = {3, 2, 2, 2, 1, 1, 1};
    const double want[] = {1, 1, 1, 0.5, 0.5, 0.5, 0.25};
    for (int i = 0; i < 7; ++i) {
      lr = rule.check(values[i], lr);
      expect_true(lr == want[i]);
    }
  }
  test_that("min_delta, max mode, cooldown and min_lr") {
    PlateauRule delta(0.5, 1, 0.1, 0, 0.0, false);
    double lr = 1;
    lr = delta.check(1.0, lr);   // best
    lr = delta.check(0.95, lr);  // not better by more than 0.1
    expect_true(lr == 0.5);
    PlateauRule up(0.5, 1, 0.0, 0, 0.0, true);
    lr = 1;
    lr = up.check(1, lr);
    lr = up.check(2, lr);
    expect_true(lr == 1);
    lr = up.check(2, lr);
    expect_true(lr == 0.5);
    // cooldown 2: after a reduction two checks pass uncounted
    PlateauRule cool(0.5, 1, 0.0, 2, 0.0, false);
    std::vector<double> rates;
    lr = 1;
    for (int i = 0; i < 8; ++i) rates.push_back(lr = cool.check(5, lr));
    const std::vector<double> want = {1, 0.5, 0.5, 0.25, 0.25, 0.125, 0.125, 0.0625};
    expect_true(rates == want);
    PlateauRule floor(0.5, 1, 0.0, 0, 0.3, false);
    lr = 1;
    for (int i = 0; i < 5; ++i) lr = floor.check(5, lr);
    expect_true(lr == 0.3);
  }
}
