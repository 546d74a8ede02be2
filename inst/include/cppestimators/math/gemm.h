// Single-precision matrix products for the dense layers, by one of three
// kernels: AVX-512, AVX2 with FMA, or a portable one (Eigen, compiled for the
// baseline instruction set). The kernel is an argument of every product: the
// caller (a session, through its model's workspace) chooses it, and nothing
// here keeps a choice of its own.
//
// This header only declares. The definitions are the engine's own
// (src/engine/math/gemm.cpp and the gemm_*.h beside it, not installed):
// the wide kernels there are functions compiled for their own instruction
// set by target attributes, so the rest of the program keeps the baseline
// one.
#pragma once

namespace cppestimators {
namespace gemm {

enum class Kernel { Portable = 0, Avx2 = 1, Avx512 = 2 };

// C (m x n, row-major, leading dimension ldc) = op(A) op(B), plus C itself
// when `accumulate`, by `kernel` (which must be available()). op(A) is m x k:
// A is row-major m x k (lda), or k x m when trans_a. op(B) is k x n: B is
// row-major k x n (ldb), or n x k when trans_b. Uses no heap after the first
// call of a thread with a given size.
void multiply(Kernel kernel, bool trans_a, bool trans_b, int m, int n, int k, const float* a,
              int lda, const float* b, int ldb, float* c, int ldc, bool accumulate);

// Whether the CPU (and its operating system) can run a kernel.
bool available(Kernel kernel);
// The widest kernel the CPU runs.
Kernel best_available();
// "avx512", "avx2" or "portable".
const char* name(Kernel kernel);

}  // namespace gemm
}  // namespace cppestimators
