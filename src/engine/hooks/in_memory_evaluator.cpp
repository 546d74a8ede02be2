#include <cppestimators/hooks/in_memory_evaluator.h>

#include <stdexcept>
#include <utility>

#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

InMemoryEvaluatorHook::InMemoryEvaluatorHook(std::int64_t every_n_iter, Evaluate evaluate)
    : every_(every_n_iter), evaluate_(std::move(evaluate)) {
  if (every_ <= 0)
    throw std::invalid_argument("invalid every_n_iter=" + std::to_string(every_) + ".");
}

InMemoryEvaluatorHook::InMemoryEvaluatorHook(const Spec& s, HookEnv& env)
    : InMemoryEvaluatorHook(s.int_or("every_n_iter", 100), env.evaluation(s, "evaluate")) {
  records_.set_name(s.str_or("name", ""));
}

std::string InMemoryEvaluatorHook::constructor() const { return "hook_in_memory_evaluator"; }

EvalRecords* InMemoryEvaluatorHook::evaluation_records() { return &records_; }

void InMemoryEvaluatorHook::begin(Session&) {
  iter_ = 0;
  records_.clear();
}

void InMemoryEvaluatorHook::after_create_session(Session& s) { run(s, nullptr); }

void InMemoryEvaluatorHook::after_run(RunContext& ctx) {
  ++iter_;
  if (iter_ % every_ == 0) run(*ctx.session, &ctx);
}

void InMemoryEvaluatorHook::end(Session& s) {
  if (records_.records().empty() || records_.records().back().step != s.global_step())
    run(s, nullptr);
}

void InMemoryEvaluatorHook::run(Session& s, RunContext* ctx) {
  MetricList m = evaluate_(s);
  records_.add(EvalRecord{s.global_step(), std::move(m)}, s, ctx);
}

}  // namespace cppestimators
