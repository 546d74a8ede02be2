#include <cppestimators/io/tfrecord.h>

namespace cppestimators {
namespace event_detail {

std::size_t begin_record(std::string& out) {
  const std::size_t start = out.size();
  out.append(12, '\0');
  return start;
}

void end_record(std::string& out, std::size_t start) {
  const std::size_t data_start = start + 12;
  const std::uint64_t len = out.size() - data_start;
  char* header = &out[start];
  detail::store_u64(header, len);
  detail::store_u32(header + 8, mask_crc(crc32c(header, 8)));
  const std::uint32_t data_crc = mask_crc(crc32c(out.data() + data_start, len));
  detail::put_u32(out, data_crc);
}

std::runtime_error record_error(const std::string& path, const char* what, std::size_t offset) {
  return std::runtime_error(path + ": " + what + " at offset " + std::to_string(offset));
}

}  // namespace event_detail

std::string frame_record(const std::string& data) {
  std::string out;
  out.reserve(data.size() + 16);
  const std::size_t start = event_detail::begin_record(out);
  out.append(data);
  event_detail::end_record(out, start);
  return out;
}

}  // namespace cppestimators
