// tf.train.Example records (tensorflow/core/example/{example,feature}.proto):
//   Example  { Features features = 1; }
//   Features { map<string, Feature> feature = 1; }  -- entries: key = 1, value = 2
//   Feature  { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
//                           Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }
//   FloatList { repeated float value = 1 [packed = true]; }
//   Int64List { repeated int64 value = 1 [packed = true]; }
// ExampleEncoder writes one Example at a time into a reused buffer, with the
// packed encoding TF writes; the parser (example_parse.h) reads packed and
// unpacked repeated fields alike.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "little_endian.h"
#include "protobuf_wire.h"

namespace cppestimators {

enum class FeatureKind { Bytes = 1, Float = 2, Int64 = 3 };

const char* feature_kind_name(FeatureKind k);

// Builds one Example: begin(), then for each feature begin_feature(), its
// values, end_feature(); finish() returns the serialized Example. The
// buffers keep their capacity from one example to the next.
class ExampleEncoder {
 public:
  void begin();
  void begin_feature(std::string_view key, FeatureKind kind);
  // The add_*() stay inline: called per value of every record written.
  void add_float(float v) { detail::put_u32(values_, detail::float_bits(v)); }
  void add_int64(std::int64_t v) {
    event_detail::put_varint(values_, static_cast<std::uint64_t>(v));
  }
  void add_bytes(std::string_view s) {
    using namespace event_detail;
    put_varint(values_, tag_key(1, kLengthDelimited));
    put_varint(values_, s.size());
    values_.append(s.data(), s.size());
  }
  void end_feature();
  // Example { features = 1 }
  const std::string& finish();

 private:
  std::string_view key_;
  FeatureKind kind_ = FeatureKind::Float;
  std::string values_, list_, feature_, entry_, features_, example_;
};

}  // namespace cppestimators
