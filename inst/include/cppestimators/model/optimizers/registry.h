// The one place that maps optimizer names to classes. A new optimizer is a
// new header plus one line here (and its R constructor, which holds its
// defaults).
#pragma once
#include <map>
#include <memory>
#include <string>

#include "adagrad.h"
#include "adam.h"
#include "ftrl.h"
#include "rmsprop.h"
#include "sgd.h"

namespace cppestimators {

namespace detail {
template <class T>
std::unique_ptr<Optimizer> build_optimizer(const Spec& s, const std::string& scope) {
  return std::make_unique<T>(s, scope);
}
}  // namespace detail

inline std::unique_ptr<Optimizer> make_optimizer(const Spec& spec, const std::string& scope = "") {
  using Factory = std::unique_ptr<Optimizer> (*)(const Spec&, const std::string&);
  static const std::map<std::string, Factory> names = {
      {"Adagrad", &detail::build_optimizer<AdagradOptimizer>},
      {"Adam", &detail::build_optimizer<AdamOptimizer>},
      {"Ftrl", &detail::build_optimizer<FtrlOptimizer>},
      {"RMSProp", &detail::build_optimizer<RmsPropOptimizer>},
      {"SGD", &detail::build_optimizer<SgdOptimizer>},
  };
  auto it = names.find(spec.kind);
  if (it == names.end()) {
    std::string known;
    for (const auto& kv : names) known += (known.empty() ? "" : ", ") + kv.first;
    throw std::invalid_argument("Unsupported optimizer name: " + spec.kind +
                                ". Supported names are: " + known);
  }
  return it->second(spec, scope);
}

}  // namespace cppestimators
