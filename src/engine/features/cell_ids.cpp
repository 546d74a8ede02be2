// The walk over a batch's cells shared by the one-id-per-value columns.
#include <cppestimators/features/cell_ids.h>

#include <cstdint>
#include <string_view>

namespace cppestimators {

void CellIds::gather(const int* rows, int count, SparseIds& out) {
  if (c_.type == ColumnType::String)
    for (int j = 0; j < c_.width; ++j) text_[static_cast<std::size_t>(j)].read(c_, rows, count, j);
  for (int r = 0; r < count; ++r) {
    for (int j = 0; j < c_.width; ++j) {
      std::int64_t id;
      if (c_.type == ColumnType::Factor) {
        const int code = c_.ints[c_.index(rows[r], j)];
        id = code == kNaInteger ? na_id() : level_ids_[static_cast<std::size_t>(code - 1)];
      } else if (c_.type == ColumnType::String) {
        std::string_view s;
        const Cell cell = text_[static_cast<std::size_t>(j)].cell(r, &s);
        id = cell == Cell::Value ? text_id(s) : cell == Cell::Empty ? empty_text_id() : na_id();
      } else {
        std::int64_t v = 0;
        const Cell cell = int_cell(c_, rows[r], j, &v);
        id = cell == Cell::Value ? int_id(v) : cell == Cell::Empty ? empty_int_id() : na_id();
      }
      if (id != kNoId) out.push(id);
    }
    out.end_row();
  }
}

}  // namespace cppestimators
