// Engine unit tests: the shuffle buffer (data/shuffle_stream.h) and the
// reading ahead on a thread (data/prefetch_stream.h) over a RowStream of
// rows held in vectors.
#include <testthat.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/data/prefetch_stream.h>
#include <cppestimators/data/shuffle_stream.h>
#include <cppestimators/data/stream_transforms.h>

using namespace cppestimators;

namespace {

// Rows 0 .. n-1 as four columns: "id" (a number), "s" (a text, missing for
// every seventh row), "w" (two integers: id and -id) and "r" (a
// variable-length feature of id % 3 numbers). Optionally fails once
// `fail_after` rows were read, or claims to need R's main thread.
class VectorStream : public RowStream {
 public:
  explicit VectorStream(std::int64_t n, std::int64_t fail_after = -1, bool main_only = false)
      : n_(n), fail_after_(fail_after), main_only_(main_only) {}
  std::int64_t read(Chunk& out, std::int64_t max_rows) override {
    shape(out);
    if (fail_after_ >= 0 && pos_ >= fail_after_) throw std::runtime_error("the source broke");
    const std::int64_t k = std::min(max_rows, n_ - pos_);
    ChunkColumn &id = out.columns[0], &s = out.columns[1], &w = out.columns[2], &r = out.columns[3];
    for (std::int64_t i = pos_; i < pos_ + k; ++i) {
      id.doubles.push_back(static_cast<double>(i));
      s.push_text("row" + std::to_string(i), i % 7 != 3);
      for (std::int64_t v = 0; v < i % 3; ++v) r.doubles.push_back(i + v / 10.0);
      r.row_splits.push_back(static_cast<std::int64_t>(r.doubles.size()));
    }
    for (int col = 0; col < 2; ++col)
      for (std::int64_t i = pos_; i < pos_ + k; ++i)
        w.ints.push_back(static_cast<int>(col == 0 ? i : -i));
    out.n = k;
    pos_ += k;
    ++reads;
    return k;
  }
  void rewind() override {
    pos_ = 0;
    ++rewinds;
  }
  bool main_thread_only() const override { return main_only_; }
  int reads = 0, rewinds = 0;

 private:
  void shape(Chunk& out) {
    out.columns.resize(4);
    const char* keys[] = {"id", "s", "w", "r"};
    const ColumnType types[] = {ColumnType::Double, ColumnType::String, ColumnType::Integer,
                                ColumnType::Double};
    for (int j = 0; j < 4; ++j) {
      out.columns[j].key = keys[j];
      out.columns[j].type = types[j];
      out.columns[j].width = j == 2 ? 2 : 1;
      out.columns[j].ragged = j == 3;
    }
    out.clear();
  }
  std::int64_t n_, fail_after_;
  bool main_only_;
  std::int64_t pos_ = 0;
};

// Every row of one pass (reading `max_rows` at a time), checking that each
// row's columns agree with its id; the ids in order.
std::vector<int> pass(RowStream& s, std::int64_t max_rows, bool* consistent = nullptr) {
  std::vector<int> ids;
  Chunk c;
  bool ok = true;
  for (std::int64_t got; (got = s.read(c, max_rows)) > 0;) {
    ok = ok && got <= max_rows && c.n == got;
    const ChunkColumn &id = c.columns[0], &t = c.columns[1], &w = c.columns[2], &r = c.columns[3];
    for (std::int64_t i = 0; i < got; ++i) {
      const int v = static_cast<int>(id.doubles[static_cast<std::size_t>(i)]);
      ids.push_back(v);
      ok = ok && (t.present[static_cast<std::size_t>(i)] != 0) == (v % 7 != 3) &&
           t.text_at(i) == "row" + std::to_string(v);
      ok = ok && w.ints[static_cast<std::size_t>(i)] == v &&
           w.ints[static_cast<std::size_t>(i + got)] == -v;
      const std::int64_t a = r.row_splits[static_cast<std::size_t>(i)];
      const std::int64_t b = r.row_splits[static_cast<std::size_t>(i) + 1];
      ok = ok && b - a == v % 3;
      for (std::int64_t k = a; k < b; ++k)
        ok = ok && r.doubles[static_cast<std::size_t>(k)] == v + (k - a) / 10.0;
    }
  }
  if (consistent) *consistent = ok;
  return ids;
}

std::vector<int> iota(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

bool is_permutation_of(std::vector<int> v, int n) {
  std::sort(v.begin(), v.end());
  return v == iota(n);
}

std::unique_ptr<RowStream> shuffled(std::int64_t rows, std::int64_t buffer, std::uint64_t seed,
                                    bool reshuffle) {
  return std::make_unique<ShuffleStream>(std::make_unique<VectorStream>(rows), buffer, seed,
                                         reshuffle);
}

}  // namespace

context("ShuffleStream") {
  test_that("each pass gives every row once, whole, whatever the chunk sizes") {
    for (std::int64_t buffer : {1, 2, 10, 100, 1000}) {
      for (std::int64_t max_rows : {1, 3, 64, 500}) {
        auto s = shuffled(100, buffer, 7, true);
        bool ok = false;
        expect_true(is_permutation_of(pass(*s, max_rows, &ok), 100));
        expect_true(ok);
        s->rewind();
        expect_true(is_permutation_of(pass(*s, max_rows, &ok), 100));
        expect_true(ok);
      }
    }
  }

  test_that("a buffer of one row keeps the input's order") {
    auto s = shuffled(50, 1, 3, true);
    expect_true(pass(*s, 8) == iota(50));
  }

  test_that("a buffer as large as the data shuffles it all") {
    auto s = shuffled(200, 200, 11, true);
    const std::vector<int> ids = pass(*s, 64);
    expect_true(is_permutation_of(ids, 200));
    expect_true(ids != iota(200));
    // rows from the end come early: nothing holds them back
    const auto late = std::find_if(ids.begin(), ids.begin() + 20, [](int v) { return v >= 150; });
    expect_true(late != ids.begin() + 20);
  }

  test_that("a row leaves the buffer no earlier than its place allows") {
    // with a buffer of b rows, the k-th row given out (from 0) is one of the
    // input's first b + k rows
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      auto s = shuffled(100, 4, seed, true);
      const std::vector<int> ids = pass(*s, 16);
      bool ok = true;
      for (std::size_t k = 0; k < ids.size(); ++k) ok = ok && ids[k] < 4 + static_cast<int>(k);
      expect_true(ok);
      expect_true(ids[0] < 4);
    }
  }

  test_that("the same seed gives the same orders, another seed others") {
    auto a = shuffled(100, 30, 42, true), b = shuffled(100, 30, 42, true);
    auto c = shuffled(100, 30, 43, true);
    const std::vector<int> first = pass(*a, 10);
    expect_true(first == pass(*b, 25));  // the chunk size does not change the order
    expect_true(first != pass(*c, 10));
  }

  test_that("reshuffle_each_iteration gives each pass its order, reproducibly") {
    auto a = shuffled(100, 100, 5, true), b = shuffled(100, 100, 5, true);
    std::vector<std::vector<int>> pa, pb;
    for (int p = 0; p < 3; ++p) {
      pa.push_back(pass(*a, 32));
      pb.push_back(pass(*b, 32));
      a->rewind();
      b->rewind();
    }
    expect_true(pa == pb);
    expect_true(pa[0] != pa[1]);
    expect_true(pa[1] != pa[2]);
  }

  test_that("without reshuffle_each_iteration every pass has the first pass's order") {
    auto a = shuffled(100, 100, 5, false), b = shuffled(100, 100, 5, true);
    const std::vector<int> first = pass(*a, 32);
    expect_true(first == pass(*b, 32));
    a->rewind();
    expect_true(pass(*a, 32) == first);
    a->rewind();
    expect_true(pass(*a, 7) == first);
  }

  test_that("repeating a shuffled stream reshuffles each repetition") {
    RepeatStream r(shuffled(40, 40, 9, true), 3);
    const std::vector<int> ids = pass(r, 16);
    expect_true(ids.size() == 120u);
    const std::vector<int> p0(ids.begin(), ids.begin() + 40),
        p1(ids.begin() + 40, ids.begin() + 80);
    expect_true(is_permutation_of(p0, 40));
    expect_true(is_permutation_of(p1, 40));
    expect_true(p0 != p1);
  }

  test_that("an empty input gives an empty pass with its columns") {
    auto s = shuffled(0, 10, 1, true);
    Chunk c;
    expect_true(s->read(c, 10) == 0);
    expect_true(c.n == 0);
    expect_true(c.columns.size() == 4u);
    expect_error_as(ShuffleStream(std::make_unique<VectorStream>(3), 0, 1, true),
                    std::invalid_argument);
  }
}

context("PrefetchStream") {
  test_that("gives the rows of the input in order, pass after pass") {
    for (int depth : {1, 2, 5}) {
      auto in = std::make_unique<VectorStream>(1000);
      VectorStream* raw = in.get();
      PrefetchStream p(std::move(in), depth);
      bool ok = false;
      expect_true(pass(p, 64, &ok) == iota(1000));
      expect_true(ok);
      p.rewind();
      expect_true(pass(p, 64, &ok) == iota(1000));
      expect_true(ok);
      expect_true(raw->rewinds == 1);
    }
  }

  test_that("a later read of fewer rows than the first gets them, the rest kept") {
    PrefetchStream p(std::make_unique<VectorStream>(100), 2);
    Chunk c;
    std::vector<int> ids;
    expect_true(p.read(c, 30) == 30);
    for (std::int64_t i = 0; i < c.n; ++i) ids.push_back(static_cast<int>(c.columns[0].doubles[i]));
    for (std::int64_t got; (got = p.read(c, 7)) > 0;) {
      expect_true(got <= 7);
      for (std::int64_t i = 0; i < got; ++i)
        ids.push_back(static_cast<int>(c.columns[0].doubles[static_cast<std::size_t>(i)]));
      // the fixed-width column is column-major in the part handed out
      expect_true(c.columns[2].ints[static_cast<std::size_t>(got)] == -ids[ids.size() - got]);
    }
    expect_true(ids == iota(100));
    expect_true(p.read(c, 7) == 0);
  }

  test_that("an error of the input on the thread comes out of read() after the rows before it") {
    PrefetchStream p(std::make_unique<VectorStream>(100, 40), 2);
    Chunk c;
    std::int64_t rows = 0;
    bool threw = false;
    try {
      for (std::int64_t got; (got = p.read(c, 10)) > 0;) rows += got;
    } catch (const std::runtime_error& e) {
      threw = std::string(e.what()) == "the source broke";
    }
    expect_true(threw);
    expect_true(rows == 40);
    expect_error_as(p.read(c, 10), std::runtime_error);  // still failed until rewound
  }

  test_that("destroying it before the end stops the thread") {
    for (int k = 0; k < 20; ++k) {
      PrefetchStream p(std::make_unique<VectorStream>(100000), 3);
      Chunk c;
      expect_true(p.read(c, 16) == 16);
    }  // the thread waits for room in the queue: the destructor must wake it
    PrefetchStream never_read(std::make_unique<VectorStream>(10), 2);
    expect_true(true);
  }

  test_that("rewinding in the middle of a pass starts again from the first row") {
    PrefetchStream p(std::make_unique<VectorStream>(500), 2);
    Chunk c;
    expect_true(p.read(c, 50) == 50);
    expect_true(p.read(c, 20) == 20);
    p.rewind();
    expect_true(pass(p, 50) == iota(500));
  }

  test_that("an input that needs the main thread is read directly") {
    auto in = std::make_unique<VectorStream>(30, -1, true);
    VectorStream* raw = in.get();
    PrefetchStream p(std::move(in), 4);
    expect_true(p.main_thread_only());
    Chunk c;
    expect_true(p.read(c, 10) == 10);
    expect_true(raw->reads == 1);  // nothing read ahead
    expect_true(pass(p, 10) == std::vector<int>({10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                                                 20, 21, 22, 23, 24, 25, 26, 27, 28, 29}));
  }

  test_that("prefetching a shuffle gives the shuffle's rows") {
    PrefetchStream p(shuffled(300, 50, 8, true), 2);
    auto plain = shuffled(300, 50, 8, true);
    expect_true(pass(p, 40) == pass(*plain, 40));
    expect_error_as(PrefetchStream(std::make_unique<VectorStream>(3), 0), std::invalid_argument);
  }
}
