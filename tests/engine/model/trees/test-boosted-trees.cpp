// Engine unit tests: boosted trees grown on a tiny dataset through the
// session loop, against values computed by hand from the gradients and
// hessians (the chosen feature and threshold, gains, leaf values), and the
// finished ensemble's logits on new rows.
#include <testthat.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/io/checkpoint_format.h>
#include <cppestimators/model/boosted_trees.h>
#include <cppestimators/model/estimator_io.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

bool near(double a, double b) { return std::fabs(a - b) < 1e-6; }

// Regression trees of depth 1 on two numeric columns, "a" (noise) and "b"
// (which separates the responses), learning rate 0.5, one batch per layer.
EstimatorSpec trees_spec(int n_trees) {
  EstimatorSpec spec = linear({numeric("a"), numeric("b")}, "SGD", 0.1);
  spec.model.kind = "boosted_trees";
  spec.model.nums["n_trees"] = {static_cast<double>(n_trees)};
  spec.model.nums["max_depth"] = {1};
  spec.model.nums["learning_rate"] = {0.5};
  spec.model.nums["n_batches_per_layer"] = {1};
  return spec;
}

struct TreesData {
  // four rows: each column's values are distinct, so its quantile
  // boundaries are those values and, a value equal to a boundary being in
  // that boundary's bucket (TF's lower_bound), row values fall in buckets 0..3
  std::vector<double> a{3, 1, 4, 2}, b{1, 2, 3, 4}, y{1, 1, 5, 5};
  Dataset data;
  TreesData() {
    data.n = 4;
    data.features = {doubles("a", a), doubles("b", b)};
    data.labels = y.data();
  }
};

SessionOptions full_batches(Mode mode) {
  SessionOptions o;
  o.mode = mode;
  o.batch_size = 4;
  o.num_epochs = mode == Mode::Predict ? 1 : -1;
  return o;
}

const BoostedTreesModel& trees_of(const Estimator& est) {
  return dynamic_cast<const BoostedTreesModel&>(est.model());
}

}  // namespace

context("Boosted trees") {
  test_that("the covers of each split, its contributions (TreeSHAP) and its directional ones") {
    TreesData d;
    Estimator est(trees_spec(1));
    {
      Session s(est, d.data, full_batches(Mode::Train));
      expect_true(s.run_step());
    }
    const BoostedTreesModel& m = trees_of(est);
    // the split on b at bucket 1: two rows of hessian 2 / 4 on each side
    expect_true(near(m.node_cover(0, 1), 1.0));
    expect_true(near(m.node_cover(0, 2), 1.0));
    // leaves 0.5 (rows 1, 2) and 2.5 (rows 3, 4), equal covers: expected
    // value 1.5, and b's contribution the row's leaf minus it
    std::vector<double> out;
    expect_true(est.explain(d.data, 1, out, Explanation::Contributions));
    expect_true(out.size() == 4u * 3u);  // rows x (a, b, baseline)
    const double b_of[4] = {-1.0, -1.0, 1.0, 1.0};
    for (std::size_t r = 0; r < 4; ++r) {
      expect_true(near(out[r * 3 + 0], 0.0));
      expect_true(near(out[r * 3 + 1], b_of[r]));
      expect_true(near(out[r * 3 + 2], 1.5));
    }
    // directional: the root's value (0) then the step to the leaf
    expect_true(est.explain(d.data, 1, out, Explanation::Directional));
    for (std::size_t r = 0; r < 4; ++r) {
      expect_true(near(out[r * 3 + 1], b_of[r] + 1.5));
      expect_true(near(out[r * 3 + 2], 0.0));
    }
    // a model without covers (saved before they were recorded) refuses
    for (Parameter* p : est.model().parameters())
      if (p->views.size() == 1 && p->views[0].name == "boosted_trees/tree_cover")
        std::fill(p->value.begin(), p->value.end(), 0.0f);
    bool refused = false;
    try {
      est.explain(d.data, 1, out, Explanation::Contributions);
    } catch (const std::invalid_argument& e) {
      refused = std::string(e.what()).find("no covers") != std::string::npos;
    }
    expect_true(refused);
    expect_true(est.explain(d.data, 1, out, Explanation::Directional));  // needs none
  }

  test_that("one layer: the split and leaves follow from the batch's gradients and hessians") {
    TreesData d;
    Estimator est(trees_spec(1));
    Session s(est, d.data, full_batches(Mode::Train));
    expect_true(s.run_step());
    // logits 0; squared error of the batch mean: g = 2 (0 - y) / 4 =
    // (-0.5, -0.5, -2.5, -2.5), h = 2 / 4 each; node G = -6, H = 2, parent
    // gain G^2 / H = 18.
    expect_true(near(s.loss(), (1.0 + 1 + 25 + 25) / 4));
    // b, left = buckets <= 1 (rows 1, 2): (-1)^2 / 1 + (-5)^2 / 1 = 26, the
    // best of b's thresholds (20.67 at 0 and 2, 18 at 3); a's best is
    // 20.67. Split gain 26 - 18 = 8; leaf weights -G/H = 1 and 5.
    const BoostedTreesModel& m = trees_of(est);
    expect_true(m.feature_count() == 2);
    expect_true(m.node_feature(0, 0) == 1);
    expect_true(m.node_threshold(0, 0) == 1);
    expect_true(near(m.node_gain(0, 0), 8.0));
    expect_true(near(m.node_value(0, 1), 0.5 * 1.0));  // learning rate x weight
    expect_true(near(m.node_value(0, 2), 0.5 * 5.0));
    expect_true(m.node_feature(0, 1) == -1);
    expect_true(m.node_feature(0, 2) == -1);
    expect_true(m.finished_trees() == 1);
    expect_true(!s.run_step());  // every tree is grown: training is over
    const auto imp = m.training().importances();
    expect_true(imp.size() == 2);
    expect_true(imp[0].first == "a");
    expect_true(imp[0].second == 0.0);
    expect_true(imp[1].first == "b");
    expect_true(near(imp[1].second, 8.0));
  }

  test_that(
      "the second tree fits the first one's residuals; the ensemble's logits add their leaves") {
    TreesData d;
    Estimator est(trees_spec(2));
    {
      Session s(est, d.data, full_batches(Mode::Train));
      expect_true(s.run_step());
      expect_true(s.run_step());
      // logits (0.5, 0.5, 2.5, 2.5): g = (-0.25, -0.25, -1.25, -1.25), G = -3,
      // H = 2; the same split, gain 0.5^2 / 1 + 2.5^2 / 1 - 9 / 2 = 2, leaf
      // weights 0.5 and 2.5
      expect_true(near(s.loss(), (0.25 + 0.25 + 6.25 + 6.25) / 4));
      expect_true(!s.run_step());
    }
    const BoostedTreesModel& m = trees_of(est);
    expect_true(m.finished_trees() == 2);
    expect_true(m.node_feature(1, 0) == 1);
    expect_true(m.node_threshold(1, 0) == 1);
    expect_true(near(m.node_gain(1, 0), 2.0));
    expect_true(near(m.node_value(1, 1), 0.25));
    expect_true(near(m.node_value(1, 2), 1.25));
    // new rows: b = 0 (bucket 0) and 2 (bucket 1) go left; 2.5 (bucket 2,
    // above the boundary 2) and 10 (above the last boundary: the last
    // bucket, 3) go right
    std::vector<double> a{0, 0, 0, 0}, b{0, 2, 2.5, 10};
    Dataset fresh;
    fresh.n = 4;
    fresh.features = {doubles("a", a), doubles("b", b)};
    Session p(est, fresh, full_batches(Mode::Predict));
    while (p.run_step()) {
    }
    const std::vector<float>& logits = p.predictions();
    expect_true(logits.size() == 4);
    expect_true(near(logits[0], 0.75));
    expect_true(near(logits[1], 0.75));
    expect_true(near(logits[2], 3.75));
    expect_true(near(logits[3], 3.75));
  }

  test_that("three classes: per-class gradients and softmax hessians give leaf vectors") {
    // x = 1..6 with classes 0, 0, 0, 1, 1, 2; logits 0, so p_k = 1/3: row i's
    // gradient (1/3 - [y_i = k]) / 6 and hessian (1/3)(2/3) / 6 = 1/27 per
    // class. With u_k the sum of (1/3 - [y = k]) over a side of m rows, a
    // side's gain is sum_k (u_k / 6)^2 / (m / 27) = 0.75 sum_k u_k^2 / m.
    // Node: u = (-1, 0, 1), gain 0.25. Left x <= 3: u = (-2, 1, 1), gain 1.5;
    // right u = (1, -1, 0), gain 0.5: split gain 1.75 (the other thresholds
    // give totals 0.6, 1.125, 1.125, 1.2 < 2). Weights -u_k / 6 / (m / 27):
    // left (3, -1.5, -1.5), right (-1.5, 1.5, 0), times learning rate 0.5.
    std::vector<double> x{1, 2, 3, 4, 5, 6}, y{0, 0, 0, 1, 1, 2};
    Dataset data;
    data.n = 6;
    data.features = {doubles("x", x)};
    data.labels = y.data();
    EstimatorSpec spec = linear({numeric("x")}, "SGD", 0.1, "multi_class", 3);
    spec.model.kind = "boosted_trees";
    spec.model.nums["n_trees"] = {1};
    spec.model.nums["max_depth"] = {1};
    spec.model.nums["learning_rate"] = {0.5};
    spec.model.nums["n_batches_per_layer"] = {1};
    Estimator est(spec);
    SessionOptions o = full_batches(Mode::Train);
    o.batch_size = 6;
    Session s(est, data, o);
    expect_true(s.run_step());
    expect_true(near(s.loss(), std::log(3.0)));
    const BoostedTreesModel& m = trees_of(est);
    expect_true(m.classes() == 3);
    expect_true(m.node_feature(0, 0) == 0);
    expect_true(near(m.node_gain(0, 0), 1.75));
    const double left[3] = {1.5, -0.75, -0.75}, right[3] = {-0.75, 0.75, 0.0};
    for (int c = 0; c < 3; ++c) {
      expect_true(near(m.node_value(0, 1, c), left[c]));
      expect_true(near(m.node_value(0, 2, c), right[c]));
    }
    expect_true(!s.run_step());
    // rows x = 2 and 5 reach the left and the right leaf
    std::vector<double> fresh_x{2, 5};
    Dataset fresh;
    fresh.n = 2;
    fresh.features = {doubles("x", fresh_x)};
    SessionOptions p = full_batches(Mode::Predict);
    p.batch_size = 2;
    Session pred(est, fresh, p);
    while (pred.run_step()) {
    }
    const std::vector<float>& logits = pred.predictions();
    expect_true(logits.size() == 6);
    for (int c = 0; c < 3; ++c) {
      expect_true(near(logits[static_cast<std::size_t>(c)], left[c]));
      expect_true(near(logits[static_cast<std::size_t>(3 + c)], right[c]));
    }
  }

  test_that(
      "a layer holds the statistics of the nodes its batches reached; checkpoints of one row per "
      "place restore") {
    // x = 1..8, y a step at 4.5 plus noise: depth 3, batches of 2 rows in
    // order, 2 batches per layer
    std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8}, y{0, 1, 0, 1, 3, 5, 4, 6};
    Dataset d;
    d.n = 8;
    d.features = {doubles("x", x)};
    d.labels = y.data();
    EstimatorSpec spec = linear({numeric("x")}, "SGD", 0.1);
    spec.model.kind = "boosted_trees";
    spec.model.nums["n_trees"] = {2};
    spec.model.nums["max_depth"] = {3};
    spec.model.nums["learning_rate"] = {0.5};
    spec.model.nums["n_batches_per_layer"] = {2};
    SessionOptions o;
    o.batch_size = 2;
    o.num_epochs = -1;
    Estimator a(spec), b(spec);
    {
      Session s(a, d, o);
      for (int i = 0; i < 5; ++i) expect_true((s.run_step()));  // layers 0, 1; then one batch of 2
    }
    const VariableRef* nodes = a.find_variable("boosted_trees/accumulator_nodes");
    const VariableRef* totals = a.find_variable("boosted_trees/accumulator_totals");
    expect_true((trees_of(a).layers_in_tree() == 2.0));
    // the batch of rows 1, 2 (x = 1, 2) reached one or two of layer 2's nodes (3..6)
    expect_true((nodes != nullptr && nodes->size >= 1 && nodes->size <= 2));
    expect_true((totals != nullptr && totals->shape[0] == static_cast<int>(nodes->size)));
    for (std::size_t i = 0; i < nodes->size; ++i)
      expect_true((nodes->data[i] >= 3.0f && nodes->data[i] <= 6.0f));

    // the same state as an older checkpoint wrote it: a row per place of the
    // deepest layer (4), node 3 + s in row s, no accumulator_nodes
    CheckpointData ck;
    expect_true((snapshot(a, ck)));
    std::vector<float> ids(nodes->data, nodes->data + nodes->size);
    CheckpointData old;
    old.global_step = ck.global_step;
    for (const TensorRecord& t : ck.tensors) {
      if (t.name == "boosted_trees/accumulator_nodes") continue;
      TensorRecord r = t;
      if (t.name == "boosted_trees/accumulator_stats" ||
          t.name == "boosted_trees/accumulator_totals") {
        const std::size_t w = static_cast<std::size_t>(t.shape[1]);
        r.shape[0] = 4;
        r.data.assign(4 * w, 0.0f);
        for (std::size_t i = 0; i < ids.size(); ++i) {
          const std::size_t place = static_cast<std::size_t>(ids[i]) - 3;
          std::copy(t.data.begin() + static_cast<std::ptrdiff_t>(i * w),
                    t.data.begin() + static_cast<std::ptrdiff_t>((i + 1) * w),
                    r.data.begin() + static_cast<std::ptrdiff_t>(place * w));
        }
      }
      old.tensors.push_back(r);
    }
    restore(b, old, "older checkpoint");
    const VariableRef* adopted = b.find_variable("boosted_trees/accumulator_nodes");
    expect_true((adopted != nullptr && adopted->size == 4));  // every place, in order
    for (int s = 0; s < 4; ++s) expect_true((adopted->data[s] == static_cast<float>(3 + s)));
    // both go on from the same batches (new sessions: rows from the first)
    // and grow the same trees
    for (Estimator* e : {&a, &b}) {
      Session s(*e, d, o);
      while (s.run_step()) {
      }
    }
    expect_true((trees_of(a).finished_trees() == 2.0 && trees_of(b).finished_trees() == 2.0));
    for (const char* name : {"boosted_trees/tree_feature", "boosted_trees/tree_threshold",
                             "boosted_trees/tree_value", "boosted_trees/tree_gain"}) {
      const VariableRef* va = a.find_variable(name);
      const VariableRef* vb = b.find_variable(name);
      expect_true((va != nullptr && vb != nullptr && va->size == vb->size &&
                   std::equal(va->data, va->data + va->size, vb->data)));
    }
    // a checkpoint that is neither (the accumulator of another width) is refused
    CheckpointData wrong = ck;
    for (TensorRecord& t : wrong.tensors)
      if (t.name == "boosted_trees/accumulator_stats") {
        t.shape[1] += 1;
        t.data.resize(static_cast<std::size_t>(t.shape[0] * t.shape[1]));
      }
    Estimator c(spec);
    bool refused = false;
    try {
      restore(c, wrong, "a checkpoint");
    } catch (const std::exception& e) {
      refused = std::string(e.what()).find("accumulator_stats") != std::string::npos;
    }
    expect_true((refused));
  }
}
