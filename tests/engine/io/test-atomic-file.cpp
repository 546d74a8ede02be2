// Engine unit tests: crash-safe writes of io/atomic_file.h.
#include <testthat.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <cppestimators/io/atomic_file.h>

#include "test-helpers.h"

namespace fs = std::filesystem;
using namespace cppestimators::testing;

context("Atomic files") {
  test_that("a write replaces the whole content and read_whole_file() reads it back") {
    TempDir dir;
    const std::string path = dir / "f.bin";
    cppestimators::write_file_atomic(path, std::string("first, longer content"));
    cppestimators::write_file_atomic(path, std::string("a\0b", 3));
    std::string back;
    int err = 0;
    expect_true(cppestimators::detail::read_whole_file(path, &back, &err) ==
                cppestimators::detail::ReadResult::ok);
    expect_true(back == std::string("a\0b", 3));
    expect_true(listing(dir.path) == std::vector<std::string>{"f.bin"});
    expect_true(cppestimators::detail::read_whole_file(dir / "missing", &back, &err) ==
                cppestimators::detail::ReadResult::cannot_open);
    expect_true(err == ENOENT);
  }

  test_that("failed atomic writes throw, name the path and leave no temp file") {
    TempDir dir;
    const std::string no_dir = dir / "no/such/dir/x.ckpt";
    const std::string msg = error_of([&] { cppestimators::write_file_atomic(no_dir, "data"); });
    expect_true(contains(msg, no_dir));

    // Renaming over a non-empty directory fails after the temp file was written.
    const std::string target = dir / "occupied";
    fs::create_directories(fs::path(target) / "child");
    const std::string msg2 = error_of([&] { cppestimators::write_file_atomic(target, "data"); });
    expect_true((contains(msg2, target) && contains(msg2, "cannot write")));
    expect_true(!has_temp_files(dir.path));
    expect_true(fs::is_directory(fs::path(target) / "child"));
  }
}
