// hook_logging_tensor(): logs named tensors every N local iterations or every
// N seconds (the first run always logs), and/or once at the end:
//   "loss = 96.96749, step = 1" then "loss = 4.264659, step = 101 (0.124 sec)".
// Tensors are read only on triggering steps.
#pragma once
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "../services.h"
#include "../session/tensors.h"
#include "hook.h"
#include "hook_env.h"
#include "timer.h"

namespace cppestimators {

class LoggingTensorHook : public Hook {
 public:
  // (tags, values, elapsed seconds) -> the line to log
  using Formatter = TensorFormatter;

  // every_n_iter / every_n_secs < 0 when unset; tags and names in log order.
  LoggingTensorHook(std::vector<std::string> tags, std::vector<std::string> names,
                    std::int64_t every_n_iter, double every_n_secs, bool at_end,
                    Formatter formatter, Services& svc)
      : tags_(std::move(tags)),
        names_(std::move(names)),
        timer_(every_n_secs, every_n_iter),
        at_end_(at_end),
        formatter_(std::move(formatter)),
        svc_(svc),
        values_(names_.size()) {}
  // spec: tags, names, every_n_iter, every_n_secs, at_end, formatter (a host callable)
  LoggingTensorHook(const Spec& s, HookEnv& env)
      : LoggingTensorHook(s.strings("tags"), s.strings("names"), s.int_or("every_n_iter", -1),
                          s.num_or("every_n_secs", -1), s.flag_or("at_end", false),
                          env.formatter(s, "formatter"), env.services()) {}
  std::string kind() const override { return "hook_logging_tensor"; }

  void begin(Session&) override {
    timer_.reset();
    iter_ = 0;
  }
  void after_create_session(Session& s) override {
    for (const auto& n : names_) require_tensor(s, n, "hook_logging_tensor");
  }
  void before_run(RunContext&) override {
    should_log_ = timer_.should_trigger(iter_, timer_.by_time() ? svc_.now() : 0.0);
  }
  void after_run(RunContext& ctx) override {
    if (should_log_) log(*ctx.session, iter_);
    ++iter_;
  }
  void end(Session& s) override {
    if (at_end_ && s.steps_run() > 0) log(s, iter_);
  }

 private:
  void log(const Session& s, std::int64_t iter) {
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

  std::vector<std::string> tags_, names_;
  SecondOrStepTimer timer_;
  bool at_end_;
  Formatter formatter_;
  Services& svc_;
  std::vector<TensorValue> values_;
  std::int64_t iter_ = 0;
  bool should_log_ = false;
};

}  // namespace cppestimators
