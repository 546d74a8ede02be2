// The R boundary for streaming datasets: a dataset object's description
// (R/dataset_pipeline.R) built into the engine's pipeline of a source and
// its transforms, and read back into R (dataset_collect()).
#include <Rcpp.h>

#include <cppestimators/data/chunk.h>
#include <cppestimators/data/csv_reader.h>
#include <cppestimators/data/pipeline.h>
#include <cppestimators/data/row_stream.h>
#include <cppestimators/data/source_env.h>
#include <cppestimators/data/stream_feed.h>
#include <cppestimators/data/example_parse.h>
#include <cppestimators/spec.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "r_data.h"
#include "r_stream.h"

using cppestimators::append_rows;
using cppestimators::Chunk;
using cppestimators::chunk_column_to_r;
using cppestimators::csv_reader_from_r;
using cppestimators::CsvReader;
using cppestimators::example_spec_from_r;
using cppestimators::FeatureSpec;
using cppestimators::FeedColumns;
using cppestimators::Pipeline;
using cppestimators::pipeline_from_r;
using cppestimators::r_source_stream_from_r;
using cppestimators::RowStream;
using cppestimators::same_schema;
using cppestimators::shape_like;
using cppestimators::SourceEnv;
using cppestimators::Spec;
using cppestimators::StreamFeed;

namespace {

// The engine's view of a source description (R/dataset_pipeline.R,
// engine_source()): its kind and its character fields (the files, the
// column names). The rest, which only R reads (a record spec's defaults, a
// parse spec, an R source's functions), RSourceEnv reads from the
// description.
Spec source_spec_from_r(const Rcpp::List& src) {
  Spec s;
  s.kind = Rcpp::as<std::string>(src["kind"]);
  const Rcpp::CharacterVector names = src.names();
  for (R_xlen_t i = 0; i < src.size(); ++i) {
    const std::string field(names[i]);
    SEXP v = src[i];
    if (field != "kind" && TYPEOF(v) == STRSXP)
      s.strs[field] = Rcpp::as<std::vector<std::string>>(v);
  }
  return s;
}

// What the engine's sources need from R, read from the description of the
// dataset's source; the R functions an R source calls are kept in `host`.
class RSourceEnv : public SourceEnv {
 public:
  RSourceEnv(Rcpp::List src, std::vector<Rcpp::RObject>& host) : src_(src), host_(host) {}

  std::unique_ptr<CsvReader> csv_reader(const Spec&) override {
    return csv_reader_from_r(src_["files"], src_["names"], src_["types"], src_["defaults"],
                             src_["na"], Rcpp::as<double>(src_["skip"]),
                             Rcpp::as<std::string>(src_["delim"]), Rcpp::as<bool>(src_["header"]),
                             Rcpp::as<int>(src_["threads"]), Rcpp::as<double>(src_["block_size"]));
  }
  std::vector<FeatureSpec> example_features(const Spec&) override {
    return example_spec_from_r(src_["spec"]);
  }
  std::unique_ptr<RowStream> host_source(const Spec&) override {
    return r_source_stream_from_r(src_, host_);
  }

 private:
  Rcpp::List src_;
  std::vector<Rcpp::RObject>& host_;
};

}  // namespace

Pipeline cppestimators::pipeline_from_r(Rcpp::List description, std::uint64_t seed,
                                        std::vector<Rcpp::RObject>& host) {
  Rcpp::List src = description["source"];
  Rcpp::List ops = description["ops"];
  std::vector<Spec> op_specs;
  for (R_xlen_t i = 0; i < ops.size(); ++i) op_specs.push_back(spec_from_r(ops[i]));
  RSourceEnv env(src, host);
  return make_pipeline(source_spec_from_r(src), op_specs, seed, env);
}

namespace {

// A chunk's columns as a named list of R vectors, its number of rows in
// attribute "n".
Rcpp::List chunk_to_r(const Chunk& out) {
  Rcpp::List cols(out.columns.size());
  Rcpp::CharacterVector names(out.columns.size());
  for (std::size_t j = 0; j < out.columns.size(); ++j) {
    cols[static_cast<R_xlen_t>(j)] = chunk_column_to_r(out, out.columns[j]);
    names[static_cast<R_xlen_t>(j)] = out.columns[j].key;
  }
  cols.attr("names") = names;
  cols.attr("n") = static_cast<double>(out.n);
  return cols;
}

// A dataset read batch by batch from R (dataset_map(), dataset_filter():
// R/dataset_map.R): the pipeline, its feed and the R functions its sources
// call.
struct StreamReader {
  std::vector<Rcpp::RObject> host;
  std::unique_ptr<StreamFeed> feed;
  int rows = 0;         // rows of the current batch not given out yet
  std::int64_t at = 0;  // the window offset of the first of them
  bool primed = false;
};

}  // namespace

// A reader of the dataset `description` (R/dataset_pipeline.R), batch by
// batch: dataset_batch()'s batches, else batches of `batch_size` rows.
// [[Rcpp::export(rng = false)]]
SEXP cpp_stream_reader_new(Rcpp::List description, double seed, int batch_size,
                           double window_rows) {
  auto r = std::make_unique<StreamReader>();
  Pipeline p = pipeline_from_r(description, static_cast<std::uint64_t>(seed), r->host);
  FeedColumns only_rows;
  only_rows.views = false;
  r->feed = std::make_unique<StreamFeed>(std::move(p.rows), p.plan, std::max(1, batch_size),
                                         static_cast<std::int64_t>(std::max(1.0, window_rows)),
                                         only_rows);
  return Rcpp::XPtr<StreamReader>(r.release(), true);
}

// The next batch of the reader (at most `n` rows of it: the rest comes with
// the next call) as cpp_stream_collect() gives rows, or NULL at the end.
// [[Rcpp::export(rng = false)]]
SEXP cpp_stream_reader_next(SEXP reader, double n) {
  Rcpp::XPtr<StreamReader> p(reader);
  if (p.get() == nullptr || !p->feed) return R_NilValue;
  StreamReader& r = *p;
  if (!r.primed) {
    r.feed->prime();
    r.primed = true;
  }
  if (r.rows == 0) {
    r.rows = r.feed->next_batch();
    r.at = r.feed->offset();
    if (r.rows == 0) {
      r.feed.reset();  // the end: the sources are released now
      return R_NilValue;
    }
  }
  const int k = static_cast<int>(std::min<double>(r.rows, std::max(1.0, n)));
  Chunk out;
  shape_like(r.feed->window(), out);
  append_rows(r.feed->window(), r.at, k, out);
  r.rows -= k;
  r.at += k;
  return chunk_to_r(out);
}

// Releases a reader's pipeline (its sources' files and R resources) now.
// [[Rcpp::export(rng = false)]]
void cpp_stream_reader_close(SEXP reader) {
  Rcpp::XPtr<StreamReader> p(reader);
  if (p.get() != nullptr) p->feed.reset();
}

// Every row the dataset yields (through its batching), at most `n`, as a
// named list of columns with the number of rows in attribute "n".
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_stream_collect(Rcpp::List description, double n, double seed, double window_rows) {
  std::vector<Rcpp::RObject> host;
  Pipeline p = pipeline_from_r(description, static_cast<std::uint64_t>(seed), host);
  FeedColumns only_rows;
  only_rows.views = false;
  const double window = std::max(1.0, std::min(window_rows, n));
  StreamFeed feed(std::move(p.rows), p.plan, static_cast<int>(std::min(window, 1e9)),
                  static_cast<std::int64_t>(window), only_rows);
  Chunk out;
  feed.prime();
  shape_like(feed.window(), out);
  while (static_cast<double>(out.n) < n) {
    const int rows = feed.next_batch();
    if (rows == 0) break;
    if (!same_schema(feed.window(), out)) shape_like(feed.window(), out);
    const std::int64_t k =
        std::min<std::int64_t>(rows, static_cast<std::int64_t>(std::min(n - out.n, 9e18)));
    append_rows(feed.window(), feed.offset(), k, out);
  }
  return chunk_to_r(out);
}
