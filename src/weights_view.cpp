// The estimator's weights as an R raw vector that costs nothing until it is
// serialized: saveRDS() of an estimator asks this ALTREP vector for its
// serialized state, which is the engine's state encoded as a checkpoint at
// that moment; readRDS() gives back a plain raw vector that a new engine is
// restored from. Training therefore never copies the weights into R.
#include <Rcpp.h>
#include <R_ext/Altrep.h>

#include <cppestimators/io/checkpoint.h>
#include <cppestimators/model/estimator_io.h>

#include "glue.h"

using namespace cppestimators;

namespace {

R_altrep_class_t weights_class;

// The engine's current state as checkpoint bytes.
SEXP encode_engine(SEXP ptr) {
  CheckpointData data;
  snapshot(estimator_of(ptr), data);
  const std::string bytes = encode_checkpoint(data);
  SEXP out = PROTECT(Rf_allocVector(RAWSXP, static_cast<R_xlen_t>(bytes.size())));
  std::copy(bytes.begin(), bytes.end(), RAW(out));
  UNPROTECT(1);
  return out;
}

// data1: the estimator's external pointer. data2: bytes materialized for R
// code that reads the vector (refreshed on every data pointer request).
SEXP materialize(SEXP x) {
  SEXP bytes = encode_engine(R_altrep_data1(x));
  R_set_altrep_data2(x, bytes);
  return bytes;
}

SEXP serialized_state(SEXP x) { return encode_engine(R_altrep_data1(x)); }

SEXP unserialize(SEXP, SEXP state) { return state; }

R_xlen_t length(SEXP x) {
  SEXP bytes = R_altrep_data2(x);
  if (bytes == R_NilValue) bytes = materialize(x);
  return XLENGTH(bytes);
}

void* dataptr(SEXP x, Rboolean) { return RAW(materialize(x)); }

const void* dataptr_or_null(SEXP x) {
  SEXP bytes = R_altrep_data2(x);
  return bytes == R_NilValue ? nullptr : RAW(bytes);
}

Rboolean inspect(SEXP x, int, int, int, void (*)(SEXP, int, int, int)) {
  Rprintf(" cppestimators weights (encoded when read or serialized)\n");
  return TRUE;
}

}  // namespace

// [[Rcpp::init]]
void cppestimators_init_weights_class(DllInfo* dll) {
  weights_class = R_make_altraw_class("cppestimators_weights", "cppestimators", dll);
  R_set_altrep_Serialized_state_method(weights_class, serialized_state);
  R_set_altrep_Unserialize_method(weights_class, unserialize);
  R_set_altrep_Length_method(weights_class, length);
  R_set_altrep_Inspect_method(weights_class, inspect);
  R_set_altvec_Dataptr_method(weights_class, dataptr);
  R_set_altvec_Dataptr_or_null_method(weights_class, dataptr_or_null);
}

// A raw vector standing for the estimator's weights (see above).
// [[Rcpp::export(rng = false)]]
SEXP cpp_estimator_weights(SEXP est) {
  estimator_of(est);
  return R_new_altrep(weights_class, est, R_NilValue);
}
