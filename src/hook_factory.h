// Builds engine hooks from the hook specs the R layer makes (plain lists
// with a `type`), wiring R closures (custom hooks, formatters, checkpoint
// listeners) to the engine's interfaces.
#pragma once
#include <Rcpp.h>

#include <memory>

#include <cppestimators/hooks/hook.h>
#include <cppestimators/io/summary_writers.h>
#include <cppestimators/services.h>

namespace cppestimators {

// `writers` holds the event-file writers of the run, one per directory.
std::unique_ptr<Hook> make_hook(const Rcpp::List& spec, Services& svc, SummaryWriters& writers,
                                SEXP r_session, SEXP r_context);

// Connects early-stopping hooks to the in-memory evaluator their spec names.
void wire_hooks(const Rcpp::List& specs, const std::vector<Hook*>& hooks);

// The results of every in-memory evaluator among `hooks`.
Rcpp::List evaluation_results(const std::vector<Hook*>& hooks);

}  // namespace cppestimators
