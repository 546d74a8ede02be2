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

#include "protobuf_wire.h"

namespace cppestimators {

enum class FeatureKind { Bytes = 1, Float = 2, Int64 = 3 };

inline const char* feature_kind_name(FeatureKind k) {
  switch (k) {
    case FeatureKind::Bytes:
      return "bytes_list";
    case FeatureKind::Float:
      return "float_list";
    case FeatureKind::Int64:
      return "int64_list";
  }
  return "";
}

// Builds one Example: begin(), then for each feature begin_feature(), its
// values, end_feature(); finish() returns the serialized Example. The
// buffers keep their capacity from one example to the next.
class ExampleEncoder {
 public:
  void begin() { features_.clear(); }
  void begin_feature(std::string_view key, FeatureKind kind) {
    key_ = key;
    kind_ = kind;
    values_.clear();
  }
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
  void end_feature() {
    using namespace event_detail;
    // The list: packed numbers (one length-delimited field 1), or the bytes
    // fields as they are. No field at all for an empty list (as protobuf).
    list_.clear();
    if (!values_.empty()) {
      if (kind_ == FeatureKind::Bytes) {
        list_ = values_;
      } else {
        put_varint(list_, tag_key(1, kLengthDelimited));
        put_varint(list_, values_.size());
        list_.append(values_);
      }
    }
    // Feature { <kind> = list }
    feature_.clear();
    put_varint(feature_, tag_key(static_cast<int>(kind_), kLengthDelimited));
    put_varint(feature_, list_.size());
    feature_.append(list_);
    // map entry { key = 1; value = 2 }
    entry_.clear();
    put_varint(entry_, tag_key(1, kLengthDelimited));
    put_varint(entry_, key_.size());
    entry_.append(key_.data(), key_.size());
    put_varint(entry_, tag_key(2, kLengthDelimited));
    put_varint(entry_, feature_.size());
    entry_.append(feature_);
    // Features { feature = entry }
    put_varint(features_, tag_key(1, kLengthDelimited));
    put_varint(features_, entry_.size());
    features_.append(entry_);
  }
  // Example { features = 1 }
  const std::string& finish() {
    using namespace event_detail;
    example_.clear();
    put_varint(example_, tag_key(1, kLengthDelimited));
    put_varint(example_, features_.size());
    example_.append(features_);
    return example_;
  }

 private:
  std::string_view key_;
  FeatureKind kind_ = FeatureKind::Float;
  std::string values_, list_, feature_, entry_, features_, example_;
};

}  // namespace cppestimators
