#include <cppestimators/model/parameter.h>

#include <cstddef>
#include <string>
#include <vector>

namespace cppestimators {

Parameter Parameter::single(const std::string& name, std::vector<int> shape, int group) {
  Parameter p;
  std::size_t n = 1;
  for (int d : shape) n *= static_cast<std::size_t>(d);
  p.views.push_back({name, shape, 0, n});
  p.value.assign(n, 0.0f);
  p.row_width = shape.size() > 1 ? static_cast<std::size_t>(shape.back()) : n;
  p.group = group;
  return p;
}

Gradient dense_gradient(Parameter& p, const std::vector<float>& g) {
  Gradient out;
  out.param = &p;
  out.dense = g.data();
  return out;
}

}  // namespace cppestimators
