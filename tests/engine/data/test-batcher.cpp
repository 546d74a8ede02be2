// Engine unit tests: the input pipeline's batcher.
#include <testthat.h>

#include <algorithm>
#include <vector>

#include <cppestimators/data/batcher.h>

using cppestimators::Batcher;

namespace {
std::vector<std::vector<int>> drain(Batcher& b) {
  std::vector<std::vector<int>> out;
  std::vector<int> buf(b.batch_size());
  for (int k; (k = b.next(buf.data())) > 0;) out.emplace_back(buf.begin(), buf.begin() + k);
  return out;
}
}  // namespace

context("Batcher") {
  test_that("batches cross epoch boundaries and only the last is partial") {
    Batcher b(5, 2, 3, false, 0);  // 15 rows in batches of 2
    auto batches = drain(b);
    expect_true(batches.size() == 8u);
    for (std::size_t i = 0; i + 1 < batches.size(); ++i) expect_true(batches[i].size() == 2u);
    expect_true(batches.back().size() == 1u);
    // epoch boundary inside the third batch: rows 4 then 0
    expect_true((batches[2][0] == 4 && batches[2][1] == 0));
    expect_true(b.next(std::vector<int>(2).data()) == 0);
  }

  test_that("one epoch without shuffling visits rows in order") {
    Batcher b(7, 3, 1, false, 0);
    auto batches = drain(b);
    std::vector<int> flat;
    for (auto& v : batches) flat.insert(flat.end(), v.begin(), v.end());
    std::vector<int> expected = {0, 1, 2, 3, 4, 5, 6};
    expect_true(flat == expected);
    expect_true(batches.size() == 3u);
  }

  test_that("shuffling gives a permutation per epoch, fixed by the seed") {
    Batcher a(10, 5, 2, true, 42), b(10, 5, 2, true, 42), c(10, 5, 2, true, 7);
    auto ba = drain(a), bb = drain(b), bc = drain(c);
    expect_true(ba.size() == 4u);
    expect_true(ba == bb);
    expect_true(ba != bc);
    expect_true(a.shuffles());
    std::vector<std::vector<int>> ea(2);
    for (int i = 0; i < 4; ++i) ea[i / 2].insert(ea[i / 2].end(), ba[i].begin(), ba[i].end());
    expect_true(ea[0] != ea[1]);  // a new permutation for the second epoch
    for (auto epoch : ea) {
      std::sort(epoch.begin(), epoch.end());
      for (int i = 0; i < 10; ++i) expect_true(epoch[i] == i);
    }
  }

  test_that("a batch that is always one whole epoch keeps the rows in order") {
    // batch_size = n: every batch is an epoch; one epoch within one batch
    Batcher whole(6, 6, 3, true, 42), once(6, 10, 1, true, 42), more(6, 10, 2, true, 42);
    std::vector<int> expected = {0, 1, 2, 3, 4, 5};
    const auto w = drain(whole), o = drain(once);
    expect_true(w.size() == 3u);
    for (const auto& v : w) expect_true(v == expected);
    expect_true(o.size() == 1u);
    expect_true(o[0] == expected);
    expect_false(whole.shuffles());
    expect_false(once.shuffles());
    // batches that cross epochs are shuffled
    expect_true(more.shuffles());
  }

  test_that("num_epochs < 0 repeats forever; empty input ends at once") {
    Batcher forever(3, 2, -1, false, 0);
    std::vector<int> buf(2);
    for (int i = 0; i < 100; ++i) expect_true(forever.next(buf.data()) == 2);
    Batcher empty(0, 4, 1, false, 0);
    expect_true(empty.next(buf.data()) == 0);
  }

  test_that("invalid batch sizes are rejected") {
    expect_error_as(Batcher(3, 0, 1, false, 0), std::invalid_argument);
  }
}
