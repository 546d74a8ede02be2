// Engine unit tests: the ops of a custom estimator's graph (model/graph/).
// Every differentiable op's reverse-mode gradient (backward_node()) against
// central finite differences of forward_node() in double precision, with
// numpy broadcasting, every matmul transposition, reductions over each
// axis; the float tape against the double one; forward values of the ops
// without gradients and of a few others against numbers computed by hand.
#include <testthat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/data/rng.h>
#include <cppestimators/math/gemm.h>
#include <cppestimators/model/graph/graph.h>
#include <cppestimators/model/graph/graph_exec.h>
#include <cppestimators/model/layers/activation.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;
using cppestimators::graph::DType;
using cppestimators::graph::Graph;
using cppestimators::graph::Node;
using cppestimators::graph::Op;
using cppestimators::graph::Tape;

namespace {

constexpr int kRows = 4;  // the batch's rows wherever a shape starts with -1
using Shape = std::vector<std::int64_t>;
using Values = std::vector<double>;

// Draws of the engine's own generator (the same on every platform).
struct Draws {
  Rng rng;
  explicit Draws(std::uint64_t seed) : rng(seed) {}
  double uniform(double lo, double hi) { return lo + (hi - lo) * rng.uniform(); }
  Values uniform(std::size_t n, double lo, double hi) {
    Values v(n);
    for (double& x : v) x = uniform(lo, hi);
    return v;
  }
  // Magnitudes in [lo, hi] with either sign: values away from 0 (kinks).
  Values signed_away(std::size_t n, double lo, double hi) {
    Values v(n);
    for (double& x : v) x = (rng.uniform() < 0.5 ? -1 : 1) * uniform(lo, hi);
    return v;
  }
};

// A graph built by hand. Its leaves are variable nodes whose values the
// test writes (forward_node() leaves a variable to its caller).
struct Builder {
  Graph g;
  std::vector<Values> leaf;  // a leaf's values; empty for the other nodes
  std::vector<char> is_leaf;

  int add(Op op, std::vector<int> inputs, Shape shape, DType t = DType::Float64) {
    Node n;
    n.op = op;
    n.inputs = std::move(inputs);
    n.shape = std::move(shape);
    n.dtype = t;
    n.name = std::string(graph::op_name(op)) + "_" + std::to_string(g.nodes.size());
    g.nodes.push_back(n);
    leaf.emplace_back();
    is_leaf.push_back(0);
    return static_cast<int>(g.nodes.size()) - 1;
  }
  int input(Shape shape, Values values, DType t = DType::Float64) {
    const int i = add(Op::Variable, {}, std::move(shape), t);
    Node& n = g.nodes.back();
    n.var = n.name;
    if (static_cast<std::int64_t>(values.size()) != n.size(kRows))
      throw std::logic_error("test: a leaf's values do not fill its shape");
    leaf.back() = std::move(values);
    is_leaf.back() = 1;
    return i;
  }
  Node& at(int i) { return g.nodes[static_cast<std::size_t>(i)]; }
  std::size_t size(int i) const {
    return static_cast<std::size_t>(g.nodes[static_cast<std::size_t>(i)].size(kRows));
  }
};

// One graph's forward and backward passes in T, over every node.
template <class T>
struct Run {
  const Builder& b;
  Tape<T> t;
  Rng rng;
  std::uint64_t seed;
  gemm::Kernel kernel = gemm::Kernel::Portable;  // float's matrix products
  explicit Run(const Builder& builder, std::uint64_t dropout_seed = 17)
      : b(builder), seed(dropout_seed) {
    const std::vector<char> all(b.g.nodes.size(), 1);
    t.reserve(b.g, all, all, kRows);
  }
  // The nodes' values from the leaves' `values`; dropout draws the same
  // mask every time (its generator restarts).
  void forward(const std::vector<Values>& values) {
    rng = Rng(seed);
    graph::ExecEnv env;
    env.rng = &rng;
    env.kernel = kernel;
    for (std::size_t i = 0; i < b.g.nodes.size(); ++i) {
      if (b.is_leaf[i]) {
        for (std::size_t e = 0; e < values[i].size(); ++e)
          t.val[i][e] = static_cast<T>(values[i][e]);
      } else {
        graph::forward_node(b.g, i, t, kRows, env);
      }
    }
  }
  double objective(int out, const Values& w) const {
    double s = 0;
    for (std::size_t e = 0; e < w.size(); ++e)
      s += w[e] * static_cast<double>(t.val[static_cast<std::size_t>(out)][e]);
    return s;
  }
  // d(sum(w * out))/d(every node), seeded at `out`.
  void backward(int out, const Values& w) {
    for (auto& gr : t.grad) std::fill(gr.begin(), gr.end(), T(0));
    for (std::size_t e = 0; e < w.size(); ++e)
      t.grad[static_cast<std::size_t>(out)][e] = static_cast<T>(w[e]);
    const std::vector<char> all(b.g.nodes.size(), 1);
    graph::ExecEnv env;
    env.kernel = kernel;
    for (std::size_t i = b.g.nodes.size(); i-- > 0;)
      if (!b.is_leaf[i]) graph::backward_node(b.g, i, t, kRows, all, env);
  }
  Values value(int node) const {
    const auto& v = t.val[static_cast<std::size_t>(node)];
    return Values(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(b.size(node)));
  }
  Values gradient(int node) const {
    const auto& v = t.grad[static_cast<std::size_t>(node)];
    return Values(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(b.size(node)));
  }
};

Values weights_for(const Builder& b, int out, std::uint64_t seed) {
  Draws d(seed);
  return d.uniform(b.size(out), -1.0, 1.0);
}

double relative_error(double got, double want) {
  return std::fabs(got - want) / std::max({1.0, std::fabs(want)});
}

// The largest error of the reverse-mode gradient of sum(w * out) with
// respect to every value of every floating-point leaf, against
// (f(x + h) - f(x - h)) / 2h in double precision.
double worst_gradient_error(const Builder& b, int out) {
  const Values w = weights_for(b, out, 99);
  Run<double> run(b);
  run.forward(b.leaf);
  run.backward(out, w);
  std::vector<Values> analytic(b.g.nodes.size());
  for (std::size_t i = 0; i < b.g.nodes.size(); ++i)
    if (b.is_leaf[i]) analytic[i] = run.gradient(static_cast<int>(i));
  const double h = 1e-6;
  std::vector<Values> x = b.leaf;
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!b.is_leaf[i] || !graph::is_float(b.g.nodes[i].dtype)) continue;
    for (std::size_t e = 0; e < x[i].size(); ++e) {
      const double keep = x[i][e];
      x[i][e] = keep + h;
      run.forward(x);
      const double up = run.objective(out, w);
      x[i][e] = keep - h;
      run.forward(x);
      const double down = run.objective(out, w);
      x[i][e] = keep;
      worst = std::max(worst, relative_error(analytic[i][e], (up - down) / (2 * h)));
    }
  }
  return worst;
}

// The largest difference between the float tape and the double one: the
// output's values and every leaf's gradient, with each matrix-product
// kernel the CPU runs (float's products are GEMM's, double's are not).
double worst_float_error(const Builder& b, int out) {
  const Values w = weights_for(b, out, 99);
  Run<double> d(b);
  d.forward(b.leaf);
  const Values yd = d.value(out);
  d.backward(out, w);
  double worst = 0;
  for (gemm::Kernel kernel : {gemm::Kernel::Portable, gemm::Kernel::Avx2, gemm::Kernel::Avx512}) {
    if (!gemm::available(kernel)) continue;
    Run<float> f(b);
    f.kernel = kernel;
    f.forward(b.leaf);
    const Values yf = f.value(out);
    for (std::size_t e = 0; e < yd.size(); ++e)
      worst = std::max(worst, relative_error(yf[e], yd[e]));
    f.backward(out, w);
    for (std::size_t i = 0; i < b.g.nodes.size(); ++i) {
      if (!b.is_leaf[i] || !graph::is_float(b.g.nodes[i].dtype)) continue;
      const Values gd = d.gradient(static_cast<int>(i)), gf = f.gradient(static_cast<int>(i));
      for (std::size_t e = 0; e < gd.size(); ++e)
        worst = std::max(worst, relative_error(gf[e], gd[e]));
    }
  }
  return worst;
}

// A graph to check and its output node.
struct Case {
  std::string name;
  Builder b;
  int out = -1;
};

constexpr double kTolerance = 1e-6;
constexpr double kFloatTolerance = 1e-4;

// Checks every case, naming the ones that fail.
void check_gradients(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    CATCH_INFO("graph: " << c.name);
    const double err = worst_gradient_error(c.b, c.out);
    CATCH_INFO("finite-difference error " << err);
    expect_true(err < kTolerance);
    const double ferr = worst_float_error(c.b, c.out);
    CATCH_INFO("float against double " << ferr);
    expect_true(ferr < kFloatTolerance);
  }
}

std::string shape_name(const Shape& s) {
  std::string out = "[";
  for (std::size_t k = 0; k < s.size(); ++k)
    out += (k ? "," : "") + (s[k] < 0 ? std::string("rows") : std::to_string(s[k]));
  return out + "]";
}

std::int64_t count(const Shape& s) {
  std::int64_t n = 1;
  for (std::int64_t d : s) n *= d < 0 ? kRows : d;
  return n;
}

Case unary_case(Op op, std::uint64_t seed) {
  Case c;
  c.name = graph::op_name(op);
  Draws d(seed);
  const std::size_t n = 3 * kRows;
  Values x;
  switch (op) {
    case Op::Log:
    case Op::Sqrt:
      x = d.uniform(n, 0.3, 3.0);
      break;
    case Op::Relu6:  // on both sides of 0 and of 6, away from both
      x = {-1.5, 0.7, 3.2, 6.5, 7.1, -0.3, 5.5, 2.0, -4.0, 0.4, 6.8, 1.1};
      break;
    default:  // relu, abs, elu, selu, leaky_relu: kinks at 0
      x = d.signed_away(n, 0.2, 2.0);
  }
  const int a = c.b.input({-1, 3}, x);
  c.out = c.b.add(op, {a}, {-1, 3});
  if (op == Op::LeakyRelu) c.b.at(c.out).alpha = 0.3;
  return c;
}

Case binary_case(Op op, const Shape& sa, const Shape& sb, const Shape& so, std::uint64_t seed) {
  Case c;
  c.name = std::string(graph::op_name(op)) + " " + shape_name(sa) + " " + shape_name(sb);
  Draws d(seed);
  const std::size_t na = static_cast<std::size_t>(count(sa)),
                    nb = static_cast<std::size_t>(count(sb));
  Values a, b;
  if (op == Op::Pow) {
    a = d.uniform(na, 0.5, 2.0);
    b = d.uniform(nb, -1.5, 1.5);
  } else if (op == Op::Div) {
    a = d.uniform(na, -2.0, 2.0);
    b = d.signed_away(nb, 0.5, 2.0);
  } else {
    a = d.uniform(na, -2.0, 2.0);
    b = d.uniform(nb, -2.0, 2.0);
  }
  const int ia = c.b.input(sa, a), ib = c.b.input(sb, b);
  c.out = c.b.add(op, {ia, ib}, so);
  return c;
}

Case matmul_case(bool ta, bool tb, const Shape& sa, const Shape& sb, const Shape& so,
                 std::uint64_t seed) {
  Case c;
  c.name = std::string("matmul") + (ta ? " A^T" : " A") + (tb ? " B^T " : " B ") + shape_name(sa) +
           " " + shape_name(sb);
  Draws d(seed);
  const int a = c.b.input(sa, d.uniform(static_cast<std::size_t>(count(sa)), -1.0, 1.0));
  const int b = c.b.input(sb, d.uniform(static_cast<std::size_t>(count(sb)), -1.0, 1.0));
  c.out = c.b.add(Op::MatMul, {a, b}, so);
  c.b.at(c.out).transpose_a = ta;
  c.b.at(c.out).transpose_b = tb;
  return c;
}

Case reduce_case(Op op, const Shape& in, std::vector<int> axes, bool keep, const Shape& out,
                 std::uint64_t seed) {
  Case c;
  c.name = std::string(graph::op_name(op)) + " " + shape_name(in) + " axes {";
  for (int a : axes) c.name += std::to_string(a) + " ";
  c.name += std::string("}") + (keep ? " keep_dims" : "");
  Draws d(seed);
  // distinct values, well apart: no ties for max and min
  const int a = c.b.input(in, d.uniform(static_cast<std::size_t>(count(in)), -2.0, 2.0));
  c.out = c.b.add(op, {a}, out);
  c.b.at(c.out).axes = std::move(axes);
  c.b.at(c.out).keep_dims = keep;
  return c;
}

Case concat_case(std::vector<Shape> ins, int axis, const Shape& out, std::uint64_t seed) {
  Case c;
  c.name = "concat axis " + std::to_string(axis);
  Draws d(seed);
  std::vector<int> ids;
  for (const Shape& s : ins) {
    c.name += " " + shape_name(s);
    ids.push_back(c.b.input(s, d.uniform(static_cast<std::size_t>(count(s)), -1.0, 1.0)));
  }
  c.out = c.b.add(Op::Concat, ids, out);
  c.b.at(c.out).axis = axis;
  return c;
}

}  // namespace

context("graph op gradients") {
  test_that("every unary op's gradient matches central differences") {
    std::vector<Case> cases;
    std::uint64_t seed = 1;
    for (Op op : {Op::Relu, Op::Relu6, Op::Elu, Op::Selu, Op::Sigmoid, Op::Tanh, Op::Softplus,
                  Op::Softsign, Op::Exp, Op::Log, Op::Neg, Op::Square, Op::Sqrt, Op::Abs,
                  Op::Identity, Op::LeakyRelu, Op::Swish})
      cases.push_back(unary_case(op, seed++));
    check_gradients(cases);
  }

  test_that("binary ops' gradients match, broadcast every way") {
    struct Shapes {
      Shape a, b, out;
    };
    const std::vector<Shapes> shapes = {
        {{-1, 3}, {-1, 3}, {-1, 3}},    // same shape
        {{-1, 3}, {3}, {-1, 3}},        // a row vector
        {{3}, {-1, 3}, {-1, 3}},        // ... on the left
        {{-1, 3}, {}, {-1, 3}},         // a scalar
        {{}, {-1, 3}, {-1, 3}},         // ... on the left
        {{-1, 1}, {-1, 3}, {-1, 3}},    // a column
        {{-1, 3}, {-1, 1}, {-1, 3}},    // ... on the right
        {{-1, 1}, {1, 3}, {-1, 3}},     // both broadcast
        {{2, 1, 3}, {4, 1}, {2, 4, 3}}  // rank 3 against rank 2
    };
    std::vector<Case> cases;
    std::uint64_t seed = 100;
    for (Op op : {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Maximum, Op::Minimum, Op::Pow})
      for (const Shapes& s : shapes) cases.push_back(binary_case(op, s.a, s.b, s.out, seed++));
    check_gradients(cases);
  }

  test_that("matmul's gradients match for the four transpositions") {
    std::vector<Case> cases;
    // A is 4 x 3 and B 3 x 2 as op() reads them
    cases.push_back(matmul_case(false, false, {4, 3}, {3, 2}, {4, 2}, 201));
    cases.push_back(matmul_case(true, false, {3, 4}, {3, 2}, {4, 2}, 202));
    cases.push_back(matmul_case(false, true, {4, 3}, {2, 3}, {4, 2}, 203));
    cases.push_back(matmul_case(true, true, {3, 4}, {2, 3}, {4, 2}, 204));
    // with the batch's rows: a dense layer, and a sum over the rows (A^T B)
    cases.push_back(matmul_case(false, false, {-1, 3}, {3, 2}, {-1, 2}, 205));
    cases.push_back(matmul_case(false, true, {-1, 3}, {2, 3}, {-1, 2}, 206));
    cases.push_back(matmul_case(true, false, {-1, 3}, {-1, 2}, {3, 2}, 207));
    cases.push_back(matmul_case(false, true, {-1, 3}, {-1, 3}, {-1, kRows}, 208));
    check_gradients(cases);
  }

  test_that("softmax and log_softmax's gradients match, over the last axis") {
    std::vector<Case> cases;
    std::uint64_t seed = 300;
    for (Op op : {Op::Softmax, Op::LogSoftmax})
      for (const Shape& s : {Shape{-1, 4}, Shape{2, 3, 4}, Shape{-1}}) {
        Case c;
        c.name = std::string(graph::op_name(op)) + " " + shape_name(s);
        Draws d(seed++);
        const int a = c.b.input(s, d.uniform(static_cast<std::size_t>(count(s)), -2.0, 2.0));
        c.out = c.b.add(op, {a}, s);
        cases.push_back(std::move(c));
      }
    check_gradients(cases);
  }

  test_that("reductions' gradients match over every axis, with and without keep_dims") {
    std::vector<Case> cases;
    std::uint64_t seed = 400;
    for (Op op : {Op::ReduceSum, Op::ReduceMean, Op::ReduceMax, Op::ReduceMin}) {
      cases.push_back(reduce_case(op, {-1, 3}, {}, false, {}, seed++));
      cases.push_back(reduce_case(op, {-1, 3}, {}, true, {1, 1}, seed++));
      cases.push_back(reduce_case(op, {-1, 3}, {1}, false, {-1}, seed++));
      cases.push_back(reduce_case(op, {-1, 3}, {1}, true, {-1, 1}, seed++));
      cases.push_back(reduce_case(op, {-1, 3}, {0}, false, {3}, seed++));
      cases.push_back(reduce_case(op, {-1, 3}, {0}, true, {1, 3}, seed++));
      cases.push_back(reduce_case(op, {-1, 3}, {-1}, false, {-1}, seed++));
      cases.push_back(reduce_case(op, {-1, 3}, {0, 1}, false, {}, seed++));
      cases.push_back(reduce_case(op, {2, 3, 4}, {1}, false, {2, 4}, seed++));
      cases.push_back(reduce_case(op, {2, 3, 4}, {0, 2}, true, {1, 3, 1}, seed++));
    }
    check_gradients(cases);
  }

  test_that("reshape, cast and concat pass gradients to the values they moved") {
    std::vector<Case> cases;
    Draws d(500);
    for (const auto& shapes : {std::vector<Shape>{{-1, 6}, {-1, 2, 3}},  // reshape
                               std::vector<Shape>{{-1, 3}, {-1, 3, 1}},  // expand_dims
                               std::vector<Shape>{{-1, 1}, {-1}},        // squeeze
                               std::vector<Shape>{{2, 6}, {3, 4}}}) {    // no rows
      Case c;
      c.name = "reshape " + shape_name(shapes[0]) + " to " + shape_name(shapes[1]);
      const int a =
          c.b.input(shapes[0], d.uniform(static_cast<std::size_t>(count(shapes[0])), -1.0, 1.0));
      c.out = c.b.add(Op::Reshape, {a}, shapes[1]);
      cases.push_back(std::move(c));
    }
    {
      Case c;
      c.name = "cast float32 to float64";
      const int a = c.b.input({-1, 3}, d.uniform(3 * kRows, -1.0, 1.0), DType::Float32);
      c.out = c.b.add(Op::Cast, {a}, {-1, 3}, DType::Float64);
      cases.push_back(std::move(c));
    }
    cases.push_back(concat_case({{-1, 2}, {-1, 3}}, 1, {-1, 5}, 501));
    cases.push_back(concat_case({{-1, 1}, {-1, 2}, {-1, 1}}, 1, {-1, 4}, 502));
    cases.push_back(concat_case({{-1, 2}, {-1, 3}}, -1, {-1, 5}, 503));
    cases.push_back(concat_case({{2, 3}, {1, 3}}, 0, {3, 3}, 504));
    cases.push_back(concat_case({{2, 3}, {2, 3}, {1, 3}}, 0, {5, 3}, 505));
    cases.push_back(concat_case({{2, 2, 3}, {2, 1, 3}}, 1, {2, 3, 3}, 506));
    check_gradients(cases);
  }

  test_that("cross entropies' gradients match with respect to labels and logits") {
    std::vector<Case> cases;
    Draws d(600);
    {
      Case c;
      c.name = "sigmoid_xent";
      const int z = c.b.input({-1, 3}, d.uniform(3 * kRows, 0.0, 1.0));
      const int l = c.b.input({-1, 3}, d.uniform(3 * kRows, -3.0, 3.0));
      c.out = c.b.add(Op::SigmoidXent, {z, l}, {-1, 3});
      cases.push_back(std::move(c));
    }
    for (int full = 0; full <= 1; ++full) {
      Case c;
      c.name = full ? "log_poisson_loss (full)" : "log_poisson_loss";
      const int z = c.b.input({-1, 3}, d.uniform(3 * kRows, 0.0, 4.0));
      const int l = c.b.input({-1, 3}, d.uniform(3 * kRows, -2.0, 2.0));
      c.out = c.b.add(Op::LogPoissonLoss, {z, l}, {-1, 3});
      c.b.at(c.out).full_loss = full != 0;
      cases.push_back(std::move(c));
    }
    {
      Case c;
      c.name = "softmax_xent";
      const int z = c.b.input({-1, 4}, d.uniform(4 * kRows, 0.0, 1.0));
      const int l = c.b.input({-1, 4}, d.uniform(4 * kRows, -2.0, 2.0));
      c.out = c.b.add(Op::SoftmaxXent, {z, l}, {-1});
      cases.push_back(std::move(c));
    }
    {
      Case c;
      c.name = "sparse_softmax_xent";
      const int z = c.b.input({-1}, {0, 2, 1, 2}, DType::Int64);
      const int l = c.b.input({-1, 3}, d.uniform(3 * kRows, -2.0, 2.0));
      c.out = c.b.add(Op::SparseSoftmaxXent, {z, l}, {-1});
      cases.push_back(std::move(c));
    }
    check_gradients(cases);
  }

  test_that("dropout keeps a value with its mask, scaled by 1 / (1 - rate), and so its gradient") {
    Case c;
    c.name = "dropout";
    Draws d(700);
    const int a = c.b.input({-1, 5}, d.uniform(5 * kRows, -1.0, 1.0));
    c.out = c.b.add(Op::Dropout, {a}, {-1, 5});
    c.b.at(c.out).rate = 0.4;
    Run<double> run(c.b);
    run.forward(c.b.leaf);
    const Values w = weights_for(c.b, c.out, 99);
    run.backward(c.out, w);
    const Values y = run.value(c.out), g = run.gradient(a);
    const auto& mask = run.t.mask[static_cast<std::size_t>(c.out)];
    int kept = 0;
    bool values_ok = true, grads_ok = true;
    for (std::size_t e = 0; e < y.size(); ++e) {
      kept += mask[e] ? 1 : 0;
      const double want = mask[e] ? c.b.leaf[static_cast<std::size_t>(a)][e] / 0.6 : 0.0;
      values_ok = values_ok && std::fabs(y[e] - want) < 1e-15;
      grads_ok = grads_ok && std::fabs(g[e] - (mask[e] ? w[e] / 0.6 : 0.0)) < 1e-15;
    }
    CATCH_INFO("kept " << kept << " of 20");
    expect_true((kept > 0 && kept < 20));  // some of each
    expect_true(values_ok);
    expect_true(grads_ok);
    // the mask is the generator's: the same seed draws the same one
    Run<double> again(c.b);
    again.forward(c.b.leaf);
    expect_true((again.t.mask[static_cast<std::size_t>(c.out)] == mask));
    check_gradients({c});
  }

  test_that("a node read twice adds up both gradients") {
    std::vector<Case> cases;
    Draws d(800);
    {
      Case c;
      c.name = "x * x + tanh(x)";
      const int x = c.b.input({-1, 3}, d.uniform(3 * kRows, -1.0, 1.0));
      const int sq = c.b.add(Op::Mul, {x, x}, {-1, 3});
      const int th = c.b.add(Op::Tanh, {x}, {-1, 3});
      c.out = c.b.add(Op::Add, {sq, th}, {-1, 3});
      cases.push_back(std::move(c));
    }
    {
      Case c;
      c.name = "A A^T";
      const int x = c.b.input({-1, 3}, d.uniform(3 * kRows, -1.0, 1.0));
      c.out = c.b.add(Op::MatMul, {x, x}, {-1, kRows});
      c.b.at(c.out).transpose_b = true;
      cases.push_back(std::move(c));
    }
    {
      // a small network: mean softmax cross entropy of relu(x W + b) V
      Case c;
      c.name = "two layers and a mean softmax cross entropy";
      const int x = c.b.input({-1, 3}, d.signed_away(3 * kRows, 0.2, 1.0));
      const int w = c.b.input({3, 4}, d.uniform(12, -1.0, 1.0));
      const int bias = c.b.input({4}, d.uniform(4, -0.1, 0.1));
      const int v = c.b.input({4, 3}, d.uniform(12, -1.0, 1.0));
      const int z = c.b.input({-1}, {2, 0, 1, 1}, DType::Int32);
      const int h = c.b.add(Op::MatMul, {x, w}, {-1, 4});
      const int hb = c.b.add(Op::Add, {h, bias}, {-1, 4});
      const int r = c.b.add(Op::Relu, {hb}, {-1, 4});
      const int logits = c.b.add(Op::MatMul, {r, v}, {-1, 3});
      const int xent = c.b.add(Op::SparseSoftmaxXent, {z, logits}, {-1});
      c.out = c.b.add(Op::ReduceMean, {xent}, {});
      cases.push_back(std::move(c));
    }
    check_gradients(cases);
  }
}

context("graph op values") {
  // One op's values on fixed inputs.
  struct Eval {
    Builder b;
    Values of(int node) {
      Run<double> run(b);
      run.forward(b.leaf);
      return run.value(node);
    }
  };

  test_that("ops without gradients are not differentiable") {
    for (Op op : {Op::ArgMax, Op::ArgMin, Op::OneHot, Op::Equal, Op::NotEqual, Op::Greater,
                  Op::GreaterEqual, Op::Less, Op::LessEqual, Op::Sign, Op::StopGradient}) {
      CATCH_INFO("op " << graph::op_name(op));
      expect_false(graph::differentiable(op));
    }
    expect_true(graph::differentiable(Op::Identity));
    expect_true(graph::differentiable(Op::Cast));
  }

  test_that("argmax and argmin pick the first extreme along an axis") {
    Eval e;
    const int a = e.b.input({-1, 3}, {1, 5, 2, 7, -1, 7, 0, 0, 0, -2, -3, 4});
    const int mx1 = e.b.add(Op::ArgMax, {a}, {-1}, DType::Int64);
    e.b.at(mx1).axis = 1;
    const int mn1 = e.b.add(Op::ArgMin, {a}, {-1}, DType::Int64);
    e.b.at(mn1).axis = 1;
    const int mx0 = e.b.add(Op::ArgMax, {a}, {3}, DType::Int64);
    e.b.at(mx0).axis = 0;
    const int mn0 = e.b.add(Op::ArgMin, {a}, {3}, DType::Int64);
    e.b.at(mn0).axis = -2;
    expect_true((e.of(mx1) == Values{1, 0, 0, 2}));
    expect_true((e.of(mn1) == Values{0, 1, 0, 1}));
    expect_true((e.of(mx0) == Values{1, 0, 1}));
    expect_true((e.of(mn0) == Values{3, 3, 2}));
  }

  test_that("one_hot puts on_value at whole labels in range, off_value elsewhere") {
    Eval e;
    const int a = e.b.input({-1}, {0, 2, -1, 3}, DType::Int32);
    const int h = e.b.add(Op::OneHot, {a}, {-1, 3});
    e.b.at(h).depth = 3;
    e.b.at(h).on_value = 5;
    e.b.at(h).off_value = -1;
    expect_true((e.of(h) == Values{5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1}));
  }

  test_that("comparisons give 0 and 1, ties included, broadcast") {
    Eval e;
    const int a = e.b.input({-1, 3}, {1, 2, 3, 0, 2, 5, -1, 2, 2, 4, 4, 4});
    const int b = e.b.input({3}, {1, 2, 4});
    const Values equal = {1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1};
    const Values greater = {0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0};
    const Values less = {0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0};
    auto cmp = [&](Op op) { return e.b.add(op, {a, b}, {-1, 3}, DType::Bool); };
    const int eq = cmp(Op::Equal), ne = cmp(Op::NotEqual), gt = cmp(Op::Greater),
              ge = cmp(Op::GreaterEqual), lt = cmp(Op::Less), le = cmp(Op::LessEqual);
    auto negate = [](Values v) {
      for (double& x : v) x = 1 - x;
      return v;
    };
    expect_true((e.of(eq) == equal));
    expect_true((e.of(ne) == negate(equal)));
    expect_true((e.of(gt) == greater));
    expect_true((e.of(ge) == negate(less)));
    expect_true((e.of(lt) == less));
    expect_true((e.of(le) == negate(greater)));
  }

  test_that("sign and stop_gradient: values, and no gradient through them") {
    Builder b;
    const int x = b.input({-1}, {-2.5, 0, 3, -0.0});
    const int s = b.add(Op::Sign, {x}, {-1});
    const int sg = b.add(Op::StopGradient, {x}, {-1});
    const int sum = b.add(Op::Add, {sg, x}, {-1});  // d/dx = 1, not 2
    const int out = b.add(Op::Add, {sum, s}, {-1});
    Run<double> run(b);
    run.forward(b.leaf);
    expect_true((run.value(s) == Values{-1, 0, 1, 0}));
    expect_true((run.value(sg) == b.leaf[static_cast<std::size_t>(x)]));
    run.backward(out, {1, 1, 1, 1});
    expect_true((run.gradient(x) == Values{1, 1, 1, 1}));
  }

  test_that("casts: toward zero to integers, != 0 to bool, rounding to float32") {
    Eval e;
    const int x = e.b.input({-1}, {-2.7, 2.7, 0.0, 1.0 / 3.0});
    const int i32 = e.b.add(Op::Cast, {x}, {-1}, DType::Int32);
    const int bl = e.b.add(Op::Cast, {x}, {-1}, DType::Bool);
    const int f32 = e.b.add(Op::Cast, {x}, {-1}, DType::Float32);
    expect_true((e.of(i32) == Values{-2, 2, 0, 0}));
    expect_true((e.of(bl) == Values{1, 1, 0, 1}));
    expect_true((e.of(f32) == Values{static_cast<float>(-2.7), static_cast<float>(2.7), 0.0,
                                     static_cast<float>(1.0 / 3.0)}));
  }

  test_that(
      "integer division floors (TF 1.x's tf$div, Python 2 division); float division does not") {
    Eval e;
    const int a = e.b.input({-1}, {7, -7, 6, 5}, DType::Int32);
    const int b = e.b.input({-1}, {2, 2, 3, -3}, DType::Int32);
    const int q = e.b.add(Op::Div, {a, b}, {-1}, DType::Int32);
    const int fa = e.b.input({-1}, {7, -7, 1, 5});
    const int fb = e.b.input({-1}, {2, 2, 4, -4});
    const int fq = e.b.add(Op::Div, {fa, fb}, {-1});
    expect_true((e.of(q) == Values{3, -4, 2, -2}));
    expect_true((e.of(fq) == Values{3.5, -3.5, 0.25, -1.25}));
  }

  test_that("integer division by zero is TensorFlow's error") {
    Eval e;
    const int a = e.b.input({-1}, {7, -7, 6, 5}, DType::Int32);
    const int b = e.b.input({-1}, {2, 0, 3, -3}, DType::Int32);
    const int q = e.b.add(Op::Div, {a, b}, {-1}, DType::Int32);
    std::string message;
    try {
      e.of(q);
    } catch (const std::invalid_argument& err) {
      message = err.what();
    }
    expect_true(message == "Integer division by zero");
  }

  test_that("softmax's rows sum to 1 and match values computed by hand") {
    Eval e;
    const int a = e.b.input({-1, 3}, {1, 2, 3, 0, 0, 0, -1, 0, 1000, 5, 5, -1e9});
    const int s = e.b.add(Op::Softmax, {a}, {-1, 3});
    const int ls = e.b.add(Op::LogSoftmax, {a}, {-1, 3});
    const Values y = e.of(s), ly = e.of(ls);
    bool sums = true;
    for (int r = 0; r < kRows; ++r) {
      const double total = y[3 * r] + y[3 * r + 1] + y[3 * r + 2];
      sums = sums && std::fabs(total - 1) < 1e-15;
    }
    expect_true(sums);
    // softmax(1, 2, 3) = exp(k - 3) / (exp(-2) + exp(-1) + 1)
    const double den = std::exp(-2.0) + std::exp(-1.0) + 1.0;
    expect_true((std::fabs(y[0] - std::exp(-2.0) / den) < 1e-15));
    expect_true((std::fabs(y[0] - 0.0900305731703805) < 1e-15));
    expect_true((std::fabs(y[1] - 0.2447284710547976) < 1e-15));
    expect_true((std::fabs(y[2] - 0.6652409557748219) < 1e-15));
    expect_true((std::fabs(y[3] - 1.0 / 3.0) < 1e-15));
    // large logits do not overflow
    expect_true((y[8] == 1.0 && y[6] == 0.0 && y[9] == 0.5 && y[11] == 0.0));
    expect_true((std::fabs(ly[2] - std::log(1.0 / den)) < 1e-14));
    expect_true((std::fabs(ly[11] - (-1e9 - 5 - std::log(2.0))) < 1e-6));
  }

  test_that("reductions' values: sum, mean, max and min over an axis or all") {
    Eval e;
    const int a = e.b.input({-1, 3}, {1, 2, 3, 4, 5, 6, -1, -2, -3, 0, 10, -10});
    auto red = [&](Op op, std::vector<int> axes, Shape out) {
      const int r = e.b.add(op, {a}, std::move(out));
      e.b.at(r).axes = std::move(axes);
      return r;
    };
    const int all = red(Op::ReduceSum, {}, {}), mean1 = red(Op::ReduceMean, {1}, {-1}),
              max0 = red(Op::ReduceMax, {0}, {3}), min1 = red(Op::ReduceMin, {-1}, {-1, 1});
    expect_true((e.of(all) == Values{15}));
    expect_true((e.of(mean1) == Values{2, 5, -2, 0}));
    expect_true((e.of(max0) == Values{4, 10, 6}));
    expect_true((e.of(min1) == Values{1, 4, -3, -10}));
  }

  test_that("cross entropies against values computed by hand") {
    Eval e;
    // sigmoid_xent(z, x) = max(x, 0) - x z + log(1 + exp(-|x|))
    const int z = e.b.input({-1}, {1, 0, 0.25, 1});
    const int x = e.b.input({-1}, {0, 2, -1, 800});
    const int sx = e.b.add(Op::SigmoidXent, {z, x}, {-1});
    const Values s = e.of(sx);
    expect_true((std::fabs(s[0] - std::log(2.0)) < 1e-15));
    expect_true((std::fabs(s[1] - (2 + std::log1p(std::exp(-2.0)))) < 1e-15));
    expect_true((std::fabs(s[2] - (0.25 + std::log1p(std::exp(-1.0)))) < 1e-15));
    expect_true((s[3] == 0.0));  // no overflow
    // softmax_xent(z, l) = -sum z log softmax(l); sparse: -log softmax(l)[label]
    const int l = e.b.input({-1, 3}, {1, 2, 3, 0, 0, 0, 3, 1, -2, 0.5, -0.5, 2});
    const int zs = e.b.input({-1, 3}, {0, 1, 0, 0.5, 0.5, 0, 0, 0, 1, 0.2, 0.3, 0.5});
    const int labels = e.b.input({-1}, {1, 0, 2, 2}, DType::Int64);
    const int dense = e.b.add(Op::SoftmaxXent, {zs, l}, {-1});
    const int sparse = e.b.add(Op::SparseSoftmaxXent, {labels, l}, {-1});
    const int lsm = e.b.add(Op::LogSoftmax, {l}, {-1, 3});
    const Values dv = e.of(dense), sv = e.of(sparse), ls = e.of(lsm);
    expect_true((std::fabs(sv[0] - -std::log(0.2447284710547976)) < 1e-14));
    expect_true((std::fabs(dv[0] - sv[0]) < 1e-15));
    expect_true((std::fabs(dv[1] - std::log(3.0)) < 1e-15));
    bool sparse_ok = true;
    for (int r = 0; r < kRows; ++r) {
      const std::size_t label =
          static_cast<std::size_t>(e.b.leaf[static_cast<std::size_t>(labels)][r]);
      sparse_ok = sparse_ok && std::fabs(sv[r] + ls[3 * r + label]) < 1e-14;
    }
    expect_true(sparse_ok);
    expect_true((std::fabs(dv[3] - -(0.2 * ls[9] + 0.3 * ls[10] + 0.5 * ls[11])) < 1e-14));
  }

  test_that("a label outside [0, classes) stops with TensorFlow's message") {
    for (double bad : {5.0, -1.0, 3.0}) {
      Builder b;
      const int z = b.input({-1}, {0, bad, 1, 2}, DType::Int64);
      const int l = b.input({-1, 3}, Values(3 * kRows, 0.5));
      b.add(Op::SparseSoftmaxXent, {z, l}, {-1});
      Run<double> run(b);
      const std::string msg = error_of([&] { run.forward(b.leaf); });
      const std::string want = "Received a label value of " +
                               std::to_string(static_cast<int>(bad)) +
                               " which is outside the valid range of [0, 3)";
      CATCH_INFO(msg);
      expect_true((msg == want));
      expect_error_as(run.forward(b.leaf), std::invalid_argument);
    }
    Builder b;
    const int z = b.input({-1}, {0, 5, 1, 2}, DType::Int64);
    const int l = b.input({-1, 3}, Values(3 * kRows, 0.5));
    b.add(Op::SparseSoftmaxXent, {z, l}, {-1});
    Run<float> run(b);
    expect_true((error_of([&] { run.forward(b.leaf); }) ==
                 "Received a label value of 5 which is outside the valid range of [0, 3)"));
  }

  test_that("ties as TensorFlow breaks them: maximum's to x, reduce_max's split evenly") {
    // maximum and minimum pass a tie's gradient to x (x >= y, x <= y)
    Builder b;
    const int x = b.input({-1}, {1, 2, 3, 4});
    const int y = b.input({-1}, {1, 5, 3, 0});
    const int mx = b.add(Op::Maximum, {x, y}, {-1});
    const int mn = b.add(Op::Minimum, {x, y}, {-1});
    const int out = b.add(Op::Add, {mx, mn}, {-1});
    Run<double> run(b);
    run.forward(b.leaf);
    run.backward(out, {1, 1, 1, 1});
    expect_true((run.gradient(x) == Values{2, 1, 2, 1}));
    expect_true((run.gradient(y) == Values{0, 1, 0, 1}));
    // reduce_max and reduce_min share it between the tied values
    // (_MinOrMaxGrad: indicators / number selected)
    Builder r;
    const int a = r.input({-1, 3}, {2, 7, 7, 0, 0, 0, -1, 3, -1, 5, 4, 3});
    const int rmax = r.add(Op::ReduceMax, {a}, {-1});
    r.at(rmax).axes = {1};
    const int rmin = r.add(Op::ReduceMin, {a}, {-1});
    r.at(rmin).axes = {1};
    const int all = r.add(Op::ReduceMax, {a}, {});
    for (int node : {rmax, rmin, all}) {
      Run<double> t(r);
      t.forward(r.leaf);
      const Values w = node == all ? Values{6} : Values{4, 8, 12, 16};
      t.backward(node, w);
      if (node == rmax) {
        expect_true((t.value(node) == Values{7, 0, 3, 5}));
        expect_true(
            (t.gradient(a) == Values{0, 2, 2, 8.0 / 3, 8.0 / 3, 8.0 / 3, 0, 12, 0, 16, 0, 0}));
      } else if (node == rmin) {
        expect_true((t.value(node) == Values{2, 0, -1, 3}));
        expect_true(
            (t.gradient(a) == Values{4, 0, 0, 8.0 / 3, 8.0 / 3, 8.0 / 3, 6, 0, 6, 0, 0, 16}));
      } else {
        expect_true((t.value(node) == Values{7}));
        expect_true((t.gradient(a) == Values{0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
      }
    }
  }
}

context("graph ops and the dense layers' activations") {
  test_that("every activation of the DNN is its graph op, bit for bit, value and gradient") {
    // float32 inputs over the kinks, the saturations and beyond softplus's
    // and sigmoid's overflow points, and the gradients they pass back
    Draws d(5);
    const Values x = d.uniform(kRows * 64, -40.0, 40.0);
    Values small = d.uniform(kRows * 64, -3.0, 3.0);
    Values in(x.begin(), x.begin() + kRows * 32);
    in.insert(in.end(), small.begin(), small.begin() + kRows * 32);
    in[0] = 0.0;
    in[1] = 6.0;
    const Values w = d.uniform(in.size(), -1.0, 1.0);
    for (const std::string& name : Activation::names()) {
      if (name == "crelu") continue;  // (two outputs per unit: no graph op)
      Builder b;
      const int leaf = b.input({-1, 64}, in, DType::Float32);
      const int out = b.add(graph::op_of(name), {leaf}, {-1, 64}, DType::Float32);
      b.at(out).alpha = 0.2;  // leaky_relu's slope, the DNN's
      Run<float> run(b);
      run.forward(b.leaf);
      run.backward(out, w);
      std::vector<float> z(in.begin(), in.end()), a(in.size()), da(w.begin(), w.end()),
          dz(in.size());
      const Activation act(name);
      act.forward(z.data(), kRows, 64, a.data());
      act.backward(z.data(), a.data(), da.data(), kRows, 64, dz.data());
      bool values = true, grads = true;
      const std::vector<float>& gv = run.t.val[static_cast<std::size_t>(out)];
      const std::vector<float>& gg = run.t.grad[static_cast<std::size_t>(leaf)];
      for (std::size_t e = 0; e < in.size(); ++e) {
        values = values && std::memcmp(&gv[e], &a[e], sizeof(float)) == 0;
        // (equal numbers: the graph adds each gradient into a zero, which
        // turns a -0 into 0)
        grads = grads && gg[e] == dz[e];
      }
      expect_true(values);
      expect_true(grads);
      if (!values || !grads) std::printf("activation %s differs\n", name.c_str());
    }
  }
}
