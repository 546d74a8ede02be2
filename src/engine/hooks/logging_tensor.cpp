#include <cppestimators/hooks/logging_tensor.h>

#include <cmath>
#include <cstdio>
#include <utility>

#include <cppestimators/services.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

LoggingTensorHook::LoggingTensorHook(std::vector<std::string> tags, std::vector<std::string> names,
                                     std::int64_t every_n_iter, double every_n_secs, bool at_end,
                                     Formatter formatter, Services& svc)
    : tags_(std::move(tags)),
      names_(std::move(names)),
      timer_(every_n_secs, every_n_iter),
      at_end_(at_end),
      formatter_(std::move(formatter)),
      svc_(svc),
      values_(names_.size()) {}

LoggingTensorHook::LoggingTensorHook(const Spec& s, HookEnv& env)
    : LoggingTensorHook(s.strings("tags"), s.strings("names"), s.int_or("every_n_iter", -1),
                        s.num_or("every_n_secs", -1), s.flag_or("at_end", false),
                        env.formatter(s, "formatter"), env.services()) {}

std::string LoggingTensorHook::constructor() const { return "hook_logging_tensor"; }

void LoggingTensorHook::begin(Session&) {
  timer_.reset();
  iter_ = 0;
}

void LoggingTensorHook::after_create_session(Session& s) {
  for (const auto& n : names_) require_tensor(s, n, "hook_logging_tensor");
}

void LoggingTensorHook::before_run(RunContext&) {
  should_log_ = timer_.should_trigger(iter_, timer_.by_time() ? svc_.now() : 0.0);
}

void LoggingTensorHook::after_run(RunContext& ctx) {
  if (should_log_) log(*ctx.session, iter_);
  ++iter_;
}

void LoggingTensorHook::end(Session& s) {
  if (at_end_ && s.steps_run() > 0) log(s, iter_);
}

void LoggingTensorHook::log(const Session& s, std::int64_t iter) {
  double elapsed = NAN;
  timer_.update(iter, svc_.now(), &elapsed, nullptr);
  for (std::size_t i = 0; i < names_.size(); ++i) read_tensor(s, names_[i], values_[i]);
  if (formatter_) {
    svc_.message(formatter_(tags_, values_, elapsed));
    return;
  }
  std::string line;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (i) line += ", ";
    line += tags_[i] + " = " + format_tensor(values_[i]);
  }
  if (!std::isnan(elapsed)) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " (%.3f sec)", elapsed);
    line += buf;
  }
  svc_.message(line);
}

}  // namespace cppestimators
