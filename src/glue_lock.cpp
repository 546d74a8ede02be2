// model_dir's lock (R/model_dir.R's lock_model_dir()) taken and released in
// a few system calls: a directory created (atomic: of two processes, one
// creates it) holding an "owner" file, and the directory removed. R's
// dir.create() with its warning handler, writeChar() and unlink() cost
// about 0.15 ms a train() call.
#include <Rcpp.h>

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
