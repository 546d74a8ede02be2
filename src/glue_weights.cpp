// The estimator's weights as an R raw vector that costs nothing until it is
// serialized: saveRDS() of an estimator asks this ALTREP vector for its
// serialized state, which is the engine's state encoded as a checkpoint at
// that moment; readRDS() gives back a plain raw vector that a new engine is
// restored from. Training therefore never copies the weights into R.
#include <Rcpp.h>
#include <R_ext/Altrep.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include <cppestimators/io/checkpoint.h>
#include <cppestimators/model/estimator_io.h>

#include "glue.h"

using cppestimators::CheckpointData;
using cppestimators::encode_checkpoint;
using cppestimators::Estimator;
using cppestimators::estimator_of;
using cppestimators::snapshot;

namespace {

R_altrep_class_t weights_class;

// The engine's current state as checkpoint bytes. These run inside R's
// serialization and vector access, so no C++ exception and no R error may
// cross a C++ frame with live objects: the bytes are built in C++, errors
// are raised after the C++ objects are gone.
SEXP encode_engine(SEXP ptr) {
  static char error[512];
  std::string bytes;
  bool failed = false;
  try {
    Estimator* est = static_cast<Estimator*>(R_ExternalPtrAddr(ptr));
    if (est == nullptr) throw std::runtime_error("the estimator's engine state is gone");
    CheckpointData data;
    snapshot(*est, data);
    bytes = encode_checkpoint(data);
  } catch (const std::exception& e) {
    std::snprintf(error, sizeof error, "cannot encode the estimator's weights: %s", e.what());
    failed = true;
  }
  if (failed) {
    std::string().swap(bytes);
    Rf_error("%s", error);
  }
  SEXP out = PROTECT(Rf_allocVector(RAWSXP, static_cast<R_xlen_t>(bytes.size())));
  std::copy(bytes.begin(), bytes.end(), RAW(out));
  UNPROTECT(1);
  return out;
}

// data1: the estimator's external pointer. data2: the bytes R code sees when
// it reads the vector itself — a snapshot taken at the first read and kept
// (a data pointer must stay valid while the vector lives). Serialization
// always encodes the state of that moment.
SEXP snapshot_of(SEXP x) {
  SEXP bytes = R_altrep_data2(x);
  if (bytes == R_NilValue) {
    bytes = encode_engine(R_altrep_data1(x));
    R_set_altrep_data2(x, bytes);
  }
  return bytes;
}

SEXP serialized_state(SEXP x) { return encode_engine(R_altrep_data1(x)); }

SEXP unserialize(SEXP, SEXP state) { return state; }

R_xlen_t length(SEXP x) { return XLENGTH(snapshot_of(x)); }

void* dataptr(SEXP x, Rboolean) { return RAW(snapshot_of(x)); }

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
