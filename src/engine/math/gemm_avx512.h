// The AVX-512 micro-kernel (part of gemm_impl.h): a 12 x 32 tile of C in 24
// of the 32 zmm registers.
#pragma once
#include "gemm_blocked.h"
#include "gemm_x86.h"

#ifdef CPPESTIMATORS_X86_KERNELS
namespace cppestimators {
namespace gemm {
namespace {

constexpr int kAvx512Rows = 12, kAvx512Cols = 32;

template <bool Rows>
__attribute__((target("avx512f"))) void micro_avx512(int kc, PanelA a, PanelB b, float* c, int ldc,
                                                     int mr, int nr, bool add) {
  __m512 acc[kAvx512Rows][2];
  for (int i = 0; i < kAvx512Rows; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  const float* bp = b.b;
  for (std::ptrdiff_t p = 0; p < kc; ++p, bp += b.depth) {
    const __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16);
    __m512 x;
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 0)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 1)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 2)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 3)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 4)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 5)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 6)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 7)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 8)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 9)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 10)
    CPPESTIMATORS_TILE_ROW(_mm512_set1_ps, _mm512_fmadd_ps, 11)
  }
  if (mr == kAvx512Rows && nr == kAvx512Cols) {
    for (int i = 0; i < kAvx512Rows; ++i) {
      float* out = c + static_cast<std::size_t>(i) * ldc;
      __m512 r0 = acc[i][0], r1 = acc[i][1];
      if (add) {
        r0 = _mm512_add_ps(r0, _mm512_loadu_ps(out));
        r1 = _mm512_add_ps(r1, _mm512_loadu_ps(out + 16));
      }
      _mm512_storeu_ps(out, r0);
      _mm512_storeu_ps(out + 16, r1);
    }
    return;
  }
  alignas(64) float tile[kAvx512Rows * kAvx512Cols];
  for (int i = 0; i < kAvx512Rows; ++i) {
    _mm512_store_ps(tile + i * kAvx512Cols, acc[i][0]);
    _mm512_store_ps(tile + i * kAvx512Cols + 16, acc[i][1]);
  }
  store_partial<kAvx512Cols>(tile, c, ldc, mr, nr, add);
}

void multiply_avx512(bool ta, bool tb, int m, int n, int k, const float* a, int lda, const float* b,
                     int ldb, float* c, int ldc, bool accumulate) {
  blocked<kAvx512Rows, kAvx512Cols>({micro_avx512<true>, micro_avx512<false>}, ta, tb, m, n, k, a,
                                    lda, b, ldb, c, ldc, accumulate);
}

}  // namespace
}  // namespace gemm
}  // namespace cppestimators
#endif
