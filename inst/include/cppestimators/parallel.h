// The engine's one way to use several threads: OpenMP loops over disjoint
// pieces of work, when the package is built with OpenMP (R's
// SHLIB_OPENMP_CXXFLAGS) and more than one thread is asked for
// (options(cppestimators.threads)). Without OpenMP the loops run serially.
#pragma once
#ifdef _OPENMP
#include <omp.h>
#endif

namespace cppestimators {

// Calls f(i) for i in [0, n), split into contiguous ranges over `threads`
// threads (each i runs exactly once; which thread runs it is fixed by n and
// threads, so results that depend on the split are reproducible).
template <class F>
void parallel_for(int n, int threads, F&& f) {
#ifdef _OPENMP
  if (threads > 1 && n > 1) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int i = 0; i < n; ++i) f(i);
    return;
  }
#endif
  for (int i = 0; i < n; ++i) f(i);
}

// Calls f(i) for i in [0, n) over `threads` threads, each thread taking the
// next i when it is done with one: for pieces whose results do not depend on
// which thread runs them, so that a thread slowed by another process's work
// on its core does not hold the others back.
template <class F>
void parallel_for_dynamic(int n, int threads, F&& f) {
#ifdef _OPENMP
  if (threads > 1 && n > 1) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int i = 0; i < n; ++i) f(i);
    return;
  }
#endif
  for (int i = 0; i < n; ++i) f(i);
}

// The thread running the current piece of work (0 outside parallel loops).
inline int thread_index() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

}  // namespace cppestimators
