#include <cppestimators/math/logistic_step.h>

#include <cstdint>

#include <cppestimators/math/fast_math.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define CPPESTIMATORS_LOGISTIC_AVX2 1
#include <immintrin.h>
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

// Four lanes: fast_math.h's vector code.
double logistic_step_narrow(const float* x, const float* y, const float* w, int n, float inv,
                            float* pe, float* g, float* h) {
  int i = 0;
  double total = 0.0;
#ifdef CPPESTIMATORS_VECTOR_TYPES
  double part[4] = {0.0, 0.0, 0.0, 0.0};  // (four sums: no chain of additions)
  for (; i + 4 <= n; i += 4) {
    f4 xv, yv, l, dl, hl, gv, hv;
    __builtin_memcpy(&xv, x + i, sizeof xv);
    __builtin_memcpy(&yv, y + i, sizeof yv);
    logistic_lanes<f4, i4>(xv, yv, l, dl, hl);
    logistic_grad_hess<f4, i4>(xv, yv, inv, gv, hv);
    if (w != nullptr) {
      f4 wv;
      __builtin_memcpy(&wv, w + i, sizeof wv);
      gv = wv * gv;
      hv = wv * hv;
      for (int k = 0; k < 4; ++k) part[k] += static_cast<double>(wv[k]) * l[k];
    } else {
      for (int k = 0; k < 4; ++k) part[k] += l[k];
    }
    __builtin_memcpy(pe + i, &l, sizeof l);
    __builtin_memcpy(g + i, &gv, sizeof gv);
    __builtin_memcpy(h + i, &hv, sizeof hv);
  }
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
// fast_math.h's exp_scaled(), in eight lanes: the same operations in order.
__attribute__((target("avx2"))) inline __m256 exp_scaled8(__m256 x) {
  const __m256 shifter = _mm256_set1_ps(12582912.0f);
  __m256 k = _mm256_sub_ps(
      _mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), shifter), shifter);
  const __m256 lo = _mm256_set1_ps(-126.0f), hi = _mm256_set1_ps(127.0f);
  k = _mm256_blendv_ps(k, lo, _mm256_cmp_ps(k, lo, _CMP_LT_OQ));
  k = _mm256_blendv_ps(k, hi, _mm256_cmp_ps(k, hi, _CMP_GT_OQ));
  const __m256 r = _mm256_sub_ps(_mm256_sub_ps(x, _mm256_mul_ps(k, _mm256_set1_ps(0.693359375f))),
                                 _mm256_mul_ps(k, _mm256_set1_ps(-2.12194440e-4f)));
  __m256 p = _mm256_set1_ps(1.0f / 5040.0f);
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.0f / 720.0f));
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.0f / 120.0f));
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.0f / 24.0f));
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.0f / 6.0f));
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(0.5f));
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.0f));
  p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.0f));
  const __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(k), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

// fast_math.h's log1p_unit(), in eight lanes.
__attribute__((target("avx2"))) inline __m256 log1p_unit8(__m256 e) {
  const __m256 s = _mm256_div_ps(e, _mm256_add_ps(e, _mm256_set1_ps(2.0f)));
  const __m256 z = _mm256_mul_ps(s, s);
  __m256 p = _mm256_set1_ps(1.0f / 13.0f);
  p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(1.0f / 11.0f));
  p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(1.0f / 9.0f));
  p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(1.0f / 7.0f));
  p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(1.0f / 5.0f));
  p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(1.0f / 3.0f));
  p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(1.0f));
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(2.0f), s), p);
}

// a < b ? x : y, lane by lane
#define CPPESTIMATORS_SELECT_LT(a, b, x, y) \
  _mm256_blendv_ps((y), (x), _mm256_cmp_ps((a), (b), _CMP_LT_OQ))

__attribute__((target("avx2"))) double logistic_step_wide(const float* x, const float* y,
                                                          const float* w, int n, float inv,
                                                          float* pe, float* g, float* h) {
  int i = 0;
  double total = 0.0;
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
  const __m256 inv8 = _mm256_set1_ps(inv);
  __m256d sum_lo = _mm256_setzero_pd(), sum_hi = _mm256_setzero_pd();
  for (; i + 8 <= n; i += 8) {
    const __m256 xv = _mm256_loadu_ps(x + i), yv = _mm256_loadu_ps(y + i);
    const __m256 neg = _mm256_sub_ps(zero, xv);
    // the loss: max(x, 0) - x y + log(1 + e^-|x|) (logistic_lanes())
    const __m256 ax = CPPESTIMATORS_SELECT_LT(xv, zero, neg, xv);
    const __m256 nax = _mm256_sub_ps(zero, ax);
    const __m256 e = CPPESTIMATORS_SELECT_LT(nax, _mm256_set1_ps(-87.0f), zero, exp_scaled8(nax));
    const __m256 pos = _mm256_blendv_ps(zero, xv, _mm256_cmp_ps(xv, zero, _CMP_GT_OQ));
    const __m256 l = _mm256_add_ps(_mm256_sub_ps(pos, _mm256_mul_ps(xv, yv)), log1p_unit8(e));
    // TF's p = 1 / (e^-x + 1) (exp_any())
    const __m256 en = exp_scaled8(neg);
    const __m256 big = _mm256_blendv_ps(en, _mm256_set1_ps(__builtin_inff()),
                                        _mm256_cmp_ps(neg, _mm256_set1_ps(88.72f), _CMP_GT_OQ));
    const __m256 ex = CPPESTIMATORS_SELECT_LT(neg, _mm256_set1_ps(-87.0f), zero, big);
    const __m256 p = _mm256_div_ps(one, _mm256_add_ps(ex, one));
    __m256 gv = _mm256_mul_ps(_mm256_sub_ps(p, yv), inv8);
    __m256 hv = _mm256_mul_ps(p, _mm256_sub_ps(one, p));
    // the losses summed in double, four lanes to each of two sums (a
    // product of two floats is exact in double)
    __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(l)),
            hi = _mm256_cvtps_pd(_mm256_extractf128_ps(l, 1));
    if (w != nullptr) {
      const __m256 wv = _mm256_loadu_ps(w + i);
      gv = _mm256_mul_ps(wv, gv);
      hv = _mm256_mul_ps(wv, hv);
      lo = _mm256_mul_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(wv)));
      hi = _mm256_mul_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(wv, 1)));
    }
    sum_lo = _mm256_add_pd(sum_lo, lo);
    sum_hi = _mm256_add_pd(sum_hi, hi);
    _mm256_storeu_ps(pe + i, l);
    _mm256_storeu_ps(g + i, gv);
    _mm256_storeu_ps(h + i, hv);
  }
  alignas(32) double parts[8];
  _mm256_store_pd(parts, sum_lo);
  _mm256_store_pd(parts + 4, sum_hi);
  for (double part : parts) total += part;
  return total + logistic_step_narrow(x + i, y + i, w != nullptr ? w + i : nullptr, n - i, inv,
                                      pe + i, g + i, h + i);
}
#undef CPPESTIMATORS_SELECT_LT
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
