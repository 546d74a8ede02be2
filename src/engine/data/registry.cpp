#include <cppestimators/data/registry.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cppestimators/data/batch_plan.h>
#include <cppestimators/data/batch_transforms.h>
#include <cppestimators/data/csv_reader.h>
#include <cppestimators/data/prefetch_stream.h>
#include <cppestimators/data/row_stream.h>
#include <cppestimators/data/shuffle_stream.h>
#include <cppestimators/data/source_env.h>
#include <cppestimators/data/stream_sources.h>
#include <cppestimators/data/stream_transforms.h>
#include <cppestimators/data/example_parse.h>
#include <cppestimators/data/example_reader.h>

namespace cppestimators {

namespace {

// A transform's `count`; an infinite one (forever, all) is -1.
std::int64_t count_of(const Spec& op) {
  const double v = op.num("count");
  return std::isfinite(v) ? static_cast<std::int64_t>(v) : -1;
}

}  // namespace

const SourceRegistry& source_registry() {
  static const SourceRegistry registry = [] {
    SourceRegistry r("dataset source");
    r.add("csv",
          [](const Spec& s, SourceEnv& env) -> std::unique_ptr<RowStream> {
            auto reader = env.csv_reader(s);
            return std::make_unique<CsvStream>(std::move(reader), s.strings("column_names"));
          })
        .add("tfrecord",
             [](const Spec& s, SourceEnv& env) -> std::unique_ptr<RowStream> {
               auto reader =
                   std::make_unique<ExampleReader>(s.strings("files"), env.example_features(s));
               return std::make_unique<ExampleStream>(std::move(reader));
             })
        // rows the host reads (in R, functions over a query: sql_dataset())
        .add("r", [](const Spec& s, SourceEnv& env) { return env.host_source(s); });
    return r;
  }();
  return registry;
}

std::unique_ptr<RowStream> make_source(const Spec& spec, SourceEnv& env) {
  return source_registry().make(spec, env);
}

const RowOpRegistry& row_op_registry() {
  using In = std::unique_ptr<RowStream>;
  static const RowOpRegistry registry = [] {
    RowOpRegistry r("dataset transform");
    r.add("skip",
          [](const Spec& s, In in, std::uint64_t) -> In {
            return std::make_unique<SkipStream>(std::move(in), count_of(s));
          })
        .add("take",
             [](const Spec& s, In in, std::uint64_t) -> In {
               const std::int64_t n = count_of(s);
               return n < 0 ? std::move(in) : std::make_unique<TakeStream>(std::move(in), n);
             })
        .add("repeat",
             [](const Spec& s, In in, std::uint64_t) -> In {
               return std::make_unique<RepeatStream>(std::move(in), count_of(s));
             })
        .add("shuffle",
             [](const Spec& s, In in, std::uint64_t seed) -> In {
               // an NA seed: the one drawn from the session's (or R's) seed
               const double own = s.num("seed");
               return std::make_unique<ShuffleStream>(
                   std::move(in), static_cast<std::int64_t>(s.num("buffer_size")),
                   std::isnan(own) ? seed
                                   : static_cast<std::uint64_t>(static_cast<std::int64_t>(own)),
                   s.num("reshuffle_each_iteration") != 0);
             })
        .add("shard",
             [](const Spec& s, In in, std::uint64_t) -> In {
               return std::make_unique<ShardStream>(std::move(in),
                                                    static_cast<std::int64_t>(s.num("num_shards")),
                                                    static_cast<std::int64_t>(s.num("index")));
             })
        .add("prefetch", [](const Spec& s, In in, std::uint64_t) -> In {
          return std::make_unique<PrefetchStream>(std::move(in),
                                                  static_cast<int>(s.num("buffer_size")));
        });
    return r;
  }();
  return registry;
}

std::unique_ptr<RowStream> make_row_op(const Spec& spec, std::unique_ptr<RowStream> in,
                                       std::uint64_t seed) {
  return row_op_registry().make(spec, std::move(in), seed);
}

const BatchOpRegistry& batch_op_registry() {
  static const BatchOpRegistry registry = [] {
    BatchOpRegistry r("dataset batch transform",
                      [](const std::string& kind, const std::vector<std::string>&) {
                        return "dataset_" + kind +
                               "() after dataset_batch() is not supported: apply it to the "
                               "rows, before dataset_batch()";
                      });
    r.add("skip",
          [](const Spec& s) -> std::unique_ptr<BatchOp> {
            return std::make_unique<SkipBatches>(count_of(s));
          })
        .add("take",
             [](const Spec& s) -> std::unique_ptr<BatchOp> {
               return std::make_unique<TakeBatches>(count_of(s));
             })
        .add("repeat", [](const Spec& s) -> std::unique_ptr<BatchOp> {
          return std::make_unique<RepeatBatches>(count_of(s));
        });
    return r;
  }();
  return registry;
}

std::unique_ptr<BatchOp> make_batch_op(const Spec& spec) { return batch_op_registry().make(spec); }

}  // namespace cppestimators
