#include <cppestimators/model/graph/graph_exec.h>

#include <Eigen/Core>

#include <cppestimators/math/elementwise.h>
#include <cppestimators/math/pointwise_loss.h>
#include <cppestimators/parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace cppestimators {
namespace graph {

namespace {

constexpr int kMaxRank = 8;

// A shape with the rows filled in, without the heap.
struct Dims {
  int rank = 0;
  std::int64_t d[kMaxRank] = {};
  std::int64_t size() const {
    std::int64_t n = 1;
    for (int k = 0; k < rank; ++k) n *= d[k];
    return n;
  }
};

Dims dims_of(const Node& n, int rows) {
  Dims out;
  if (n.shape.size() > static_cast<std::size_t>(kMaxRank))
    throw std::invalid_argument("'" + n.name + "' has more than 8 dimensions");
  out.rank = static_cast<int>(n.shape.size());
  for (int k = 0; k < out.rank; ++k) out.d[k] = n.shape[static_cast<std::size_t>(k)];
  if (n.batched()) out.d[0] = rows;
  return out;
}

// Strides of `in` read as `out` under numpy broadcasting: `in`'s dimensions
// right-aligned to `out`'s, stride 0 where `in` has 1 (or nothing).
void broadcast_strides(const Dims& in, const Dims& out, std::int64_t* s) {
  std::int64_t stride = 1;
  for (int k = out.rank - 1; k >= 0; --k) {
    const int j = k - (out.rank - in.rank);
    if (j < 0) {
      s[k] = 0;
      continue;
    }
    s[k] = in.d[j] == 1 && out.d[k] != 1 ? 0 : stride;
    stride *= in.d[j];
  }
}

// Calls f(o, ia, ib) for every element o of `out`, with the elements of
// the two broadcast inputs it reads.
template <class F>
void each_broadcast(const Dims& out, const std::int64_t* sa, const std::int64_t* sb, F f) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  if (out.rank == 0) {
    f(0, 0, 0);
    return;
  }
  std::int64_t idx[kMaxRank] = {};
  std::int64_t ia = 0, ib = 0;
  const int last = out.rank - 1;
  for (std::int64_t o = 0; o < n;) {
    // the innermost dimension in one run
    const std::int64_t len = out.d[last];
    for (std::int64_t k = 0; k < len; ++k, ++o) f(o, ia + k * sa[last], ib + k * sb[last]);
    for (int k = last - 1; k >= 0; --k) {
      ++idx[k];
      ia += sa[k];
      ib += sb[k];
      if (idx[k] < out.d[k]) break;
      ia -= sa[k] * idx[k];
      ib -= sb[k] * idx[k];
      idx[k] = 0;
    }
  }
}

bool same_dims(const Dims& a, const Dims& b) {
  if (a.rank != b.rank) return false;
  for (int k = 0; k < a.rank; ++k)
    if (a.d[k] != b.d[k]) return false;
  return true;
}

// The dimensions kept by a reduction, as 1s (keep_dims form).
Dims reduced(const Dims& in, const std::vector<int>& axes) {
  Dims out = in;
  if (axes.empty())
    for (int k = 0; k < in.rank; ++k) out.d[k] = 1;
  for (int a : axes) {
    const int k = a < 0 ? a + in.rank : a;
    if (k < 0 || k >= in.rank) throw std::invalid_argument("a reduction axis is out of range");
    out.d[k] = 1;
  }
  return out;
}

// Element i of an outer x len x inner block along one axis.
struct AxisSplit {
  std::int64_t outer = 1, len = 1, inner = 1;
};

AxisSplit split_at(const Dims& d, int axis) {
  const int k = axis < 0 ? axis + d.rank : axis;
  if (k < 0 || k >= d.rank) throw std::invalid_argument("an axis is out of range");
  AxisSplit s;
  for (int j = 0; j < k; ++j) s.outer *= d.d[j];
  s.len = d.d[k];
  for (int j = k + 1; j < d.rank; ++j) s.inner *= d.d[j];
  return s;
}

// Integer division is TF 1.x's Python 2 division, floor_div (an error when
// dividing by zero, as TensorFlow's: zeros are refused before); float
// division is exact.
template <class T>
T floor_div(T a, T b) {
  return b == 0 ? T(0) : std::floor(a / b);
}

template <class T>
T cast_to(T x, DType t) {
  switch (t) {
    case DType::Bool:
      return x != 0 ? T(1) : T(0);
    case DType::Int32:
    case DType::Int64:
      return std::isfinite(x) ? std::trunc(x) : T(0);
    case DType::Float32:
      return static_cast<T>(static_cast<float>(x));
    default:
      return x;
  }
}

// C (m x n) = op(A) op(B), or += when accumulate. A large product splits
// C's rows over the threads (as the DNN's layers do): each value is computed
// as on one thread, so the thread count does not change the result.
void matmul(const ExecEnv& env, bool ta, bool tb, int m, int n, int k, const float* a, int lda,
            const float* b, int ldb, float* c, int ldc, bool accumulate) {
  const double macs = static_cast<double>(m) * n * k;
  const int threads =
      env.threads > 1 && m >= 2 * env.threads && macs >= (1 << 20) ? env.threads : 1;
  if (threads == 1) {
    gemm::multiply(env.kernel, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
    return;
  }
  parallel_for(threads, threads, [&](int t) {
    const int r0 = m * t / threads, rn = m * (t + 1) / threads - r0;
    if (rn == 0) return;
    // op(A)'s rows r0..: A's rows, or its columns when transposed
    const float* at = ta ? a + r0 : a + static_cast<std::ptrdiff_t>(r0) * lda;
    gemm::multiply(env.kernel, ta, tb, rn, n, k, at, lda, b, ldb,
                   c + static_cast<std::ptrdiff_t>(r0) * ldc, ldc, accumulate);
  });
}

// The double product (graphs holding float64 tensors) through Eigen.
void matmul(const ExecEnv&, bool ta, bool tb, int m, int n, int k, const double* a, int lda,
            const double* b, int ldb, double* c, int ldc, bool accumulate) {
  using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using In = Eigen::Map<const Mat, 0, Eigen::OuterStride<>>;
  using Out = Eigen::Map<Mat, 0, Eigen::OuterStride<>>;
  const In A(a, ta ? k : m, ta ? m : k, Eigen::OuterStride<>(lda));
  const In B(b, tb ? n : k, tb ? k : n, Eigen::OuterStride<>(ldb));
  Out C(c, m, n, Eigen::OuterStride<>(ldc));
  if (!accumulate) C.setZero();
  if (ta && tb)
    C.noalias() += A.transpose() * B.transpose();
  else if (ta)
    C.noalias() += A.transpose() * B;
  else if (tb)
    C.noalias() += A * B.transpose();
  else
    C.noalias() += A * B;
}

template <class T>
void softmax_rows(const T* x, std::int64_t outer, std::int64_t c, T* y, bool log) {
  for (std::int64_t r = 0; r < outer; ++r) {
    const T* xr = x + r * c;
    T* yr = y + r * c;
    T mx = -std::numeric_limits<T>::infinity();
    for (std::int64_t j = 0; j < c; ++j) mx = std::max(mx, xr[j]);
    T sum = 0;
    for (std::int64_t j = 0; j < c; ++j) sum += std::exp(xr[j] - mx);
    if (log) {
      const T lse = mx + std::log(sum);
      for (std::int64_t j = 0; j < c; ++j) yr[j] = xr[j] - lse;
    } else {
      for (std::int64_t j = 0; j < c; ++j) yr[j] = std::exp(xr[j] - mx) / sum;
    }
  }
}

// log(sum(exp(x))) of one row.
template <class T>
T log_sum_exp(const T* x, std::int64_t c) {
  T mx = -std::numeric_limits<T>::infinity();
  for (std::int64_t j = 0; j < c; ++j) mx = std::max(mx, x[j]);
  T sum = 0;
  for (std::int64_t j = 0; j < c; ++j) sum += std::exp(x[j] - mx);
  return mx + std::log(sum);
}

// How a binary op's operand lies over the output: the same shape, one
// value, or the output's trailing dimensions (a bias over a batch); the
// rest takes the general broadcast.
enum class Layout { Same, Scalar, Suffix, General };

Layout layout_of(const Dims& in, const Dims& out) {
  if (same_dims(in, out)) return Layout::Same;
  if (in.size() == 1) return Layout::Scalar;
  int lead = 0;
  while (lead < in.rank && in.d[lead] == 1) ++lead;
  const int len = in.rank - lead;
  if (len > out.rank) return Layout::General;
  for (int k = 0; k < len; ++k)
    if (in.d[lead + k] != out.d[out.rank - len + k]) return Layout::General;
  return Layout::Suffix;
}

// Calls f(o, ia, ib) for every output element, as each_broadcast() does,
// with plain loops for the common layouts.
template <class F>
void each_mapped(const Dims& out, const Dims& da, const Dims& db, F f) {
  const std::int64_t n = out.size();
  const Layout la = layout_of(da, out), lb = layout_of(db, out);
  if (la == Layout::Same && lb == Layout::Same) {
#pragma omp simd
    for (std::int64_t e = 0; e < n; ++e) f(e, e, e);
  } else if (la == Layout::Same && lb == Layout::Scalar) {
    for (std::int64_t e = 0; e < n; ++e) f(e, e, std::int64_t(0));
  } else if (la == Layout::Scalar && lb == Layout::Same) {
    for (std::int64_t e = 0; e < n; ++e) f(e, std::int64_t(0), e);
  } else if (la == Layout::Same && lb == Layout::Suffix) {
    const std::int64_t m = db.size();
    for (std::int64_t o = 0; o < n; o += m)
#pragma omp simd
      for (std::int64_t j = 0; j < m; ++j) f(o + j, o + j, j);
  } else if (la == Layout::Suffix && lb == Layout::Same) {
    const std::int64_t m = da.size();
    for (std::int64_t o = 0; o < n; o += m)
#pragma omp simd
      for (std::int64_t j = 0; j < m; ++j) f(o + j, j, o + j);
  } else {
    std::int64_t sa[kMaxRank], sb[kMaxRank];
    broadcast_strides(da, out, sa);
    broadcast_strides(db, out, sb);
    each_broadcast(out, sa, sb, f);
  }
}

// The ops' loops, one instance per functor (math/elementwise.h): the
// function is known inside them, so they compile to straight code.
template <class F, class T>
void unary_forward(const T* a, T* y, std::int64_t n, double alpha) {
#pragma omp simd
  for (std::int64_t e = 0; e < n; ++e) y[e] = F::f(a[e], alpha);
}

template <class F, class T>
void unary_backward(const T* a, const T* y, const T* gy, T* ga, std::int64_t n, double alpha) {
  if constexpr (std::is_same<F, elementwise::Relu>::value) {
    // a select the compiler vectorizes (a branch on the sign mispredicts)
#pragma omp simd
    for (std::int64_t e = 0; e < n; ++e) {
      const T g = gy[e];  // loaded whatever the sign: the loop has no branch
      ga[e] += a[e] > T(0) ? g : T(0);
    }
  } else {
#pragma omp simd
    for (std::int64_t e = 0; e < n; ++e) ga[e] += gy[e] * F::df(a[e], y[e], alpha);
  }
}

template <class F, class T>
void binary_forward(const Dims& out, const Dims& da, const Dims& db, const T* a, const T* b, T* y,
                    DType operand) {
  if (std::is_same<F, elementwise::Div>::value && !is_float(operand)) {
    // checked here: nothing may throw inside the (vectorized) loops
    for (std::int64_t e = 0; e < db.size(); ++e)
      if (b[e] == 0) throw std::invalid_argument("Integer division by zero");
    each_mapped(out, da, db, [&](std::int64_t o, std::int64_t ia, std::int64_t ib) {
      y[o] = floor_div(a[ia], b[ib]);
    });
    return;
  }
  each_mapped(out, da, db,
              [&](std::int64_t o, std::int64_t ia, std::int64_t ib) { y[o] = F::f(a[ia], b[ib]); });
}

template <class F, class T>
void binary_backward(const Dims& out, const Dims& da, const Dims& db, const T* a, const T* b,
                     const T* y, const T* gy, T* ga, T* gb) {
  if (ga != nullptr)
    each_mapped(out, da, db, [&](std::int64_t o, std::int64_t ia, std::int64_t ib) {
      T d0, d1;
      F::df(a[ia], b[ib], y[o], d0, d1);
      ga[ia] += gy[o] * d0;
    });
  if (gb != nullptr)
    each_mapped(out, da, db, [&](std::int64_t o, std::int64_t ia, std::int64_t ib) {
      T d0, d1;
      F::df(a[ia], b[ib], y[o], d0, d1);
      gb[ib] += gy[o] * d1;
    });
}

// The element-wise ops' dispatch, from ops.h: one instance of the loops
// per op.
#define CPPESTIMATORS_NO_CASE(...)
template <class T>
void run_unary_forward(Op op, const T* a, T* y, std::int64_t n, double alpha) {
#define CPPESTIMATORS_CASE(E, name, F, diff) \
  case Op::E:                                \
    return unary_forward<elementwise::F>(a, y, n, alpha);
  switch (op) {
    CPPESTIMATORS_GRAPH_OPS(CPPESTIMATORS_NO_CASE, CPPESTIMATORS_CASE, CPPESTIMATORS_NO_CASE)
    default:
      return;
  }
#undef CPPESTIMATORS_CASE
}

template <class T>
void run_unary_backward(Op op, const T* a, const T* y, const T* gy, T* ga, std::int64_t n,
                        double alpha) {
#define CPPESTIMATORS_CASE(E, name, F, diff) \
  case Op::E:                                \
    return unary_backward<elementwise::F>(a, y, gy, ga, n, alpha);
  switch (op) {
    CPPESTIMATORS_GRAPH_OPS(CPPESTIMATORS_NO_CASE, CPPESTIMATORS_CASE, CPPESTIMATORS_NO_CASE)
    default:
      return;
  }
#undef CPPESTIMATORS_CASE
}

template <class T>
void run_binary_forward(Op op, const Dims& out, const Dims& da, const Dims& db, const T* a,
                        const T* b, T* y, DType operand) {
#define CPPESTIMATORS_CASE(E, name, F, diff) \
  case Op::E:                                \
    return binary_forward<elementwise::F>(out, da, db, a, b, y, operand);
  switch (op) {
    CPPESTIMATORS_GRAPH_OPS(CPPESTIMATORS_NO_CASE, CPPESTIMATORS_NO_CASE, CPPESTIMATORS_CASE)
    default:
      return;
  }
#undef CPPESTIMATORS_CASE
}

template <class T>
void run_binary_backward(Op op, const Dims& out, const Dims& da, const Dims& db, const T* a,
                         const T* b, const T* y, const T* gy, T* ga, T* gb) {
#define CPPESTIMATORS_CASE(E, name, F, diff) \
  case Op::E:                                \
    return binary_backward<elementwise::F>(out, da, db, a, b, y, gy, ga, gb);
  switch (op) {
    CPPESTIMATORS_GRAPH_OPS(CPPESTIMATORS_NO_CASE, CPPESTIMATORS_NO_CASE, CPPESTIMATORS_CASE)
    default:
      return;
  }
#undef CPPESTIMATORS_CASE
}
#undef CPPESTIMATORS_NO_CASE

// Runs f(first, count) over [0, n): large element-wise ops split into one
// piece per thread (each value computed as on one thread).
template <class F>
void in_chunks(const ExecEnv& env, std::int64_t n, F f) {
  const int threads = env.threads > 1 && n >= (1 << 15) ? env.threads : 1;
  if (threads == 1) {
    f(std::int64_t(0), n);
    return;
  }
  parallel_for(threads, threads, [&](int t) {
    const std::int64_t e0 = n * t / threads, e1 = n * (t + 1) / threads;
    if (e1 > e0) f(e0, e1 - e0);
  });
}

}  // namespace

template <class T>
void Tape<T>::reserve(const Graph& g, const std::vector<char>& values,
                      const std::vector<char>& grads, int rows) {
  const std::size_t n = g.nodes.size();
  val.resize(n);
  grad.resize(n);
  mask.resize(n);
  pick.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& x = g.nodes[i];
    const std::size_t size = static_cast<std::size_t>(x.size(rows));
    if (values[i] && val[i].size() < size) val[i].resize(size);
    if (grads[i] && grad[i].size() < size) grad[i].resize(size);
    if (values[i] && x.op == Op::Dropout && mask[i].size() < size) mask[i].resize(size);
    if (values[i] && (x.op == Op::ReduceMax || x.op == Op::ReduceMin)) {
      const Dims out = reduced(
          dims_of(x.inputs.empty() ? x : g.nodes[static_cast<std::size_t>(x.inputs[0])], rows),
          x.axes);
      if (pick[i].size() < static_cast<std::size_t>(out.size()))
        pick[i].resize(static_cast<std::size_t>(out.size()));
    }
  }
  capacity = std::max(capacity, rows);
}

template <class T>
void forward_node(const Graph& g, std::size_t i, Tape<T>& t, int rows, ExecEnv& env) {
  const Node& x = g.nodes[i];
  T* y = t.val[i].data();
  const Dims out = dims_of(x, rows);
  const std::int64_t n = out.size();
  auto in = [&](std::size_t k) -> const Node& {
    return g.nodes[static_cast<std::size_t>(x.inputs[k])];
  };
  auto in_val = [&](std::size_t k) -> const T* {
    return t.val[static_cast<std::size_t>(x.inputs[k])].data();
  };
  if (is_unary(x.op)) {
    const T* a = in_val(0);
    in_chunks(env, n, [&](std::int64_t e0, std::int64_t len) {
      run_unary_forward(x.op, a + e0, y + e0, len, x.alpha);
    });
    return;
  }
  if (is_binary(x.op)) {
    run_binary_forward(x.op, out, dims_of(in(0), rows), dims_of(in(1), rows), in_val(0), in_val(1),
                       y, in(0).dtype);
    return;
  }
  switch (x.op) {
    case Op::Constant:
      for (std::int64_t e = 0; e < n; ++e)
        y[e] = static_cast<T>(x.value[static_cast<std::size_t>(e)]);
      return;
    case Op::Input:
    case Op::Labels:
    case Op::Variable:
      return;  // filled by the caller
    case Op::MatMul: {
      const Dims da = dims_of(in(0), rows), db = dims_of(in(1), rows);
      const int m = static_cast<int>(out.d[0]), nn = static_cast<int>(out.d[1]);
      const int k = static_cast<int>(x.transpose_a ? da.d[0] : da.d[1]);
      matmul(env, x.transpose_a, x.transpose_b, m, nn, k, in_val(0), static_cast<int>(da.d[1]),
             in_val(1), static_cast<int>(db.d[1]), y, nn, false);
      return;
    }
    case Op::Softmax:
    case Op::LogSoftmax: {
      const std::int64_t c = out.rank ? out.d[out.rank - 1] : 1;
      softmax_rows(in_val(0), c ? n / c : 0, c, y, x.op == Op::LogSoftmax);
      return;
    }
    case Op::ReduceSum:
    case Op::ReduceMean:
    case Op::ReduceMax:
    case Op::ReduceMin: {
      const Dims di = dims_of(in(0), rows);
      const Dims keep = reduced(di, x.axes);
      const std::int64_t m = keep.size();
      const bool extreme = x.op == Op::ReduceMax || x.op == Op::ReduceMin;
      const T init = x.op == Op::ReduceMax   ? -std::numeric_limits<T>::infinity()
                     : x.op == Op::ReduceMin ? std::numeric_limits<T>::infinity()
                                             : T(0);
      std::fill(y, y + m, init);
      std::int64_t so[kMaxRank], si[kMaxRank];
      broadcast_strides(keep, di, so);
      broadcast_strides(di, di, si);
      const T* a = in_val(0);
      each_broadcast(di, si, so, [&](std::int64_t, std::int64_t ia, std::int64_t io) {
        if (!extreme)
          y[io] += a[ia];
        else if (x.op == Op::ReduceMax ? a[ia] > y[io] : a[ia] < y[io])
          y[io] = a[ia];
      });
      if (extreme) {
        // how many values tie for each extreme: TF's gradient of reduce_max
        // and reduce_min (_MinOrMaxGrad) splits it evenly between them
        std::int64_t* ties = t.pick[i].data();
        std::fill(ties, ties + m, std::int64_t(0));
        each_broadcast(di, si, so, [&](std::int64_t, std::int64_t ia, std::int64_t io) {
          if (a[ia] == y[io]) ++ties[io];
        });
      }
      if (x.op == Op::ReduceMean) {
        const T count = m ? static_cast<T>(di.size() / m) : T(1);
        for (std::int64_t e = 0; e < m; ++e) y[e] /= count;
      }
      return;
    }
    case Op::Reshape:
    case Op::Cast: {
      const T* a = in_val(0);
      if (x.op == Op::Reshape)
        std::copy(a, a + n, y);
      else
        for (std::int64_t e = 0; e < n; ++e) y[e] = cast_to(a[e], x.dtype);
      return;
    }
    case Op::Concat: {
      const AxisSplit so = split_at(out, x.axis);
      std::int64_t at = 0;
      for (std::size_t k = 0; k < x.inputs.size(); ++k) {
        const AxisSplit s = split_at(dims_of(in(k), rows), x.axis);
        const std::int64_t chunk = s.len * s.inner;
        const T* a = in_val(k);
        for (std::int64_t o = 0; o < so.outer; ++o)
          std::copy(a + o * chunk, a + (o + 1) * chunk, y + o * so.len * so.inner + at);
        at += chunk;
      }
      return;
    }
    case Op::ArgMax:
    case Op::ArgMin: {
      const AxisSplit s = split_at(dims_of(in(0), rows), x.axis);
      const T* a = in_val(0);
      for (std::int64_t o = 0; o < s.outer; ++o)
        for (std::int64_t q = 0; q < s.inner; ++q) {
          std::int64_t best = 0;
          for (std::int64_t j = 1; j < s.len; ++j) {
            const T v = a[(o * s.len + j) * s.inner + q], b = a[(o * s.len + best) * s.inner + q];
            if (x.op == Op::ArgMax ? v > b : v < b) best = j;
          }
          y[o * s.inner + q] = static_cast<T>(best);
        }
      return;
    }
    case Op::OneHot: {
      const std::int64_t depth = static_cast<std::int64_t>(x.depth);
      const T* a = in_val(0);
      const std::int64_t m = depth ? n / depth : 0;
      std::fill(y, y + n, static_cast<T>(x.off_value));
      for (std::int64_t e = 0; e < m; ++e) {
        const T v = a[e];
        if (v >= 0 && v < static_cast<T>(depth) && v == std::trunc(v))
          y[e * depth + static_cast<std::int64_t>(v)] = static_cast<T>(x.on_value);
      }
      return;
    }
    case Op::Dropout: {
      const T* a = in_val(0);
      unsigned char* kept = t.mask[i].data();
      const double keep = 1.0 - x.rate;
      const T scale = static_cast<T>(1.0 / keep);
      for (std::int64_t e = 0; e < n; ++e) {
        kept[e] = env.rng->uniform() < keep;
        y[e] = kept[e] ? a[e] * scale : T(0);
      }
      return;
    }
    case Op::SigmoidXent: {
      const T* z = in_val(0);
      const T* l = in_val(1);
      const PointwiseLoss xent{PointwiseKind::Logistic, 0.0};
      for (std::int64_t e = 0; e < n; ++e) y[e] = static_cast<T>(xent.value(l[e], z[e]));
      return;
    }
    case Op::LogPoissonLoss: {
      const T* z = in_val(0);
      const T* c = in_val(1);
      const PointwiseLoss poisson{PointwiseKind::Poisson, 0.0};
      for (std::int64_t e = 0; e < n; ++e)
        y[e] = static_cast<T>(poisson.value(c[e], z[e]) -
                              (x.full_loss ? 0.0 : PointwiseLoss::stirling(z[e])));
      return;
    }
    case Op::SoftmaxXent: {
      const Dims dl = dims_of(in(1), rows);
      const std::int64_t c = dl.d[dl.rank - 1];
      const T* z = in_val(0);
      const T* l = in_val(1);
      for (std::int64_t r = 0; r < n; ++r) {
        const T lse = log_sum_exp(l + r * c, c);
        T s = 0;
        for (std::int64_t j = 0; j < c; ++j) s += z[r * c + j] * (lse - l[r * c + j]);
        y[r] = s;
      }
      return;
    }
    case Op::SparseSoftmaxXent: {
      const Dims dl = dims_of(in(1), rows);
      const std::int64_t c = dl.d[dl.rank - 1];
      const T* z = in_val(0);
      const T* l = in_val(1);
      for (std::int64_t r = 0; r < n; ++r) {
        const T label = z[r];
        if (!(label >= 0 && label < static_cast<T>(c)) || label != std::trunc(label))
          throw std::invalid_argument("Received a label value of " +
                                      std::to_string(static_cast<long long>(label)) +
                                      " which is outside the valid range of [0, " +
                                      std::to_string(static_cast<long long>(c)) + ")");
        y[r] = log_sum_exp(l + r * c, c) - l[r * c + static_cast<std::int64_t>(label)];
      }
      return;
    }
    default:
      throw std::invalid_argument(std::string("internal: no forward for ") + op_name(x.op));
  }
}

template <class T>
void backward_node(const Graph& g, std::size_t i, Tape<T>& t, int rows,
                   const std::vector<char>& into, const ExecEnv& env) {
  const Node& x = g.nodes[i];
  if (!differentiable(x.op)) return;
  const T* gy = t.grad[i].data();
  const T* y = t.val[i].data();
  const Dims out = dims_of(x, rows);
  const std::int64_t n = out.size();
  auto idx = [&](std::size_t k) { return static_cast<std::size_t>(x.inputs[k]); };
  auto in = [&](std::size_t k) -> const Node& { return g.nodes[idx(k)]; };
  auto wants = [&](std::size_t k) { return into[idx(k)] != 0; };
  auto in_val = [&](std::size_t k) -> const T* { return t.val[idx(k)].data(); };
  auto in_grad = [&](std::size_t k) -> T* { return t.grad[idx(k)].data(); };
  if (is_unary(x.op)) {
    if (!wants(0)) return;
    const T* a = in_val(0);
    T* ga = in_grad(0);
    in_chunks(env, n, [&](std::int64_t e0, std::int64_t len) {
      run_unary_backward(x.op, a + e0, y + e0, gy + e0, ga + e0, len, x.alpha);
    });
    return;
  }
  if (is_binary(x.op)) {
    run_binary_backward(x.op, out, dims_of(in(0), rows), dims_of(in(1), rows), in_val(0), in_val(1),
                        y, gy, wants(0) ? in_grad(0) : nullptr, wants(1) ? in_grad(1) : nullptr);
    return;
  }
  switch (x.op) {
    case Op::MatMul: {
      // C = op(A) op(B): dA = dC op(B)^T (transposed back), dB likewise
      const Dims da = dims_of(in(0), rows), db = dims_of(in(1), rows);
      const int m = static_cast<int>(out.d[0]), nn = static_cast<int>(out.d[1]);
      const int k = static_cast<int>(x.transpose_a ? da.d[0] : da.d[1]);
      const int lda = static_cast<int>(da.d[1]), ldb = static_cast<int>(db.d[1]);
      if (wants(0)) {
        if (!x.transpose_a)  // dA (m x k) = dC (m x n) op(B)^T
          matmul(env, false, !x.transpose_b, m, k, nn, gy, nn, in_val(1), ldb, in_grad(0), lda,
                 true);
        else  // A is k x m: dA = op(B) dC^T
          matmul(env, x.transpose_b, true, k, m, nn, in_val(1), ldb, gy, nn, in_grad(0), lda, true);
      }
      if (wants(1)) {
        if (!x.transpose_b)  // dB (k x n) = op(A)^T dC
          matmul(env, !x.transpose_a, false, k, nn, m, in_val(0), lda, gy, nn, in_grad(1), ldb,
                 true);
        else  // B is n x k: dB = dC^T op(A)
          matmul(env, true, x.transpose_a, nn, k, m, gy, nn, in_val(0), lda, in_grad(1), ldb, true);
      }
      return;
    }
    case Op::Softmax:
    case Op::LogSoftmax: {
      if (!wants(0)) return;
      const std::int64_t c = out.rank ? out.d[out.rank - 1] : 1;
      T* ga = in_grad(0);
      for (std::int64_t r = 0; c && r < n / c; ++r) {
        const T* yr = y + r * c;
        const T* gr = gy + r * c;
        T* dr = ga + r * c;
        if (x.op == Op::Softmax) {
          T dot = 0;
          for (std::int64_t j = 0; j < c; ++j) dot += gr[j] * yr[j];
          for (std::int64_t j = 0; j < c; ++j) dr[j] += yr[j] * (gr[j] - dot);
        } else {
          T sum = 0;
          for (std::int64_t j = 0; j < c; ++j) sum += gr[j];
          for (std::int64_t j = 0; j < c; ++j) dr[j] += gr[j] - std::exp(yr[j]) * sum;
        }
      }
      return;
    }
    case Op::ReduceSum:
    case Op::ReduceMean: {
      if (!wants(0)) return;
      const Dims di = dims_of(in(0), rows);
      const Dims keep = reduced(di, x.axes);
      const std::int64_t m = keep.size();
      const T scale = x.op == Op::ReduceMean && m ? T(1) / static_cast<T>(di.size() / m) : T(1);
      std::int64_t so[kMaxRank], si[kMaxRank];
      broadcast_strides(keep, di, so);
      broadcast_strides(di, di, si);
      T* ga = in_grad(0);
      each_broadcast(di, si, so, [&](std::int64_t, std::int64_t ia, std::int64_t io) {
        ga[ia] += gy[io] * scale;
      });
      return;
    }
    case Op::ReduceMax:
    case Op::ReduceMin: {
      if (!wants(0)) return;
      // every value equal to its extreme gets an even share (as TF's
      // _MinOrMaxGrad: indicators / number selected), not only the first
      const Dims di = dims_of(in(0), rows);
      const Dims keep = reduced(di, x.axes);
      std::int64_t so[kMaxRank], si[kMaxRank];
      broadcast_strides(keep, di, so);
      broadcast_strides(di, di, si);
      const T* a = in_val(0);
      const std::int64_t* ties = t.pick[i].data();
      T* ga = in_grad(0);
      each_broadcast(di, si, so, [&](std::int64_t, std::int64_t ia, std::int64_t io) {
        if (a[ia] == y[io]) ga[ia] += gy[io] / static_cast<T>(ties[io]);
      });
      return;
    }
    case Op::Reshape:
    case Op::Identity:
    case Op::Cast: {
      if (!wants(0) || !is_float(in(0).dtype)) return;
      T* ga = in_grad(0);
      for (std::int64_t e = 0; e < n; ++e) ga[e] += gy[e];
      return;
    }
    case Op::Concat: {
      const AxisSplit so = split_at(out, x.axis);
      std::int64_t at = 0;
      for (std::size_t k = 0; k < x.inputs.size(); ++k) {
        const AxisSplit s = split_at(dims_of(in(k), rows), x.axis);
        const std::int64_t chunk = s.len * s.inner;
        if (wants(k)) {
          T* ga = in_grad(k);
          for (std::int64_t o = 0; o < so.outer; ++o)
            for (std::int64_t e = 0; e < chunk; ++e)
              ga[o * chunk + e] += gy[o * so.len * so.inner + at + e];
        }
        at += chunk;
      }
      return;
    }
    case Op::Dropout: {
      if (!wants(0)) return;
      const unsigned char* kept = t.mask[i].data();
      const T scale = static_cast<T>(1.0 / (1.0 - x.rate));
      T* ga = in_grad(0);
      for (std::int64_t e = 0; e < n; ++e)
        if (kept[e]) ga[e] += gy[e] * scale;
      return;
    }
    case Op::SigmoidXent: {
      const T* z = in_val(0);
      const T* l = in_val(1);
      const PointwiseLoss xent{PointwiseKind::Logistic, 0.0};
      double g, h;
      for (std::int64_t e = 0; e < n; ++e) {
        if (wants(0)) in_grad(0)[e] += -gy[e] * l[e];
        if (!wants(1)) continue;
        xent.derivatives(l[e], z[e], g, h);
        in_grad(1)[e] += gy[e] * static_cast<T>(g);
      }
      return;
    }
    case Op::LogPoissonLoss: {
      const T* z = in_val(0);
      const T* c = in_val(1);
      const PointwiseLoss poisson{PointwiseKind::Poisson, 0.0};
      double g, h;
      for (std::int64_t e = 0; e < n; ++e) {
        if (wants(0))
          in_grad(0)[e] +=
              gy[e] *
              static_cast<T>(-c[e] + (x.full_loss ? PointwiseLoss::stirling_grad(z[e]) : 0.0));
        if (!wants(1)) continue;
        poisson.derivatives(c[e], z[e], g, h);
        in_grad(1)[e] += gy[e] * static_cast<T>(g);
      }
      return;
    }
    case Op::SoftmaxXent: {
      const Dims dl = dims_of(in(1), rows);
      const std::int64_t c = dl.d[dl.rank - 1];
      const T* z = in_val(0);
      const T* l = in_val(1);
      for (std::int64_t r = 0; r < n; ++r) {
        const T lse = log_sum_exp(l + r * c, c);
        T zsum = 0;
        for (std::int64_t j = 0; j < c; ++j) zsum += z[r * c + j];
        for (std::int64_t j = 0; j < c; ++j) {
          const T ls = l[r * c + j] - lse;  // log softmax
          if (wants(0)) in_grad(0)[r * c + j] += -gy[r] * ls;
          if (wants(1)) in_grad(1)[r * c + j] += gy[r] * (std::exp(ls) * zsum - z[r * c + j]);
        }
      }
      return;
    }
    case Op::SparseSoftmaxXent: {
      if (!wants(1)) return;
      const Dims dl = dims_of(in(1), rows);
      const std::int64_t c = dl.d[dl.rank - 1];
      const T* z = in_val(0);
      const T* l = in_val(1);
      T* gl = in_grad(1);
      for (std::int64_t r = 0; r < n; ++r) {
        const T lse = log_sum_exp(l + r * c, c);
        const std::int64_t label = static_cast<std::int64_t>(z[r]);
        for (std::int64_t j = 0; j < c; ++j)
          gl[r * c + j] += gy[r] * (std::exp(l[r * c + j] - lse) - (j == label ? T(1) : T(0)));
      }
      return;
    }
    default:
      return;
  }
}

template struct Tape<float>;
template struct Tape<double>;
template void forward_node<float>(const Graph&, std::size_t, Tape<float>&, int, ExecEnv&);
template void forward_node<double>(const Graph&, std::size_t, Tape<double>&, int, ExecEnv&);
template void backward_node<float>(const Graph&, std::size_t, Tape<float>&, int,
                                   const std::vector<char>&, const ExecEnv&);
template void backward_node<double>(const Graph&, std::size_t, Tape<double>&, int,
                                    const std::vector<char>&, const ExecEnv&);

}  // namespace graph
}  // namespace cppestimators
