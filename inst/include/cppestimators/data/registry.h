// The data family: a streaming dataset's source and transforms, by the kind
// of their spec. A new source or transform is a new class plus one `add()`
// line in src/engine/data/registry.cpp.
#pragma once
#include <cstdint>
#include <memory>

#include "../registry.h"
#include "../spec.h"

namespace cppestimators {

class BatchOp;
class RowStream;
class SourceEnv;

// The sources: "csv", "tfrecord" and "r" (rows the host reads), built with
// what the host supplies (data/source_env.h).
using SourceRegistry = Registry<RowStream, SourceEnv&>;
const SourceRegistry& source_registry();
std::unique_ptr<RowStream> make_source(const Spec& spec, SourceEnv& env);

// The row transforms (before dataset_batch(); a prefetch wherever placed):
// a stream around `in`; `seed` seeds a transform given no seed of its own.
using RowOpRegistry = Registry<RowStream, std::unique_ptr<RowStream>, std::uint64_t>;
const RowOpRegistry& row_op_registry();
std::unique_ptr<RowStream> make_row_op(const Spec& spec, std::unique_ptr<RowStream> in,
                                       std::uint64_t seed);

// The batch transforms (after dataset_batch(), data/batch_transforms.h); an
// unknown kind is one not supported after dataset_batch().
using BatchOpRegistry = Registry<BatchOp>;
const BatchOpRegistry& batch_op_registry();
std::unique_ptr<BatchOp> make_batch_op(const Spec& spec);

}  // namespace cppestimators
