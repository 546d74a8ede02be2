// One pass of a boosted-trees step's logistic arithmetic over a block of
// logits: the loss per example (as fast::logistic_loss computes it) and
// TensorFlow's closed-form gradients and hessians (as
// fast::logistic_closed_form computes them), from values that are in the
// cache once. Eight lanes with AVX2 where the CPU has it, four lanes (SSE2)
// otherwise: both make the same float operations lane by lane, in the same
// order and without fused multiply-adds, so they give the same bits (the
// summed loss adds the same doubles in another order).
#pragma once

namespace cppestimators {
namespace fast {

// Whether this CPU runs logistic_step()'s eight-lane (AVX2) code.
bool logistic_step_wide_available();

// For i < n: pe[i] the logistic loss of logit x[i] and label y[i] (without
// weights), g[i] = (p - y) inv and h[i] = p (1 - p) with TF's p = 1 / (e^-x
// + 1), each times w[i] when w is not null. Returns the summed loss, each
// example's times its weight when w is not null (in double). `wide` asks
// for the eight-lane code (ignored where the CPU has no AVX2).
double logistic_step(bool wide, const float* x, const float* y, const float* w, int n, float inv,
                     float* pe, float* g, float* h);

}  // namespace fast
}  // namespace cppestimators
