// Engine unit tests: training across ranks (sessions with a collective),
// W = 1 to 4 ranks on threads of this process. W ranks with batches of b
// rows train as one process with batches of W x b (the same rows each step):
// linear (sparse and dense gradients, Adagrad's slots), DNN (an embedding's
// sparse rows, Adam's slots and beta powers) and wide & deep; boosted trees
// over bucketized columns grow the same trees as one process over the
// concatenated rows, and over numeric columns the ranks bucket alike.
#include <testthat.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <cppestimators/distributed/collective.h>
#include <cppestimators/session/step_exchange.h>
#include <cppestimators/session/hook.h>
#include <cppestimators/model/boosted_trees.h>
#include <cppestimators/session/monitored_loop.h>

#include "../support/test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

// A table of n rows: x (numeric, 2 wide), c (categorical, 5 values), y.
struct Table {
  std::vector<double> x, y;
  std::vector<std::string> c;
  Dataset data;
  Table() = default;
  Table(const Table&) = delete;
  void finish() {
    data = Dataset();
    data.n = static_cast<std::int64_t>(y.size());
    data.features = {doubles("x", x, 2), strings("c", c)};
    data.labels = y.data();
  }
};

void fill_table(Table& t, int n) {
  const char* cats[] = {"a", "b", "c", "d", "e"};
  t.x.assign(static_cast<std::size_t>(2 * n), 0.0);
  for (int i = 0; i < n; ++i) {
    const double u = std::sin(0.7 * i + 0.3), v = std::cos(1.3 * i);
    t.x[static_cast<std::size_t>(i)] = u;  // column-major: first value of every row
    t.x[static_cast<std::size_t>(n + i)] = v;
    t.c.push_back(cats[(i * 7 + i / 3) % 5]);
    t.y.push_back(1.5 * u - 0.5 * v + 0.3 * ((i * 7 + i / 3) % 5) + 0.1 * std::sin(3.1 * i));
  }
  t.finish();
}

// Rank r's rows of W ranks with batches of b: step k's batch of each rank
// is its slice of one process's step-k batch of W x b rows.
void fill_shard(Table& out, const Table& all, int W, int r, int b) {
  const int n = static_cast<int>(all.y.size());
  std::vector<int> rows;
  for (int start = 0; start + W * b <= n; start += W * b)
    for (int j = 0; j < b; ++j) rows.push_back(start + r * b + j);
  const int m = static_cast<int>(rows.size());
  out.x.assign(static_cast<std::size_t>(2 * m), 0.0);
  for (int k = 0; k < m; ++k) {
    const std::size_t i = static_cast<std::size_t>(rows[static_cast<std::size_t>(k)]);
    out.x[static_cast<std::size_t>(k)] = all.x[i];
    out.x[static_cast<std::size_t>(m + k)] = all.x[static_cast<std::size_t>(n) + i];
    out.c.push_back(all.c[i]);
    out.y.push_back(all.y[i]);
  }
  out.finish();
}

Spec vocabulary_c() {
  Spec v = column("vocabulary_list", "c");
  v.strs["key"] = {"c"};
  v.strs["vocabulary"] = {"a", "b", "c", "d", "e"};
  return v;
}

EstimatorSpec linear_spec() {
  EstimatorSpec s = linear({numeric("x", 2), vocabulary_c()}, "Adagrad", 0.1);
  s.seed = 3;
  return s;
}

EstimatorSpec dnn_spec() {
  Spec emb = column("embedding", "c_embedding");
  emb.lists["categorical_column"] = {vocabulary_c()};
  emb.nums["dimension"] = {3};
  EstimatorSpec s = linear({numeric("x", 2), emb}, "Adam", 0.01);
  s.model.kind = "dnn";
  s.model.nums["hidden_units"] = {8, 4};
  s.seed = 7;
  return s;
}

EstimatorSpec wide_deep_spec() {
  Spec emb = column("embedding", "c_embedding");
  emb.lists["categorical_column"] = {vocabulary_c()};
  emb.nums["dimension"] = {2};
  Spec ind = column("indicator", "c_indicator");
  ind.lists["categorical_column"] = {vocabulary_c()};
  EstimatorSpec s = linear({numeric("x", 2), vocabulary_c(), emb}, "Ftrl", 0.1);
  s.optimizers.push_back(optimizer("Adagrad", 0.05));
  s.model.kind = "combined";
  s.model.strs["linear_columns"] = {"x", "c"};
  s.model.strs["dnn_columns"] = {"x", "c_embedding"};
  s.model.nums["hidden_units"] = {5};
  s.seed = 5;
  return s;
}

std::vector<std::vector<float>> snapshot(const Estimator& est) {
  std::vector<std::vector<float>> out;
  for (const VariableRef& v : est.variables()) out.emplace_back(v.data, v.data + v.size);
  return out;
}

// One process: batches of `batch` rows over `t`, one epoch.
std::vector<std::vector<float>> train_alone(const EstimatorSpec& spec, const Table& t, int batch,
                                            std::int64_t* step = nullptr) {
  Estimator est(spec);
  Session s(est, t.data, batches_of(batch, 1));
  NullServices svc;
  run_monitored(s, {}, svc);
  if (step) *step = est.global_step();
  return snapshot(est);
}

struct RankResult {
  std::vector<std::vector<float>> vars;
  std::int64_t step = 0;
  std::string error;
  double last_loss = 0, last_average = 0;
};

// W ranks on threads, rank r training on shards[r] with batches of b.
// `prepare(rank estimator)` runs before the session (rank 0 only).
std::vector<RankResult> train_ranks(const EstimatorSpec& spec, const std::vector<Table*>& shards,
                                    int b, std::function<void(Estimator&)> prepare = nullptr,
                                    std::function<void(Session&, int)> run = nullptr,
                                    std::int64_t epochs = 1) {
  const int W = static_cast<int>(shards.size());
  auto ranks = make_in_process_collectives(W);
  std::vector<RankResult> out(static_cast<std::size_t>(W));
  std::vector<std::thread> threads;
  for (int r = 0; r < W; ++r) {
    threads.emplace_back([&, r] {
      RankResult& res = out[static_cast<std::size_t>(r)];
      try {
        Estimator est(spec);
        if (r == 0 && prepare) prepare(est);
        SessionOptions o = batches_of(b, epochs);
        o.collective = ranks[static_cast<std::size_t>(r)].get();
        Session s(est, shards[static_cast<std::size_t>(r)]->data, o);
        if (run) {
          run(s, r);
        } else {
          NullServices svc;
          run_monitored(s, {}, svc);
        }
        res.vars = snapshot(est);
        res.step = est.global_step();
        res.last_loss = s.loss();
        res.last_average = s.average_loss();
      } catch (const std::exception& e) {
        res.error = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

// The largest |a - b| / max(|a|, |b|) over every value (values both below
// 1e-6 in size count as equal: float32 rounding of a near-zero sum).
double max_relative_difference(const std::vector<std::vector<float>>& a,
                               const std::vector<std::vector<float>>& b) {
  double worst = 0;
  for (std::size_t v = 0; v < a.size(); ++v)
    for (std::size_t i = 0; i < a[v].size(); ++i) {
      const double x = a[v][i], y = b[v][i], m = std::max(std::fabs(x), std::fabs(y));
      if (m < 1e-6) continue;
      worst = std::max(worst, std::fabs(x - y) / m);
    }
  return worst;
}

bool same_bits(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t v = 0; v < a.size(); ++v)
    if (!cppestimators::testing::same_bits(a[v], b[v])) return false;
  return true;
}

// W ranks of batch b against one process of batch W x b.
void check_equivalence(const EstimatorSpec& spec, int W, int b, double* worst) {
  Table all;
  fill_table(all, 5 * W * b);  // 5 steps of W x b rows
  std::vector<std::unique_ptr<Table>> owned;
  std::vector<Table*> shards;
  for (int r = 0; r < W; ++r) {
    owned.push_back(std::make_unique<Table>());
    fill_shard(*owned.back(), all, W, r, b);
    shards.push_back(owned.back().get());
  }
  std::int64_t alone_step = 0;
  const auto alone = train_alone(spec, all, W * b, &alone_step);
  const auto ranks = train_ranks(spec, shards, b);
  const auto again = train_ranks(spec, shards, b);
  for (int r = 0; r < W; ++r) {
    const RankResult& res = ranks[static_cast<std::size_t>(r)];
    expect_true(res.error.empty());
    expect_true(res.step == alone_step);
    // every rank holds the same model, and runs repeat bit for bit
    expect_true(same_bits(res.vars, ranks[0].vars));
    expect_true(same_bits(res.vars, again[static_cast<std::size_t>(r)].vars));
  }
  *worst = std::max(*worst, max_relative_difference(ranks[0].vars, alone));
  if (W == 1) expect_true(same_bits(ranks[0].vars, alone));  // one rank is one process
}

EstimatorSpec trees_spec(bool bucketized) {
  Spec bx = column("bucketized", "x_bucketized");
  bx.lists["source_column"] = {numeric("x", 2)};
  bx.nums["boundaries"] = {-0.5, 0.0, 0.5};
  EstimatorSpec s = linear({bucketized ? bx : numeric("x", 2)}, "SGD", 0.1);
  s.model.kind = "boosted_trees";
  s.model.nums["n_trees"] = {3};
  s.model.nums["max_depth"] = {3};
  s.model.nums["learning_rate"] = {0.3};
  s.model.nums["n_batches_per_layer"] = {1};
  return s;
}

}  // namespace

context("Training across ranks") {
  test_that("linear, DNN and wide & deep: W ranks of batch b train as one process of batch W b") {
    const std::pair<const char*, EstimatorSpec> models[] = {
        {"linear", linear_spec()}, {"dnn", dnn_spec()}, {"wide & deep", wide_deep_spec()}};
    for (const auto& m : models) {
      double worst = 0;
      for (int W = 1; W <= 4; ++W) check_equivalence(m.second, W, 6, &worst);
      // float32 rounding: the sums are taken in another order
      expect_true(worst <= 1e-5);
    }
  }

  test_that("the loss and average loss of a round are every rank's batch together") {
    Table all;
    fill_table(all, 24);
    Table s0, s1;
    fill_shard(s0, all, 2, 0, 6);
    fill_shard(s1, all, 2, 1, 6);
    const auto ranks = train_ranks(linear_spec(), {&s0, &s1}, 6);
    Estimator est(linear_spec());
    Session s(est, all.data, batches_of(12, 1));
    NullServices svc;
    run_monitored(s, {}, svc);
    expect_true(ranks[0].error.empty());
    expect_true(std::fabs(ranks[0].last_loss - s.loss()) <= 1e-4 * std::fabs(s.loss()));
    expect_true(std::fabs(ranks[0].last_average - s.average_loss()) <=
                1e-4 * std::fabs(s.average_loss()));
    expect_true(ranks[1].last_loss == ranks[0].last_loss);
  }

  test_that("every rank starts from rank 0's estimator") {
    Table all;
    fill_table(all, 24);
    Table s0, s1;
    fill_shard(s0, all, 2, 0, 6);
    fill_shard(s1, all, 2, 1, 6);
    // rank 0 (as if restored from a checkpoint) at step 40 with other weights
    const auto ranks = train_ranks(linear_spec(), {&s0, &s1}, 6, [](Estimator& e) {
      e.set_global_step(40);
      for (const VariableRef& v : e.variables())
        for (std::size_t i = 0; i < v.size; ++i) v.data[i] += 0.25f;
    });
    expect_true(ranks[0].error.empty());
    expect_true(ranks[1].error.empty());
    expect_true(ranks[0].step == 42);
    expect_true(ranks[1].step == 42);
    expect_true(same_bits(ranks[0].vars, ranks[1].vars));
  }

  test_that("boosted trees over bucketized columns grow one process's trees") {
    for (int W = 1; W <= 4; ++W) {
      Table all;
      fill_table(all, 120);
      std::vector<std::unique_ptr<Table>> owned;
      std::vector<Table*> shards;
      const int b = 120 / W;  // each rank's batch: its whole shard
      for (int r = 0; r < W; ++r) {
        owned.push_back(std::make_unique<Table>());
        fill_shard(*owned.back(), all, W, r, b);
        shards.push_back(owned.back().get());
      }
      // one process over the concatenated rows, one batch a layer
      Estimator alone(trees_spec(true));
      Session s(alone, all.data, batches_of(120, -1));
      NullServices svc;
      run_monitored(s, {}, svc);
      const auto ranks = train_ranks(trees_spec(true), shards, b, nullptr, nullptr, -1);
      expect_true(ranks[0].error.empty());
      const auto& model = static_cast<const BoostedTreesModel&>(alone.model());
      expect_true(model.training_finished());
      expect_true(ranks[0].step == alone.global_step());
      const auto ref = snapshot(alone);
      // the same splits (features, thresholds) and leaf values to float rounding
      std::size_t v = 0;
      for (const VariableRef& var : alone.variables()) {
        if (var.name == "boosted_trees/tree_feature" || var.name == "boosted_trees/tree_threshold")
          expect_true(cppestimators::testing::same_bits(ranks[0].vars[v], ref[v]));
        ++v;
      }
      // the trees' values and covers to float rounding (the accumulator holds W batches' sums)
      std::vector<std::vector<float>> mine, theirs;
      v = 0;
      for (const VariableRef& var : alone.variables()) {
        if (var.name.rfind("boosted_trees/tree_", 0) == 0) {
          mine.push_back(ranks[0].vars[v]);
          theirs.push_back(ref[v]);
        }
        ++v;
      }
      expect_true(mine.size() == 5);
      expect_true(max_relative_difference(mine, theirs) <= 1e-5);
      for (int r = 1; r < W; ++r)
        expect_true(same_bits(ranks[static_cast<std::size_t>(r)].vars, ranks[0].vars));
    }
  }

  test_that("boosted trees over numeric columns bucket alike on every rank") {
    Table all;
    fill_table(all, 90);
    Table s0, s1, s2;
    fill_shard(s0, all, 3, 0, 30);
    fill_shard(s1, all, 3, 1, 30);
    fill_shard(s2, all, 3, 2, 30);
    Estimator alone(trees_spec(false));
    Session s(alone, all.data, batches_of(90, -1));
    NullServices svc;
    run_monitored(s, {}, svc);
    const auto ranks = train_ranks(trees_spec(false), {&s0, &s1, &s2}, 30, nullptr, nullptr, -1);
    expect_true(ranks[0].error.empty());
    expect_true(ranks[0].step == alone.global_step());
    expect_true(same_bits(ranks[1].vars, ranks[0].vars));
    expect_true(same_bits(ranks[2].vars, ranks[0].vars));
    // the buckets are those of one process over every row
    std::size_t v = 0;
    const auto ref = snapshot(alone);
    for (const VariableRef& var : alone.variables()) {
      if (var.name == "boosted_trees/bucket_boundaries" || var.name == "boosted_trees/tree_feature")
        expect_true(cppestimators::testing::same_bits(ranks[0].vars[v], ref[v]));
      ++v;
    }
  }

  test_that("rank 0's stop request ends every rank at the same step") {
    Table all;
    fill_table(all, 120);
    Table s0, s1;
    fill_shard(s0, all, 2, 0, 6);
    fill_shard(s1, all, 2, 1, 6);
    struct StopAt3 : Hook {
      int calls = 0;
      std::string constructor() const override { return "stop_at_3"; }
      void after_run(RunContext& ctx) override {
        if (++calls == 3) ctx.request_stop();
      }
    };
    std::vector<int> hook_calls(2, 0);
    const auto ranks = train_ranks(linear_spec(), {&s0, &s1}, 6, nullptr, [&](Session& ses, int r) {
      NullServices svc;
      StopAt3 stop;
      // the chief alone runs hooks
      std::vector<Hook*> hooks;
      if (r == 0) hooks.push_back(&stop);
      run_monitored(ses, hooks, svc);
      hook_calls[static_cast<std::size_t>(r)] = stop.calls;
    });
    expect_true(ranks[0].error.empty());
    expect_true(ranks[1].error.empty());
    expect_true(ranks[0].step == 3);
    expect_true(ranks[1].step == 3);
    expect_true(hook_calls[0] == 3);
    expect_true(hook_calls[1] == 0);
    expect_true(same_bits(ranks[0].vars, ranks[1].vars));
  }

  test_that("a rank's error ends every rank with an error naming it") {
    Table all;
    fill_table(all, 48);
    Table s0, s1;
    fill_shard(s0, all, 2, 0, 6);
    fill_shard(s1, all, 2, 1, 6);
    struct FailAt2 : Hook {
      int calls = 0;
      std::string constructor() const override { return "fail"; }
      void after_run(RunContext&) override {
        if (++calls == 2) throw std::runtime_error("the disk is full");
      }
    };
    const auto ranks = train_ranks(linear_spec(), {&s0, &s1}, 6, nullptr, [&](Session& ses, int r) {
      NullServices svc;
      FailAt2 fail;
      std::vector<Hook*> hooks;
      if (r == 1) hooks.push_back(&fail);
      run_monitored(ses, hooks, svc);
    });
    expect_true(contains(ranks[1].error, "the disk is full"));
    expect_true(contains(ranks[0].error, "rank 1 gave up"));
    expect_true(contains(ranks[0].error, "the disk is full"));
  }

  test_that("a rank whose input ends first ends the round for every rank") {
    Table all;
    fill_table(all, 48);
    Table s0, s1;
    fill_shard(s0, all, 2, 0, 6);  // 4 batches
    fill_table(s1, 12);            // 2 batches
    const auto ranks = train_ranks(linear_spec(), {&s0, &s1}, 6);
    expect_true(ranks[0].error.empty());
    expect_true(ranks[0].step == 2);
    expect_true(ranks[1].step == 2);
  }

  test_that("a round's bytes are checked: other shapes and damaged bytes are errors") {
    StepExchange ex;
    RoundHead h;
    h.batches = 1;
    h.data_ranks = 1;
    Parameter p = Parameter::single("w", {3});
    p.value = {0, 0, 0};
    Parameter q = Parameter::single("v", {2});
    q.value = {0, 0};
    std::vector<float> g3{1, 2, 3}, g2{1, 2};
    std::vector<Gradient> a{dense_gradient(p, g3)}, b{dense_gradient(q, g2)};
    std::vector<Parameter*> params{&p, &q};
    StepStats sa, sb;
    sa.gradients = &a;
    sb.gradients = &b;
    const std::string pa = ex.pack(h, nullptr, 0, sa, params),
                      pb = ex.pack(h, nullptr, 0, sb, params);
    expect_true(contains(error_of([&] {
                           StepExchange::combine({pa, pb});
                         }),
                         "rank 1's statistics differ from rank 0's"));
    expect_true(
        contains(error_of([&] { StepExchange::combine({pa.substr(0, 30)}); }), "end inside"));
    // two ranks' dense gradients add up, in doubles
    StepStats out;
    const RoundHead sum = ex.unpack(StepExchange::combine({pa, pa}), params, out);
    expect_true(sum.batches == 2);
    expect_true(out.gradients->size() == 1);
    expect_true((*out.gradients)[0].dense[2] == 6.0f);
    expect_true(out.batches == 2);
  }
}
