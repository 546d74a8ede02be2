// Decoding tf.train.Example records (example_proto.h) with a parse spec, as
// TF's parse_example: a fixed-length feature (FixedLenFeature: `width`
// values per record, the default when a record lacks it, an error without
// one) or a variable-length one (VarLenFeature: any number of values per
// record, ragged in the chunk). Features the spec does not name are skipped.
// Repeated numbers are read packed (as TF writes them) or unpacked. Of a key
// given twice in a record, the last one counts (protobuf's map semantics).
//
// Chunk columns (data/chunk.h): float_list -> Double, int64_list -> Integer
// (an error outside R's integers), bytes_list -> String. A fixed feature of
// width > 1 is gathered row by row and laid out column-major by finish().
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "chunk.h"
#include "../io/example_proto.h"
#include "../io/protobuf_wire.h"

namespace cppestimators {

struct FeatureSpec {
  std::string key;
  FeatureKind kind = FeatureKind::Float;
  bool var_len = false;
  int width = 1;  // fixed-length: values per record
  bool has_default = false;
  // The default's `width` values (fixed-length, has_default), by kind.
  std::vector<double> default_floats;
  std::vector<std::int64_t> default_ints;
  std::vector<std::string> default_bytes;
};

// Where a record is, for errors: "<path>: <what> (record <index>, at offset <offset>)".
struct RecordPlace {
  const std::string* path = nullptr;
  std::int64_t index = 0;  // 1-based, in its file
  std::size_t offset = 0;
};

std::runtime_error example_error(const RecordPlace& at, const std::string& what);

class ExampleParser {
 public:
  explicit ExampleParser(std::vector<FeatureSpec> spec);
  const std::vector<FeatureSpec>& spec() const { return spec_; }

  // Empties `out` and shapes its columns after the spec (allocating only the
  // first time).
  void start(Chunk& out) const;

  // Appends the record (a serialized Example) as row out.n.
  void parse(const unsigned char* p, std::size_t n, Chunk& out, const RecordPlace& at);

  // Lays out the fixed-length features of width > 1 column-major.
  void finish(Chunk& out);

 private:
  struct Span {
    const unsigned char* p = nullptr;
    const unsigned char* end = nullptr;
    bool seen = false;
  };

  void read_features(event_detail::WireReader& features, const RecordPlace& at);

  // The list of a Feature: its kind and payload; kind 0 for a Feature with none set.
  static int feature_list(const Span& span, event_detail::WireReader& list, const RecordPlace& at,
                          const std::string& key);

  static int to_int(std::int64_t v, const RecordPlace& at, const std::string& key);

  // Appends the values of a list of `kind` to `c`; returns how many.
  static std::int64_t append_values(event_detail::WireReader list, FeatureKind kind, ChunkColumn& c,
                                    const RecordPlace& at, const std::string& key);

  void append(std::size_t f, ChunkColumn& c, const RecordPlace& at);

  std::vector<FeatureSpec> spec_;
  std::vector<Span> found_;
  ChunkColumn scratch_;
};

}  // namespace cppestimators
