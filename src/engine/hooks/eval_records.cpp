#include <cppestimators/hooks/eval_records.h>

#include <utility>

namespace cppestimators {

void EvalRecords::add(EvalRecord record, Session& s, RunContext* ctx) {
  records_.push_back(std::move(record));
  for (EvalObserver* o : observers_) o->on_evaluation(records_.back(), s, ctx);
}

}  // namespace cppestimators
