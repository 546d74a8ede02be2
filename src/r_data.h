// R values as engine inputs: R lists as Specs (feature columns, optimizers,
// models) and R vectors as typed column views that read them in place.
#pragma once
#include <Rcpp.h>

#include <cppestimators/data/dataset.h>
#include <cppestimators/spec.h>

namespace cppestimators {

// A named R list with a `kind` string; numbers, logicals and strings become
// fields; a list with a `kind` is a nested spec, an unnamed list of them a
// list of specs. NULLs and functions are skipped.
Spec spec_from_r(SEXP x);

// The same, keeping R functions: each goes to `host` and the spec records its
// index under the field's name (Spec::handles). Environments, external
// pointers and other R-only values are skipped.
Spec spec_from_r(SEXP x, std::vector<Rcpp::RObject>& host);

// Views of the named list's vectors (double, integer, logical, factor or
// character; vectors or matrices) in `data.features`; the response (a double
// vector or matrix, or NULL) in `data.labels`. Throws naming a feature of
// another type or length.
void dataset_from_r(const Rcpp::List& features, SEXP labels, Dataset& data);

}  // namespace cppestimators
