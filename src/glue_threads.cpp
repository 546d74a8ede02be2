// The engine's threads as R sees them: what the default thread count needs
// to know about this process, and the workers joined before the library is
// unloaded.
#include <Rcpp.h>
#include <R_ext/Rdynload.h>

#include <cppestimators/parallel.h>

// forked_child: this process is a child made by fork() (parallel::mclapply,
// future's multicore) of the process that loaded the package; workers: the
// engine's threads started in this process.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_threads_info() {
  return Rcpp::List::create(Rcpp::_["forked_child"] = cppestimators::threads::forked_child(),
                            Rcpp::_["workers"] = cppestimators::threads::workers_started());
}

// R calls this when it unloads the library (library.dynam.unload(),
// dyn.unload()): no worker may be left running the library's code.
extern "C" void R_unload_cppestimators(DllInfo*) { cppestimators::threads::shutdown(); }
