// Named tensors as R values: what session_run_args() fetches and what
// context$session$run() evaluates (the engine's read_tensor(), converted).
#pragma once
#include <Rcpp.h>

#include <cppestimators/session/tensors.h>

namespace cppestimators {

// A tensor value as an R vector (scalar, vector) or matrix (rank 2).
SEXP tensor_to_r(const TensorValue& t);
// The value of one named tensor; an R error names an unknown tensor.
SEXP fetch_tensor(const Session& s, const std::string& name);
// Checks that every name in a fetch structure is a tensor of the session
// (an R error names the first unknown one).
void check_fetch_names(const Session& s, SEXP fetches);
// Maps a fetch structure (handles, names, nested lists) to values of the
// same shape.
SEXP resolve_fetches(const Session& s, SEXP fetches);

}  // namespace cppestimators
