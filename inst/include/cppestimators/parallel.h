// The engine's one way to use several threads: a loop over pieces of work
// shared by the calling thread and the engine's own workers (a small pool of
// std::threads, src/engine/threads/pool.cpp), when more than one thread is
// asked for (options(cppestimators.threads)) and the loop is not already
// inside another one.
//
// Pieces are claimed one at a time by whichever thread is free, the caller
// included, so a worker that the OS has descheduled (the machine is busy
// with other work) delays the loop by at most the piece it holds: the
// caller takes the rest. Idle workers spin for a few microseconds, then
// sleep on a condition variable, so they cost nothing between steps. A
// child made by fork() starts its own workers on first use.
//
// A loop pays for waking a worker (about 1-2 us, measured with the spin)
// from about 15 us of work: two pieces of 5,000 float additions took 16.2 us
// on one thread and 15.5 us on two, 100,000 additions 153 us and 104 us.
// Callers go parallel only above such sizes (dnn_model's kParallelMacs,
// 4,096 rows for the trees, 16,384 for the head's loss, 4,096 CSV records)
// and stay on the calling thread below.
//
// Each piece runs exactly once, and what it computes must not depend on
// which thread runs it; a piece that needs scratch memory of its own thread
// indexes it by thread_index(). Results are then the same for every thread
// count that splits the work into the same pieces.
#pragma once
#include <memory>
#include <type_traits>
#include <utility>

namespace cppestimators {
namespace threads {

// Runs call(ctx, i) for every i in [0, n) on the calling thread and up to
// threads - 1 workers. Returns when every piece has run. If a piece throws,
// pieces not yet started are skipped and the exception of the lowest piece
// that threw is rethrown on the calling thread; the pool stays usable.
void run_pieces(int n, int threads, void (*call)(void*, int), void* ctx);

// True on a thread running a piece (a loop inside one runs serially).
bool inside_loop();

// The running thread's index among a loop's threads, from 0 (the caller,
// and every thread outside loops) to threads - 1.
int thread_index();

// The workers started in this process (for tests; 0 before the first loop,
// and in a forked child until its first loop).
int workers_started();

// Stops and joins the workers (before the library is unloaded). A later
// loop starts new ones.
void shutdown();

// Whether this process is a child made by fork() of the process that loaded
// the engine.
bool forked_child();

}  // namespace threads

// Calls f(i) for i in [0, n) over at most `threads` threads (see above);
// serially when threads or n is 1, or inside another loop. Inline: a
// template over the caller's lambda; the pool behind it is compiled once.
template <class F>
void parallel_for(int n, int threads, F&& f) {
  if (threads > 1 && n > 1 && !threads::inside_loop()) {
    using Fn = std::remove_reference_t<F>;
    threads::run_pieces(
        n, threads, [](void* ctx, int i) { (*static_cast<Fn*>(ctx))(i); },
        const_cast<void*>(static_cast<const void*>(std::addressof(f))));
    return;
  }
  for (int i = 0; i < n; ++i) f(i);
}

// The same loop, named for call sites that split work into more pieces than
// threads so that a slow thread delays at most one small piece.
template <class F>
void parallel_for_dynamic(int n, int threads, F&& f) {
  parallel_for(n, threads, std::forward<F>(f));
}

// The running thread's index among a loop's threads (0 outside loops).
inline int thread_index() { return threads::thread_index(); }

}  // namespace cppestimators
