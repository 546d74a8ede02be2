// model_dir's lock (R/model_dir.R's lock_model_dir()) taken and released in
// a few system calls: a directory created (atomic: of two processes, one
// creates it) holding an "owner" file, and the directory removed. R's
// dir.create() with its warning handler, writeChar() and unlink() cost
// about 0.15 ms a train() call.
#include <Rcpp.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

// Creates the directory `lock` and writes `owner` to lock/owner. Returns NA
// when this call created it; "" when it exists already (or the system gave
// no reason); ": <the system's reason>" when it could not be created or its
// owner file not written (then no directory is left).
// [[Rcpp::export(rng = false)]]
Rcpp::String cpp_lock_take(std::string lock, std::string owner) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir(lock);
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

// Removes the lock directory and its owner file (nothing when it is gone).
// [[Rcpp::export(rng = false)]]
void cpp_lock_release(std::string lock) {
  std::error_code ignored;
  std::filesystem::remove_all(std::filesystem::path(lock), ignored);
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
