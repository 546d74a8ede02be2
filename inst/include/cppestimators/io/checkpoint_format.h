// Checkpoint files: our own binary format, encoded and decoded in memory and
// written to / read from disk (atomically, see atomic_file.h).
//
// Checkpoint file format, version 1
// ---------------------------------
// A checkpoint file ("<dir>/<prefix>.ckpt") is a payload followed by a
// trailer. All integers are little-endian and are written byte by byte, so
// files are portable between hosts; floats are IEEE 754 binary32 stored as
// the little-endian bytes of their bit pattern (little_endian.h).
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
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

namespace detail {

inline constexpr char kCkptMagic[8] = {'C', 'P', 'P', 'E', 'S', 'T', 'C', 'K'};
inline constexpr std::uint32_t kCkptVersion = 1;
inline constexpr std::size_t kCkptHeaderBytes = 28;   // magic, version, flags, step, tensor count
inline constexpr std::size_t kCkptTrailerBytes = 12;  // payload length, CRC-32C
inline constexpr std::size_t kCkptMinBytes = kCkptHeaderBytes + kCkptTrailerBytes;

}  // namespace detail

// Serializes `ckpt` in the format documented at the top of this file. Throws
// std::invalid_argument if a tensor's shape does not match its data.
std::string encode_checkpoint(const CheckpointData& ckpt);

// Parses a checkpoint; errors are std::runtime_error("<path_for_errors>: ...").
CheckpointData decode_checkpoint(const std::string& bytes, const std::string& path_for_errors);

void write_checkpoint_file(const std::string& path, const CheckpointData& ckpt);

CheckpointData read_checkpoint_file(const std::string& path);

}  // namespace cppestimators
