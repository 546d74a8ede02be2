#include <cppestimators/model/mode.h>

#include <stdexcept>

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

Mode mode_of(const std::string& name) {
  for (Mode m : {Mode::Train, Mode::Eval, Mode::Predict})
    if (name == mode_name(m)) return m;
  throw std::invalid_argument("unknown mode '" + name +
                              "'; the modes are 'train', 'eval' and 'infer'");
}

}  // namespace cppestimators
