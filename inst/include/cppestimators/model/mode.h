// What a session does with each batch.
#pragma once

namespace cppestimators {

enum class Mode { Train, Eval, Predict };

inline const char* mode_name(Mode m) {
  switch (m) {
    case Mode::Train:
      return "train";
    case Mode::Eval:
      return "eval";
    case Mode::Predict:
      return "infer";
  }
  return "";
}

}  // namespace cppestimators
