// Results of evaluations made during training (in-memory evaluator), shared
// with the hooks that act on them (early stopping) so they see each result
// as soon as it exists.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../model/heads/metric_accumulator.h"

namespace cppestimators {

class Session;
struct RunContext;

struct EvalRecord {
  std::int64_t step;
  MetricList metrics;
};

class EvalObserver {
 public:
  virtual ~EvalObserver() = default;
  // ctx is null for evaluations outside a step (session creation, end).
  virtual void on_evaluation(const EvalRecord& record, Session& s, RunContext* ctx) = 0;
};

class EvalRecords {
 public:
  void add(EvalRecord record, Session& s, RunContext* ctx);
  void observe(EvalObserver* o) { observers_.push_back(o); }
  const std::vector<EvalRecord>& records() const { return records_; }
  void clear() { records_.clear(); }
  // The evaluation's name ("" for the default one, written to model_dir/eval).
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

 private:
  std::string name_;
  std::vector<EvalRecord> records_;
  std::vector<EvalObserver*> observers_;
};

}  // namespace cppestimators
