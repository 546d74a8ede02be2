// The definitions of gemm.h (cppestimators/math/gemm.h), private to the
// engine: gemm.cpp, the one translation unit that includes this header, is
// that one line; the kernels' helpers have internal linkage there.
#pragma once
#define CPPESTIMATORS_GEMM_IMPL 1
#include <algorithm>
#include <cstddef>

#include <cppestimators/math/gemm.h>
#include "gemm_avx2.h"
#include "gemm_avx512.h"
#include "gemm_blocked.h"
#include "gemm_portable.h"

namespace cppestimators {
namespace gemm {

bool available(Kernel kernel) {
  switch (kernel) {
    case Kernel::Portable:
      return true;
#ifdef CPPESTIMATORS_X86_KERNELS
    case Kernel::Avx2:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Kernel::Avx512:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f");
#endif
    default:
      return false;
  }
}

Kernel best_available() {
  if (available(Kernel::Avx512)) return Kernel::Avx512;
  if (available(Kernel::Avx2)) return Kernel::Avx2;
  return Kernel::Portable;
}

const char* name(Kernel kernel) {
  switch (kernel) {
    case Kernel::Avx512:
      return "avx512";
    case Kernel::Avx2:
      return "avx2";
    default:
      return "portable";
  }
}

void multiply(Kernel kernel, bool trans_a, bool trans_b, int m, int n, int k, const float* a,
              int lda, const float* b, int ldb, float* c, int ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (int i = 0; i < m; ++i)
        std::fill(c + static_cast<std::size_t>(i) * ldc, c + static_cast<std::size_t>(i) * ldc + n,
                  0.0f);
    return;
  }
  switch (kernel) {
#ifdef CPPESTIMATORS_X86_KERNELS
    case Kernel::Avx512:
      multiply_avx512(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
      return;
    case Kernel::Avx2:
      multiply_avx2(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
      return;
#endif
    default:
      multiply_portable(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  }
}

}  // namespace gemm
}  // namespace cppestimators

#undef CPPESTIMATORS_TILE_ROW
