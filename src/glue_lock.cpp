// model_dir's lock (R/model_dir.R's lock_model_dir()) in a few system
// calls: a symbolic link whose target is the owner's lines ("<pid>
// <host>\n<time>"), created atomically (of two processes, one creates it)
// and removed at release: one call each way, where a directory holding an
// owner file takes five, and ext4 makes a directory in about 75 us. A lock
// of the older form, a directory holding an "owner" file (or a file system
// without symbolic links), is understood too.
#include <Rcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace {

// The directory form: the directory, then its owner file.
Rcpp::String take_directory_lock(const std::filesystem::path& dir, const std::string& owner) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::create_directory(dir, ec)) {
    if (ec && ec != std::errc::file_exists) return Rcpp::String(": " + ec.message());
    return Rcpp::String("");
  }
  {
    std::ofstream out(dir / "owner", std::ios::binary | std::ios::trunc);
    out << owner;
    out.close();
    if (out) return Rcpp::String(NA_STRING);
  }
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  return Rcpp::String(": cannot write " + (dir / "owner").string());
}

}  // namespace

// Takes the lock at `lock` for `owner` (its lines). Returns NA when this
// call took it; "" when something is there already (or the system gave no
// reason); ": <the system's reason>" when it could not be made (then
// nothing is left there).
// [[Rcpp::export(rng = false)]]
Rcpp::String cpp_lock_take(std::string lock, std::string owner) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path at(lock);
  fs::create_symlink(fs::path(owner), at, ec);
  if (!ec) return Rcpp::String(NA_STRING);
  if (ec == std::errc::file_exists) return Rcpp::String("");
  if (ec == std::errc::operation_not_permitted || ec == std::errc::operation_not_supported ||
      ec == std::errc::function_not_supported)
    return take_directory_lock(at, owner);  // no symbolic links here
  return Rcpp::String(": " + ec.message());
}

// Whether anything is at `lock` (a link whose target does not exist counts).
// [[Rcpp::export(rng = false)]]
bool cpp_lock_exists(std::string lock) {
  std::error_code ec;
  return std::filesystem::symlink_status(std::filesystem::path(lock), ec).type() !=
             std::filesystem::file_type::not_found &&
         !ec;
}

// The first line of the lock's owner (a link's target, or a directory's
// owner file), or NA when there is none or it cannot be read.
// [[Rcpp::export(rng = false)]]
Rcpp::String cpp_lock_owner(std::string lock) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path at(lock);
  const fs::file_status st = fs::symlink_status(at, ec);
  std::string text;
  if (ec) return Rcpp::String(NA_STRING);
  if (fs::is_symlink(st)) {
    text = fs::read_symlink(at, ec).string();
    if (ec) return Rcpp::String(NA_STRING);
  } else if (fs::is_directory(st)) {
    std::ifstream in(at / "owner", std::ios::binary);
    if (!in || !std::getline(in, text)) return Rcpp::String(NA_STRING);
  } else {
    return Rcpp::String(NA_STRING);
  }
  const std::size_t end = text.find_first_of("\r\n");
  return Rcpp::String(end == std::string::npos ? text : text.substr(0, end));
}

// Removes the lock, in either form (nothing when it is gone; a link is
// removed, not what it names).
// [[Rcpp::export(rng = false)]]
void cpp_lock_release(std::string lock) {
  std::error_code ignored;
  std::filesystem::remove_all(std::filesystem::path(lock), ignored);
}

// The queue of the processes waiting for the lock (R/model_dir.R): a
// directory beside the lock ("<lock>.queue") holding one empty file, a
// ticket, per waiting process, named "<arrival>-<pid>-<host>" where
// <arrival> is the time of its making in nanoseconds since 1970 written
// with 20 digits, so that the names sort (as bytes) in the order of
// arrival. The directory exists only while it holds tickets: whoever
// removes the last one removes it, so a look at a model_dir nobody waits
// for costs one system call (opening a directory that is not there).

// The tickets of `queue` that sort before `mine` (all of them when `mine`
// is NA or ""), oldest first; none when there is no queue. An empty queue
// directory (its last ticket's owner died before removing it) is removed.
// [[Rcpp::export(rng = false)]]
Rcpp::CharacterVector cpp_lock_queue(std::string queue, Rcpp::String mine) {
  namespace fs = std::filesystem;
  const bool all = mine == NA_STRING || std::string(mine.get_cstring()).empty();
  const std::string before = all ? std::string() : std::string(mine.get_cstring());
  std::vector<std::string> found;
  bool any = false;
  std::error_code ec;
  fs::directory_iterator it(fs::path(queue), ec);
  if (ec) return Rcpp::CharacterVector(0);
  for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    any = true;
    std::string name = it->path().filename().string();
    if (all || name < before) found.push_back(std::move(name));
  }
  if (!any && !ec) {
    std::error_code ignored;
    fs::remove(fs::path(queue), ignored);  // fails, harmlessly, once a ticket is in it again
  }
  std::sort(found.begin(), found.end());
  return Rcpp::wrap(found);
}

// Makes a ticket for `who` ("<pid>-<host>") in `queue` (and the directory
// when needed) and returns its name, or NA when it cannot be made.
// [[Rcpp::export(rng = false)]]
Rcpp::String cpp_lock_enqueue(std::string queue, std::string who) {
  namespace fs = std::filesystem;
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%020lld", static_cast<long long>(ns));
  const std::string name = std::string(stamp) + "-" + who;
  const fs::path dir(queue);
  // the directory may vanish between its making and the ticket's (its last
  // ticket's owner removing it): make it again
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::error_code ec;
    fs::create_directory(dir, ec);
    if (ec && ec != std::errc::file_exists) return Rcpp::String(NA_STRING);
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    if (out) return Rcpp::String(name);
    std::error_code ignored;
    if (fs::is_directory(dir, ignored)) return Rcpp::String(NA_STRING);
  }
  return Rcpp::String(NA_STRING);
}

// Removes the ticket `name` from `queue`, and the directory when it was
// the last.
// [[Rcpp::export(rng = false)]]
void cpp_lock_dequeue(std::string queue, std::string name) {
  namespace fs = std::filesystem;
  std::error_code ignored;
  fs::remove(fs::path(queue) / name, ignored);
  fs::remove(fs::path(queue), ignored);  // only when empty
}

// The size in bytes and the modification time (nanoseconds since the epoch
// of the file system's clock) of `path`, or NA for a file that cannot be
// read: what check_model_dir() compares to skip reading a file unchanged
// since its last check. (R's file.info() builds a data frame per call.)
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector cpp_file_stamp(std::string path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  const auto size = fs::file_size(p, ec);
  if (ec) return Rcpp::NumericVector::create(NA_REAL, NA_REAL);
  const auto time = fs::last_write_time(p, ec);
  if (ec) return Rcpp::NumericVector::create(NA_REAL, NA_REAL);
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
  return Rcpp::NumericVector::create(static_cast<double>(size), static_cast<double>(ns));
}

// The paths of the entries of `dir` whose names hold ".tmp-<digits>-" (the
// temporaries of an interrupted save, named after their process), in one
// pass over the directory; none when it cannot be read. (list.files() with
// a pattern compiles a regular expression per call.)
// [[Rcpp::export(rng = false)]]
Rcpp::CharacterVector cpp_save_temporaries(std::string dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(dir), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    for (std::size_t at = name.find(".tmp-"); at != std::string::npos;
         at = name.find(".tmp-", at + 1)) {
      std::size_t k = at + 5;
      while (k < name.size() && name[k] >= '0' && name[k] <= '9') ++k;
      if (k > at + 5 && k < name.size() && name[k] == '-') {
        found.push_back(it->path().string());
        break;
      }
    }
  }
  return Rcpp::wrap(found);
}
