#include <cppestimators/model/heads/registry.h>

#include <string>
#include <vector>

#include <cppestimators/model/heads/binary.h>
#include <cppestimators/model/heads/head.h>
#include <cppestimators/model/heads/multi_class.h>
#include <cppestimators/model/heads/regression.h>
#include <cppestimators/spec.h>

namespace cppestimators {

const HeadRegistry& head_registry() {
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

std::unique_ptr<Head> make_head(const std::string& kind, int n) {
  Spec spec;
  spec.kind = kind;
  return head_registry().make(spec, n);
}

}  // namespace cppestimators
