// hook_in_memory_evaluator(): evaluates the current in-memory weights during
// training, without a checkpoint: once the session exists (before the first
// step), every `every_n_iter` local iterations, and at end() unless the last
// evaluation was at that global step. The evaluation itself is a callback
// (the glue runs a nested evaluation session over the eval input, with its
// own hooks); each result goes to the shared EvalRecords.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>

#include "eval_records.h"
#include "hook.h"
#include "hook_env.h"

namespace cppestimators {

class InMemoryEvaluatorHook : public Hook {
 public:
  using Evaluate = std::function<MetricList(Session&)>;
  InMemoryEvaluatorHook(std::int64_t every_n_iter, Evaluate evaluate)
      : every_(every_n_iter), evaluate_(std::move(evaluate)) {
    if (every_ <= 0)
      throw std::invalid_argument("invalid every_n_iter=" + std::to_string(every_) + ".");
  }
  // spec: every_n_iter, name (absent: the default evaluation), evaluate (a host callable)
  InMemoryEvaluatorHook(const Spec& s, HookEnv& env)
      : InMemoryEvaluatorHook(s.int_or("every_n_iter", 100), env.evaluation(s, "evaluate")) {
    records_.set_name(s.str_or("name", ""));
  }
  std::string kind() const override { return "hook_in_memory_evaluator"; }
  EvalRecords& records() { return records_; }
  EvalRecords* evaluation_records() override { return &records_; }

  void begin(Session&) override {
    iter_ = 0;
    records_.clear();
  }
  void after_create_session(Session& s) override { run(s, nullptr); }
  void after_run(RunContext& ctx) override {
    ++iter_;
    if (iter_ % every_ == 0) run(*ctx.session, &ctx);
  }
  void end(Session& s) override {
    if (records_.records().empty() || records_.records().back().step != s.global_step())
      run(s, nullptr);
  }

 private:
  void run(Session& s, RunContext* ctx) {
    MetricList m = evaluate_(s);
    records_.add(EvalRecord{s.global_step(), std::move(m)}, s, ctx);
  }

  std::int64_t every_;
  Evaluate evaluate_;
  EvalRecords records_;
  std::int64_t iter_ = 0;
};

}  // namespace cppestimators
