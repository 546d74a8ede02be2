#include <cppestimators/data/stream_sources.h>

#include <cstddef>
#include <utility>

namespace cppestimators {

CsvStream::CsvStream(std::unique_ptr<CsvReader> reader, std::vector<std::string> names)
    : reader_(std::move(reader)), names_(std::move(names)) {}

std::int64_t CsvStream::read(Chunk& out, std::int64_t max_rows) {
  reader_->next(out, max_rows);
  if (names_.size() == out.columns.size())
    for (std::size_t j = 0; j < names_.size(); ++j) out.columns[j].key = names_[j];
  return out.n;
}

void CsvStream::rewind() { reader_->rewind(); }

ExampleStream::ExampleStream(std::unique_ptr<ExampleReader> reader) : reader_(std::move(reader)) {}

std::int64_t ExampleStream::read(Chunk& out, std::int64_t max_rows) {
  return reader_->read(out, max_rows);
}

void ExampleStream::rewind() { reader_->rewind(); }

}  // namespace cppestimators
