// The file sources of streaming datasets as RowStreams: delimited text
// (data/csv_reader.h) and TFRecord files of tf.train.Example records
// (io/example_reader.h).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../io/example_reader.h"
#include "csv_reader.h"
#include "row_stream.h"

namespace cppestimators {

// `names`: the chunk's column names (the record spec's, which may differ
// from a header's); empty: as the reader names them.
class CsvStream : public RowStream {
 public:
  CsvStream(std::unique_ptr<CsvReader> reader, std::vector<std::string> names)
      : reader_(std::move(reader)), names_(std::move(names)) {}
  std::int64_t read(Chunk& out, std::int64_t max_rows) override {
    reader_->next(out, max_rows);
    if (names_.size() == out.columns.size())
      for (std::size_t j = 0; j < names_.size(); ++j) out.columns[j].key = names_[j];
    return out.n;
  }
  void rewind() override { reader_->rewind(); }

 private:
  std::unique_ptr<CsvReader> reader_;
  std::vector<std::string> names_;
};

class ExampleStream : public RowStream {
 public:
  explicit ExampleStream(std::unique_ptr<ExampleReader> reader) : reader_(std::move(reader)) {}
  std::int64_t read(Chunk& out, std::int64_t max_rows) override {
    return reader_->read(out, max_rows);
  }
  void rewind() override { reader_->rewind(); }

 private:
  std::unique_ptr<ExampleReader> reader_;
};

}  // namespace cppestimators
