// Streams tf.train.Example records from TFRecord files (tfrecord.h framing),
// in order, into chunks of at most `max_records` rows (example_parse.h). A
// record is read into one reused buffer, so a steady stream allocates nothing
// once the buffers have grown. Both CRCs are checked; errors name the file
// and the record's offset ("<path>: bad record CRC at offset 120").
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "example_parse.h"

namespace cppestimators {

class ExampleReader {
 public:
  ExampleReader(std::vector<std::string> files, std::vector<FeatureSpec> spec);

  const std::vector<FeatureSpec>& spec() const { return parser_.spec(); }

  // Refills `out` with the next records, at most max_records; returns the
  // number read (0 at the end of the last file).
  std::int64_t read(Chunk& out, std::int64_t max_records);

  // Back to the first record of the first file.
  void rewind();

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const;
  };

  // Reads the next record of the files into payload_; false after the last.
  bool next_record();

  [[noreturn]] void fail(const char* what);

  std::vector<std::string> files_;
  ExampleParser parser_;
  std::size_t next_file_ = 0;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::string path_;
  std::size_t offset_ = 0;
  std::int64_t index_ = 0;
  RecordPlace place_;
  std::string payload_;
};

}  // namespace cppestimators
