// Engine unit tests: the checkpoint file format of io/checkpoint_format.h
// (encoding, decoding, corruption reports, files).
#include <testthat.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <cppestimators/io/checkpoint.h>
#include <cppestimators/io/crc32c.h>

#include "test-helpers.h"

namespace fs = std::filesystem;
using cppestimators::CheckpointData;
using cppestimators::CheckpointManager;
using cppestimators::CheckpointState;
using cppestimators::TensorRecord;
using namespace cppestimators::testing;

context("Checkpoint format") {
  test_that("encode/decode round-trips several tensors of rank 0, 1, 2 and empty ones") {
    const CheckpointData c = sample_checkpoint();
    const std::string bytes = cppestimators::encode_checkpoint(c);
    expect_true(same_checkpoint(cppestimators::decode_checkpoint(bytes, "x"), c));

    CheckpointData none;
    none.global_step = -7;
    const auto back = cppestimators::decode_checkpoint(cppestimators::encode_checkpoint(none), "x");
    expect_true((back.global_step == -7 && back.tensors.empty()));

    CheckpointData big;
    big.global_step = std::int64_t(1) << 40;
    big.tensors.push_back({"v", {1000}, std::vector<float>(1000, 0.25f)});
    expect_true(same_checkpoint(
        cppestimators::decode_checkpoint(cppestimators::encode_checkpoint(big), "x"), big));
  }

  test_that("the byte layout is the documented one") {
    CheckpointData c;
    c.global_step = 2;
    c.tensors.push_back({"b", {}, {1.0f}});
    const std::string bytes = cppestimators::encode_checkpoint(c);
    const std::string payload = std::string("CPPESTCK", 8) +
                                std::string("\x01\0\0\0", 4) +          // version 1
                                std::string("\0\0\0\0", 4) +            // flags
                                std::string("\x02\0\0\0\0\0\0\0", 8) +  // global step
                                std::string("\x01\0\0\0", 4) +          // 1 tensor
                                std::string("\x01\0\0\0b", 5) +         // name
                                std::string("\0\0\0\0", 4) +            // rank 0
                                std::string("\x01\0\0\0\0\0\0\0", 8) +  // 1 element
                                std::string("\0\0\x80\x3f", 4);         // 1.0f
    expect_true(payload.size() == 49u);
    expect_true(bytes.size() == 61u);
    expect_true(bytes.compare(0, 49, payload) == 0);
    expect_true(bytes.compare(49, 8, std::string("\x31\0\0\0\0\0\0\0", 8)) == 0);  // length 49
    const std::uint32_t crc = cppestimators::crc32c(payload.data(), payload.size());
    std::uint32_t stored = 0;
    for (int i = 0; i < 4; ++i)
      stored |= std::uint32_t(static_cast<unsigned char>(bytes[57 + i])) << (8 * i);
    expect_true(stored == crc);
  }

  test_that("a flipped byte in the payload or trailer is reported as corruption") {
    const std::string bytes = cppestimators::encode_checkpoint(sample_checkpoint());
    // Every byte after magic and version: flags, step, records, trailer.
    bool all_corrupt = true;
    for (std::size_t i = 12; i < bytes.size(); ++i) {
      for (unsigned char mask : {0x01, 0x80, 0xFF}) {
        std::string bad = bytes;
        bad[i] = static_cast<char>(bad[i] ^ mask);
        const std::string msg = decode_error(bad);
        if (!(contains(msg, "corrupt") && contains(msg, "some/file.ckpt"))) all_corrupt = false;
      }
    }
    expect_true(all_corrupt);
    // A few positions with the exact message.
    for (std::size_t i : {std::size_t(13), std::size_t(20), std::size_t(40), bytes.size() - 13}) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ 0x10);
      expect_true(decode_error(bad) == "some/file.ckpt: checkpoint is corrupt (CRC mismatch)");
    }
  }

  test_that("bad magic, unknown versions and trailing garbage are reported") {
    const std::string bytes = cppestimators::encode_checkpoint(sample_checkpoint());
    for (std::size_t i = 0; i < 8; ++i) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ 0x20);
      expect_true(decode_error(bad) ==
                  "some/file.ckpt: not a cppestimators checkpoint (bad magic)");
    }
    expect_true(
        contains(decode_error("hello world, this is not a checkpoint file at all"), "bad magic"));
    expect_true(contains(decode_error("PK\x03\x04"), "bad magic"));

    std::string v7 = bytes;
    v7[8] = 7;
    expect_true(decode_error(v7) == "some/file.ckpt: unsupported checkpoint version 7");

    expect_true(contains(decode_error(bytes + "xyz"), "corrupt"));
  }

  test_that("truncated files are reported as truncated") {
    const std::string bytes = cppestimators::encode_checkpoint(sample_checkpoint());
    const std::size_t n = bytes.size();
    for (std::size_t len :
         {std::size_t(0), std::size_t(3), std::size_t(8), std::size_t(11), std::size_t(12),
          std::size_t(20), std::size_t(39), std::size_t(40), n / 2, n - 13, n - 12, n - 5, n - 1}) {
      const std::string msg = decode_error(bytes.substr(0, len));
      expect_true((contains(msg, "truncated checkpoint") && contains(msg, "some/file.ckpt")));
    }
    // When the records are complete, the expected size is exact.
    expect_true(decode_error(bytes.substr(0, n - 1)) ==
                "some/file.ckpt: truncated checkpoint (" + std::to_string(n - 1) +
                    " bytes, expected " + std::to_string(n) + ")");
    expect_true(contains(decode_error(""), "(0 bytes, expected at least 40)"));
  }

  test_that("corrupt lengths behind a valid CRC fail cleanly without huge allocations") {
    CheckpointData c;
    c.tensors.push_back({"w", {2}, {1.0f, 2.0f}});
    const std::string bytes = cppestimators::encode_checkpoint(c);
    // Layout: header 28 | name len 28..31 | "w" 32 | rank 33..36 | dim 37..44 | count 45..52
    auto patched = [&](std::size_t at, const std::string& with) {
      std::string b = bytes;
      b.replace(at, with.size(), with);
      return refresh_trailer(b);
    };
    const std::string ff8(8, '\xff'), ff4(4, '\xff');
    expect_true(contains(decode_error(patched(24, ff4)), "corrupt"));  // tensor count
    expect_true(contains(decode_error(patched(28, ff4)), "corrupt"));  // name length
    expect_true(contains(decode_error(patched(33, ff4)), "corrupt"));  // rank
    expect_true(contains(decode_error(patched(37, ff8)), "corrupt"));  // negative dim
    expect_true(contains(decode_error(patched(45, ff8)), "corrupt"));  // element count
    expect_true(contains(decode_error(patched(45, std::string("\x03\0\0\0\0\0\0\0", 8))),
                         "corrupt"));  // count != product of dims
    expect_true(contains(decode_error(patched(12, std::string("\x01", 1))), "flags"));
  }

  test_that("shapes that do not match the data are rejected when encoding") {
    CheckpointData c;
    c.tensors.push_back({"w", {2, 2}, {1.0f, 2.0f}});
    expect_error_as(cppestimators::encode_checkpoint(c), std::invalid_argument);
    c.tensors[0] = {"w", {-1}, {}};
    expect_error_as(cppestimators::encode_checkpoint(c), std::invalid_argument);
    c.tensors[0] = {"w", {2, std::int64_t(1) << 62, 4}, {}};  // product overflows
    expect_error_as(cppestimators::encode_checkpoint(c), std::invalid_argument);
  }
}

context("Checkpoint format files") {
  test_that("checkpoint files round-trip and overwrite without leaving temp files") {
    TempDir dir;
    const std::string path = dir / "a.ckpt";
    cppestimators::write_checkpoint_file(path, sample_checkpoint(1));
    cppestimators::write_checkpoint_file(path, sample_checkpoint(2));
    expect_true(same_checkpoint(cppestimators::read_checkpoint_file(path), sample_checkpoint(2)));
    expect_true(listing(dir.path) == std::vector<std::string>{"a.ckpt"});
  }

  test_that("read errors name the file") {
    TempDir dir;
    const std::string missing = dir / "missing.ckpt";
    const std::string msg = error_of([&] { cppestimators::read_checkpoint_file(missing); });
    expect_true(contains(msg, missing + ": cannot open checkpoint: "));

    const std::string path = dir / "bad.ckpt";
    std::string bytes = cppestimators::encode_checkpoint(sample_checkpoint());
    bytes[30] = static_cast<char>(bytes[30] ^ 1);
    spit(path, bytes);
    expect_true(error_of([&] { cppestimators::read_checkpoint_file(path); }) ==
                path + ": checkpoint is corrupt (CRC mismatch)");
  }
}
