#include <cppestimators/data/pipeline.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include <cppestimators/data/registry.h>
#include <cppestimators/data/source_env.h>

namespace cppestimators {

Pipeline make_pipeline(const Spec& source, const std::vector<Spec>& ops, std::uint64_t seed,
                       SourceEnv& env) {
  Pipeline p;
  p.rows = make_source(source, env);
  bool batched = false;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Spec& op = ops[i];
    // each transform draws its own seed from the session's
    const std::uint64_t op_seed = seed * 6364136223846793005ULL + 1442695040888963407ULL * (i + 1);
    if (op.kind == "batch") {
      if (batched)
        throw std::invalid_argument(
            "a dataset can be batched once: dataset_batch() is already applied");
      batched = true;
      p.plan.batch_size = static_cast<int>(op.num("batch_size"));
      p.plan.drop_remainder = op.num("drop_remainder") != 0;
      continue;
    }
    if (!batched || op.kind == "prefetch") {  // prefetching reads the rows ahead, wherever placed
      p.rows = make_row_op(op, std::move(p.rows), op_seed);
      continue;
    }
    // a batch transform, which the feed builds: its kind is checked now
    if (!batch_op_registry().has(op.kind))
      throw std::invalid_argument(batch_op_registry().unknown_message(op.kind));
    p.plan.after.push_back(op);
  }
  return p;
}

}  // namespace cppestimators
