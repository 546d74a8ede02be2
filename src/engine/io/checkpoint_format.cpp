#include <cppestimators/io/checkpoint_format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include <cppestimators/io/atomic_file.h>
#include <cppestimators/io/crc32c.h>
#include <cppestimators/io/little_endian.h>

namespace cppestimators {

namespace {

using detail::kCkptHeaderBytes;
using detail::load_u32;
using detail::load_u64;

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// The number of elements of `shape` (1 for a scalar). Returns false if a
// dimension is negative or the product overflows (unless a dimension is 0).
bool shape_elements(const std::vector<std::int64_t>& shape, std::uint64_t* n) {
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
std::uint64_t scan_checkpoint_payload(const std::string& b, std::size_t limit, bool* complete) {
  *complete = false;
  if (limit < kCkptHeaderBytes) return kCkptHeaderBytes;
  const std::uint32_t count = load_u32(b.data() + 24);
  std::uint64_t pos = kCkptHeaderBytes;
  // Each step needs `n` more bytes; a shortfall ends the walk.
  auto fits = [&](std::uint64_t n) { return n <= limit - pos; };
  for (std::uint32_t t = 0; t < count; ++t) {
    if (!fits(4)) return pos + 4;
    const std::uint32_t name_len = load_u32(b.data() + pos);
    pos += 4;
    if (!fits(name_len)) return pos + name_len;
    pos += name_len;
    if (!fits(4)) return pos + 4;
    const std::uint64_t rank = load_u32(b.data() + pos);
    pos += 4;
    if (!fits(rank * 8)) return pos + rank * 8;
    pos += rank * 8;
    if (!fits(8)) return pos + 8;
    const std::uint64_t n = load_u64(b.data() + pos);
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

}  // namespace

std::string encode_checkpoint(const CheckpointData& ckpt) {
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

CheckpointData decode_checkpoint(const std::string& bytes, const std::string& path_for_errors) {
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
  const std::uint32_t version = load_u32(b.data() + 8);
  if (version != kCkptVersion) {
    throw fail("unsupported checkpoint version " + std::to_string(version));
  }

  // Trailer. If its payload length does not match the file size, the file was
  // either cut short or has a damaged trailer; the records tell which.
  const std::uint64_t payload =
      size >= kCkptMinBytes ? load_u64(b.data() + size - kCkptTrailerBytes) : 0;
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
  if (crc32c(b.data(), payload) != load_u32(b.data() + size - 4)) throw corrupt("CRC mismatch");

  // The payload is intact; still check every length before using it.
  const std::uint32_t flags = load_u32(b.data() + 12);
  if (flags != 0) throw fail("unsupported checkpoint flags " + std::to_string(flags));
  CheckpointData out;
  out.global_step = load_i64(b.data() + 16);
  const std::uint32_t count = load_u32(b.data() + 24);
  LittleEndianReader r(b.data(), payload, kCkptHeaderBytes);
  // Each record takes at least 16 bytes, which bounds the reservation.
  out.tensors.reserve(std::min<std::size_t>(count, r.remaining() / 16));
  try {
    for (std::uint32_t t = 0; t < count; ++t) {
      TensorRecord rec;
      const std::uint32_t name_len = r.u32("tensor name length");
      r.bytes(name_len, &rec.name, "tensor name");
      const std::uint32_t rank = r.u32("tensor rank");
      r.need(rank, 8, "tensor shape");
      rec.shape.resize(rank);
      for (std::int64_t& d : rec.shape) d = r.i64("tensor shape");
      const std::uint64_t n = r.u64("tensor element count");
      if (!r.fits(n, 4)) throw corrupt("tensor '" + rec.name + "' data overruns the payload");
      std::uint64_t product = 0;
      if (!shape_elements(rec.shape, &product) || n != product) {
        throw corrupt("tensor '" + rec.name + "' has shape " + shape_string(rec.shape) + " but " +
                      std::to_string(n) + " elements");
      }
      rec.data.resize(static_cast<std::size_t>(n));
      for (float& v : rec.data) v = r.f32("tensor data");
      out.tensors.push_back(std::move(rec));
    }
  } catch (const TruncatedInput& e) {
    throw corrupt(e.field() + " overruns the payload");
  }
  if (!r.done())
    throw corrupt(std::to_string(r.remaining()) + " unexpected bytes after the tensors");
  return out;
}

void write_checkpoint_file(const std::string& path, const CheckpointData& ckpt) {
  write_file_atomic(path, encode_checkpoint(ckpt));
}

CheckpointData read_checkpoint_file(const std::string& path) {
  std::string bytes;
  int err = 0;
  const detail::ReadResult r = detail::read_whole_file(path, &bytes, &err);
  if (r == detail::ReadResult::cannot_open) {
    throw std::runtime_error(path + ": cannot open checkpoint: " + detail::errno_string(err));
  }
  if (r == detail::ReadResult::read_error) {
    throw std::runtime_error(path + ": read error: " + detail::errno_string(err));
  }
  return decode_checkpoint(bytes, path);
}

}  // namespace cppestimators
