// Single-precision matrix products for the dense layers, with kernels chosen
// at run time from what the CPU supports: AVX-512, AVX2 with FMA, or a
// portable one (Eigen, compiled for the baseline instruction set R uses).
// The wide kernels are defined in src/gemm.cpp, each as a function compiled
// for its own instruction set; no template is compiled twice with different
// instruction sets, so the one-definition rule holds.
#pragma once

namespace cppestimators {
namespace gemm {

enum class Kernel { Portable = 0, Avx2 = 1, Avx512 = 2 };

// C (m x n, row-major, leading dimension ldc) = op(A) op(B), plus C itself
// when `accumulate`. op(A) is m x k: A is row-major m x k (lda), or k x m
// when trans_a. op(B) is k x n: B is row-major k x n (ldb), or n x k when
// trans_b. Uses no heap after the first call of a thread with a given size.
void multiply(bool trans_a, bool trans_b, int m, int n, int k, const float* a, int lda, const float* b, int ldb,
              float* c, int ldc, bool accumulate);

// Whether the CPU (and its operating system) can run a kernel.
bool available(Kernel kernel);
// The kernel multiply() uses; the best available one unless select()ed.
Kernel active();
// Uses `kernel` from now on (for every thread); false if not available.
bool select(Kernel kernel);
const char* name(Kernel kernel);

}  // namespace gemm
}  // namespace cppestimators
