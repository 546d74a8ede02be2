// Engine unit tests: TensorBoard event files (TFRecord framing, hand-encoded Event protobufs).
#include <testthat.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cppestimators/io/crc32c.h>
#include <cppestimators/io/event_file.h>
#include <cppestimators/io/event_proto.h>
#include <cppestimators/io/tfrecord.h>

#include "test-helpers.h"

using namespace cppestimators;
namespace fs = std::filesystem;

using testing::contains;
using testing::TempDir;

namespace {

std::string bytes_of(std::initializer_list<unsigned char> b) {
  return std::string(b.begin(), b.end());
}

std::string read_file(const std::string& path) {
  std::string out;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

// what() of the error read_scalar_events() throws, or "" when it does not throw.
std::string read_error(const std::string& path) {
  try {
    read_scalar_events(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// Writes 3 records (file_version + 2 scalar events) and returns the file's path.
std::string small_file(const TempDir& tmp) {
  EventWriter w(tmp.path.string(), "host", 1.5);
  w.add_scalar(1, "loss", 1.0f, 2.0);
  w.add_scalar(2, "loss", 0.5f, 3.0);
  return w.path();
}

}  // namespace

context("Event files: CRC-32C") {
  test_that("crc32c of the check string and TFRecord masking") {
    expect_true(crc32c("123456789", 9) == 0xE3069283u);
    expect_true(crc32c_extend(crc32c("1234", 4), "56789", 5) == 0xE3069283u);
    expect_true(mask_crc(0xE3069283u) == 0xC78AB0E5u);
    expect_true(unmask_crc(0xC78AB0E5u) == 0xE3069283u);
    for (std::uint32_t c : {0u, 1u, 0x80000000u, 0xFFFFFFFFu, 0x12345678u})
      expect_true(unmask_crc(mask_crc(c)) == c);
  }
}

context("Event files: encoding") {
  test_that("a scalar Event is encoded byte for byte") {
    // Event{wall_time: 1.5, step: 3, summary{value{tag: "loss", simple_value: 0.5}}}
    const std::string expected =
        bytes_of({0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x3F,  // 1: double 1.5
                  0x10, 0x03,                                            // 2: varint 3
                  0x2A, 0x0D,                                            // 5: Summary, 13 bytes
                  0x0A, 0x0B,                                            //   1: Value, 11 bytes
                  0x0A, 0x04, 0x6C, 0x6F, 0x73, 0x73,                    //     1: "loss"
                  0x15, 0x00, 0x00, 0x00, 0x3F});                        //     2: float 0.5
    const std::string event = encode_scalar_event(1.5, 3, {{"loss", 0.5f}});
    expect_true(event == expected);

    const std::string framed =
        bytes_of({0x1A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // length 26
                  0x12, 0x9B, 0xD8, 0x2D,                          // masked CRC of the length
                  0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x3F, 0x10, 0x03,
                  0x2A, 0x0D, 0x0A, 0x0B, 0x0A, 0x04, 0x6C, 0x6F, 0x73, 0x73, 0x15,
                  0x00, 0x00, 0x00, 0x3F, 0x80, 0x65, 0x5E, 0xE3});  // masked CRC of the data
    expect_true(frame_record(event) == framed);
  }

  test_that("the file_version Event and default-valued fields") {
    const std::string expected =
        bytes_of({0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x3F,  // 1: double 1.5
                  0x1A, 0x0D, 0x62, 0x72, 0x61, 0x69, 0x6E, 0x2E, 0x45,  // 3: "brain.Event:2"
                  0x76, 0x65, 0x6E, 0x74, 0x3A, 0x32});
    expect_true(encode_file_version_event(1.5) == expected);
    // step 0 and wall_time 0 are omitted; simple_value 0 (a oneof member) is kept.
    const std::string zero = bytes_of({0x2A, 0x07, 0x0A, 0x05, 0x15, 0x00, 0x00, 0x00, 0x00});
    expect_true(encode_scalar_event(0.0, 0, {{"", 0.0f}}) == zero);
    // multi-byte varint: step 300 = 0xAC 0x02
    const std::string s300 = encode_scalar_event(0.0, 300, {});
    expect_true(s300 == bytes_of({0x10, 0xAC, 0x02, 0x2A, 0x00}));
  }
}

context("Event files: writing and reading") {
  test_that("hundreds of scalars round-trip through EventWriter") {
    TempDir tmp;
    const fs::path dir = tmp.path / "a" / "b";  // parents are created
    std::string path;
    {
      EventWriter w(dir.string(), "myhost", 1700000000.75);
      path = w.path();
      expect_true(fs::path(path).filename() == "events.out.tfevents.1700000000.myhost");
      expect_true(w.records_written() == 1u);
      for (int step = 0; step < 300; ++step) {
        const double t = 1700000001.0 + 0.25 * step;
        w.add_scalars(step, {{"loss", 1.0f / (step + 1)}, {"accuracy", step * 0.001f - 0.1f}}, t);
        w.flush_if_due(t, 10.0);
      }
      w.add_scalar(-5, "neg", -2.5f, 5.0);
      w.add_scalar(std::int64_t(1) << 40, "big", 3.0e38f, 6.0);
      w.add_scalars(7, {}, 7.0);  // adds nothing
      expect_true(w.records_written() == 303u);
    }
    const auto events = read_scalar_events(path);
    expect_true(events.size() == 602u);
    bool all_equal = true;
    for (int step = 0; step < 300; ++step) {
      const ScalarEvent& a = events[2 * step];
      const ScalarEvent& b = events[2 * step + 1];
      const double t = 1700000001.0 + 0.25 * step;
      all_equal = all_equal && a.step == step && a.tag == "loss" &&
                  a.value == static_cast<double>(1.0f / (step + 1)) && a.wall_time == t;
      all_equal = all_equal && b.step == step && b.tag == "accuracy" &&
                  b.value == static_cast<double>(step * 0.001f - 0.1f) && b.wall_time == t;
    }
    expect_true(all_equal);
    expect_true((events[600].step == -5 && events[600].tag == "neg" && events[600].value == -2.5 &&
                 events[600].wall_time == 5.0));
    expect_true((events[601].step == (std::int64_t(1) << 40) && events[601].tag == "big" &&
                 events[601].value == static_cast<double>(3.0e38f)));
  }

  test_that("records are buffered until flush; flush_if_due honours the interval") {
    TempDir tmp;
    EventWriter w(tmp.path.string(), "h", 100.0);
    const auto header_size =
        static_cast<std::uintmax_t>(frame_record(encode_file_version_event(100.0)).size());
    expect_true(fs::file_size(w.path()) == header_size);  // file_version is flushed at once
    w.add_scalar(1, "x", 1.0f, 101.0);
    expect_true(fs::file_size(w.path()) == header_size);
    expect_true(!w.flush_if_due(104.9));
    expect_true(fs::file_size(w.path()) == header_size);
    expect_true(w.flush_if_due(105.0));
    const auto one = frame_record(encode_scalar_event(101.0, 1, {{"x", 1.0f}}));
    expect_true(fs::file_size(w.path()) == header_size + one.size());
    expect_true(read_file(w.path()) == frame_record(encode_file_version_event(100.0)) + one);
    expect_true(!w.flush_if_due(109.0));
    expect_true(w.flush_if_due(110.0, 5.0));
    w.add_scalar(2, "x", 2.0f, 111.0);
    w.flush();
    w.flush();  // nothing buffered
    expect_true(read_scalar_events(w.path()).size() == 2u);
  }

  test_that("an existing file name gets a .<n> suffix") {
    TempDir tmp;
    EventWriter a(tmp.path.string(), "h", 42.9);
    EventWriter b(tmp.path.string(), "h", 42.1);
    EventWriter c(tmp.path.string(), "h", 42.0);
    expect_true(fs::path(a.path()).filename() == "events.out.tfevents.42.h");
    expect_true(fs::path(b.path()).filename() == "events.out.tfevents.42.h.1");
    expect_true(fs::path(c.path()).filename() == "events.out.tfevents.42.h.2");
  }

  test_that("the writer fails with the path when the directory cannot be created") {
    TempDir tmp;
    fs::create_directories(tmp.path);
    const std::string blocker = (tmp.path / "file").string();
    write_file(blocker, "x");
    std::string what;
    try {
      EventWriter w(blocker + "/sub", "h", 1.0);
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    expect_true(contains(what, blocker));
  }

  test_that("the reader skips unknown fields of every wire type") {
    // Event with unknown fields of wire types 0, 1, 2, 5 and a group (3/4), a Summary with an
    // unknown field, a Value with node_name and metadata, a Value with only an image, a Value
    // whose simple_value is replaced by a tensor, and the step after the summary.
    const std::string event = bytes_of(
        {0x48, 0xAC, 0x02,                                      // 9: varint 300
         0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,  // 1: wall_time 2.0
         0x55, 0x01, 0x02, 0x03, 0x04,                          // 10: fixed32
         0x5B, 0x08, 0x01, 0x12, 0x02, 0x61, 0x62, 0x5C,        // 11: group {1: 1, 2: "ab"}
         0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // 12: fixed64
         0x2A, 0x2A,                                            // 5: Summary, 42 bytes
         0x0A, 0x0F, 0x3A, 0x01, 0x6E, 0x0A, 0x03, 0x61, 0x63, 0x63, 0x4A, 0x00,  // "acc"
         0x15, 0x00, 0x00, 0x80, 0x3E,                                            // 0.25
         0x0A, 0x09, 0x0A, 0x03, 0x69, 0x6D, 0x67, 0x22, 0x02, 0x08, 0x01,        // "img", image
         0x0A, 0x0A, 0x0A, 0x01, 0x74, 0x15, 0x00, 0x00, 0x80, 0x3F, 0x42, 0x00,  // "t", tensor
         0x10, 0x07,          //   2: unknown varint
         0x6A, 0x01, 0xFF,    // 13: bytes
         0x10, 0xC8, 0x01});  // 2: step 200
    TempDir tmp;
    fs::create_directories(tmp.path);
    const std::string path = (tmp.path / "events.out.tfevents.0.x").string();
    write_file(path, frame_record(encode_file_version_event(1.0)) + frame_record(event));
    const auto events = read_scalar_events(path);
    expect_true(events.size() == 1u);
    expect_true((events[0].step == 200 && events[0].tag == "acc" && events[0].value == 0.25 &&
                 events[0].wall_time == 2.0));

    // A malformed Event behind valid CRCs is reported, not misread.
    write_file(path, frame_record(bytes_of({0x2A, 0x05, 0x0A})));
    expect_true(contains(read_error(path), path + ": malformed Event at offset 0"));
  }
}

context("Event files: corruption") {
  test_that("a flipped data byte is a bad record CRC at the record's offset") {
    TempDir tmp;
    const std::string path = small_file(tmp);
    std::string bytes = read_file(path);
    const std::size_t second = frame_record(encode_file_version_event(1.5)).size();
    expect_true(second == 40u);
    bytes[second + 12 + 3] ^= 0x01;
    write_file(path, bytes);
    const std::string what = read_error(path);
    expect_true(contains(what, "bad record CRC at offset "));
    expect_true(what == path + ": bad record CRC at offset 40");
  }

  test_that("a flipped length byte is a bad length CRC") {
    TempDir tmp;
    const std::string path = small_file(tmp);
    std::string bytes = read_file(path);
    bytes[40] ^= 0x10;
    write_file(path, bytes);
    expect_true(read_error(path) == path + ": bad length CRC at offset 40");
  }

  test_that("truncation mid-record or mid-header is reported") {
    TempDir tmp;
    const std::string path = small_file(tmp);
    const std::uintmax_t size = fs::file_size(path);
    const std::size_t last =
        40 + frame_record(encode_scalar_event(2.0, 1, {{"loss", 1.0f}})).size();
    fs::resize_file(path, size - 3);
    expect_true(contains(read_error(path), "truncated"));
    expect_true(read_error(path) == path + ": truncated record at offset " + std::to_string(last));
    fs::resize_file(path, 40 + 5);
    expect_true(read_error(path) == path + ": truncated record at offset 40");
    fs::resize_file(path, 40);
    expect_true(read_scalar_events(path).empty());  // whole records only: fine
  }

  test_that("reading from an offset returns only the records after it") {
    TempDir tmp;
    const std::string path = small_file(tmp);
    const std::size_t size = static_cast<std::size_t>(fs::file_size(path));
    const EventTail all = read_scalar_events_from(path, 0);
    expect_true(all.records == 3u);
    expect_true(all.events.size() == read_scalar_events(path).size());
    expect_true(all.end == size);
    const EventTail none = read_scalar_events_from(path, all.end);
    expect_true(none.records == 0u);
    expect_true(none.events.empty());
    expect_true(none.end == size);
    const EventTail last = read_scalar_events_from(path, 40);
    expect_true(last.records == 2u);
    expect_true(last.events.size() == all.events.size());
    expect_true(read_scalar_events_from(path, size + 100).end == size + 100);
  }

  test_that("an incomplete last record is left for the next read") {
    TempDir tmp;
    const std::string path = small_file(tmp);
    const std::string bytes = read_file(path);
    const std::size_t last =
        40 + frame_record(encode_scalar_event(2.0, 1, {{"loss", 1.0f}})).size();
    // cut in the header, then in the data: whole records only, no error
    for (const std::size_t cut : {last + 5, bytes.size() - 3}) {
      write_file(path, bytes.substr(0, cut));
      const EventTail t = read_scalar_events_from(path, 0);
      expect_true(t.end == last);
      expect_true(t.records == 2u);
    }
    write_file(path, bytes);  // the writer finished the record
    const EventTail rest = read_scalar_events_from(path, last);
    expect_true(rest.records == 1u);
    expect_true(rest.end == bytes.size());
  }

  test_that("a bad CRC after the offset is an error at its offset in the file") {
    TempDir tmp;
    const std::string path = small_file(tmp);
    std::string bytes = read_file(path);
    bytes[40] ^= 0x10;
    write_file(path, bytes);
    std::string what;
    try {
      read_scalar_events_from(path, 40);
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    expect_true(what == path + ": bad length CRC at offset 40");
  }

  test_that("a missing file is an error naming it") {
    TempDir tmp;
    const std::string path = (tmp.path / "nope").string();
    expect_true(contains(read_error(path), path));
  }
}
