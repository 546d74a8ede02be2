// The blocked product the wide kernels share (part of gemm_impl.h: include
// that, in one translation unit). op(B) is cut into panels NR columns wide
// and op(A) into panels MR rows tall (zero-padded where partial), so that a
// micro-kernel keeps an MR x NR tile of C in registers while it walks the
// shared depth. Packing and blocking are ordinary code, compiled for the
// baseline instruction set; only the micro-kernels (gemm_avx2.h,
// gemm_avx512.h) carry a target attribute.
#pragma once
#ifndef CPPESTIMATORS_GEMM_IMPL
#error "include gemm_impl.h (gemm.cpp does), not this header"
#endif
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

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
// depth kc, plus C when `add`. Kernels come in two forms: `rows` reads A row
// by row (depth stride 1), `depths` reads the MR values of a depth together
// (row stride 1; packed panels and transposed A).
using MicroKernel = void (*)(int kc, PanelA a, PanelB b, float* c, int ldc, int mr, int nr,
                             bool add);

template <int MR, int NR>
struct Micro {
  MicroKernel rows, depths;
};

// Panels are read in place wherever they are full and laid out so that a
// kernel can walk them: A always (row-major or transposed), B when it is not
// transposed. Partial panels and transposed B are packed (zero-padded) first.
template <int MR, int NR>
void blocked(Micro<MR, NR> micro, bool ta, bool tb, int m, int n, int k, const float* a, int lda,
             const float* b, int ldb, float* c, int ldc, bool accumulate) {
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
          micro.depths(kc, {a + static_cast<std::size_t>(p0) * lda + i0, 1, lda}, pb, tile, ldc, MR,
                       nr, add);
        } else {
          micro.rows(kc, {a + static_cast<std::size_t>(i0) * lda + p0, lda, 1}, pb, tile, ldc, MR,
                     nr, add);
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

}  // namespace
}  // namespace gemm
}  // namespace cppestimators
