#include <cppestimators/io/event_file.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include <cppestimators/io/atomic_file.h>
#include <cppestimators/io/protobuf_wire.h>
#include <cppestimators/io/tfrecord.h>

namespace cppestimators {

EventWriter::EventWriter(const std::string& dir, const std::string& hostname, double wall_time)
    : last_flush_(wall_time) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(dir), ec);
  if (ec) throw std::runtime_error(dir + ": cannot create directory: " + ec.message());

  std::string host = hostname;
  for (char& c : host)
    if (c == '/' || c == '\\') c = '_';
  const double secs = std::floor(wall_time);
  const long long stamp = std::fabs(secs) < 9e18 ? static_cast<long long>(secs) : 0;  // NaN: 0
  const fs::path base =
      fs::path(dir) / ("events.out.tfevents." + std::to_string(stamp) + "." + host);
  fs::path candidate = base;
  for (int n = 1; fs::exists(candidate, ec) || ec; ++n) {
    if (ec) throw std::runtime_error(candidate.string() + ": " + ec.message());
    candidate = base;
    candidate += "." + std::to_string(n);
  }
  path_ = candidate.string();
  errno = 0;
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_)
    throw std::runtime_error(path_ + ": cannot open event file for writing" + os_reason(errno));

  try {
    buffer_.reserve(kInitialBuffer);
    const std::size_t start = event_detail::begin_record(buffer_);
    event_detail::append_file_version_event(buffer_, wall_time);
    event_detail::end_record(buffer_, start);
    ++records_;
    flush();
  } catch (...) {
    std::fclose(file_);
    throw;
  }
}

EventWriter::~EventWriter() {
  try {
    flush();
  } catch (...) {
  }
  std::fclose(file_);
}

void EventWriter::add_scalars(std::int64_t step,
                              const std::vector<std::pair<std::string, float>>& values,
                              double wall_time) {
  if (values.empty()) return;
  const std::size_t start = event_detail::begin_record(buffer_);
  event_detail::append_scalar_event(buffer_, wall_time, step, values);
  event_detail::end_record(buffer_, start);
  ++records_;
}

void EventWriter::add_scalar(std::int64_t step, const std::string& tag, float value,
                             double wall_time) {
  scratch_.resize(1);
  scratch_[0].first = tag;  // reuses the string's capacity
  scratch_[0].second = value;
  add_scalars(step, scratch_, wall_time);
}

void EventWriter::flush() {
  if (buffer_.empty()) return;
  const std::size_t size = buffer_.size();
  errno = 0;
  const bool ok = std::fwrite(buffer_.data(), 1, size, file_) == size;
  int err = errno;
  buffer_.clear();  // keeps the capacity
  if (ok && std::fflush(file_) == 0) return;
  if (err == 0) err = errno;
  std::clearerr(file_);
  throw std::runtime_error(path_ + ": write error" + os_reason(err));
}

bool EventWriter::flush_if_due(double now, double every_secs) {
  if (now - last_flush_ < every_secs) {
    if (now < last_flush_) last_flush_ = now;
    return false;
  }
  last_flush_ = now;
  flush();
  return true;
}

std::string EventWriter::os_reason(int err) {
  return err != 0 ? ": " + detail::errno_string(err) : std::string();
}

std::vector<ScalarEvent> read_scalar_events(const std::string& path, std::size_t* truncated_tail) {
  std::string bytes;
  int err = 0;
  const detail::ReadResult r = detail::read_whole_file(path, &bytes, &err);
  if (r == detail::ReadResult::cannot_open)
    throw std::runtime_error(path + ": cannot open event file: " + detail::errno_string(err));
  if (r == detail::ReadResult::read_error)
    throw std::runtime_error(path + ": read error: " + detail::errno_string(err));
  std::vector<ScalarEvent> out;
  event_detail::for_each_record(
      bytes, path,
      [&](const unsigned char* data, std::size_t size, std::size_t offset) {
        if (!event_detail::parse_event(event_detail::WireReader(data, data + size), out))
          throw event_detail::record_error(path, "malformed Event", offset);
      },
      truncated_tail);
  return out;
}

EventTail read_scalar_events_from(const std::string& path, std::size_t offset) {
  EventTail out;
  out.end = offset;
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw std::runtime_error(path + ": cannot open event file: " + detail::errno_string(errno));
  std::string bytes;
  bool failed = false;
  if (offset > 0) {
    // Seek in steps a long can hold (long is 32 bits on some platforms).
    std::size_t left = offset;
    std::fseek(f, 0, SEEK_SET);
    while (left > 0 && !failed) {
      const long step = static_cast<long>(left < (1ul << 30) ? left : (1ul << 30));
      failed = std::fseek(f, step, SEEK_CUR) != 0;
      left -= static_cast<std::size_t>(step);
    }
  }
  if (!failed) {
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    failed = std::ferror(f) != 0;
  }
  const int err = errno;
  std::fclose(f);
  if (failed)
    throw std::runtime_error(path + ": read error: " + detail::errno_string(err ? err : EIO));
  std::size_t tail = 0;
  std::size_t end = offset;
  event_detail::for_each_record(
      bytes, path,
      [&](const unsigned char* data, std::size_t size, std::size_t at) {
        if (!event_detail::parse_event(event_detail::WireReader(data, data + size), out.events))
          throw event_detail::record_error(path, "malformed Event", at);
        ++out.records;
        end = at + 12 + size + 4;
      },
      &tail, offset);
  out.end = end;
  return out;
}

}  // namespace cppestimators
