// The logistic loss, its gradient and its hessian for a block of logits,
// four at a time (GCC/Clang vector types, plain SSE2 on x86-64), with exp
// and log1p written out in arithmetic: the C library's scalar calls made
// the loss the costliest part of a boosted-trees step. Accurate to a few
// units in the last place of a float; a scalar loop elsewhere.
#pragma once
#include <cmath>
#include <cstdint>

namespace cppestimators {
namespace fast {

#if defined(__GNUC__) || defined(__clang__)
#define CPPESTIMATORS_VECTOR_TYPES 1
typedef float f4 __attribute__((vector_size(16)));
typedef std::int32_t i4 __attribute__((vector_size(16)));
// The lane functions below are always inlined, and take and give their
// lanes by reference: a caller built for wider lanes (logistic_step.cpp's
// eight-lane AVX2 kernel) runs them with its own instructions, and no
// function passes eight lanes by value (which GCC warns changes the calling
// convention of code built without AVX).
#define CPPESTIMATORS_LANES __attribute__((always_inline)) inline
#else
#define CPPESTIMATORS_LANES inline
#endif

// 2^k e^r with x = k ln 2 + r, |r| <= ln(2) / 2, k rounded to nearest by
// adding and subtracting 1.5 * 2^23 and kept in [-126, 127] (a normal
// float's exponent), and e^r by its Taylor series to r^7/7! (truncation
// error below 6e-9 relative): e^x for -87 <= x <= 88.37. T is float or a
// vector of floats (f4, or eight lanes where the caller is built for them).
template <class T, class I>
CPPESTIMATORS_LANES void exp_scaled(const T& x, T& out) {
  const T shifter = T{} + 12582912.0f;
  T k = (x * 1.44269504088896341f + shifter) - shifter;
  k = k < -126.0f ? T{} - 126.0f : k;
  k = k > 127.0f ? T{} + 127.0f : k;
  const T r = (x - k * 0.693359375f) - k * -2.12194440e-4f;  // ln 2 in two parts
  T p = T{} + 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  I bits;  // 2^k in the exponent bits
  if constexpr (sizeof(T) == sizeof(float))
    bits = (static_cast<I>(k) + 127) << 23;
  else
    bits = (__builtin_convertvector(k, I) + 127) << 23;
  T scale;
  __builtin_memcpy(&scale, &bits, sizeof scale);
  out = p * scale;
}

// e^x for x <= 0 (0 below x = -87, where e^x is under 1.7e-38).
template <class T, class I>
CPPESTIMATORS_LANES void exp_nonpositive(const T& x, T& out) {
  T e;
  exp_scaled<T, I>(x, e);
  out = x < -87.0f ? T{} : e;
}

// e^x for any x: +inf above x = 88.72 (where e^x passes the largest
// float), 0 below -87 (between 88.37 and 88.72, within 2e-6 relative).
template <class T, class I>
CPPESTIMATORS_LANES void exp_any(const T& x, T& out) {
  T e;
  exp_scaled<T, I>(x, e);
  const T inf = T{} + __builtin_inff();
  out = x < -87.0f ? T{} : (x > 88.72f ? inf : e);
}

// TensorFlow's closed-form gradient and hessian of the logistic loss, as
// its boosted trees take them, in lanes of T (float or f4): p = 1 / (e^-x
// + 1), g = (p - y) inv and h = p (1 - p). (The one formula of
// logistic_closed_form() and of logistic_step.h's kernels.)
template <class T, class I>
CPPESTIMATORS_LANES void logistic_grad_hess(const T& x, const T& y, float inv, T& g, T& h) {
  T e;
  exp_any<T, I>(T{} - x, e);
  const T p = 1.0f / (e + 1.0f);
  g = (p - y) * inv;
  h = p * (1.0f - p);
}

// logistic_grad_hess() of n examples, each times the example's weight w[i]
// when w is not null.
inline void logistic_closed_form(const float* x, const float* y, const float* w, int n, float inv,
                                 float* g, float* h) {
  int i = 0;
#ifdef CPPESTIMATORS_VECTOR_TYPES
  for (; i + 4 <= n; i += 4) {
    f4 xv, yv, gv, hv;
    __builtin_memcpy(&xv, x + i, sizeof xv);
    __builtin_memcpy(&yv, y + i, sizeof yv);
    logistic_grad_hess<f4, i4>(xv, yv, inv, gv, hv);
    if (w != nullptr) {
      f4 wv;
      __builtin_memcpy(&wv, w + i, sizeof wv);
      gv = wv * gv;
      hv = wv * hv;
    }
    __builtin_memcpy(g + i, &gv, sizeof gv);
    __builtin_memcpy(h + i, &hv, sizeof hv);
  }
#endif
  for (; i < n; ++i) {
    float gi, hi;
    logistic_grad_hess<float, std::int32_t>(x[i], y[i], inv, gi, hi);
    const float wi = w != nullptr ? w[i] : 1.0f;
    g[i] = w != nullptr ? wi * gi : gi;
    h[i] = w != nullptr ? wi * hi : hi;
  }
}

// log(1 + e) for 0 <= e <= 1, as 2 atanh(s) with s = e / (2 + e) <= 1/3:
// 2 s (1 + s^2/3 + ... + s^12/13), truncation error below 2e-8.
template <class T>
CPPESTIMATORS_LANES void log1p_unit(const T& e, T& out) {
  const T s = e / (e + 2.0f);
  const T z = s * s;
  T p = T{} + 1.0f / 13.0f;
  p = p * z + 1.0f / 11.0f;
  p = p * z + 1.0f / 9.0f;
  p = p * z + 1.0f / 7.0f;
  p = p * z + 1.0f / 5.0f;
  p = p * z + 1.0f / 3.0f;
  p = p * z + 1.0f;
  out = 2.0f * s * p;
}

// One lane or four: the loss max(x, 0) - x y + log(1 + e^-|x|), the
// gradient sigmoid(x) - y and the hessian p (1 - p).
template <class T, class I>
CPPESTIMATORS_LANES void logistic_lanes(const T& x, const T& y, T& pe, T& dl, T& h) {
  const T ax = x < 0.0f ? -x : x;
  T e;
  exp_nonpositive<T, I>(T{} - ax, e);
  const T inv = 1.0f / (e + 1.0f);
  const T small = e * inv;  // sigmoid(-|x|)
  T log1p_e;
  log1p_unit(e, log1p_e);
  pe = (x > 0.0f ? x : T{}) - x * y + log1p_e;
  dl = (x >= 0.0f ? inv : small) - y;
  h = small * inv;
}

// Per example i < n: the loss into pe, the gradient into dl and the hessian
// into hess (pe, dl and hess may each be null). Returns the summed loss.
inline double logistic_loss(const float* x, const float* y, int n, float* pe, float* dl,
                            float* hess) {
  double total = 0.0;
  int i = 0;
#ifdef CPPESTIMATORS_VECTOR_TYPES
  double part[4] = {0.0, 0.0, 0.0, 0.0};
  for (; i + 4 <= n; i += 4) {
    f4 xv, yv, l, g, h;
    __builtin_memcpy(&xv, x + i, sizeof xv);
    __builtin_memcpy(&yv, y + i, sizeof yv);
    logistic_lanes<f4, i4>(xv, yv, l, g, h);
    if (pe != nullptr) __builtin_memcpy(pe + i, &l, sizeof l);
    if (dl != nullptr) __builtin_memcpy(dl + i, &g, sizeof g);
    if (hess != nullptr) __builtin_memcpy(hess + i, &h, sizeof h);
    for (int k = 0; k < 4; ++k) part[k] += l[k];
  }
  total = (part[0] + part[1]) + (part[2] + part[3]);
#endif
  for (; i < n; ++i) {
    float l, g, h;
    logistic_lanes<float, std::int32_t>(x[i], y[i], l, g, h);
    if (pe != nullptr) pe[i] = l;
    if (dl != nullptr) dl[i] = g;
    if (hess != nullptr) hess[i] = h;
    total += l;
  }
  return total;
}

// The hessian p (1 - p) alone.
inline void logistic_hessian(const float* x, int n, float* hess) {
  int i = 0;
#ifdef CPPESTIMATORS_VECTOR_TYPES
  for (; i + 4 <= n; i += 4) {
    f4 xv, l, g, h;
    __builtin_memcpy(&xv, x + i, sizeof xv);
    logistic_lanes<f4, i4>(xv, f4{}, l, g, h);
    __builtin_memcpy(hess + i, &h, sizeof h);
  }
#endif
  for (; i < n; ++i) {
    float l, g;
    logistic_lanes<float, std::int32_t>(x[i], 0.0f, l, g, hess[i]);
  }
}

}  // namespace fast
}  // namespace cppestimators
