// Engine unit tests: the collectives of distributed/collective.h.
#include <testthat.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cppestimators/distributed/collective.h>

using cppestimators::Collective;

namespace {

// Runs body(rank's collective) on one thread per rank; returns each rank's
// exception message ("" when it returned).
std::vector<std::string> on_ranks(std::vector<std::unique_ptr<Collective>>& ranks,
                                  const std::function<void(Collective&)>& body) {
  std::vector<std::string> errors(ranks.size());
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    threads.emplace_back([&, r] {
      try {
        body(*ranks[r]);
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

}  // namespace

context("Collectives") {
  test_that("the local collective is one rank whose operations return their input") {
    auto c = cppestimators::make_local_collective();
    expect_true(c->rank() == 0);
    expect_true(c->size() == 1);
    std::vector<double> x = {1.5, -0.0, 3.0};
    c->allreduce_sum(x.data(), x.size());
    expect_true(x[0] == 1.5);
    expect_true(std::signbit(x[1]));
    expect_true(x[2] == 3.0);
    expect_true(c->allgather("a") == std::vector<std::string>{"a"});
    std::string b = "b";
    c->broadcast(b, 0);
    expect_true(b == "b");
    expect_error(c->broadcast(b, 1));
    c->abort("stop");
    expect_error(c->allgather("a"));
  }

  test_that("allreduce_sum adds in rank order on every rank, whatever the timing") {
    const int W = 4;
    auto ranks = cppestimators::make_in_process_collectives(W);
    // values whose sum depends on the order of the additions
    auto value = [](int r, int i) {
      return (r % 2 ? 1e16 : 1.0) * (r + 1) * (i + 1) * (r == 2 ? -1 : 1) + 0.1 * r;
    };
    std::vector<double> expected(64);
    for (int i = 0; i < 64; ++i) {
      double s = value(0, i);
      for (int r = 1; r < W; ++r) s += value(r, i);
      expected[static_cast<std::size_t>(i)] = s;
    }
    std::vector<std::vector<double>> got(W);
    for (int round = 0; round < 20; ++round) {
      auto errors = on_ranks(ranks, [&](Collective& c) {
        // ranks arrive in a different order each round
        std::this_thread::sleep_for(std::chrono::microseconds(((c.rank() + round) % W) * 200));
        std::vector<double> x(64);
        for (int i = 0; i < 64; ++i) x[static_cast<std::size_t>(i)] = value(c.rank(), i);
        c.allreduce_sum(x.data(), x.size());
        got[static_cast<std::size_t>(c.rank())] = x;
      });
      for (int r = 0; r < W; ++r) {
        expect_true(errors[static_cast<std::size_t>(r)].empty());
        expect_true(got[static_cast<std::size_t>(r)] == expected);
      }
    }
  }

  test_that("allgather lists the ranks in order; broadcast copies the root's bytes") {
    auto ranks = cppestimators::make_in_process_collectives(3);
    std::vector<std::vector<std::string>> gathered(3);
    std::vector<std::string> sent(3);
    auto errors = on_ranks(ranks, [&](Collective& c) {
      const std::size_t r = static_cast<std::size_t>(c.rank());
      gathered[r] = c.allgather(std::string(r + 1, static_cast<char>('a' + r)));
      std::string b = c.rank() == 2 ? std::string("from two\0!", 10) : "mine";
      c.broadcast(b, 2);
      sent[r] = b;
    });
    for (std::size_t r = 0; r < 3; ++r) {
      expect_true(errors[r].empty());
      expect_true(gathered[r] == (std::vector<std::string>{"a", "bb", "ccc"}));
      expect_true(sent[r] == std::string("from two\0!", 10));
    }
  }

  test_that("a size mismatch throws on every rank and the group stays usable") {
    auto ranks = cppestimators::make_in_process_collectives(2);
    auto errors = on_ranks(ranks, [&](Collective& c) {
      std::vector<double> x(static_cast<std::size_t>(3 + c.rank()), 1.0);
      c.allreduce_sum(x.data(), x.size());
    });
    expect_true(errors[0] == "allreduce_sum: rank 1 gave 4 values, rank 0 gave 3");
    expect_true(errors[1] == "allreduce_sum: rank 0 gave 3 values, rank 1 gave 4");
    std::vector<double> sums(2);
    errors = on_ranks(ranks, [&](Collective& c) {
      double x = c.rank() + 1.0;
      c.allreduce_sum(&x, 1);
      sums[static_cast<std::size_t>(c.rank())] = x;
    });
    expect_true(errors[0].empty());
    expect_true(errors[1].empty());
    expect_true(sums == (std::vector<double>{3.0, 3.0}));
    std::string b;
    expect_error(ranks[0]->broadcast(b, 5));
  }

  test_that("abort() wakes the ranks waiting for one that failed") {
    auto ranks = cppestimators::make_in_process_collectives(3);
    auto errors = on_ranks(ranks, [&](Collective& c) {
      if (c.rank() == 1) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        c.abort("out of memory");
        throw std::runtime_error("rank 1 failed");
      }
      c.allgather("x");
    });
    expect_true(errors[0] == "collective aborted (rank 1 gave up: out of memory)");
    expect_true(errors[1] == "rank 1 failed");
    expect_true(errors[2] == "collective aborted (rank 1 gave up: out of memory)");
  }
}
