#include <cppestimators/data/example_reader.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <cppestimators/io/crc32c.h>
#include <cppestimators/io/little_endian.h>
#include <cppestimators/io/tfrecord.h>

namespace cppestimators {

ExampleReader::ExampleReader(std::vector<std::string> files, std::vector<FeatureSpec> spec)
    : files_(std::move(files)), parser_(std::move(spec)) {}

std::int64_t ExampleReader::read(Chunk& out, std::int64_t max_records) {
  parser_.start(out);
  while (out.n < max_records && next_record()) {
    const auto* p = reinterpret_cast<const unsigned char*>(payload_.data());
    parser_.parse(p, payload_.size(), out, place_);
  }
  parser_.finish(out);
  return out.n;
}

void ExampleReader::rewind() {
  file_.reset();
  next_file_ = 0;
}

void ExampleReader::FileCloser::operator()(std::FILE* f) const {
  if (f != nullptr) std::fclose(f);
}

bool ExampleReader::next_record() {
  for (;;) {
    if (!file_) {
      if (next_file_ >= files_.size()) return false;
      path_ = files_[next_file_++];
      file_.reset(std::fopen(path_.c_str(), "rb"));
      if (!file_) throw std::runtime_error(path_ + ": cannot open: " + std::strerror(errno));
      offset_ = 0;
      index_ = 0;
    }
    unsigned char header[12];
    const std::size_t got = std::fread(header, 1, 12, file_.get());
    if (got == 0 && std::feof(file_.get())) {
      file_.reset();
      continue;
    }
    if (got < 12) fail("truncated record");
    if (unmask_crc(detail::load_u32(header + 8)) != crc32c(header, 8)) fail("bad length CRC");
    const std::uint64_t len = detail::load_u64(header);
    if (len > (std::uint64_t{1} << 40)) fail("truncated record");
    payload_.resize(static_cast<std::size_t>(len));
    if (len > 0 && std::fread(&payload_[0], 1, payload_.size(), file_.get()) != payload_.size())
      fail("truncated record");
    unsigned char footer[4];
    if (std::fread(footer, 1, 4, file_.get()) != 4) fail("truncated record");
    if (unmask_crc(detail::load_u32(footer)) != crc32c(payload_.data(), payload_.size()))
      fail("bad record CRC");
    place_.path = &path_;
    place_.index = ++index_;
    place_.offset = offset_;
    offset_ += 12 + payload_.size() + 4;
    return true;
  }
}

void ExampleReader::fail(const char* what) {
  if (std::ferror(file_.get()))
    throw std::runtime_error(path_ + ": read error: " + std::strerror(errno));
  throw event_detail::record_error(path_, what, offset_);
}

}  // namespace cppestimators
