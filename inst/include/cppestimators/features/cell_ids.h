// The bound reader shared by the columns that map each value of one feature
// to at most one id (vocabulary, identity, hash bucket, and a raw feature in
// a cross). It walks a batch's cells (or the values of each row of a
// ragged column: a list column of tokens, a variable-length feature) — text of character columns
// read at once, factor levels mapped once per session, integers — and asks the column for the id of
// each kind of cell.
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

  // (a ragged column's widest row is found once, here)
  explicit CellIds(const ColumnView& c);
  std::int64_t max_ids_per_row() const override { return widest_; }

  void gather(const int* rows, int count, SparseIds& out) override;
  void keep_positions() override { keep_positions_ = true; }

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
  // The id of a text or integer cell of each kind.
  std::int64_t text_cell_id(Cell cell, std::string_view s) const;
  std::int64_t int_cell_id(Cell cell, std::int64_t v) const;
  // Appends `id`, or -1 for no id when positions are kept.
  void emit(std::int64_t id, SparseIds& out) const;
  // The id of value k of a ragged row.
  std::int64_t ragged_id(const RaggedRow& row, std::int64_t k) const;
  void gather_ragged(const int* rows, int count, SparseIds& out);

  std::int64_t widest_;
  bool keep_positions_ = false;  // a cell without an id yields id -1 (pruned later)
  std::vector<TextBatch> text_;
  std::vector<std::int64_t> level_ids_;
};

}  // namespace cppestimators
