#include <cppestimators/io/atomic_file.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <system_error>

#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#else
#include <io.h>
#include <process.h>
#endif

namespace cppestimators {

namespace {

long process_id() {
#ifndef _WIN32
  return static_cast<long>(::getpid());
#else
  return static_cast<long>(::_getpid());
#endif
}

// A suffix that is unique per process and call: ".tmp-<pid>-<random>-<n>".
std::string temp_suffix() {
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
int sync_fd(int fd) {
#ifndef _WIN32
  return ::fsync(fd);
#else
  return ::_commit(fd);
#endif
}

// Makes a rename in `dir` durable (POSIX; a no-op on Windows). Best effort:
// directories that cannot be opened or synced (some file systems) are skipped.
void sync_directory(const std::filesystem::path& dir) {
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

}  // namespace

namespace detail {

std::string errno_string(int err) { return std::strerror(err); }

ReadResult read_whole_file(const std::string& path, std::string* out, int* err) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *err = errno;
    return ReadResult::cannot_open;
  }
  out->clear();
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int read_err = errno;
  std::fclose(f);
  if (failed) {
    *err = read_err ? read_err : EIO;
    return ReadResult::read_error;
  }
  return ReadResult::ok;
}

}  // namespace detail

void write_file_atomic(const std::string& path, const std::string& bytes) {
  namespace fs = std::filesystem;
  const std::string tmp = path + temp_suffix();
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
  if (sync_fd(fd) != 0) fail("fsync failed", errno);
  const int rc = std::fclose(f);
  f = nullptr;
  if (rc != 0) fail("close failed", errno);
  std::error_code ec;
  fs::rename(fs::path(tmp), fs::path(path), ec);
  if (ec) fail("cannot rename " + tmp + " over it: " + ec.message(), 0);
  sync_directory(fs::path(path).parent_path());
}

}  // namespace cppestimators
