// Streams tf.train.Example records from TFRecord files (tfrecord.h framing),
// in order, into chunks of at most `max_records` rows (example_parse.h). A
// record is read into one reused buffer, so a steady stream allocates nothing
// once the buffers have grown. Both CRCs are checked; errors name the file
// and the record's offset ("<path>: bad record CRC at offset 120").
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "crc32c.h"
#include "example_parse.h"
#include "little_endian.h"
#include "tfrecord.h"

namespace cppestimators {

class ExampleReader {
 public:
  ExampleReader(std::vector<std::string> files, std::vector<FeatureSpec> spec)
      : files_(std::move(files)), parser_(std::move(spec)) {}

  const std::vector<FeatureSpec>& spec() const { return parser_.spec(); }

  // Refills `out` with the next records, at most max_records; returns the
  // number read (0 at the end of the last file).
  std::int64_t read(Chunk& out, std::int64_t max_records) {
    parser_.start(out);
    while (out.n < max_records && next_record()) {
      const auto* p = reinterpret_cast<const unsigned char*>(payload_.data());
      parser_.parse(p, payload_.size(), out, place_);
    }
    parser_.finish(out);
    return out.n;
  }

  // Back to the first record of the first file.
  void rewind() {
    file_.reset();
    next_file_ = 0;
  }

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const {
      if (f != nullptr) std::fclose(f);
    }
  };

  // Reads the next record of the files into payload_; false after the last.
  bool next_record() {
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

  [[noreturn]] void fail(const char* what) {
    if (std::ferror(file_.get()))
      throw std::runtime_error(path_ + ": read error: " + std::strerror(errno));
    throw event_detail::record_error(path_, what, offset_);
  }

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
