// Where hooks write scalar summaries (TensorBoard event files in practice).
#pragma once
#include <cstdint>
#include <string>

namespace cppestimators {

class SummarySink {
 public:
  virtual ~SummarySink() = default;
  virtual void scalar(std::int64_t step, const std::string& tag, double value) = 0;
  virtual void flush() = 0;
};

}  // namespace cppestimators
