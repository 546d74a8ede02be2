// The engine's threads (parallel.h): a pool of workers that sleep when idle,
// and loops whose pieces the caller and the workers claim one at a time.
#include <cppestimators/parallel.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#ifdef _WIN32
#include <process.h>
#else
#include <unistd.h>
#endif

namespace cppestimators {
namespace threads {
namespace {

using Clock = std::chrono::steady_clock;

// How long an idle worker, and a caller waiting for its workers, spin before
// they sleep: long enough to catch a loop that follows the last one at once
// (the next layer of a step), short enough to take next to nothing from
// other processes on a busy machine.
constexpr std::chrono::microseconds kSpin(5);

long process_id() {
#ifdef _WIN32
  return static_cast<long>(_getpid());
#else
  return static_cast<long>(getpid());
#endif
}

// The process that loaded the engine (forked_child() compares with it).
const long kLoadedBy = process_id();

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// One loop: its pieces, the next unclaimed one, and the first error.
struct Loop {
  void (*call)(void*, int) = nullptr;
  void* ctx = nullptr;
  int n = 0;
  int helpers = 0;  // workers that may join
  std::atomic<int> next{0};
  std::mutex error_mu;
  int error_piece = -1;
  std::exception_ptr error;
};

// The workers of one process. Never destroyed: a child made by fork() has
// none of its parent's threads, so it leaves its copy of the parent's pool
// alone and makes its own (current()); and at exit, sleeping workers must
// not meet destroyed members.
struct Pool {
  explicit Pool(long pid) : pid(pid) {}
  const long pid;
  std::mutex submit;             // one loop at a time; a second caller runs serially
  std::mutex mu;                 // guards what follows, but for the atomics
  std::condition_variable wake;  // workers wait here for a loop
  std::condition_variable done;  // a caller waits here for its workers
  std::vector<std::thread> workers;
  std::atomic<unsigned> generation{0};  // one more for each loop
  Loop* loop = nullptr;
  bool open = false;         // workers may still join `loop`
  int joined = 0;            // workers that joined it
  std::atomic<int> left{0};  // ... and have finished with it
  int sleeping = 0;
  bool stopping = false;
};

std::atomic<Pool*> g_pool{nullptr};

// This process's pool.
Pool* current() {
  const long pid = process_id();
  Pool* pool = g_pool.load(std::memory_order_acquire);
  while (pool == nullptr || pool->pid != pid) {
    Pool* fresh = new Pool(pid);
    if (g_pool.compare_exchange_strong(pool, fresh, std::memory_order_acq_rel)) return fresh;
    delete fresh;  // another thread made one first: `pool` now holds it
  }
  return pool;
}

thread_local int t_index = 0;
thread_local bool t_inside = false;

// Claims and runs pieces until none is left, as thread `index`.
void work(Loop& loop, int index) {
  t_inside = true;
  t_index = index;
  for (;;) {
    const int i = loop.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= loop.n) break;
    try {
      loop.call(loop.ctx, i);
    } catch (...) {
      std::lock_guard<std::mutex> guard(loop.error_mu);
      if (!loop.error || i < loop.error_piece) {
        loop.error = std::current_exception();
        loop.error_piece = i;
      }
      loop.next.store(loop.n, std::memory_order_relaxed);  // skip the pieces not started
    }
  }
  t_inside = false;
  t_index = 0;
}

void worker_main(Pool* pool, unsigned seen) {
  for (;;) {
    const Clock::time_point until = Clock::now() + kSpin;
    while (pool->generation.load(std::memory_order_acquire) == seen && Clock::now() < until)
      cpu_relax();
    std::unique_lock<std::mutex> lock(pool->mu);
    while (pool->generation.load(std::memory_order_relaxed) == seen && !pool->stopping) {
      ++pool->sleeping;
      pool->wake.wait(lock);
      --pool->sleeping;
    }
    if (pool->stopping) return;
    seen = pool->generation.load(std::memory_order_relaxed);
    if (!pool->open || pool->joined >= pool->loop->helpers) continue;  // too late, or not needed
    Loop* loop = pool->loop;
    const int index = ++pool->joined;
    lock.unlock();
    work(*loop, index);
    lock.lock();  // the caller returns (and `loop` ends) only after this
    if (pool->left.fetch_add(1, std::memory_order_acq_rel) + 1 == pool->joined && !pool->open)
      pool->done.notify_one();
  }
}

// Starts workers until the pool has `count` (fewer if the system refuses).
void start_workers(Pool& pool, int count) {
  while (static_cast<int>(pool.workers.size()) < count) {
    try {
      pool.workers.emplace_back(worker_main, &pool,
                                pool.generation.load(std::memory_order_relaxed));
    } catch (const std::system_error&) {
      break;
    }
  }
}

}  // namespace

void run_pieces(int n, int threads, void (*call)(void*, int), void* ctx) {
  Loop loop;
  loop.call = call;
  loop.ctx = ctx;
  loop.n = n;
  Pool* pool = current();
  std::unique_lock<std::mutex> turn(pool->submit, std::try_to_lock);
  const int helpers = std::min(threads, n) - 1;
  if (!turn.owns_lock() || helpers < 1) {  // the pool is busy: this loop runs here alone
    work(loop, 0);
    if (loop.error) std::rethrow_exception(loop.error);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(pool->mu);
    start_workers(*pool, helpers);
    loop.helpers = std::min(helpers, static_cast<int>(pool->workers.size()));
    pool->loop = &loop;
    pool->open = true;
    pool->joined = 0;
    pool->left.store(0, std::memory_order_relaxed);
    pool->generation.fetch_add(1, std::memory_order_release);
    if (pool->sleeping > 0) pool->wake.notify_all();
  }
  work(loop, 0);
  int joined;
  {
    std::lock_guard<std::mutex> lock(pool->mu);
    pool->open = false;  // a worker waking now finds nothing to do
    joined = pool->joined;
  }
  const Clock::time_point until = Clock::now() + kSpin;
  while (pool->left.load(std::memory_order_acquire) < joined && Clock::now() < until) cpu_relax();
  {
    std::unique_lock<std::mutex> lock(pool->mu);
    pool->done.wait(lock, [&] { return pool->left.load(std::memory_order_acquire) >= joined; });
    pool->loop = nullptr;
  }
  if (loop.error) std::rethrow_exception(loop.error);
}

bool inside_loop() { return t_inside; }

int thread_index() { return t_index; }

int workers_started() {
  Pool* pool = g_pool.load(std::memory_order_acquire);
  if (pool == nullptr || pool->pid != process_id()) return 0;
  std::lock_guard<std::mutex> lock(pool->mu);
  return static_cast<int>(pool->workers.size());
}

void shutdown() {
  Pool* pool = g_pool.load(std::memory_order_acquire);
  if (pool == nullptr || pool->pid != process_id()) return;
  std::lock_guard<std::mutex> turn(pool->submit);  // no loop is running
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(pool->mu);
    pool->stopping = true;
    workers.swap(pool->workers);
  }
  pool->wake.notify_all();
  for (std::thread& w : workers) w.join();
  std::lock_guard<std::mutex> lock(pool->mu);
  pool->stopping = false;
}

bool forked_child() { return process_id() != kLoadedBy; }

}  // namespace threads
}  // namespace cppestimators
