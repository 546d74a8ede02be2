// Checkpoints: our own binary checkpoint file format, TensorFlow's text index
// file "<dir>/checkpoint", crash-safe (atomic) file writes and a manager that
// rotates old checkpoints.
//
// Checkpoint file format, version 1
// ---------------------------------
// A checkpoint file ("<dir>/<prefix>.ckpt") is a payload followed by a
// trailer. All integers are little-endian and are written byte by byte, so
// files are portable between hosts; floats are IEEE 754 binary32 stored as
// the little-endian bytes of their bit pattern.
//
//   offset  size  field
//   ------  ----  -----------------------------------------------------------
//        0     8  magic, the ASCII bytes "CPPESTCK"
//        8     4  uint32 format version (1)
//       12     4  uint32 header flags (0; no flags are defined in version 1)
//       16     8  int64  global step
//       24     4  uint32 tensor count T
//       28        T tensor records, each:
//                   4  uint32 name length K
//                   K  name bytes (UTF-8, not NUL-terminated)
//                   4  uint32 rank R (0 for a scalar)
//                 8*R  int64 dims[R] (each >= 0)
//                   8  uint64 element count C (the product of dims; 1 if R = 0)
//                 4*C  float32 data, row-major (last dim varies fastest)
//        L     8  trailer: uint64 payload length L (bytes from the start of the
//                 file up to the trailer, i.e. the offset of this field)
//      L+8     4  trailer: uint32 CRC-32C (Castagnoli) of bytes [0, L)
//
// The file size is exactly L + 12. Readers check, in this order: the magic,
// the version, the trailer (payload length and CRC-32C), then the structure
// of the payload; every length is checked against the bytes that remain
// before anything is allocated.
//
// Index file
// ----------
// "<dir>/checkpoint" is TensorFlow's CheckpointState in protobuf text format,
// listing checkpoint prefixes (paths without extension, relative to <dir>):
//
//   model_checkpoint_path: "model.ckpt-1000"
//   all_model_checkpoint_paths: "model.ckpt-600"
//   all_model_checkpoint_paths: "model.ckpt-800"
//   all_model_checkpoint_paths: "model.ckpt-1000"
//
// model_checkpoint_path is the latest checkpoint; all_model_checkpoint_paths
// are the retained ones, oldest first. The reader also accepts TensorFlow's
// timestamp fields (ignored), comments, extra whitespace and single quotes.
//
// Crash safety: every file is written to "<path>.tmp-<pid>-<random>-<n>",
// flushed and fsync'ed, then renamed over <path>, and the directory is
// fsync'ed (POSIX). A crash leaves either the old or the new file, never a
// half-written one; the index is only updated after the checkpoint file is in
// place, and rotated checkpoints are deleted only after the index has dropped
// them.
#pragma once
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#else
#include <io.h>
#include <process.h>
#endif

#include "crc32c.h"

namespace cppestimators {

struct TensorRecord {
  std::string name;
  std::vector<std::int64_t> shape;  // empty for a scalar
  std::vector<float> data;          // row-major; size == product of shape
};

struct CheckpointData {
  std::int64_t global_step = 0;
  std::vector<TensorRecord> tensors;
};

struct CheckpointState {
  std::string model_checkpoint_path;                    // latest prefix
  std::vector<std::string> all_model_checkpoint_paths;  // retained prefixes, oldest first
};

namespace detail {

static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == 4,
              "checkpoints store IEEE 754 binary32 floats");

inline constexpr char kCkptMagic[8] = {'C', 'P', 'P', 'E', 'S', 'T', 'C', 'K'};
inline constexpr std::uint32_t kCkptVersion = 1;
inline constexpr std::size_t kCkptHeaderBytes = 28;   // magic, version, flags, step, tensor count
inline constexpr std::size_t kCkptTrailerBytes = 12;  // payload length, CRC-32C
inline constexpr std::size_t kCkptMinBytes = kCkptHeaderBytes + kCkptTrailerBytes;

// --- little-endian encoding, byte by byte ------------------------------------

inline void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
}
inline void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
}
inline void put_i64(std::string& out, std::int64_t v) {
  put_u64(out, static_cast<std::uint64_t>(v));
}
inline void put_f32(std::string& out, float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  put_u32(out, bits);
}

inline std::uint32_t get_u32(const std::string& b, std::size_t pos) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t(static_cast<unsigned char>(b[pos + i])) << (8 * i);
  return v;
}
inline std::uint64_t get_u64(const std::string& b, std::size_t pos) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(b[pos + i])) << (8 * i);
  return v;
}
inline std::int64_t get_i64(const std::string& b, std::size_t pos) {
  const std::uint64_t u = get_u64(b, pos);
  std::int64_t v;
  std::memcpy(&v, &u, 8);  // two's complement, without implementation-defined casts
  return v;
}
inline float get_f32(const std::string& b, std::size_t pos) {
  const std::uint32_t bits = get_u32(b, pos);
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

inline std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// The number of elements of `shape` (1 for a scalar). Returns false if a
// dimension is negative or the product overflows (unless a dimension is 0).
inline bool shape_elements(const std::vector<std::int64_t>& shape, std::uint64_t* n) {
  *n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) return false;
    if (d == 0) {
      *n = 0;
      return true;
    }
  }
  for (std::int64_t d : shape) {
    const std::uint64_t ud = static_cast<std::uint64_t>(d);
    if (*n > std::numeric_limits<std::uint64_t>::max() / ud) return false;
    *n *= ud;
  }
  return true;
}

// Walks the tensor records of b[0, limit) without allocating. Returns the
// offset where the payload ends; if the records run past `limit`, returns a
// lower bound on that offset and sets *complete to false.
inline std::uint64_t scan_checkpoint_payload(const std::string& b, std::size_t limit,
                                             bool* complete) {
  *complete = false;
  if (limit < kCkptHeaderBytes) return kCkptHeaderBytes;
  const std::uint32_t count = get_u32(b, 24);
  std::uint64_t pos = kCkptHeaderBytes;
  // Each step needs `n` more bytes; a shortfall ends the walk.
  auto fits = [&](std::uint64_t n) { return n <= limit - pos; };
  for (std::uint32_t t = 0; t < count; ++t) {
    if (!fits(4)) return pos + 4;
    const std::uint32_t name_len = get_u32(b, pos);
    pos += 4;
    if (!fits(name_len)) return pos + name_len;
    pos += name_len;
    if (!fits(4)) return pos + 4;
    const std::uint64_t rank = get_u32(b, pos);
    pos += 4;
    if (!fits(rank * 8)) return pos + rank * 8;
    pos += rank * 8;
    if (!fits(8)) return pos + 8;
    const std::uint64_t n = get_u64(b, pos);
    pos += 8;
    if (n > (limit - pos) / 4) {
      const std::uint64_t room = std::numeric_limits<std::uint64_t>::max() - pos;
      return n > room / 4 ? std::numeric_limits<std::uint64_t>::max() : pos + n * 4;
    }
    pos += n * 4;
  }
  *complete = true;
  return pos;
}

// --- file helpers --------------------------------------------------------------

inline std::string errno_string(int err) { return std::strerror(err); }

inline long process_id() {
#ifndef _WIN32
  return static_cast<long>(::getpid());
#else
  return static_cast<long>(::_getpid());
#endif
}

// A suffix that is unique per process and call: ".tmp-<pid>-<random>-<n>".
inline std::string temp_suffix() {
  static std::atomic<unsigned long> counter{0};
  static const unsigned long salt = [] {
    unsigned long s =
        static_cast<unsigned long>(std::chrono::steady_clock::now().time_since_epoch().count());
    try {
      s ^= std::random_device{}();
    } catch (...) {
      // no entropy source: the clock and the pid still make the name unique
    }
    return s & 0xFFFFFFFFul;
  }();
  char buf[64];
  std::snprintf(buf, sizeof buf, ".tmp-%ld-%08lx-%lu", process_id(), salt, counter++);
  return buf;
}

// fsync() on POSIX, _commit() on Windows.
inline int sync_fd(int fd) {
#ifndef _WIN32
  return ::fsync(fd);
#else
  return ::_commit(fd);
#endif
}

// Makes a rename in `dir` durable (POSIX; a no-op on Windows). Best effort:
// directories that cannot be opened or synced (some file systems) are skipped.
inline void sync_directory(const std::filesystem::path& dir) {
#ifndef _WIN32
  const std::string d = dir.empty() ? std::string(".") : dir.string();
  int flags = O_RDONLY;
#ifdef O_DIRECTORY
  flags |= O_DIRECTORY;
#endif
  const int fd = ::open(d.c_str(), flags);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
#else
  (void)dir;
#endif
}

// Reads a whole file. Returns false (with *err = errno) if it cannot be opened.
inline bool read_whole_file(const std::string& path, std::string* out, int* err) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *err = errno;
    return false;
  }
  out->clear();
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int read_err = errno;
  std::fclose(f);
  if (failed) {
    throw std::runtime_error(path + ": read error: " + errno_string(read_err ? read_err : EIO));
  }
  return true;
}

}  // namespace detail

// --- checkpoint encoding ---------------------------------------------------------

// Serializes `ckpt` in the format documented at the top of this file. Throws
// std::invalid_argument if a tensor's shape does not match its data.
inline std::string encode_checkpoint(const CheckpointData& ckpt) {
  using namespace detail;
  constexpr std::uint64_t kU32Max = std::numeric_limits<std::uint32_t>::max();
  if (ckpt.tensors.size() > kU32Max) throw std::invalid_argument("checkpoint: too many tensors");
  std::size_t total = kCkptMinBytes;
  for (const TensorRecord& t : ckpt.tensors) {
    if (t.name.size() > kU32Max || t.shape.size() > kU32Max) {
      throw std::invalid_argument("checkpoint: tensor name or rank too large");
    }
    std::uint64_t n = 0;
    if (!shape_elements(t.shape, &n) || n != t.data.size()) {
      throw std::invalid_argument("checkpoint tensor '" + t.name + "': shape " +
                                  shape_string(t.shape) + " does not match " +
                                  std::to_string(t.data.size()) + " data values");
    }
    total += 4 + t.name.size() + 4 + 8 * t.shape.size() + 8 + 4 * t.data.size();
  }

  std::string out;
  out.reserve(total);
  out.append(kCkptMagic, 8);
  put_u32(out, kCkptVersion);
  put_u32(out, 0);  // flags
  put_i64(out, ckpt.global_step);
  put_u32(out, static_cast<std::uint32_t>(ckpt.tensors.size()));
  for (const TensorRecord& t : ckpt.tensors) {
    put_u32(out, static_cast<std::uint32_t>(t.name.size()));
    out += t.name;
    put_u32(out, static_cast<std::uint32_t>(t.shape.size()));
    for (std::int64_t d : t.shape) put_i64(out, d);
    put_u64(out, t.data.size());
    for (float v : t.data) put_f32(out, v);
  }
  const std::uint64_t payload = out.size();
  const std::uint32_t crc = crc32c(out.data(), out.size());
  put_u64(out, payload);
  put_u32(out, crc);
  return out;
}

// Parses a checkpoint; errors are std::runtime_error("<path_for_errors>: ...").
inline CheckpointData decode_checkpoint(const std::string& bytes,
                                        const std::string& path_for_errors) {
  using namespace detail;
  const std::string& b = bytes;
  const std::size_t size = b.size();
  auto fail = [&](const std::string& what) -> std::runtime_error {
    return std::runtime_error(path_for_errors + ": " + what);
  };
  auto truncated = [&](std::uint64_t expected, bool at_least) {
    return fail("truncated checkpoint (" + std::to_string(size) + " bytes, expected " +
                (at_least ? "at least " : "") + std::to_string(expected) + ")");
  };
  auto corrupt = [&](const std::string& why) {
    return fail("checkpoint is corrupt (" + why + ")");
  };

  // Magic and version.
  const std::size_t magic_len = size < 8 ? size : 8;
  if (std::memcmp(b.data(), kCkptMagic, magic_len) != 0) {
    throw fail("not a cppestimators checkpoint (bad magic)");
  }
  if (size < 12) throw truncated(kCkptMinBytes, true);
  const std::uint32_t version = get_u32(b, 8);
  if (version != kCkptVersion) {
    throw fail("unsupported checkpoint version " + std::to_string(version));
  }

  // Trailer. If its payload length does not match the file size, the file was
  // either cut short or has a damaged trailer; the records tell which.
  const std::uint64_t payload = size >= kCkptMinBytes ? get_u64(b, size - kCkptTrailerBytes) : 0;
  if (size < kCkptMinBytes || payload != size - kCkptTrailerBytes) {
    bool complete = false;
    const std::uint64_t end = scan_checkpoint_payload(b, size, &complete);
    const std::uint64_t expected =
        end > std::numeric_limits<std::uint64_t>::max() - kCkptTrailerBytes
            ? end
            : end + kCkptTrailerBytes;
    if (!complete || expected > size) throw truncated(expected, !complete);
    throw corrupt("bad trailer: payload length " + std::to_string(payload) + " in a file of " +
                  std::to_string(size) + " bytes");
  }
  if (crc32c(b.data(), payload) != get_u32(b, size - 4)) throw corrupt("CRC mismatch");

  // The payload is intact; still check every length before using it.
  const std::uint32_t flags = get_u32(b, 12);
  if (flags != 0) throw fail("unsupported checkpoint flags " + std::to_string(flags));
  CheckpointData out;
  out.global_step = get_i64(b, 16);
  const std::uint32_t count = get_u32(b, 24);
  std::size_t pos = kCkptHeaderBytes;
  const std::size_t end = payload;
  auto need = [&](std::uint64_t n, const char* what) {
    if (n > end - pos) throw corrupt(std::string(what) + " overruns the payload");
  };
  // Each record takes at least 16 bytes, which bounds the reservation.
  out.tensors.reserve(std::min<std::size_t>(count, (end - pos) / 16));
  for (std::uint32_t t = 0; t < count; ++t) {
    TensorRecord rec;
    need(4, "tensor name length");
    const std::uint32_t name_len = get_u32(b, pos);
    pos += 4;
    need(name_len, "tensor name");
    rec.name.assign(b, pos, name_len);
    pos += name_len;
    need(4, "tensor rank");
    const std::uint32_t rank = get_u32(b, pos);
    pos += 4;
    need(std::uint64_t(rank) * 8, "tensor shape");
    rec.shape.resize(rank);
    for (std::uint32_t i = 0; i < rank; ++i, pos += 8) rec.shape[i] = get_i64(b, pos);
    need(8, "tensor element count");
    const std::uint64_t n = get_u64(b, pos);
    pos += 8;
    if (n > (end - pos) / 4) throw corrupt("tensor '" + rec.name + "' data overruns the payload");
    std::uint64_t product = 0;
    if (!shape_elements(rec.shape, &product) || n != product) {
      throw corrupt("tensor '" + rec.name + "' has shape " + shape_string(rec.shape) + " but " +
                    std::to_string(n) + " elements");
    }
    rec.data.resize(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < rec.data.size(); ++i, pos += 4) rec.data[i] = get_f32(b, pos);
    out.tensors.push_back(std::move(rec));
  }
  if (pos != end) throw corrupt(std::to_string(end - pos) + " unexpected bytes after the tensors");
  return out;
}

// --- atomic writes -------------------------------------------------------------------

// Writes `bytes` to `path` so that a crash leaves either the old or the new
// content: write "<path>.tmp-...", fflush, fsync, close, rename over `path`,
// fsync the directory. On failure removes the temporary file and throws
// std::runtime_error naming `path`.
inline void write_file_atomic(const std::string& path, const std::string& bytes) {
  namespace fs = std::filesystem;
  const std::string tmp = path + detail::temp_suffix();
  errno = 0;
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    throw std::runtime_error(path + ": cannot write: cannot create temporary file " + tmp + ": " +
                             detail::errno_string(errno));
  }
  auto fail = [&](const std::string& what, int err) {
    if (f) std::fclose(f);
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot write: " + what +
                             (err ? ": " + detail::errno_string(err) : std::string()));
  };
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    fail("write failed", errno);
  }
  if (std::fflush(f) != 0) fail("flush failed", errno);
#ifndef _WIN32
  const int fd = ::fileno(f);
#else
  const int fd = ::_fileno(f);
#endif
  if (detail::sync_fd(fd) != 0) fail("fsync failed", errno);
  const int rc = std::fclose(f);
  f = nullptr;
  if (rc != 0) fail("close failed", errno);
  std::error_code ec;
  fs::rename(fs::path(tmp), fs::path(path), ec);
  if (ec) fail("cannot rename " + tmp + " over it: " + ec.message(), 0);
  detail::sync_directory(fs::path(path).parent_path());
}

inline void write_checkpoint_file(const std::string& path, const CheckpointData& ckpt) {
  write_file_atomic(path, encode_checkpoint(ckpt));
}

inline CheckpointData read_checkpoint_file(const std::string& path) {
  std::string bytes;
  int err = 0;
  if (!detail::read_whole_file(path, &bytes, &err)) {
    throw std::runtime_error(path + ": cannot open checkpoint: " + detail::errno_string(err));
  }
  return decode_checkpoint(bytes, path);
}

// --- the index file "<dir>/checkpoint" ------------------------------------------------

namespace detail {

inline std::string index_path(const std::string& dir) {
  return (std::filesystem::path(dir) / "checkpoint").string();
}

// "<dir>/<prefix>.ckpt" (an absolute prefix is kept as is).
inline std::string prefix_file(const std::string& dir, const std::string& prefix) {
  return (std::filesystem::path(dir) / (prefix + ".ckpt")).string();
}

// Quotes a string for protobuf text format (C escapes; UTF-8 is kept as is).
inline std::string text_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// A small parser for the CheckpointState text proto.
class IndexParser {
 public:
  IndexParser(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  CheckpointState parse() {
    CheckpointState st;
    bool have_model = false;
    for (skip_space(); i_ < s_.size(); skip_space()) {
      const auto field_line = line_;
      const std::string field = identifier();
      skip_space();
      if (i_ >= s_.size() || s_[i_] != ':') {
        line_ = field_line;  // report the line the field started on
        bad("expected ':' after '" + field + "'");
      }
      ++i_;
      skip_space();
      if (field == "model_checkpoint_path") {
        if (have_model) bad("model_checkpoint_path given twice");
        have_model = true;
        st.model_checkpoint_path = string_value();
      } else if (field == "all_model_checkpoint_paths") {
        st.all_model_checkpoint_paths.push_back(string_value());
      } else if (field == "all_model_checkpoint_timestamps" ||
                 field == "last_preserved_timestamp") {
        number_value();  // written by TensorFlow 2; not used here
      } else {
        bad("unknown field '" + field + "'");
      }
      skip_space();
      if (i_ < s_.size() && (s_[i_] == ',' || s_[i_] == ';')) ++i_;  // optional separators
    }
    if (!have_model) bad("missing model_checkpoint_path");
    return st;
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    throw std::runtime_error(file_ + ": malformed checkpoint index (line " + std::to_string(line_) +
                             ": " + what + ")");
  }
  // Skips whitespace (including CR) and '#' comments.
  void skip_space() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }
  static bool is_ident(char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
  }
  std::string identifier() {
    const std::size_t start = i_;
    while (i_ < s_.size() && is_ident(s_[i_], i_ == start)) ++i_;
    if (i_ == start) bad("expected a field name");
    return s_.substr(start, i_ - start);
  }
  void number_value() {
    const std::size_t start = i_;
    while (i_ < s_.size() &&
           (is_ident(s_[i_], false) || s_[i_] == '.' || s_[i_] == '+' || s_[i_] == '-')) {
      ++i_;
    }
    if (i_ == start) bad("expected a number");
  }
  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  // One or more adjacent quoted strings (concatenated), with C escapes.
  std::string string_value() {
    if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) bad("expected a quoted string");
    std::string out;
    while (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'')) {
      const char quote = s_[i_++];
      for (;;) {
        if (i_ >= s_.size() || s_[i_] == '\n') bad("unterminated string");
        const char c = s_[i_++];
        if (c == quote) break;
        if (c != '\\') {
          out += c;
          continue;
        }
        if (i_ >= s_.size()) bad("unterminated string");
        const char e = s_[i_++];
        switch (e) {
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'a':
            out += '\a';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'v':
            out += '\v';
            break;
          case '\\':
          case '\'':
          case '"':
          case '?':
            out += e;
            break;
          case 'x': {
            int v = 0, k = 0;
            for (; k < 2 && i_ < s_.size() && hex_digit(s_[i_]) >= 0; ++k) {
              v = v * 16 + hex_digit(s_[i_++]);
            }
            if (k == 0) bad("bad \\x escape");
            out += static_cast<char>(v);
            break;
          }
          default:
            if (e >= '0' && e <= '7') {
              int v = e - '0';
              for (int k = 1; k < 3 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7'; ++k) {
                v = v * 8 + (s_[i_++] - '0');
              }
              if (v > 255) bad("bad octal escape");
              out += static_cast<char>(v);
            } else {
              bad(std::string("unknown escape \\") + e);
            }
        }
      }
      skip_space();
    }
    return out;
  }

  const std::string& s_;
  const std::string& file_;
  std::size_t i_ = 0;
  int line_ = 1;
};

}  // namespace detail

// Reads "<dir>/checkpoint". Returns false if it does not exist; throws
// std::runtime_error naming the file if it cannot be read or is malformed.
inline bool read_checkpoint_state(const std::string& dir, CheckpointState* out) {
  if (!out) throw std::invalid_argument("read_checkpoint_state: `out` is null");
  const std::string file = detail::index_path(dir);
  std::string text;
  int err = 0;
  if (!detail::read_whole_file(file, &text, &err)) {
    if (err == ENOENT || err == ENOTDIR) return false;
    throw std::runtime_error(file + ": cannot open checkpoint index: " + detail::errno_string(err));
  }
  *out = detail::IndexParser(text, file).parse();
  return true;
}

// Writes "<dir>/checkpoint" atomically.
inline void write_checkpoint_state(const std::string& dir, const CheckpointState& st) {
  std::string text =
      "model_checkpoint_path: " + detail::text_quote(st.model_checkpoint_path) + "\n";
  for (const std::string& p : st.all_model_checkpoint_paths) {
    text += "all_model_checkpoint_paths: " + detail::text_quote(p) + "\n";
  }
  write_file_atomic(detail::index_path(dir), text);
}

// The latest checkpoint file of a model directory per its index: the file of
// model_checkpoint_path if it exists, else the newest retained file that
// exists, else "" (also when there is no index).
inline std::string latest_checkpoint(const std::string& dir) {
  namespace fs = std::filesystem;
  CheckpointState st;
  if (!read_checkpoint_state(dir, &st)) return "";
  std::error_code ec;
  if (!st.model_checkpoint_path.empty()) {
    const std::string f = detail::prefix_file(dir, st.model_checkpoint_path);
    if (fs::is_regular_file(f, ec)) return f;
  }
  const auto& all = st.all_model_checkpoint_paths;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const std::string f = detail::prefix_file(dir, *it);
    if (fs::is_regular_file(f, ec)) return f;
  }
  return "";
}

// --- the manager -------------------------------------------------------------------------

// Saves "<dir>/<basename>-<step>.ckpt" files, keeps the index up to date and
// deletes all but the newest `max_to_keep` checkpoints (0 keeps all). The
// index is re-read on every call, so a manager continues the list of a
// directory that already has one.
class CheckpointManager {
 public:
  explicit CheckpointManager(std::string dir, std::string basename = "model.ckpt",
                             int max_to_keep = 5)
      : dir_(std::move(dir)), basename_(std::move(basename)), max_to_keep_(max_to_keep) {
    if (dir_.empty()) throw std::invalid_argument("checkpoint directory must not be empty");
    if (basename_.empty()) throw std::invalid_argument("checkpoint basename must not be empty");
    if (max_to_keep_ < 0) throw std::invalid_argument("`max_to_keep` must be >= 0");
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (!std::filesystem::is_directory(dir_)) {
      throw std::runtime_error(dir_ + ": cannot create checkpoint directory" +
                               (ec ? ": " + ec.message() : std::string()));
    }
  }

  const std::string& dir() const { return dir_; }
  const std::string& basename() const { return basename_; }
  int max_to_keep() const { return max_to_keep_; }

  static std::string file_for_prefix(const std::string& dir, const std::string& prefix) {
    return detail::prefix_file(dir, prefix);
  }

  // Writes the checkpoint, then the index naming it as the latest, then
  // deletes the checkpoints that fell out of the index. Returns the file path.
  std::string save(const CheckpointData& ckpt) {
    const std::string prefix = basename_ + "-" + std::to_string(ckpt.global_step);
    const std::string file = file_for_prefix(dir_, prefix);
    write_checkpoint_file(file, ckpt);

    CheckpointState st;
    read_checkpoint_state(dir_, &st);
    // A re-saved step moves to the end instead of appearing twice.
    std::vector<std::string> kept;
    for (std::string& p : st.all_model_checkpoint_paths) {
      if (!same_file(p, prefix)) kept.push_back(std::move(p));
    }
    kept.push_back(prefix);
    std::vector<std::string> dropped;
    if (max_to_keep_ > 0 && kept.size() > static_cast<std::size_t>(max_to_keep_)) {
      const auto cut = kept.end() - max_to_keep_;
      dropped.assign(kept.begin(), cut);
      kept.erase(kept.begin(), cut);
    }
    st.model_checkpoint_path = prefix;
    st.all_model_checkpoint_paths = std::move(kept);
    write_checkpoint_state(dir_, st);

    for (const std::string& p : dropped) {
      bool listed = false;  // a hand-written index may list a file twice
      for (const std::string& k : st.all_model_checkpoint_paths) listed = listed || same_file(p, k);
      std::error_code ec;  // already gone is fine
      if (!listed) std::filesystem::remove(file_for_prefix(dir_, p), ec);
    }
    return file;
  }

  // The latest checkpoint file per the index, or "" if there is none.
  std::string latest() const { return latest_checkpoint(dir_); }

 private:
  // Prefixes naming the same file (e.g. a relative and an absolute spelling).
  bool same_file(const std::string& a, const std::string& b) const {
    namespace fs = std::filesystem;
    return a == b || fs::path(file_for_prefix(dir_, a)).lexically_normal() ==
                         fs::path(file_for_prefix(dir_, b)).lexically_normal();
  }

  std::string dir_, basename_;
  int max_to_keep_;
};

}  // namespace cppestimators
