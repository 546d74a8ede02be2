// A streaming dataset as the engine builds it from the host's description:
// its source, then its transforms in order, each from the data family's
// registries (data/registry.h). The row transforms wrap the source's
// stream; dataset_batch() and the transforms after it make the batch plan
// that the feed (data/stream_feed.h) follows.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "../spec.h"
#include "batch_plan.h"
#include "row_stream.h"

namespace cppestimators {

class SourceEnv;

struct Pipeline {
  std::unique_ptr<RowStream> rows;  // the rows of one pass, through every row transform
  BatchPlan plan;                   // dataset_batch() and what follows it
};

// The pipeline of `source` and `ops` (kind "batch": dataset_batch(), with
// `batch_size` and `drop_remainder`; the others transforms). `seed` seeds
// the transforms given no seed of their own; `env` supplies what the source
// needs from the host.
Pipeline make_pipeline(const Spec& source, const std::vector<Spec>& ops, std::uint64_t seed,
                       SourceEnv& env);

}  // namespace cppestimators
