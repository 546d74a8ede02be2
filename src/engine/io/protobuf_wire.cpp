#include <cppestimators/io/protobuf_wire.h>

namespace cppestimators {
namespace event_detail {

void put_string_field(std::string& out, int field, const std::string& s) {
  put_varint(out, tag_key(field, kLengthDelimited));
  put_varint(out, s.size());
  out.append(s);
}

bool WireReader::string(std::string& s) {
  WireReader sub(nullptr, nullptr);
  if (!bytes(sub)) return false;
  s.assign(reinterpret_cast<const char*>(sub.p_), static_cast<std::size_t>(sub.end_ - sub.p_));
  return true;
}

bool WireReader::skip(int field, int wire, int depth) {
  std::uint64_t u64;
  std::uint32_t u32;
  WireReader sub(nullptr, nullptr);
  switch (wire) {
    case kVarint:
      return varint(u64);
    case kFixed64:
      return fixed64(u64);
    case kLengthDelimited:
      return bytes(sub);
    case kFixed32:
      return fixed32(u32);
    case kStartGroup: {
      if (depth > 64) return false;
      for (;;) {
        int f, w;
        if (!key(f, w)) return false;
        if (w == kEndGroup) return f == field;
        if (!skip(f, w, depth + 1)) return false;
      }
    }
    default:
      return false;  // unmatched end group or wire types 6, 7
  }
}

}  // namespace event_detail
}  // namespace cppestimators
