#include <cppestimators/math/logistic_step.h>

#include <cstdint>

#include <cppestimators/math/fast_math.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define CPPESTIMATORS_LOGISTIC_AVX2 1
#endif

namespace cppestimators {
namespace fast {
namespace {

// One example: the loss (returned), the gradient and the hessian, each
// formula as in fast_math.h.
inline float logistic_one(float x, float y, float inv, float& g, float& h) {
  float l, dl, hl;
  logistic_lanes<float, std::int32_t>(x, y, l, dl, hl);
  logistic_grad_hess<float, std::int32_t>(x, y, inv, g, h);
  return l;
}

#ifdef CPPESTIMATORS_VECTOR_TYPES
// The blocks of L lanes (V: L floats, IV: L 32-bit integers) of the first
// n examples, by fast_math.h's lane functions; lane k's losses (times the
// weights) summed into part[k]. Returns the examples done (a multiple of
// L). Inlined into each kernel, so it runs with the kernel's instructions.
template <class V, class IV, int L>
CPPESTIMATORS_LANES int logistic_blocks(const float* x, const float* y, const float* w, int n,
                                        float inv, float* pe, float* g, float* h, double* part) {
  int i = 0;
  for (; i + L <= n; i += L) {
    V xv, yv, l, dl, hl, gv, hv;
    __builtin_memcpy(&xv, x + i, sizeof xv);
    __builtin_memcpy(&yv, y + i, sizeof yv);
    logistic_lanes<V, IV>(xv, yv, l, dl, hl);
    logistic_grad_hess<V, IV>(xv, yv, inv, gv, hv);
    if (w != nullptr) {
      V wv;
      __builtin_memcpy(&wv, w + i, sizeof wv);
      gv = wv * gv;
      hv = wv * hv;
      // (a product of two floats is exact in double)
      for (int k = 0; k < L; ++k) part[k] += static_cast<double>(wv[k]) * l[k];
    } else {
      for (int k = 0; k < L; ++k) part[k] += l[k];
    }
    __builtin_memcpy(pe + i, &l, sizeof l);
    __builtin_memcpy(g + i, &gv, sizeof gv);
    __builtin_memcpy(h + i, &hv, sizeof hv);
  }
  return i;
}
#endif

// Four lanes (the default target's vectors), then one example at a time.
double logistic_step_narrow(const float* x, const float* y, const float* w, int n, float inv,
                            float* pe, float* g, float* h) {
  int i = 0;
  double total = 0.0;
#ifdef CPPESTIMATORS_VECTOR_TYPES
  double part[4] = {0.0, 0.0, 0.0, 0.0};  // (four sums: no chain of additions)
  i = logistic_blocks<f4, i4, 4>(x, y, w, n, inv, pe, g, h, part);
  total = (part[0] + part[1]) + (part[2] + part[3]);
#endif
  for (; i < n; ++i) {
    float gi, hi;
    pe[i] = logistic_one(x[i], y[i], inv, gi, hi);
    const float wi = w != nullptr ? w[i] : 1.0f;
    g[i] = w != nullptr ? wi * gi : gi;
    h[i] = w != nullptr ? wi * hi : hi;
    total += w != nullptr ? static_cast<double>(wi) * pe[i] : pe[i];
  }
  return total;
}

#ifdef CPPESTIMATORS_LOGISTIC_AVX2
typedef float f8 __attribute__((vector_size(32)));
typedef std::int32_t i8 __attribute__((vector_size(32)));

// Eight lanes: the same lane functions, built for AVX2 (no fused
// multiply-adds: the target adds no FMA), then the rest four lanes at a time.
__attribute__((target("avx2"))) double logistic_step_wide(const float* x, const float* y,
                                                          const float* w, int n, float inv,
                                                          float* pe, float* g, float* h) {
  double part[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  const int i = logistic_blocks<f8, i8, 8>(x, y, w, n, inv, pe, g, h, part);
  double total = 0.0;
  for (double p : part) total += p;
  return total + logistic_step_narrow(x + i, y + i, w != nullptr ? w + i : nullptr, n - i, inv,
                                      pe + i, g + i, h + i);
}
#endif

}  // namespace

bool logistic_step_wide_available() {
#ifdef CPPESTIMATORS_LOGISTIC_AVX2
  static const bool avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return avx2;
#else
  return false;
#endif
}

double logistic_step(bool wide, const float* x, const float* y, const float* w, int n, float inv,
                     float* pe, float* g, float* h) {
#ifdef CPPESTIMATORS_LOGISTIC_AVX2
  if (wide && logistic_step_wide_available()) return logistic_step_wide(x, y, w, n, inv, pe, g, h);
#endif
  return logistic_step_narrow(x, y, w, n, inv, pe, g, h);
}

}  // namespace fast
}  // namespace cppestimators
