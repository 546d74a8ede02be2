#include <cppestimators/data/batch_transforms.h>

#include <cstdint>

#include <cppestimators/data/batch_plan.h>

namespace cppestimators {

SkipBatches::SkipBatches(std::int64_t count) : count_(count) {}

bool SkipBatches::next(BatchSource& in) {
  while (done_ < count_) {
    if (!in.next()) return false;
    ++done_;
  }
  return in.next();
}

void SkipBatches::reset() { done_ = 0; }

TakeBatches::TakeBatches(std::int64_t count) : count_(count) {}

bool TakeBatches::next(BatchSource& in) {
  if ((count_ >= 0 && done_ >= count_) || !in.next()) return false;
  ++done_;
  return true;
}

void TakeBatches::reset() { done_ = 0; }

RepeatBatches::RepeatBatches(std::int64_t count) : count_(count) {}

bool RepeatBatches::next(BatchSource& in) {
  for (;;) {
    if (count_ >= 0 && done_ >= count_) return false;
    if (in.next()) {
      any_ = true;
      return true;
    }
    if (!any_) return false;  // an empty pass: nothing to repeat
    ++done_;
    any_ = false;
    if (count_ < 0 || done_ < count_) in.rewind();
  }
}

void RepeatBatches::reset() {
  done_ = 0;
  any_ = false;
}

}  // namespace cppestimators
