// The R-backed hook environment: what the engine's hooks (built by
// hooks/registry.h from the specs the R layer makes) need from R. R
// functions in a hook spec (custom hooks' callbacks, logging formatters,
// checkpoint listeners, in-memory evaluations) become handles the engine
// hands back here; console output, message() and the interrupt check come
// from RServices.
#pragma once
#include <Rcpp.h>

#include <memory>
#include <string>
#include <vector>

#include <cppestimators/hooks/hook_env.h>

#include "r_services.h"

namespace cppestimators {

class RHookEnv : public HookEnv {
 public:
  RHookEnv(RServices& svc, const std::string& hostname, SEXP r_session, SEXP r_context)
      : svc_(svc), writers_(hostname), r_session_(r_session), r_context_(r_context) {}

  Services& services() override { return svc_; }
  SummaryWriters& writers() override { return writers_; }

  // An engine spec of an R hook spec, its functions kept as handles.
  Spec spec(SEXP r_spec);

  TensorFormatter formatter(const Spec& spec, const std::string& field) override;
  EvaluationFn evaluation(const Spec& spec, const std::string& field) override;
  std::unique_ptr<CheckpointListener> checkpoint_listener(const Spec& spec) override;
  std::unique_ptr<Hook> custom_hook(const Spec& spec) override;

  // The R function a spec names under `field`, or NULL.
  Rcpp::RObject host(const Spec& spec, const std::string& field) const;
  SEXP r_session() const { return r_session_; }

 private:
  RServices& svc_;
  SummaryWriters writers_;
  SEXP r_session_, r_context_;  // kept alive by the caller of the run
  std::vector<Rcpp::RObject> host_;
};

// Every evaluation of the in-memory evaluators among `hooks`: a list with,
// per evaluator, its name, steps and metrics.
Rcpp::List evaluation_results(const std::vector<Hook*>& hooks);

}  // namespace cppestimators
