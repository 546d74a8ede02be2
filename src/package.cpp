// The package's Rcpp glue as one translation unit: each file below is a
// source of its own (Rcpp::compileAttributes reads their exports), included
// here once so that Rcpp's and the engine's headers are parsed once per
// build instead of once per file. src/Makevars compiles this file alone of
// src/*.cpp; tools/engine/CMakeLists.txt fails when a .cpp of src/ is
// missing here. A new glue source: one line below, kept sorted.
//
// The files are named by one scheme: glue_<area>.cpp holds the functions R
// calls (the Rcpp exports) of one area, glue.h the boxes their external
// pointers hold; r_<what>.{h,cpp} implements an engine interface with R
// (R data as a Dataset, R closures as hooks and their environment, streams
// and fetches as R values) and exports nothing.

#include "RcppExports.cpp"
#include "glue_csv.cpp"
#include "glue_data.cpp"
#include "glue_distributed.cpp"
#include "glue_estimator.cpp"
#include "glue_events.cpp"
#include "glue_graph.cpp"
#include "glue_lock.cpp"
#include "glue_registry.cpp"
#include "glue_session.cpp"
#include "glue_stream.cpp"
#include "glue_tfrecord.cpp"
#include "glue_threads.cpp"
#include "glue_weights.cpp"
#include "r_data.cpp"
#include "r_fetch.cpp"
#include "r_hooks.cpp"
#include "r_source_stream.cpp"
