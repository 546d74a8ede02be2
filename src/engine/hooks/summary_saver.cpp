#include <cppestimators/hooks/summary_saver.h>

#include <utility>

#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/io/summary_writers.h>
#include <cppestimators/model/estimator.h>
#include <cppestimators/services.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

SummarySaverHook::SummarySaverHook(std::int64_t save_steps, double save_secs,
                                   std::vector<std::string> tensors, EventFileSink* sink,
                                   Services& svc)
    : timer_(save_secs, save_steps), tensors_(std::move(tensors)), sink_(sink), svc_(svc) {
  values_.reserve(5 + tensors_.size());
  for (const auto& n : tensors_) lr_listed_ = lr_listed_ || tensor_base_name(n) == "learning_rate";
}

SummarySaverHook::SummarySaverHook(const Spec& s, HookEnv& env)
    : SummarySaverHook(s.int_or("save_steps", -1), s.num_or("save_secs", -1),
                       s.strs.count("tensors") ? s.strings("tensors") : std::vector<std::string>(),
                       env.events(s, "output_dir"), env.services()) {}

std::string SummarySaverHook::constructor() const { return "hook_summary_saver"; }

void SummarySaverHook::begin(Session&) { timer_.reset(); }

void SummarySaverHook::after_create_session(Session& s) {
  for (const auto& n : tensors_) require_tensor(s, n, "hook_summary_saver");
}

void SummarySaverHook::after_run(RunContext& ctx) {
  const Session& s = *ctx.session;
  const std::int64_t step = s.global_step();
  if (!timer_.should_trigger(step, timer_.by_time() ? svc_.now() : 0.0)) return;
  timer_.update(step, svc_.now(), nullptr, nullptr);
  if (sink_ == nullptr) return;
  values_.clear();
  values_.emplace_back("average_loss", static_cast<float>(s.average_loss()));
  values_.emplace_back("loss", static_cast<float>(s.loss()));
  for (const auto& n : tensors_) {
    read_tensor(s, n, tmp_);
    double v = 0;
    for (double x : tmp_.data) v += x;
    if (tmp_.data.size() > 1) v /= static_cast<double>(tmp_.data.size());  // mean of a non-scalar
    values_.emplace_back(tensor_base_name(n), static_cast<float>(v));
  }
  const Estimator& est = s.estimator();
  if (!lr_listed_ && (est.has_schedule() || est.uses_learning_rate_scale())) {
    values_.emplace_back("learning_rate", static_cast<float>(s.learning_rate()));
    if (est.groups().size() > 1)
      for (const auto& g : est.groups()) {
        double v = 0;
        est.group_learning_rate(g, v);
        values_.emplace_back(g + "/learning_rate", static_cast<float>(v));
      }
  }
  sink_->scalars(step, values_);
}

void SummarySaverHook::end(Session&) {
  if (sink_) sink_->flush();
}

}  // namespace cppestimators
