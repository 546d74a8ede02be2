// hook_in_memory_evaluator(): evaluates the current in-memory weights during
// training, without a checkpoint: once the session exists (before the first
// step), every `every_n_iter` local iterations, and at end() unless the last
// evaluation was at that global step. The evaluation itself is a callback
// (the glue runs a nested evaluation session over the eval input, with its
// own hooks); each result goes to the shared EvalRecords.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "../model/heads/metric_accumulator.h"
#include "eval_records.h"
#include "../session/hook.h"

namespace cppestimators {

class HookEnv;
struct Spec;

class InMemoryEvaluatorHook : public Hook {
 public:
  using Evaluate = std::function<MetricList(Session&)>;
  InMemoryEvaluatorHook(std::int64_t every_n_iter, Evaluate evaluate);
  // spec: every_n_iter, name (absent: the default evaluation), evaluate (a host callable)
  InMemoryEvaluatorHook(const Spec& s, HookEnv& env);
  std::string constructor() const override;
  EvalRecords& records() { return records_; }
  EvalRecords* evaluation_records() override;

  void begin(Session&) override;
  void after_create_session(Session& s) override;
  void after_run(RunContext& ctx) override;
  void end(Session& s) override;

 private:
  void run(Session& s, RunContext* ctx);

  std::int64_t every_;
  Evaluate evaluate_;
  EvalRecords records_;
  std::int64_t iter_ = 0;
};

}  // namespace cppestimators
