// Engine unit tests: the little-endian codec, the checkpoint file format, the
// index file, atomic writes and checkpoint rotation.
#include <testthat.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <cppestimators/io/checkpoint.h>

namespace fs = std::filesystem;
using cppestimators::CheckpointData;
using cppestimators::CheckpointManager;
using cppestimators::CheckpointState;
using cppestimators::TensorRecord;

namespace {

// A fresh directory under the system temp directory, removed on destruction.
struct TempDir {
  fs::path path;
  TempDir() {
    static std::atomic<unsigned> counter{0};
    std::random_device rd;
    path = fs::temp_directory_path() /
           ("cppest-ckpt-test-" + std::to_string(rd()) + "-" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// The message of the std::exception thrown by f(), or "" if it does not throw.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Sorted file names in `dir`.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool has_temp_files(const fs::path& dir) {
  for (const auto& name : listing(dir)) {
    if (contains(name, ".tmp")) return true;
  }
  return false;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

bool same_checkpoint(const CheckpointData& a, const CheckpointData& b) {
  if (a.global_step != b.global_step || a.tensors.size() != b.tensors.size()) return false;
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    const TensorRecord &x = a.tensors[i], &y = b.tensors[i];
    if (x.name != y.name || x.shape != y.shape || !same_bits(x.data, y.data)) return false;
  }
  return true;
}

CheckpointData sample_checkpoint(std::int64_t step = 1234) {
  CheckpointData c;
  c.global_step = step;
  c.tensors.push_back({"global_step_scale", {}, {2.5f}});                 // rank 0
  c.tensors.push_back({"linear/bias", {3}, {-1.0f, 0.0f, -0.0f}});        // rank 1
  c.tensors.push_back({"linear/w\xc3\xbc", {2, 3}, {1, 2, 3, 4, 5, 6}});  // rank 2, UTF-8
  c.tensors.push_back({"empty", {0}, {}});                                // no elements
  c.tensors.push_back({"empty2d", {4, 0}, {}});
  c.tensors.push_back(
      {"special",
       {3},
       {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
        std::numeric_limits<float>::denorm_min()}});
  return c;
}

CheckpointData step_checkpoint(std::int64_t step) {
  CheckpointData c;
  c.global_step = step;
  c.tensors.push_back({"w", {2}, {static_cast<float>(step), -static_cast<float>(step)}});
  return c;
}

std::string decode_error(const std::string& bytes) {
  return error_of([&] { cppestimators::decode_checkpoint(bytes, "some/file.ckpt"); });
}

// Recomputes the trailer of a (modified) encoding so that only the structure is wrong.
std::string refresh_trailer(std::string bytes) {
  const std::size_t payload = bytes.size() - 12;
  bytes.resize(payload);
  const std::uint32_t crc = cppestimators::crc32c(bytes.data(), payload);
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>((std::uint64_t(payload) >> (8 * i)) & 0xFF));
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
  return bytes;
}

}  // namespace

context("Little-endian codec") {
  test_that("values are written least significant byte first and read back") {
    namespace d = cppestimators::detail;
    std::string s;
    d::put_u32(s, 0x01020304u);
    d::put_u64(s, 0x0102030405060708ull);
    d::put_i64(s, -2);
    d::put_f32(s, 1.0f);  // 0x3F800000
    expect_true(s == std::string("\x04\x03\x02\x01"
                                 "\x08\x07\x06\x05\x04\x03\x02\x01"
                                 "\xFE\xFF\xFF\xFF\xFF\xFF\xFF\xFF"
                                 "\x00\x00\x80\x3F",
                                 24));
    d::LittleEndianReader r(s.data(), s.size());
    expect_true(r.u32("a") == 0x01020304u);
    expect_true(r.u64("b") == 0x0102030405060708ull);
    expect_true(r.i64("c") == -2);
    expect_true(r.f32("d") == 1.0f);
    expect_true(r.done());
  }

  test_that("bounds-checked reads name the field that runs past the end") {
    namespace d = cppestimators::detail;
    const std::string s(6, '\0');
    d::LittleEndianReader r(s.data(), s.size());
    r.u32("first");
    expect_true(error_of([&] { r.u32("second"); }) == "second overruns the input");
    expect_true(r.pos() == 4);  // a failed read consumes nothing
    std::string field;
    try {
      r.need(std::numeric_limits<std::uint64_t>::max(), 8, "huge");  // no overflow
    } catch (const d::TruncatedInput& e) {
      field = e.field();
    }
    expect_true(field == "huge");
  }
}

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

context("Checkpoint files") {
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

context("Checkpoint index and manager") {
  test_that("rotation keeps the newest max_to_keep checkpoints and writes the index") {
    TempDir dir;
    CheckpointManager m(dir.str(), "model.ckpt", 3);
    for (int step = 1; step <= 6; ++step) {
      const std::string written = m.save(step_checkpoint(step));
      expect_true(written == CheckpointManager::file_for_prefix(
                                 dir.str(), "model.ckpt-" + std::to_string(step)));
      expect_true(!has_temp_files(dir.path));
    }
    const std::vector<std::string> files = {"checkpoint", "model.ckpt-4.ckpt", "model.ckpt-5.ckpt",
                                            "model.ckpt-6.ckpt"};
    expect_true(listing(dir.path) == files);

    CheckpointState st;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    expect_true(st.model_checkpoint_path == "model.ckpt-6");
    const std::vector<std::string> kept = {"model.ckpt-4", "model.ckpt-5", "model.ckpt-6"};
    expect_true(st.all_model_checkpoint_paths == kept);

    expect_true(slurp(dir / "checkpoint") ==
                "model_checkpoint_path: \"model.ckpt-6\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-4\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-5\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-6\"\n");

    const std::string latest = dir / "model.ckpt-6.ckpt";
    expect_true(m.latest() == latest);
    expect_true(cppestimators::latest_checkpoint(dir.str()) == latest);
    expect_true(cppestimators::read_checkpoint_file(latest).global_step == 6);
  }

  test_that("max_to_keep = 0 keeps every checkpoint") {
    TempDir dir;
    CheckpointManager m(dir.str(), "model.ckpt", 0);
    for (int step = 1; step <= 6; ++step) m.save(step_checkpoint(step));
    CheckpointState st;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    expect_true(st.all_model_checkpoint_paths.size() == 6u);
    expect_true(st.all_model_checkpoint_paths.front() == "model.ckpt-1");
    expect_true(listing(dir.path).size() == 7u);  // 6 checkpoints and the index
    expect_true(!has_temp_files(dir.path));
  }

  test_that("re-saving a step does not duplicate it and moves it to the end") {
    TempDir dir;
    CheckpointManager m(dir.str(), "model.ckpt", 3);
    for (int step : {1, 2, 3, 2}) m.save(step_checkpoint(step));
    CheckpointState st;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    const std::vector<std::string> kept = {"model.ckpt-1", "model.ckpt-3", "model.ckpt-2"};
    expect_true(st.all_model_checkpoint_paths == kept);
    expect_true(st.model_checkpoint_path == "model.ckpt-2");
    expect_true(listing(dir.path).size() == 4u);
    m.save(step_checkpoint(2));
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    expect_true(st.all_model_checkpoint_paths == kept);
  }

  test_that("a new manager continues the list of an existing index") {
    TempDir dir;
    {
      CheckpointManager first(dir.str(), "model.ckpt", 3);
      first.save(step_checkpoint(1));
      first.save(step_checkpoint(2));
    }
    CheckpointManager second(dir.str(), "model.ckpt", 3);
    expect_true(second.latest() == dir / "model.ckpt-2.ckpt");
    second.save(step_checkpoint(3));
    second.save(step_checkpoint(4));
    CheckpointState st;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    const std::vector<std::string> kept = {"model.ckpt-2", "model.ckpt-3", "model.ckpt-4"};
    expect_true(st.all_model_checkpoint_paths == kept);
    expect_true(!fs::exists(dir / "model.ckpt-1.ckpt"));
  }

  test_that("latest_checkpoint is empty without an index and falls back to existing files") {
    TempDir dir;
    expect_true(cppestimators::latest_checkpoint(dir.str()) == "");
    expect_true(cppestimators::latest_checkpoint(dir / "does-not-exist") == "");
    CheckpointManager fresh(dir / "created", "model.ckpt", 2);
    expect_true(fs::is_directory(dir / "created"));
    expect_true(fresh.latest() == "");

    CheckpointManager m(dir.str(), "model.ckpt", 0);
    for (int step = 1; step <= 3; ++step) m.save(step_checkpoint(step));
    fs::remove(dir / "model.ckpt-3.ckpt");
    expect_true(m.latest() == dir / "model.ckpt-2.ckpt");
    fs::remove(dir / "model.ckpt-2.ckpt");
    fs::remove(dir / "model.ckpt-1.ckpt");
    expect_true(m.latest() == "");
  }

  test_that("hand-written indexes with extra whitespace, comments and TF fields are read") {
    TempDir dir;
    spit(dir / "checkpoint",
         "# written by hand\r\n"
         "  model_checkpoint_path :   \"model.ckpt-20\"  \r\n"
         "\n"
         "all_model_checkpoint_paths:'model.ckpt-10'\n"
         "\tall_model_checkpoint_paths: \"model.ckpt-\" \"20\"\n"
         "all_model_checkpoint_timestamps: 1.5e9\n"
         "last_preserved_timestamp: 1690000000.25\n");
    CheckpointState st;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &st));
    expect_true(st.model_checkpoint_path == "model.ckpt-20");
    const std::vector<std::string> all = {"model.ckpt-10", "model.ckpt-20"};
    expect_true(st.all_model_checkpoint_paths == all);

    // A manager continues it; the hand-written file is rewritten canonically.
    CheckpointManager m(dir.str(), "model.ckpt", 2);
    m.save(step_checkpoint(30));
    expect_true(slurp(dir / "checkpoint") ==
                "model_checkpoint_path: \"model.ckpt-30\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-20\"\n"
                "all_model_checkpoint_paths: \"model.ckpt-30\"\n");
  }

  test_that("malformed indexes throw naming the file; escapes round-trip") {
    TempDir dir;
    const std::string index = dir / "checkpoint";
    for (const char* text : {"model_checkpoint_path \"a\"\n", "model_checkpoint_path: a\n",
                             "model_checkpoint_path: \"a\n", "bogus_field: \"a\"\n",
                             "all_model_checkpoint_paths: \"a\"\n",
                             "model_checkpoint_path: \"a\"\nmodel_checkpoint_path: \"b\"\n"}) {
      spit(index, text);
      CheckpointState st;
      const std::string msg =
          error_of([&] { cppestimators::read_checkpoint_state(dir.str(), &st); });
      expect_true((contains(msg, index) && contains(msg, "malformed checkpoint index")));
    }

    CheckpointState odd;
    odd.model_checkpoint_path = "we\"ird\\name\nwith\ttabs \xc3\xa9 \x01";
    odd.all_model_checkpoint_paths = {"plain", odd.model_checkpoint_path};
    cppestimators::write_checkpoint_state(dir.str(), odd);
    CheckpointState back;
    expect_true(cppestimators::read_checkpoint_state(dir.str(), &back));
    expect_true(back.model_checkpoint_path == odd.model_checkpoint_path);
    expect_true(back.all_model_checkpoint_paths == odd.all_model_checkpoint_paths);
    expect_true(!has_temp_files(dir.path));
  }

  test_that("invalid manager arguments are rejected") {
    TempDir dir;
    expect_error_as(CheckpointManager(dir.str(), "model.ckpt", -1), std::invalid_argument);
    expect_error_as(CheckpointManager(dir.str(), ""), std::invalid_argument);
    spit(dir / "file", "x");
    expect_error_as(CheckpointManager(dir / "file"), std::runtime_error);
  }
}
