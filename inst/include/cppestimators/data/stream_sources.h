// The file sources of streaming datasets as RowStreams: delimited text
// (data/csv_reader.h) and TFRecord files of tf.train.Example records
// (data/example_reader.h).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "example_reader.h"
#include "chunk.h"
#include "csv_reader.h"
#include "row_stream.h"

namespace cppestimators {

// `names`: the chunk's column names (the record spec's, which may differ
// from a header's); empty: as the reader names them.
class CsvStream : public RowStream {
 public:
  CsvStream(std::unique_ptr<CsvReader> reader, std::vector<std::string> names);
  std::int64_t read(Chunk& out, std::int64_t max_rows) override;
  void rewind() override;

 private:
  std::unique_ptr<CsvReader> reader_;
  std::vector<std::string> names_;
};

class ExampleStream : public RowStream {
 public:
  explicit ExampleStream(std::unique_ptr<ExampleReader> reader);
  std::int64_t read(Chunk& out, std::int64_t max_rows) override;
  void rewind() override;

 private:
  std::unique_ptr<ExampleReader> reader_;
};

}  // namespace cppestimators
