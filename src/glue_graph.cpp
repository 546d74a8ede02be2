// The R boundary for custom estimators: installing a model_fn's graph of
// one mode into the engine (R/estimator_custom.R), and carrying the values
// of an engine's variables into another built for other graphs.
#include <Rcpp.h>

#include <algorithm>
#include <string>

#include <cppestimators/io/checkpoint.h>
#include <cppestimators/features/feature_set.h>
#include <cppestimators/model/graph_model.h>
#include <cppestimators/model/layers/input_layer.h>

#include "glue.h"
#include "r_data.h"

using cppestimators::CheckpointData;
using cppestimators::decode_checkpoint;
using cppestimators::Estimator;
using cppestimators::estimator_of;
using cppestimators::FeatureSet;
using cppestimators::GraphModel;
using cppestimators::InputLayer;
using cppestimators::read_checkpoint_file;
using cppestimators::Spec;
using cppestimators::spec_from_r;
using cppestimators::VariableRef;

// [[Rcpp::export(rng = false)]]
void cpp_graph_install(SEXP est, Rcpp::List graph) {
  Estimator& e = estimator_of(est);
  auto* model = dynamic_cast<GraphModel*>(&e.model());
  if (model == nullptr) Rcpp::stop("internal: not a custom estimator's engine");
  model->install(spec_from_r(graph));
}

// The width of each column (engine column specs, R/engine.R) in an input
// layer, as the model will read it (InputLayer::width_of()); NA for a
// categorical column, which has no dense view.
// [[Rcpp::export(rng = false)]]
Rcpp::IntegerVector cpp_input_widths(Rcpp::List columns) {
  std::vector<Spec> specs;
  std::vector<std::string> names;
  for (R_xlen_t i = 0; i < columns.size(); ++i) {
    specs.push_back(spec_from_r(columns[i]));
    names.push_back(specs.back().str("name"));
  }
  const FeatureSet features(specs);  // sorted by name
  Rcpp::IntegerVector out(columns.size(), NA_INTEGER);
  for (std::size_t c = 0; c < features.size(); ++c) {
    const int w = InputLayer::width_of(features.column(c));
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == features.column(c).name() && w >= 0) out[static_cast<R_xlen_t>(i)] = w;
  }
  return out;
}

// Copies every variable of `from` that `to` holds with the same name and
// size, the global step and the learning-rate scale; returns how many
// variables were copied.
// [[Rcpp::export(rng = false)]]
int cpp_estimator_copy_state(SEXP to, SEXP from) {
  Estimator& dst = estimator_of(to);
  const Estimator& src = estimator_of(from);
  for (const VariableRef& v : src.variables())
    dst.fit_growable(v.name, std::vector<std::int64_t>(v.shape.begin(), v.shape.end()));
  dst.refresh_variables();
  int copied = 0;
  for (const VariableRef& v : dst.variables()) {
    const VariableRef* s = src.find_variable(v.name);
    if (s == nullptr || s->size != v.size) continue;
    std::copy(s->data, s->data + s->size, v.data);
    ++copied;
  }
  if (src.uses_learning_rate_scale()) dst.use_learning_rate_scale();
  dst.set_learning_rate_scale(src.learning_rate_scale());
  dst.set_global_step(src.global_step());
  dst.variables_loaded();
  return copied;
}

// Restores the variables of checkpoint bytes that the estimator holds (by
// name and size), and the global step; the others keep their values (a
// custom estimator's engine rebuilt for graphs with more variables).
// [[Rcpp::export(rng = false)]]
int cpp_estimator_decode_partial(SEXP est, Rcpp::RawVector bytes, std::string source) {
  Estimator& e = estimator_of(est);
  const std::string s(bytes.begin(), bytes.end());
  const CheckpointData data = decode_checkpoint(s, source);
  for (const auto& t : data.tensors) e.fit_growable(t.name, t.shape);
  e.refresh_variables();
  int copied = 0;
  for (const VariableRef& v : e.variables())
    for (const auto& t : data.tensors)
      if (t.name == v.name && t.data.size() == v.size) {
        std::copy(t.data.begin(), t.data.end(), v.data);
        ++copied;
      }
  e.set_global_step(data.global_step);
  e.variables_loaded();
  return copied;
}

// The variables of a checkpoint file: list(names, shapes), global_step
// excluded (a custom estimator that has not called its model_fn yet reads
// its variables from model_dir's newest checkpoint, as TF's Estimator did).
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_checkpoint_shapes(std::string path) {
  const CheckpointData data = read_checkpoint_file(path);
  Rcpp::CharacterVector names;
  Rcpp::List shapes;
  for (const auto& t : data.tensors) {
    names.push_back(t.name);
    shapes.push_back(Rcpp::NumericVector(t.shape.begin(), t.shape.end()));
  }
  return Rcpp::List::create(Rcpp::Named("names") = names, Rcpp::Named("shapes") = shapes);
}
