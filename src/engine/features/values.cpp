// The type checks of categorical inputs (the cell readers stay inline in
// values.h: they run once per value).
#include <cppestimators/features/values.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace cppestimators {

namespace {
[[noreturn]] void not_whole(const ColumnView& c, const std::string& user, std::int64_t row,
                            double v) {
  throw std::invalid_argument(user + " needs integer values, but " + where(c, row) + " is " +
                              std::to_string(v));
}
bool whole(double v) {
  return std::isnan(v) || (v == std::floor(v) && std::fabs(v) <= 9.007199254740992e15);
}
}  // namespace

void require_whole(const ColumnView& c, const std::string& user) {
  if (c.type != ColumnType::Double) return;
  if (c.is_sparse()) require_plain(c, user, true, false);
  if (c.is_ragged()) {
    for (std::int64_t row = 0; row < c.n; ++row) {
      const RaggedRow r = c.row_values(row);
      if (r.type != ColumnType::Double) continue;
      for (std::int64_t k = 0; k < r.count; ++k)
        if (!whole(r.doubles[r.begin + k])) not_whole(c, user, row, r.doubles[r.begin + k]);
    }
    return;
  }
  const std::int64_t m = c.n * c.width;
  for (std::int64_t i = 0; i < m; ++i) {
    const double v = c.doubles[i];
    if (!whole(v)) not_whole(c, user, i % c.n, v);
  }
}

void require_input(const ColumnView& c, InputKind kind, const std::string& user) {
  require_plain(c, user, true, false);
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
