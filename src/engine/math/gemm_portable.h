// The portable kernel (part of gemm_impl.h): Eigen, at the baseline
// instruction set.
#pragma once
#ifndef CPPESTIMATORS_GEMM_IMPL
#error "include gemm_impl.h (gemm.cpp does), not this header"
#endif
#include <Eigen/Core>

namespace cppestimators {
namespace gemm {
namespace {

void multiply_portable(bool ta, bool tb, int m, int n, int k, const float* a, int lda,
                       const float* b, int ldb, float* c, int ldc, bool accumulate) {
  using Rows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using In = Eigen::Map<const Rows, 0, Eigen::OuterStride<>>;
  using Out = Eigen::Map<Rows, 0, Eigen::OuterStride<>>;
  const In A(a, ta ? k : m, ta ? m : k, Eigen::OuterStride<>(lda));
  const In B(b, tb ? n : k, tb ? k : n, Eigen::OuterStride<>(ldb));
  Out C(c, m, n, Eigen::OuterStride<>(ldc));
  if (!accumulate) C.setZero();
  if (!ta && !tb)
    C.noalias() += A * B;
  else if (ta && !tb)
    C.noalias() += A.transpose() * B;
  else if (!ta && tb)
    C.noalias() += A * B.transpose();
  else
    C.noalias() += A.transpose() * B.transpose();
}

}  // namespace
}  // namespace gemm
}  // namespace cppestimators
