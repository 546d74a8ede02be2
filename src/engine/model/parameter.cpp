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

void resize_growable(Parameter& p, std::size_t rows) {
  ParamView& v = p.views.front();
  std::size_t per = 1;
  for (std::size_t d = 1; d < v.shape.size(); ++d) per *= static_cast<std::size_t>(v.shape[d]);
  v.shape[0] = static_cast<int>(rows);
  v.size = rows * per;
  p.value.resize(v.size);
}

Gradient dense_gradient(Parameter& p, const std::vector<float>& g) {
  Gradient out;
  out.param = &p;
  out.dense = g.data();
  return out;
}

}  // namespace cppestimators
