// Engine unit tests: the thread pool behind parallel.h.
#include <testthat.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cppestimators/parallel.h>

#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>
#endif

using cppestimators::parallel_for;
using cppestimators::parallel_for_dynamic;
namespace threads = cppestimators::threads;

namespace {

// A piece's result that depends only on the piece.
double piece_value(int i) {
  double s = 0;
  for (int k = 1; k <= 200; ++k) s += std::sin(i * 0.001 * k) / k;
  return s;
}

std::vector<double> values_with(int n, int thread_count) {
  std::vector<double> out(static_cast<std::size_t>(n), 0.0);
  parallel_for(n, thread_count, [&](int i) { out[static_cast<std::size_t>(i)] = piece_value(i); });
  return out;
}

}  // namespace

context("Thread pool") {
  test_that("every piece runs once and the results equal the serial loop's") {
    const std::vector<double> serial = values_with(1000, 1);
    for (int t : {2, 3, 8}) {
      std::vector<std::atomic<int>> runs(1000);
      parallel_for_dynamic(1000, t, [&](int i) { runs[static_cast<std::size_t>(i)].fetch_add(1); });
      bool once = true;
      for (auto& r : runs) once = once && r.load() == 1;
      expect_true(once);
      expect_true(values_with(1000, t) == serial);
    }
    expect_true(threads::workers_started() >= 1);
  }

  test_that("thread_index() names one of the loop's threads, 0 outside loops") {
    std::vector<int> seen(64, -1);
    parallel_for(64, 2,
                 [&](int i) { seen[static_cast<std::size_t>(i)] = threads::thread_index(); });
    bool in_range = true;
    for (int s : seen) in_range = in_range && (s == 0 || s == 1);
    expect_true(in_range);
    expect_true(threads::thread_index() == 0);
    expect_false(threads::inside_loop());
  }

  test_that("a loop inside a piece runs on that piece's thread") {
    std::vector<int> inner_threads(4 * 8, -1);
    std::vector<int> outer_threads(4, -1);
    std::vector<int> inside(4, 0);
    parallel_for(4, 2, [&](int i) {
      outer_threads[static_cast<std::size_t>(i)] = threads::thread_index();
      inside[static_cast<std::size_t>(i)] = threads::inside_loop();
      parallel_for(8, 2, [&](int j) {
        inner_threads[static_cast<std::size_t>(i * 8 + j)] = threads::thread_index();
      });
    });
    bool same = true;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 8; ++j)
        same = same && inner_threads[static_cast<std::size_t>(i * 8 + j)] ==
                           outer_threads[static_cast<std::size_t>(i)];
    expect_true(same);
    expect_true(inside == std::vector<int>(4, 1));
  }

  test_that("an exception of a piece reaches the caller and the pool stays usable") {
    std::string message;
    try {
      parallel_for(100, 2, [&](int i) {
        if (i == 37) throw std::invalid_argument("piece 37 failed");
      });
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    expect_true(message == "piece 37 failed");
    expect_true(values_with(500, 2) == values_with(500, 1));
  }

  test_that("a loop started while another thread's loop runs still completes") {
    std::atomic<bool> go{false};
    std::vector<double> other;
    std::thread t([&] {
      while (!go.load()) std::this_thread::yield();
      other = values_with(2000, 2);
    });
    go.store(true);
    const std::vector<double> mine = values_with(2000, 2);
    t.join();
    expect_true(mine == other);
    expect_true(mine == values_with(2000, 1));
  }

  test_that("shutdown() joins the workers and a later loop starts new ones") {
    values_with(100, 2);
    threads::shutdown();
    expect_true(threads::workers_started() == 0);
    expect_true(values_with(100, 2) == values_with(100, 1));
    expect_true(threads::workers_started() == 1);
  }

#ifndef _WIN32
  test_that("a child made by fork() after the parent's loops runs loops of its own") {
    values_with(100, 2);  // the parent's workers exist
    expect_false(threads::forked_child());
    const pid_t pid = fork();
    if (pid == 0) {
      // In the child: no worker yet, a loop starts one and gives the
      // serial loop's values. The exit status reports what was seen.
      int status = threads::forked_child() ? 0 : 1;
      if (threads::workers_started() != 0) status |= 2;
      if (values_with(5000, 2) != values_with(5000, 1)) status |= 4;
      if (threads::workers_started() != 1) status |= 8;
      _exit(status);
    }
    expect_true(pid > 0);
    int status = -1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    pid_t done = 0;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (done == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
    expect_true(done == pid);  // it did not hang
    const bool exited = WIFEXITED(status);
    expect_true(exited);
    expect_true(WEXITSTATUS(status) == 0);
  }
#endif
}
