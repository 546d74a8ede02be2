// What a session does with each batch.
#pragma once

namespace cppestimators {

enum class Mode { Train, Eval, Predict };

const char* mode_name(Mode m);

}  // namespace cppestimators
