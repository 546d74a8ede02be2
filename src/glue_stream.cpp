// The R boundary for streaming datasets: a dataset object's description
// (R/dataset_pipeline.R) built into the engine's pipeline of a source and
// its transforms, and read back into R (dataset_collect()).
#include <Rcpp.h>

#include <cppestimators/data/prefetch_stream.h>
#include <cppestimators/data/shuffle_stream.h>
#include <cppestimators/data/stream_sources.h>
#include <cppestimators/data/stream_transforms.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "r_stream.h"

using namespace cppestimators;

namespace {

std::int64_t count_of(const Rcpp::List& op, const char* field) {
  const double v = Rcpp::as<double>(op[field]);
  return std::isfinite(v) ? static_cast<std::int64_t>(v) : -1;
}

std::unique_ptr<RowStream> source_from_r(const Rcpp::List& src, std::vector<Rcpp::RObject>& host) {
  const std::string kind = Rcpp::as<std::string>(src["kind"]);
  if (kind == "csv") {
    auto reader = csv_reader_from_r(
        src["files"], src["names"], src["types"], src["defaults"], Rcpp::as<double>(src["skip"]),
        Rcpp::as<std::string>(src["delim"]), Rcpp::as<bool>(src["header"]),
        Rcpp::as<int>(src["threads"]), Rcpp::as<double>(src["block_size"]));
    return std::make_unique<CsvStream>(std::move(reader),
                                       Rcpp::as<std::vector<std::string>>(src["column_names"]));
  }
  if (kind == "tfrecord") {
    auto reader = std::make_unique<ExampleReader>(Rcpp::as<std::vector<std::string>>(src["files"]),
                                                  example_spec_from_r(src["spec"]));
    return std::make_unique<ExampleStream>(std::move(reader));
  }
  if (kind == "r") return r_source_stream_from_r(src, host);
  Rcpp::stop("internal: unknown dataset source '%s'", kind);
}

// A row transform around `in`: one before dataset_batch(), or a prefetch
// wherever it is placed.
std::unique_ptr<RowStream> row_op(std::unique_ptr<RowStream> in, const Rcpp::List& op,
                                  const std::string& kind, std::uint64_t seed) {
  if (kind == "skip") return std::make_unique<SkipStream>(std::move(in), count_of(op, "count"));
  if (kind == "take") {
    const std::int64_t n = count_of(op, "count");
    return n < 0 ? std::move(in) : std::make_unique<TakeStream>(std::move(in), n);
  }
  if (kind == "repeat") return std::make_unique<RepeatStream>(std::move(in), count_of(op, "count"));
  if (kind == "shuffle") {
    // an NA seed: the one drawn from the session's (or R's) seed
    const double s = Rcpp::as<double>(op["seed"]);
    return std::make_unique<ShuffleStream>(
        std::move(in), static_cast<std::int64_t>(Rcpp::as<double>(op["buffer_size"])),
        std::isnan(s) ? seed : static_cast<std::uint64_t>(static_cast<std::int64_t>(s)),
        Rcpp::as<bool>(op["reshuffle_each_iteration"]));
  }
  if (kind == "prefetch")
    return std::make_unique<PrefetchStream>(std::move(in), Rcpp::as<int>(op["buffer_size"]));
  Rcpp::stop("internal: unknown dataset transform '%s'", kind);
}

}  // namespace

Pipeline cppestimators::pipeline_from_r(Rcpp::List description, std::uint64_t seed,
                                        std::vector<Rcpp::RObject>& host) {
  Pipeline p;
  p.rows = source_from_r(description["source"], host);
  Rcpp::List ops = description["ops"];
  bool batched = false;
  for (R_xlen_t i = 0; i < ops.size(); ++i) {
    Rcpp::List op = ops[i];
    const std::string kind = Rcpp::as<std::string>(op["kind"]);
    // each transform draws its own seed from the session's
    const std::uint64_t op_seed = seed * 6364136223846793005ULL + 1442695040888963407ULL * (i + 1);
    if (kind == "batch") {
      if (batched) Rcpp::stop("a dataset can be batched once: dataset_batch() is already applied");
      batched = true;
      p.plan.batch_size = Rcpp::as<int>(op["batch_size"]);
      p.plan.drop_remainder = Rcpp::as<bool>(op["drop_remainder"]);
      continue;
    }
    if (!batched || kind == "prefetch") {  // prefetching reads the rows ahead, wherever placed
      p.rows = row_op(std::move(p.rows), op, kind, op_seed);
      continue;
    }
    BatchOp b;
    if (kind == "skip")
      b.kind = BatchOp::Skip;
    else if (kind == "take")
      b.kind = BatchOp::Take;
    else if (kind == "repeat")
      b.kind = BatchOp::Repeat;
    else
      Rcpp::stop(
          "dataset_%s() after dataset_batch() is not supported: apply it to the rows, "
          "before dataset_batch()",
          kind);
    b.count = count_of(op, "count");
    if (b.kind == BatchOp::Take && b.count < 0) continue;
    p.plan.after.push_back(b);
  }
  return p;
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
