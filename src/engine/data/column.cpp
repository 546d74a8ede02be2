#include <cppestimators/data/column.h>

#include <string>

namespace cppestimators {

const char* column_type_name(ColumnType t) {
  switch (t) {
    case ColumnType::Double:
      return "double";
    case ColumnType::Integer:
      return "integer";
    case ColumnType::Logical:
      return "logical";
    case ColumnType::Factor:
      return "a factor";
    case ColumnType::String:
      return "character";
  }
  return "";
}

std::string where(const ColumnView& c, std::int64_t row) {
  return "feature '" + c.key + "' (row " + std::to_string(row + 1) + ")";
}

}  // namespace cppestimators
