// The AVX2 + FMA micro-kernel (part of gemm_impl.h): a 6 x 16 tile of C in
// 12 of the 16 ymm registers.
#pragma once
#include "gemm_blocked.h"
#include "gemm_x86.h"

#ifdef CPPESTIMATORS_X86_KERNELS
namespace cppestimators {
namespace gemm {
namespace {

constexpr int kAvx2Rows = 6, kAvx2Cols = 16;

template <bool Rows>
__attribute__((target("avx2,fma"))) void micro_avx2(int kc, PanelA a, PanelB b, float* c, int ldc,
                                                    int mr, int nr, bool add) {
  __m256 acc[kAvx2Rows][2];
  for (int i = 0; i < kAvx2Rows; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  const float* bp = b.b;
  for (std::ptrdiff_t p = 0; p < kc; ++p, bp += b.depth) {
    const __m256 b0 = _mm256_loadu_ps(bp), b1 = _mm256_loadu_ps(bp + 8);
    __m256 x;
    CPPESTIMATORS_TILE_ROW(_mm256_set1_ps, _mm256_fmadd_ps, 0)
    CPPESTIMATORS_TILE_ROW(_mm256_set1_ps, _mm256_fmadd_ps, 1)
    CPPESTIMATORS_TILE_ROW(_mm256_set1_ps, _mm256_fmadd_ps, 2)
    CPPESTIMATORS_TILE_ROW(_mm256_set1_ps, _mm256_fmadd_ps, 3)
    CPPESTIMATORS_TILE_ROW(_mm256_set1_ps, _mm256_fmadd_ps, 4)
    CPPESTIMATORS_TILE_ROW(_mm256_set1_ps, _mm256_fmadd_ps, 5)
  }
  if (mr == kAvx2Rows && nr == kAvx2Cols) {
    for (int i = 0; i < kAvx2Rows; ++i) {
      float* out = c + static_cast<std::size_t>(i) * ldc;
      __m256 r0 = acc[i][0], r1 = acc[i][1];
      if (add) {
        r0 = _mm256_add_ps(r0, _mm256_loadu_ps(out));
        r1 = _mm256_add_ps(r1, _mm256_loadu_ps(out + 8));
      }
      _mm256_storeu_ps(out, r0);
      _mm256_storeu_ps(out + 8, r1);
    }
    return;
  }
  alignas(32) float tile[kAvx2Rows * kAvx2Cols];
  for (int i = 0; i < kAvx2Rows; ++i) {
    _mm256_store_ps(tile + i * kAvx2Cols, acc[i][0]);
    _mm256_store_ps(tile + i * kAvx2Cols + 8, acc[i][1]);
  }
  store_partial<kAvx2Cols>(tile, c, ldc, mr, nr, add);
}

void multiply_avx2(bool ta, bool tb, int m, int n, int k, const float* a, int lda, const float* b,
                   int ldb, float* c, int ldc, bool accumulate) {
  blocked<kAvx2Rows, kAvx2Cols>({micro_avx2<true>, micro_avx2<false>}, ta, tb, m, n, k, a, lda, b,
                                ldb, c, ldc, accumulate);
}

}  // namespace
}  // namespace gemm
}  // namespace cppestimators
#endif
