// An estimator's state as checkpoint tensors, and back.
#pragma once
#include <string>

#include "../io/checkpoint.h"
#include "estimator.h"

namespace cppestimators {

// Copies every variable and the global step into `out` (reusing its
// buffers); returns false when a value is not finite.
bool snapshot(const Estimator& est, CheckpointData& out);

// Restores every variable and the global step; all-or-nothing: the state is
// unchanged when the checkpoint does not match the estimator. The
// learning-rate scale is optional on both sides: a checkpoint without it
// means 1, and one with it makes the estimator use it.
void restore(Estimator& est, const CheckpointData& in, const std::string& source);

}  // namespace cppestimators
