// The bound reader shared by the columns that map each value of one feature
// to at most one id (vocabulary, identity, hash bucket, and a raw feature in
// a cross). It walks a batch's cells — text of character columns read at
// once, factor levels mapped once per session, integers — and asks the
// column for the id of each kind of cell.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "transform.h"
#include "values.h"

namespace cppestimators {

class CellIds : public BoundIds {
 public:
  static constexpr std::int64_t kNoId = INT64_MIN;

  explicit CellIds(const ColumnView& c) : c_(c), text_(static_cast<std::size_t>(c.width)) {}
  std::int64_t max_ids_per_row() const override { return c_.width; }

  void gather(const int* rows, int count, SparseIds& out) override {
    if (c_.type == ColumnType::String)
      for (int j = 0; j < c_.width; ++j)
        text_[static_cast<std::size_t>(j)].read(c_, rows, count, j);
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

 protected:
  // The ids of each kind of cell; kNoId: none.
  virtual std::int64_t text_id(std::string_view s) const = 0;
  virtual std::int64_t int_id(std::int64_t v) const = 0;
  virtual std::int64_t na_id() const { return kNoId; }
  virtual std::int64_t empty_text_id() const { return kNoId; }  // ""
  virtual std::int64_t empty_int_id() const { return kNoId; }   // -1

  // Subclass constructors call this once their mapping works.
  void map_levels() {
    if (c_.type != ColumnType::Factor) return;
    for (const auto& level : c_.levels)
      level_ids_.push_back(level.empty() ? empty_text_id() : text_id(level));
  }

  const ColumnView& c_;

 private:
  std::vector<TextBatch> text_;
  std::vector<std::int64_t> level_ids_;
};

}  // namespace cppestimators
