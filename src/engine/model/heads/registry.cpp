#include <cppestimators/model/heads/registry.h>

#include <string>
#include <vector>

#include <cppestimators/model/heads/binary.h>
#include <cppestimators/model/heads/head.h>
#include <cppestimators/model/heads/multi_class.h>
#include <cppestimators/model/heads/multi_label.h>
#include <cppestimators/model/heads/pointwise.h>
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
        .add("multi_class",
             [](const Spec&, int k) -> std::unique_ptr<Head> {
               return std::make_unique<MultiClassHead>(k);
             })
        .add("multi_label", [](const Spec& s, int k) -> std::unique_ptr<Head> {
          std::vector<std::string> names;
          if (s.strs.count("labels")) names = s.strings("labels");
          return std::make_unique<MultiLabelHead>(k, names);
        });
    // the heads of one element-wise loss (pointwise.h)
    for (const char* kind : {"poisson_regression", "tweedie", "gamma_regression", "huber",
                             "pseudo_huber", "absolute_error", "quantile", "logistic_regression"})
      r.add(kind, [kind](const Spec& s, int d) -> std::unique_ptr<Head> {
        const double a = s.num_or("power", s.num_or("delta", 0.0));
        std::vector<double> levels;
        if (s.nums.count("levels")) levels = s.numbers("levels");
        return std::make_unique<PointwiseHead>(kind, a, levels, d);
      });
    return r;
  }();
  return registry;
}

std::unique_ptr<Head> make_head(const Spec& spec, int n) { return head_registry().make(spec, n); }

std::unique_ptr<Head> make_head(const std::string& kind, int n) {
  Spec spec;
  spec.kind = kind;
  return head_registry().make(spec, n);
}

}  // namespace cppestimators
