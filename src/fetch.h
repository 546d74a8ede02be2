// Named tensors as R values: what session_run_args() fetches and what
// context$session$run() evaluates. Values are read from the session's
// buffers after the step; derived ones (predictions) are computed only here,
// on request.
#pragma once
#include <Rcpp.h>

#include <cppestimators/session/session.h>

namespace cppestimators {

// Strips a trailing ":0" so that TF-style names work.
std::string tensor_base_name(const std::string& name);
// The value of one named tensor; throws naming the unknown tensor.
SEXP fetch_tensor(const Session& s, const std::string& name);
// Maps a fetch structure (handles, names, nested lists) to values of the
// same shape.
SEXP resolve_fetches(const Session& s, SEXP fetches);

}  // namespace cppestimators
