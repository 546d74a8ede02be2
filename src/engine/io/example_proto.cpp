#include <cppestimators/io/example_proto.h>

namespace cppestimators {

const char* feature_kind_name(FeatureKind k) {
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

void ExampleEncoder::begin() { features_.clear(); }

void ExampleEncoder::begin_feature(std::string_view key, FeatureKind kind) {
  key_ = key;
  kind_ = kind;
  values_.clear();
}

void ExampleEncoder::end_feature() {
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

const std::string& ExampleEncoder::finish() {
  using namespace event_detail;
  example_.clear();
  put_varint(example_, tag_key(1, kLengthDelimited));
  put_varint(example_, features_.size());
  example_.append(features_);
  return example_;
}

}  // namespace cppestimators
