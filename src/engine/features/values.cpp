// The type checks of categorical inputs (the cell readers stay inline in
// values.h: they run once per value).
#include <cppestimators/features/values.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace cppestimators {

void require_whole(const ColumnView& c, const std::string& user) {
  if (c.type != ColumnType::Double) return;
  const std::int64_t m = c.n * c.width;
  for (std::int64_t i = 0; i < m; ++i) {
    const double v = c.doubles[i];
    if (!std::isnan(v) && (v != std::floor(v) || std::fabs(v) > 9.007199254740992e15))
      throw std::invalid_argument(user + " needs integer values, but " + where(c, i % c.n) +
                                  " is " + std::to_string(v));
  }
}

void require_input(const ColumnView& c, InputKind kind, const std::string& user) {
  if (kind == InputKind::Text && !c.text())
    throw std::invalid_argument(user + " has a string vocabulary, but feature '" + c.key + "' is " +
                                column_type_name(c.type) + "; give it character or factor values");
  if (kind == InputKind::Integer) {
    if (c.text())
      throw std::invalid_argument(user + " needs integer values, but feature '" + c.key + "' is " +
                                  column_type_name(c.type));
    require_whole(c, user);
  }
}

}  // namespace cppestimators
