// Everything a hook may need from outside the engine, in one object handed
// to every hook factory: the services (console, message(), interrupts,
// clock), the run's event-file writers, and the callables of the host (in R,
// closures) that a hook's spec names by handle (Spec::handles). The R glue
// supplies an R-backed environment (src/r_hooks.cpp); engine tests
// supply PlainHookEnv, where specs name no host callables.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../io/summary_writers.h"
#include "../model/heads/metric_accumulator.h"
#include "../spec.h"
#include "../session/hook.h"

namespace cppestimators {

class CheckpointListener;
class Services;
struct TensorValue;

// An in-memory evaluation of the session's current weights.
using EvaluationFn = std::function<MetricList(Session&)>;
// Formats the values a logging hook fetched: (tags, values, elapsed seconds).
using TensorFormatter = std::function<std::string(const std::vector<std::string>&,
                                                  const std::vector<TensorValue>&, double)>;

class HookEnv {
 public:
  virtual ~HookEnv() = default;
  virtual Services& services() = 0;
  // The summary sink of `dir` for this run (one writer per directory), or
  // null when the spec has no such field or it is empty.
  EventFileSink* events(const Spec& spec, const std::string& field);
  virtual SummaryWriters& writers() = 0;

  // Host callables named by a spec's handles. The defaults say the host has
  // none; an R-backed environment overrides them.
  virtual TensorFormatter formatter(const Spec& spec, const std::string& field);
  virtual EvaluationFn evaluation(const Spec& spec, const std::string& field);
  virtual std::unique_ptr<CheckpointListener> checkpoint_listener(const Spec&);
  // A hook whose callbacks all live in the host (session_run_hook() in R).
  virtual std::unique_ptr<Hook> custom_hook(const Spec&);

 private:
  [[noreturn]] static void unsupported(const std::string& what);
};

// An environment without host callables, for engine tests and embedders.
class PlainHookEnv : public HookEnv {
 public:
  explicit PlainHookEnv(Services& svc, std::string hostname = "localhost");
  Services& services() override;
  SummaryWriters& writers() override;

 private:
  Services& svc_;
  SummaryWriters writers_;
};

}  // namespace cppestimators
