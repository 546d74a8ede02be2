#include <cppestimators/data/chunk.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cppestimators {

namespace {

bool read_chunk_string(const void* column, std::int64_t i, std::string_view* out) {
  const ChunkColumn& c = *static_cast<const ChunkColumn*>(column);
  if (!c.present[static_cast<std::size_t>(i)]) return false;
  *out = c.text_at(i);
  return true;
}

void read_chunk_row(const void* column, std::int64_t row, RaggedRow* out) {
  const ChunkColumn& c = *static_cast<const ChunkColumn*>(column);
  const std::int64_t a = c.row_splits[static_cast<std::size_t>(row)];
  out->type = c.type;
  out->begin = a;
  out->count = c.row_splits[static_cast<std::size_t>(row) + 1] - a;
  out->doubles = c.doubles.data();
  out->ints = c.ints.data();
  out->strings = &c;
}

}  // namespace

void ChunkColumn::clear() {
  doubles.clear();
  ints.clear();
  text.clear();
  offsets.assign(1, 0);
  present.clear();
  row_splits.assign(1, 0);
}

void Chunk::clear() {
  n = 0;
  for (auto& c : columns) c.clear();
}

const ChunkColumn* Chunk::find(const std::string& key) const {
  for (const auto& c : columns)
    if (c.key == key) return &c;
  return nullptr;
}

ColumnView Chunk::view(const ChunkColumn& c) const {
  ColumnView v;
  v.key = c.key;
  v.type = c.type;
  v.n = n;
  v.width = c.width;
  if (c.type == ColumnType::Double) v.doubles = c.doubles.data();
  if (c.type == ColumnType::Integer || c.type == ColumnType::Logical) v.ints = c.ints.data();
  if (c.type == ColumnType::String) {
    v.strings = &c;
    v.read_string = &read_chunk_string;
  }
  if (c.ragged) {
    v.ragged = &c;
    v.read_row = &read_chunk_row;
  }
  return v;
}

}  // namespace cppestimators
