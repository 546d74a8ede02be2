// Engine unit tests: the streaming feed's windows and batching, and the
// row transforms of data/stream_transforms.h.
#include <testthat.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cppestimators/data/stream_feed.h>
#include <cppestimators/data/stream_transforms.h>
#include <cppestimators/spec.h>

using namespace cppestimators;

namespace {

// Rows 0..n-1: a double column "x" = row, a string column "s" = "r<row>",
// a fixed-width integer column "m" of two values (row, -row), read at most
// `chunk` rows at a time.
class Counting : public RowStream {
 public:
  Counting(std::int64_t n, std::int64_t chunk) : n_(n), chunk_(chunk) {}
  std::int64_t read(Chunk& out, std::int64_t max_rows) override {
    if (out.columns.size() != 3) {
      out.columns.assign(3, ChunkColumn());
      out.columns[0].key = "x";
      out.columns[1].key = "s";
      out.columns[1].type = ColumnType::String;
      out.columns[2].key = "m";
      out.columns[2].type = ColumnType::Integer;
      out.columns[2].width = 2;
    }
    out.clear();
    const std::int64_t k = std::min({max_rows, chunk_, n_ - pos_});
    for (std::int64_t i = 0; i < k; ++i) {
      out.columns[0].doubles.push_back(static_cast<double>(pos_ + i));
      out.columns[1].push_text("r" + std::to_string(pos_ + i), true);
    }
    for (std::int64_t i = 0; i < k; ++i) out.columns[2].ints.push_back(static_cast<int>(pos_ + i));
    for (std::int64_t i = 0; i < k; ++i) out.columns[2].ints.push_back(-static_cast<int>(pos_ + i));
    out.n = k;
    pos_ += k;
    ++reads;
    return k;
  }
  void rewind() override {
    pos_ = 0;
    ++rewinds;
  }
  int reads = 0, rewinds = 0;

 private:
  std::int64_t n_, chunk_, pos_ = 0;
};

// Every batch of the feed as the rows' x values (checking s and m agree).
std::vector<std::vector<int>> batches_of(StreamFeed& feed, bool* consistent) {
  std::vector<std::vector<int>> out;
  *consistent = true;
  for (int rows; (rows = feed.next_batch()) > 0;) {
    const Chunk& w = feed.window();
    std::vector<int> b;
    for (int r = 0; r < rows; ++r) {
      const std::int64_t i = feed.offset() + r;
      const int x = static_cast<int>(w.columns[0].doubles[static_cast<std::size_t>(i)]);
      b.push_back(x);
      if (std::string(w.columns[1].text_at(i)) != "r" + std::to_string(x)) *consistent = false;
      if (w.columns[2].ints[static_cast<std::size_t>(i)] != x ||
          w.columns[2].ints[static_cast<std::size_t>(i + w.n)] != -x)
        *consistent = false;
    }
    out.push_back(b);
  }
  return out;
}

// A batch transform as the host describes it (data/registry.h's kinds).
Spec batch_op(const std::string& kind, double count) {
  Spec s;
  s.kind = kind;
  s.nums["count"] = {count};
  return s;
}

FeedColumns rows_only() {
  FeedColumns c;
  c.views = false;
  return c;
}

}  // namespace

context("StreamFeed") {
  test_that("batches cross chunks and windows, in order, with every column carried") {
    // 23 rows read 4 at a time into windows of 7, batches of 5
    StreamFeed feed(std::make_unique<Counting>(23, 4), BatchPlan(), 5, 7, rows_only());
    bool ok = false;
    const auto b = batches_of(feed, &ok);
    expect_true(ok);
    expect_true(b.size() == 5u);
    int next = 0;
    for (const auto& batch : b)
      for (int x : batch) expect_true(x == next++);
    expect_true(next == 23);
    expect_true(b.back().size() == 3u);
  }

  test_that(
      "after dataset_batch(), each pass ends in a partial batch and transforms count batches") {
    BatchPlan plan;
    plan.batch_size = 4;
    plan.after.push_back(batch_op("repeat", 2));
    StreamFeed feed(std::make_unique<Counting>(10, 3), plan, 99, 6, rows_only());
    bool ok = false;
    auto b = batches_of(feed, &ok);
    expect_true(ok);
    // 10 rows: batches of 4, 4, 2, twice
    expect_true(b.size() == 6u);
    expect_true((b[2].size() == 2u && b[2][1] == 9 && b[3][0] == 0 && b[5].size() == 2u));

    BatchPlan drop = plan;
    drop.drop_remainder = true;
    StreamFeed f2(std::make_unique<Counting>(10, 3), drop, 99, 6, rows_only());
    b = batches_of(f2, &ok);
    expect_true((b.size() == 4u && b[2][0] == 0));

    // skip 1 batch, take 3, repeat twice: batches 1..3 of each pass
    BatchPlan st;
    st.batch_size = 2;
    st.after = {batch_op("skip", 1), batch_op("take", 3), batch_op("repeat", 2)};
    StreamFeed f3(std::make_unique<Counting>(20, 5), st, 99, 8, rows_only());
    b = batches_of(f3, &ok);
    expect_true(b.size() == 6u);
    expect_true((b[0][0] == 2 && b[2][1] == 7 && b[3][0] == 2 && b[5][1] == 7));
  }

  test_that("a forever-repeated empty input ends instead of looping") {
    BatchPlan plan;
    plan.batch_size = 4;
    plan.after.push_back(batch_op("repeat", -1));
    StreamFeed feed(std::make_unique<Counting>(0, 3), plan, 99, 6, rows_only());
    expect_true(feed.next_batch() == 0);
    auto rep = std::make_unique<RepeatStream>(std::make_unique<Counting>(0, 3), -1);
    Chunk c;
    expect_true(rep->read(c, 10) == 0);
  }

  test_that("row transforms skip, take and repeat rows of each pass") {
    auto s = std::make_unique<RepeatStream>(
        std::make_unique<TakeStream>(
            std::make_unique<SkipStream>(std::make_unique<Counting>(10, 4), 3), 5),
        2);
    StreamFeed feed(std::move(s), BatchPlan(), 4, 4, rows_only());
    bool ok = false;
    const auto b = batches_of(feed, &ok);
    std::vector<int> all;
    for (const auto& batch : b) all.insert(all.end(), batch.begin(), batch.end());
    expect_true((all == std::vector<int>{3, 4, 5, 6, 7, 3, 4, 5, 6, 7}));
    // batches cross the passes (the repeat is before batching)
    expect_true((b.size() == 3u && b[1][0] == 7 && b[1][1] == 3));
  }

  test_that("the response becomes doubles through the vocabulary, with row numbers in errors") {
    FeedColumns cols;
    cols.features = {"x"};
    cols.response = "s";
    cols.has_vocabulary = true;
    for (int i = 0; i < 12; ++i) cols.vocabulary.push_back("r" + std::to_string(i));
    StreamFeed feed(std::make_unique<Counting>(14, 5), BatchPlan(), 4, 5, cols);
    feed.prime();
    expect_true(feed.data().features.size() == 1u);
    expect_true((feed.data().labels != nullptr && feed.data().labels[3] == 3.0));
    bool threw = false;
    try {
      while (feed.next_batch() > 0) {
      }
    } catch (const std::invalid_argument& e) {
      threw = std::string(e.what()).find("'r12' (row 13)") != std::string::npos;
    }
    expect_true(threw);
  }
}
