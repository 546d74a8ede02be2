// The head family: a head's kind -> the head. A new head is a new file in
// this folder plus one `add()` line here. Heads are built from their kind
// and n, the label dimension (regression) or the number of classes.
#pragma once
#include <memory>
#include <string>

#include "../../registry.h"
#include "binary.h"
#include "head.h"
#include "multi_class.h"
#include "regression.h"

namespace cppestimators {

using HeadRegistry = Registry<Head, int>;

inline const HeadRegistry& head_registry() {
  static const HeadRegistry registry = [] {
    HeadRegistry r("head", [](const std::string& kind, const std::vector<std::string>& known) {
      return "unknown head '" + kind + "'; known heads are " + HeadRegistry::join(known, "'");
    });
    r.add("regression",
          [](const Spec&, int d) -> std::unique_ptr<Head> {
            return std::make_unique<RegressionHead>(d);
          })
        .add("binary",
             [](const Spec&, int) -> std::unique_ptr<Head> {
               return std::make_unique<BinaryHead>();
             })
        .add("multi_class", [](const Spec&, int k) -> std::unique_ptr<Head> {
          return std::make_unique<MultiClassHead>(k);
        });
    return r;
  }();
  return registry;
}

// Throws std::invalid_argument for an unknown kind, naming the known ones.
inline std::unique_ptr<Head> make_head(const std::string& kind, int n) {
  Spec spec;
  spec.kind = kind;
  return head_registry().make(spec, n);
}

}  // namespace cppestimators
