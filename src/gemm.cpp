// Matrix products for the dense layers (see cppestimators/math/gemm.h).
//
// The wide kernels follow the usual blocked scheme: op(B) is packed into
// panels NR columns wide and op(A) into panels MR rows tall (zero-padded), so
// that a micro-kernel keeps an MR x NR tile of C in registers while it walks
// the shared depth. Packing and blocking are ordinary code, compiled for R's
// baseline instruction set; only the micro-kernels carry a target attribute,
// and they use nothing but intrinsics, so no inline function or template is
// ever compiled for two instruction sets.
#include <cppestimators/math/gemm.h>

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define CPPESTIMATORS_X86_KERNELS 1
#include <immintrin.h>
#endif

namespace cppestimators {
namespace gemm {
namespace {

constexpr int kDepthBlock = 256;  // depth of one block of the product


// Per-thread packing space; it grows to the largest product seen and stays,
// so steady-state calls allocate nothing.
struct PackSpace {
  std::vector<float> a, b;
};
PackSpace& pack_space() {
  thread_local PackSpace space;
  return space;
}
// A 64-byte aligned run of n floats inside v.
float* aligned(std::vector<float>& v, std::size_t n) {
  if (v.size() < n + 16) v.resize(n + 16);
  const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(v.data());
  return v.data() + ((64 - p % 64) % 64) / sizeof(float);
}

// Rows [i0, i0 + mc) and depth [p0, p0 + kc) of op(A), as panels of MR rows:
// panel q holds, for each depth p, its MR values of column p.
template <int MR>
void pack_a(bool trans, const float* a, int lda, int i0, int mc, int p0, int kc, float* out) {
  for (int ip = 0; ip < mc; ip += MR, out += static_cast<std::size_t>(kc) * MR) {
    const int mr = std::min(MR, mc - ip);
    if (trans) {  // op(A)(i, p) = A(p, i): each depth's MR values are contiguous
      for (int p = 0; p < kc; ++p) {
        const float* src = a + static_cast<std::size_t>(p0 + p) * lda + i0 + ip;
        float* dst = out + static_cast<std::size_t>(p) * MR;
        for (int i = 0; i < mr; ++i) dst[i] = src[i];
        for (int i = mr; i < MR; ++i) dst[i] = 0.0f;
      }
    } else {
      for (int i = 0; i < MR; ++i) {
        if (i < mr) {
          const float* src = a + static_cast<std::size_t>(i0 + ip + i) * lda + p0;
          for (int p = 0; p < kc; ++p) out[static_cast<std::size_t>(p) * MR + i] = src[p];
        } else {
          for (int p = 0; p < kc; ++p) out[static_cast<std::size_t>(p) * MR + i] = 0.0f;
        }
      }
    }
  }
}

// Depth [p0, p0 + kc) and columns [j0, j0 + nc) of op(B), as panels of NR
// columns: panel q holds, for each depth p, its NR values of row p.
template <int NR>
void pack_b(bool trans, const float* b, int ldb, int p0, int kc, int j0, int nc, float* out) {
  for (int jp = 0; jp < nc; jp += NR, out += static_cast<std::size_t>(kc) * NR) {
    const int nr = std::min(NR, nc - jp);
    if (!trans) {
      for (int p = 0; p < kc; ++p) {
        const float* src = b + static_cast<std::size_t>(p0 + p) * ldb + j0 + jp;
        float* dst = out + static_cast<std::size_t>(p) * NR;
        for (int j = 0; j < nr; ++j) dst[j] = src[j];
        for (int j = nr; j < NR; ++j) dst[j] = 0.0f;
      }
    } else {  // op(B)(p, j) = B(j, p)
      for (int j = 0; j < NR; ++j) {
        if (j < nr) {
          const float* src = b + static_cast<std::size_t>(j0 + jp + j) * ldb + p0;
          for (int p = 0; p < kc; ++p) out[static_cast<std::size_t>(p) * NR + j] = src[p];
        } else {
          for (int p = 0; p < kc; ++p) out[static_cast<std::size_t>(p) * NR + j] = 0.0f;
        }
      }
    }
  }
}

// An operand panel as a micro-kernel reads it. A: MR rows of op(A); value
// (i, p) is at a[i * row + p * depth]. B: NR columns of op(B); row p of the
// panel is the NR values from b + p * depth.
struct PanelA {
  const float* a;
  std::ptrdiff_t row, depth;
};
struct PanelB {
  const float* b;
  std::ptrdiff_t depth;
};

// C tile (the mr x nr corner of an MR x NR tile) = A panel x B panel over
// depth kc, plus C when `add`. Kernels come in two forms: `Rows` reads A row
// by row (depth stride 1), the other reads the MR values of a depth together
// (row stride 1; packed panels and transposed A).
using MicroKernel = void (*)(int kc, PanelA a, PanelB b, float* c, int ldc, int mr, int nr, bool add);

template <int MR, int NR>
struct Micro {
  MicroKernel rows, depths;
};

// Panels are read in place wherever they are full and laid out so that a
// kernel can walk them: A always (row-major or transposed), B when it is not
// transposed. Partial panels and transposed B are packed (zero-padded) first.
template <int MR, int NR>
void blocked(Micro<MR, NR> micro, bool ta, bool tb, int m, int n, int k, const float* a, int lda, const float* b,
             int ldb, float* c, int ldc, bool accumulate) {
  PackSpace& space = pack_space();
  const int full_rows = m / MR * MR;
  for (int p0 = 0; p0 < k; p0 += kDepthBlock) {
    const int kc = std::min(kDepthBlock, k - p0);
    const bool add = accumulate || p0 > 0;
    // the last, partial panel of op(A), packed once per depth block
    float* edge_a = nullptr;
    if (full_rows < m) {
      edge_a = aligned(space.a, static_cast<std::size_t>(MR) * kc);
      pack_a<MR>(ta, a, lda, full_rows, m - full_rows, p0, kc, edge_a);
    }
    for (int j0 = 0; j0 < n; j0 += NR) {
      const int nr = std::min(NR, n - j0);
      PanelB pb;
      if (!tb && nr == NR) {
        pb = {b + static_cast<std::size_t>(p0) * ldb + j0, ldb};
      } else {
        float* packed = aligned(space.b, static_cast<std::size_t>(NR) * kc);
        pack_b<NR>(tb, b, ldb, p0, kc, j0, nr, packed);
        pb = {packed, NR};
      }
      for (int i0 = 0; i0 < m; i0 += MR) {
        float* tile = c + static_cast<std::size_t>(i0) * ldc + j0;
        if (i0 == full_rows) {
          micro.depths(kc, {edge_a, 1, MR}, pb, tile, ldc, m - i0, nr, add);
        } else if (ta) {
          micro.depths(kc, {a + static_cast<std::size_t>(p0) * lda + i0, 1, lda}, pb, tile, ldc, MR, nr, add);
        } else {
          micro.rows(kc, {a + static_cast<std::size_t>(i0) * lda + p0, lda, 1}, pb, tile, ldc, MR, nr, add);
        }
      }
    }
  }
}

// Writes the partial tile (row stride NR) into C.
template <int NR>
void store_partial(const float* tile, float* c, int ldc, int mr, int nr, bool add) {
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nr; ++j) {
      float& out = c[static_cast<std::size_t>(i) * ldc + j];
      out = (add ? out : 0.0f) + tile[i * NR + j];
    }
}

#ifdef CPPESTIMATORS_X86_KERNELS
// One row of a tile: broadcast A(i, p), multiply-add with both B vectors.
#define CPPESTIMATORS_TILE_ROW(set1, fmadd, i)                                   \
  x = set1(Rows ? a.a[(i) * a.row + p] : a.a[p * a.depth + (i)]);               \
  acc[i][0] = fmadd(x, b0, acc[i][0]);                                          \
  acc[i][1] = fmadd(x, b1, acc[i][1]);

// AVX2 + FMA: a 6 x 16 tile in 12 of the 16 ymm registers.
constexpr int kAvx2Rows = 6, kAvx2Cols = 16;
template <bool Rows>
__attribute__((target("avx2,fma"))) void micro_avx2(int kc, PanelA a, PanelB b, float* c, int ldc, int mr, int nr,
                                                    bool add) {
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

// AVX-512: a 12 x 32 tile in 24 of the 32 zmm registers.
constexpr int kAvx512Rows = 12, kAvx512Cols = 32;
template <bool Rows>
__attribute__((target("avx512f"))) void micro_avx512(int kc, PanelA a, PanelB b, float* c, int ldc, int mr, int nr,
                                                     bool add) {
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
#undef CPPESTIMATORS_TILE_ROW
#endif

// The portable kernel: Eigen, at R's baseline instruction set.
void multiply_portable(bool ta, bool tb, int m, int n, int k, const float* a, int lda, const float* b, int ldb,
                       float* c, int ldc, bool accumulate) {
  using Rows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using In = Eigen::Map<const Rows, 0, Eigen::OuterStride<>>;
  using Out = Eigen::Map<Rows, 0, Eigen::OuterStride<>>;
  const In A(a, ta ? k : m, ta ? m : k, Eigen::OuterStride<>(lda));
  const In B(b, tb ? n : k, tb ? k : n, Eigen::OuterStride<>(ldb));
  Out C(c, m, n, Eigen::OuterStride<>(ldc));
  if (!accumulate) C.setZero();
  if (!ta && !tb) C.noalias() += A * B;
  else if (ta && !tb) C.noalias() += A.transpose() * B;
  else if (!ta && tb) C.noalias() += A * B.transpose();
  else C.noalias() += A.transpose() * B.transpose();
}

bool cpu_supports(Kernel kernel) {
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

Kernel best_kernel() {
  if (cpu_supports(Kernel::Avx512)) return Kernel::Avx512;
  if (cpu_supports(Kernel::Avx2)) return Kernel::Avx2;
  return Kernel::Portable;
}

std::atomic<int>& active_kernel() {
  static std::atomic<int> kernel{static_cast<int>(best_kernel())};
  return kernel;
}

}  // namespace

bool available(Kernel kernel) { return cpu_supports(kernel); }
Kernel active() { return static_cast<Kernel>(active_kernel().load(std::memory_order_relaxed)); }
bool select(Kernel kernel) {
  if (!available(kernel)) return false;
  active_kernel().store(static_cast<int>(kernel), std::memory_order_relaxed);
  return true;
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

void multiply(bool trans_a, bool trans_b, int m, int n, int k, const float* a, int lda, const float* b, int ldb,
              float* c, int ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (int i = 0; i < m; ++i) std::fill(c + static_cast<std::size_t>(i) * ldc, c + static_cast<std::size_t>(i) * ldc + n, 0.0f);
    return;
  }
  switch (active()) {
#ifdef CPPESTIMATORS_X86_KERNELS
    case Kernel::Avx512:
      blocked<kAvx512Rows, kAvx512Cols>({micro_avx512<true>, micro_avx512<false>}, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
      return;
    case Kernel::Avx2:
      blocked<kAvx2Rows, kAvx2Cols>({micro_avx2<true>, micro_avx2<false>}, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
      return;
#endif
    default:
      multiply_portable(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  }
}

}  // namespace gemm
}  // namespace cppestimators
