#include <cppestimators/model/mode.h>

namespace cppestimators {

const char* mode_name(Mode m) {
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
