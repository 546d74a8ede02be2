// The walk over a batch's cells shared by the one-id-per-value columns.
#include <cppestimators/features/cell_ids.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace cppestimators {

CellIds::CellIds(const ColumnView& c)
    : c_(c), widest_(c.width), text_(c.is_ragged() ? 0 : static_cast<std::size_t>(c.width)) {
  if (!c.is_ragged()) return;
  widest_ = 1;  // (room for one id in an empty batch)
  for (std::int64_t row = 0; row < c.n; ++row) widest_ = std::max(widest_, c.row_values(row).count);
}

std::int64_t CellIds::text_cell_id(Cell cell, std::string_view s) const {
  return cell == Cell::Value ? text_id(s) : cell == Cell::Empty ? empty_text_id() : na_id();
}

std::int64_t CellIds::int_cell_id(Cell cell, std::int64_t v) const {
  return cell == Cell::Value ? int_id(v) : cell == Cell::Empty ? empty_int_id() : na_id();
}

void CellIds::emit(std::int64_t id, SparseIds& out) const {
  if (id != kNoId)
    out.push(id);
  else if (keep_positions_)
    out.push(-1);
}

std::int64_t CellIds::ragged_id(const RaggedRow& row, std::int64_t k) const {
  if (row.type == ColumnType::String) {
    std::string_view s;
    if (!c_.ragged_text(row, k, &s)) return na_id();
    return text_cell_id(s.empty() ? Cell::Empty : Cell::Value, s);
  }
  std::int64_t v = 0;
  const Cell cell = ragged_int_cell(row, k, &v);
  return int_cell_id(cell, v);
}

void CellIds::gather_ragged(const int* rows, int count, SparseIds& out) {
  for (int r = 0; r < count; ++r) {
    const RaggedRow row = c_.row_values(rows[r]);
    for (std::int64_t k = 0; k < row.count; ++k) emit(ragged_id(row, k), out);
    out.end_row();
  }
}

void CellIds::gather(const int* rows, int count, SparseIds& out) {
  if (c_.is_ragged()) {
    gather_ragged(rows, count, out);
    return;
  }
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
        id = text_cell_id(cell, s);
      } else {
        std::int64_t v = 0;
        const Cell cell = int_cell(c_, rows[r], j, &v);
        id = int_cell_id(cell, v);
      }
      emit(id, out);
    }
    out.end_row();
  }
}

}  // namespace cppestimators
