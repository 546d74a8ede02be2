// Streaming datasets at the R boundary: the readers built from R's
// descriptions, chunks as R vectors, and the pipeline of a dataset object
// (its source and its transforms) as a RowStream with its batching.
#pragma once
#include <Rcpp.h>

#include <cppestimators/data/csv_reader.h>
#include <cppestimators/data/pipeline.h>
#include <cppestimators/data/row_stream.h>
#include <cppestimators/data/stream_feed.h>
#include <cppestimators/data/example_parse.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cppestimators {

// glue_csv.cpp: a reader of a record spec's columns (see cpp_csv_reader_new).
std::unique_ptr<CsvReader> csv_reader_from_r(Rcpp::CharacterVector files,
                                             Rcpp::CharacterVector names,
                                             Rcpp::CharacterVector types, Rcpp::List defaults,
                                             Rcpp::CharacterVector na, double skip,
                                             std::string delim, bool header, int threads,
                                             double block_size);

// glue_tfrecord.cpp: a parse spec (a list of lists: key, kind, var_len,
// width, default) for the engine, and one column of a chunk as an R vector
// (a matrix for width > 1, a list of vectors for a ragged column).
std::vector<FeatureSpec> example_spec_from_r(Rcpp::List spec);
SEXP chunk_column_to_r(const Chunk& chunk, const ChunkColumn& c);

// r_source_stream.cpp: the rows of an R source (kind "r": list(next_chunk =
// function(n), rewind = function(), close = function() or absent, names,
// types), R/sql_dataset.R), a stream that reads on R's main thread and is
// destroyed there (calling close()); its functions are kept in `host`, which
// must outlive the stream.
std::unique_ptr<RowStream> r_source_stream_from_r(const Rcpp::List& src,
                                                  std::vector<Rcpp::RObject>& host);

// glue_stream.cpp: the engine's pipeline (data/pipeline.h) for R's
// description of a dataset (R/dataset_pipeline.R, engine_pipeline()):
// list(source = <source>, ops = <list of ops>). `seed` seeds the transforms
// given no seed of their own; R functions the pipeline calls are kept in
// `host`.
Pipeline pipeline_from_r(Rcpp::List description, std::uint64_t seed,
                         std::vector<Rcpp::RObject>& host);

}  // namespace cppestimators
