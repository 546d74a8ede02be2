// The kinds each registry of the engine knows, for the R layer's checks and
// messages.
#include <Rcpp.h>

#include <cppestimators/features/registry.h>
#include <cppestimators/hooks/registry.h>
#include <cppestimators/model/heads/registry.h>
#include <cppestimators/model/optimizers/registry.h>
#include <cppestimators/model/registry.h>

using cppestimators::column_registry;
using cppestimators::head_registry;
using cppestimators::hook_registry;
using cppestimators::model_registry;
using cppestimators::optimizer_registry;

// family: "column", "head", "optimizer", "model" or "hook".
// [[Rcpp::export(rng = false)]]
Rcpp::CharacterVector cpp_registry_kinds(std::string family) {
  if (family == "column") return Rcpp::wrap(column_registry().kinds());
  if (family == "head") return Rcpp::wrap(head_registry().kinds());
  if (family == "optimizer") return Rcpp::wrap(optimizer_registry().kinds());
  if (family == "model") return Rcpp::wrap(model_registry().kinds());
  if (family == "hook") return Rcpp::wrap(hook_registry().kinds());
  Rcpp::stop(
      "unknown registry '%s'; known registries are 'column', 'head', 'optimizer', "
      "'model', 'hook'",
      family);
}
