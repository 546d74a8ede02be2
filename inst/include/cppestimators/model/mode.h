// What a session does with each batch.
#pragma once
#include <string>

namespace cppestimators {

enum class Mode { Train, Eval, Predict };

// "train", "eval", "infer" (TensorFlow's ModeKeys), and back; mode_of()
// throws std::invalid_argument naming an unknown one.
const char* mode_name(Mode m);
Mode mode_of(const std::string& name);

}  // namespace cppestimators
