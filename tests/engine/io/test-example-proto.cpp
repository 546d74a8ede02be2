// Engine unit tests: tf.train.Example encoding (io/example_proto.h), parsing
// with a spec into chunks (data/example_parse.h) and streaming from TFRecord
// files (data/example_reader.h).
#include <testthat.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/data/example_parse.h>
#include <cppestimators/io/example_proto.h>
#include <cppestimators/data/example_reader.h>
#include <cppestimators/io/tfrecord.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

std::string bytes(std::initializer_list<int> v) {
  std::string s;
  for (int b : v) s.push_back(static_cast<char>(b));
  return s;
}

FeatureSpec fixed(const std::string& key, FeatureKind kind, int width = 1) {
  FeatureSpec s;
  s.key = key;
  s.kind = kind;
  s.width = width;
  return s;
}

FeatureSpec var(const std::string& key, FeatureKind kind) {
  FeatureSpec s = fixed(key, kind);
  s.var_len = true;
  return s;
}

void parse_one(ExampleParser& p, const std::string& record, Chunk& out) {
  static const std::string path = "mem";
  RecordPlace at;
  at.path = &path;
  at.index = out.n + 1;
  p.parse(reinterpret_cast<const unsigned char*>(record.data()), record.size(), out, at);
}

std::string parse_error(ExampleParser& p, const std::string& record) {
  Chunk c;
  p.start(c);
  try {
    parse_one(p, record, c);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

context("tf.train.Example") {
  test_that("the encoder writes TF's encoding: packed numbers, map entries of key 1 and value 2") {
    ExampleEncoder enc;
    enc.begin();
    enc.begin_feature("x", FeatureKind::Float);
    enc.add_float(1.5f);
    enc.end_feature();
    enc.begin_feature("n", FeatureKind::Int64);
    enc.add_int64(3);
    enc.add_int64(-1);
    enc.end_feature();
    enc.begin_feature("s", FeatureKind::Bytes);
    enc.add_bytes("ab");
    enc.end_feature();
    const std::string x =
        bytes({0x0a, 13, 0x0a, 1, 'x', 0x12, 8, 0x12, 6, 0x0a, 4, 0, 0, 0xc0, 0x3f});
    // -1 as a varint: ten bytes
    const std::string n = bytes({0x0a, 20, 0x0a, 1, 'n', 0x12, 15, 0x1a, 13, 0x0a, 11, 3}) +
                          std::string(9, '\xff') + bytes({0x01});
    const std::string s = bytes({0x0a, 11, 0x0a, 1, 's', 0x12, 6, 0x0a, 4, 0x0a, 2, 'a', 'b'});
    const std::string features = x + n + s;
    const std::string expected = bytes({0x0a, static_cast<int>(features.size())}) + features;
    expect_true(enc.finish() == expected);
  }

  test_that(
      "parsing reads packed and unpacked lists, defaults, ragged features; the last key wins") {
    std::vector<FeatureSpec> spec = {fixed("x", FeatureKind::Float, 2),
                                     var("k", FeatureKind::Int64), fixed("s", FeatureKind::Bytes)};
    spec[2].has_default = true;
    spec[2].default_bytes = {"dflt"};
    ExampleParser p(spec);
    Chunk c;
    p.start(c);
    // unpacked floats (field 1, fixed32) and unpacked int64s (field 1, varint)
    const std::string x1 = bytes(
        {0x0a, 1, 'x', 0x12, 12, 0x12, 10, 0x0d, 0, 0, 0x80, 0x3f, 0x0d, 0, 0, 0, 0x40});  // 1, 2
    const std::string k1 = bytes({0x0a, 1, 'k', 0x12, 6, 0x1a, 4, 0x08, 5, 0x08, 7});
    const std::string r1 = bytes({0x0a, static_cast<int>(x1.size() + k1.size() + 4), 0x0a,
                                  static_cast<int>(x1.size())}) +
                           x1 + bytes({0x0a, static_cast<int>(k1.size())}) + k1;
    parse_one(p, r1, c);
    ExampleEncoder enc;
    enc.begin();
    enc.begin_feature("x", FeatureKind::Float);
    enc.add_float(9.f);
    enc.add_float(9.f);
    enc.end_feature();
    enc.begin_feature("x", FeatureKind::Float);  // given again: this one counts
    enc.add_float(3.f);
    enc.add_float(4.f);
    enc.end_feature();
    enc.begin_feature("s", FeatureKind::Bytes);
    enc.add_bytes("here");
    enc.end_feature();
    enc.begin_feature("other", FeatureKind::Int64);
    enc.add_int64(1);
    enc.end_feature();
    parse_one(p, enc.finish(), c);
    p.finish(c);
    expect_true(c.n == 2);
    const ChunkColumn& x = c.columns[0];
    expect_true(x.width == 2);
    expect_true(x.doubles == std::vector<double>({1, 3, 2, 4}));  // column-major
    const ChunkColumn& k = c.columns[1];
    expect_true(k.ragged);
    expect_true(k.ints == std::vector<int>({5, 7}));
    expect_true(k.row_splits == std::vector<std::int64_t>({0, 2, 2}));
    const ChunkColumn& s = c.columns[2];
    expect_true(s.text_at(0) == "dflt");
    expect_true(s.text_at(1) == "here");
  }

  test_that("errors name the feature and the record") {
    ExampleParser p({fixed("a", FeatureKind::Float)});
    ExampleEncoder enc;
    enc.begin();
    expect_true(
        parse_error(p, enc.finish()) ==
        "mem: feature 'a' is required but missing (no default_value) (record 1, at offset 0)");
    enc.begin();
    enc.begin_feature("a", FeatureKind::Int64);
    enc.add_int64(1);
    enc.end_feature();
    expect_true(
        parse_error(p, enc.finish()) ==
        "mem: feature 'a' is a int64_list, the spec wants a float_list (record 1, at offset 0)");
    expect_true(parse_error(p, bytes({0x0a, 5, 1})) ==
                "mem: malformed Example (record 1, at offset 0)");
  }

  test_that(
      "the reader streams several files in chunks and reports CRC errors with file and offset") {
    TempDir tmp;
    const std::string f1 = tmp / "a.tfrecord", f2 = tmp / "b.tfrecord";
    ExampleEncoder enc;
    std::string file1, file2;
    for (int i = 0; i < 5; ++i) {
      enc.begin();
      enc.begin_feature("i", FeatureKind::Int64);
      enc.add_int64(i);
      enc.end_feature();
      (i < 3 ? file1 : file2) += frame_record(enc.finish());
    }
    spit(f1, file1);
    spit(f2, file2);
    ExampleReader reader({f1, f2}, {fixed("i", FeatureKind::Int64)});
    Chunk c;
    std::vector<int> seen;
    std::vector<std::int64_t> sizes;
    while (reader.read(c, 2) > 0) {
      sizes.push_back(c.n);
      seen.insert(seen.end(), c.columns[0].ints.begin(), c.columns[0].ints.end());
    }
    expect_true(seen == std::vector<int>({0, 1, 2, 3, 4}));
    // steady state: refilling a chunk of the same size reuses its buffers
    ExampleReader again({f1, f2}, {fixed("i", FeatureKind::Int64)});
    again.read(c, 2);
    const int* ints = c.columns[0].ints.data();
    const std::size_t capacity = c.columns[0].ints.capacity();
    again.read(c, 2);
    expect_true(c.columns[0].ints.data() == ints);
    expect_true(c.columns[0].ints.capacity() == capacity);
    expect_true(sizes == std::vector<std::int64_t>({2, 2, 1}));
    const std::size_t size = file1.size() / 3;
    file1[size + 13] ^= 1;
    spit(f1, file1);
    ExampleReader bad({f1}, {fixed("i", FeatureKind::Int64)});
    std::string what;
    try {
      bad.read(c, 10);
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    expect_true(what == f1 + ": bad record CRC at offset " + std::to_string(size));
  }
}
