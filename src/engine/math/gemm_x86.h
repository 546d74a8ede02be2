// What the x86 micro-kernels share (part of gemm_impl.h): the intrinsics,
// and one row of a register tile. The kernels use nothing but intrinsics
// under their target attributes, so no inline function or template is ever
// compiled for two instruction sets.
#pragma once
#ifndef CPPESTIMATORS_GEMM_IMPL
#error "include gemm_impl.h (gemm.cpp does), not this header"
#endif

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define CPPESTIMATORS_X86_KERNELS 1
#include <immintrin.h>

// One row of a tile: broadcast A(i, p), multiply-add with both B vectors.
#define CPPESTIMATORS_TILE_ROW(set1, fmadd, i)                  \
  x = set1(Rows ? a.a[(i)*a.row + p] : a.a[p * a.depth + (i)]); \
  acc[i][0] = fmadd(x, b0, acc[i][0]);                          \
  acc[i][1] = fmadd(x, b1, acc[i][1]);
#endif
