// TFRecord framing, the container of event files. A file is a sequence of records, each
//   uint64 length (LE) | uint32 masked CRC-32C of the 8 length bytes (LE) | data |
//   uint32 masked CRC-32C of data (LE)
// (little_endian.h for the integers, crc32c.h for the CRC and its masking).
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "crc32c.h"
#include "little_endian.h"

namespace cppestimators {
namespace event_detail {

// Reserves the 12-byte record header at the end of `out`; returns its position.
std::size_t begin_record(std::string& out);

// Fills in the header reserved by begin_record() and appends the data CRC.
void end_record(std::string& out, std::size_t start);

// The error about the record at `offset` of `path`: "<path>: <what> at offset <offset>".
std::runtime_error record_error(const std::string& path, const char* what, std::size_t offset);

// Calls on_record(data, length, offset) for every record of `bytes` (the contents of `path`),
// in order, after checking its framing and both CRCs. Throws record_error() with
// "truncated record", "bad length CRC" or "bad record CRC" at the record's offset.
// With `truncated_tail`, a last record cut short by the end of the file (a
// crash or a full disk while it was written, or a record still being
// written) ends the walk instead: its offset goes to *truncated_tail (npos
// when the file is whole). `base` is the offset of bytes[0] in the file
// (when reading a file's tail): offsets in errors, in on_record's calls and
// in *truncated_tail are offsets in the file.
template <class OnRecord>
void for_each_record(const std::string& bytes, const std::string& path, OnRecord on_record,
                     std::size_t* truncated_tail = nullptr, std::size_t base = 0) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  std::size_t pos = 0;
  if (truncated_tail != nullptr) *truncated_tail = static_cast<std::size_t>(-1);
  const auto cut_short = [&](std::size_t at) {
    if (truncated_tail == nullptr) throw record_error(path, "truncated record", base + at);
    *truncated_tail = base + at;
  };
  while (pos < size) {
    if (size - pos < 12) return cut_short(pos);
    const std::uint64_t len = detail::load_u64(data + pos);
    if (unmask_crc(detail::load_u32(data + pos + 8)) != crc32c(data + pos, 8))
      throw record_error(path, "bad length CRC", base + pos);
    if (len > size - pos - 12 || size - pos - 12 - len < 4) return cut_short(pos);
    const unsigned char* payload = data + pos + 12;
    const std::size_t payload_len = static_cast<std::size_t>(len);
    if (unmask_crc(detail::load_u32(payload + payload_len)) != crc32c(payload, payload_len))
      throw record_error(path, "bad record CRC", base + pos);
    on_record(payload, payload_len, base + pos);
    pos += 12 + payload_len + 4;
  }
}

}  // namespace event_detail

// `data` wrapped in TFRecord framing (length, masked length CRC, data, masked data CRC).
std::string frame_record(const std::string& data);

}  // namespace cppestimators
