#include <cppestimators/data/column.h>

#include <stdexcept>
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

std::string column_shape_name(const ColumnView& c) {
  if (c.is_ragged())
    return std::string("a list of ") + column_type_name(c.type) + " values per row";
  if (c.is_sparse()) return "a sparse matrix";
  return column_type_name(c.type);
}

void require_plain(const ColumnView& c, const std::string& user, bool lists_ok, bool sparse_ok) {
  if (c.is_ragged() && !lists_ok)
    throw std::invalid_argument(user + " reads one value per cell, but feature '" + c.key +
                                "' holds " + column_shape_name(c) +
                                "; a list column feeds categorical columns (hash bucket, "
                                "vocabulary, identity, weighted)");
  if (c.is_sparse() && !sparse_ok)
    throw std::invalid_argument(user + " reads categories, but feature '" + c.key +
                                "' is a sparse matrix of numbers; read it with column_numeric(\"" +
                                c.key + "\", shape = " + std::to_string(c.width) + ")");
}

}  // namespace cppestimators
