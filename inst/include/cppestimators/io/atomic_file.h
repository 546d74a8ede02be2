// Whole files for io/: write_file_atomic(), the one crash-safe writer
// (checkpoints and the checkpoint index), and read_whole_file(), its reading
// counterpart (checkpoints, the index and event files).
//
// Crash safety: a file is written to "<path>.tmp-<pid>-<random>-<n>" in the
// same directory, flushed and fsync'ed, then renamed over <path>, and the
// directory is fsync'ed (POSIX). A crash leaves either the old or the new
// file, never a half-written one.
#pragma once
#include <string>

namespace cppestimators {

namespace detail {

std::string errno_string(int err);

// What read_whole_file() did. Callers word the error, so each file kind keeps
// its own message.
enum class ReadResult { ok, cannot_open, read_error };

// Reads the whole file at `path` into *out. On cannot_open and read_error,
// *err is the errno of the failure (EIO for a read error without one).
ReadResult read_whole_file(const std::string& path, std::string* out, int* err);

}  // namespace detail

// Writes `bytes` to `path` so that a crash leaves either the old or the new
// content: write "<path>.tmp-...", fflush, fsync, close, rename over `path`,
// fsync the directory. On failure removes the temporary file and throws
// std::runtime_error naming `path`.
void write_file_atomic(const std::string& path, const std::string& bytes);

}  // namespace cppestimators
