// The R boundary for estimators: building the engine object from its spec,
// its variables, and its state as checkpoint files or bytes. Engine
// exceptions become R errors through the generated wrappers.
#include <Rcpp.h>

#include <cppestimators/io/checkpoint.h>
#include <cppestimators/model/boosted_trees.h>
#include <cppestimators/model/estimator_io.h>
#include <cppestimators/model/hist_boosted_trees.h>
#include <cppestimators/session/tensors.h>

#include "r_fetch.h"
#include "glue.h"
#include "r_data.h"

using cppestimators::BoostedTreesModel;
using cppestimators::CheckpointData;
using cppestimators::CheckpointManager;
using cppestimators::Dataset;
using cppestimators::dataset_from_r;
using cppestimators::decode_checkpoint;
using cppestimators::Estimator;
using cppestimators::estimator_of;
using cppestimators::EstimatorSpec;
using cppestimators::Explanation;
using cppestimators::FeatureSet;
using cppestimators::HistBoostedTreesModel;
using cppestimators::latest_checkpoint;
using cppestimators::read_checkpoint_file;
using cppestimators::restore;
using cppestimators::snapshot;
using cppestimators::spec_from_r;
using cppestimators::tensor_to_r;
using cppestimators::TensorValue;
using cppestimators::VariableRef;
namespace trees = cppestimators::trees;
using cppestimators::write_checkpoint_file;

// R's estimator spec: list(model = <spec>, head, head_n, optimizers =
// list(<spec>, ...), seed); see R/engine.R. The head is its kind (a
// string: the heads without numbers, and estimators saved before heads
// had any) or a spec, list(kind = , power = , delta = , levels = ).
// [[Rcpp::export(rng = false)]]
SEXP cpp_estimator_new(Rcpp::List spec) {
  EstimatorSpec es;
  es.model = spec_from_r(spec["model"]);
  SEXP head = spec["head"];
  if (TYPEOF(head) == STRSXP) {
    es.head.kind = Rcpp::as<std::string>(head);
  } else {
    es.head = spec_from_r(head);
  }
  es.head_n = Rcpp::as<int>(spec["head_n"]);
  Rcpp::List opts = spec["optimizers"];
  for (R_xlen_t i = 0; i < opts.size(); ++i) es.optimizers.push_back(spec_from_r(opts[i]));
  es.seed = static_cast<std::uint64_t>(Rcpp::as<double>(spec["seed"]));
  return Rcpp::XPtr<Estimator>(new Estimator(es), true);
}

// [[Rcpp::export(rng = false)]]
double cpp_estimator_global_step(SEXP est) {
  return static_cast<double>(estimator_of(est).global_step());
}

// [[Rcpp::export(rng = false)]]
Rcpp::CharacterVector cpp_estimator_variable_names(SEXP est, bool slots = true) {
  const Estimator& e = estimator_of(est);
  Rcpp::CharacterVector out;
  out.push_back("global_step");
  for (const auto& v : e.variables())
    if (slots || !v.slot) out.push_back(v.name);
  return out;
}

// Named importances of the model's inputs (boosted trees: summed split gains).
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector cpp_estimator_importance(SEXP est) {
  const Estimator& e = estimator_of(est);
  const auto imp = e.model().training().importances();
  Rcpp::NumericVector out(imp.size());
  Rcpp::CharacterVector names(imp.size());
  for (std::size_t i = 0; i < imp.size(); ++i) {
    out[static_cast<R_xlen_t>(i)] = imp[i].second;
    names[static_cast<R_xlen_t>(i)] = imp[i].first;
  }
  out.attr("names") = names;
  return out;
}

// [[Rcpp::export(rng = false)]]
SEXP cpp_estimator_variable(SEXP est, std::string name) {
  const Estimator& e = estimator_of(est);
  if (name == "global_step") return Rcpp::wrap(static_cast<double>(e.global_step()));
  const VariableRef* v = e.find_variable(name);
  if (v == nullptr) Rcpp::stop("Variable not found: " + name);
  TensorValue t;
  t.shape = v->shape;
  t.data.assign(v->data, v->data + v->size);
  return tensor_to_r(t);
}

// Prediction keys of the estimator's head, in TF's order.
// [[Rcpp::export(rng = false)]]
Rcpp::CharacterVector cpp_estimator_prediction_keys(SEXP est) {
  return Rcpp::wrap(estimator_of(est).head().prediction_keys());
}

// Path of the latest checkpoint file in `dir` per its index, "" if none.
// [[Rcpp::export(rng = false)]]
std::string cpp_latest_checkpoint(std::string dir) { return latest_checkpoint(dir); }

// Restores the estimator from a checkpoint file; the state is unchanged when
// the file is corrupt or does not match.
// [[Rcpp::export(rng = false)]]
void cpp_estimator_restore(SEXP est, std::string path) {
  const CheckpointData data = read_checkpoint_file(path);
  restore(estimator_of(est), data, path);
}

// Restores the estimator from checkpoint bytes (the weights an estimator
// object carried through saveRDS(); see glue_weights.cpp).
// [[Rcpp::export(rng = false)]]
void cpp_estimator_decode(SEXP est, Rcpp::RawVector bytes, std::string source) {
  const std::string s(bytes.begin(), bytes.end());
  const CheckpointData data = decode_checkpoint(s, source);
  restore(estimator_of(est), data, source);
}

// Writes one checkpoint file (atomically) at `path`.
// [[Rcpp::export(rng = false)]]
void cpp_estimator_write_file(SEXP est, std::string path) {
  CheckpointData data;
  if (!snapshot(estimator_of(est), data))
    Rcpp::stop("the estimator's weights are not finite; nothing was written");
  write_checkpoint_file(path, data);
}

// Saves a checkpoint into a model directory (index and rotation included);
// returns the file written.
// [[Rcpp::export(rng = false)]]
std::string cpp_estimator_save(SEXP est, std::string dir, int keep_max) {
  CheckpointData data;
  if (!snapshot(estimator_of(est), data))
    Rcpp::stop("the estimator's weights are not finite; no checkpoint was saved");
  CheckpointManager manager(dir, "model.ckpt", keep_max);
  return manager.save(data);
}

// Boosted trees: predictions from the first `n` trees only (-1: all), for
// multi_predict(); an error for other models.
// [[Rcpp::export(rng = false)]]
void cpp_estimator_tree_limit(SEXP est, int n) {
  if (auto* hist = dynamic_cast<HistBoostedTreesModel*>(&estimator_of(est).model())) {
    hist->set_tree_limit(n);
    return;
  }
  auto* trees = dynamic_cast<BoostedTreesModel*>(&estimator_of(est).model());
  if (trees == nullptr)
    Rcpp::stop("only boosted trees estimators predict from some of their trees");
  trees->set_tree_limit(n);
}

// The features of a boosted trees estimator of a histogram growth, in the
// order of the node arrays' feature ids: name, kind ("numeric",
// "bucketized" or "categorical"), the feature column it comes from and its
// categories (buckets); NULL for other models.
// [[Rcpp::export(rng = false)]]
SEXP cpp_hist_trees_features(SEXP est) {
  const Estimator& e = estimator_of(est);
  const auto* hist = dynamic_cast<const HistBoostedTreesModel*>(&e.model());
  if (hist == nullptr) return R_NilValue;
  const auto& feats = hist->features_binned().features();
  const R_xlen_t n = static_cast<R_xlen_t>(feats.size());
  Rcpp::CharacterVector name(n), kind(n), column(n);
  Rcpp::IntegerVector categories(n);
  for (R_xlen_t i = 0; i < n; ++i) {
    const trees::HistFeature& f = feats[static_cast<std::size_t>(i)];
    name[i] = f.name;
    kind[i] = f.kind == trees::HistFeature::Numeric   ? "numeric"
              : f.kind == trees::HistFeature::Ordinal ? "bucketized"
                                                      : "categorical";
    column[i] = e.model().features().column(static_cast<std::size_t>(f.col)).name();
    categories[i] = f.kind == trees::HistFeature::Numeric ? NA_INTEGER : f.bins - 1;
  }
  return Rcpp::DataFrame::create(
      Rcpp::Named("name") = name, Rcpp::Named("kind") = kind, Rcpp::Named("column") = column,
      Rcpp::Named("categories") = categories, Rcpp::Named("stringsAsFactors") = false);
}

// The global step of the latest checkpoint in `dir`, or -1 when it has none
// (train() waits for a hook_global_step_waiter() before taking its lock).
// [[Rcpp::export(rng = false)]]
double cpp_checkpoint_global_step(std::string dir) {
  const std::string path = latest_checkpoint(dir);
  if (path.empty()) return -1;
  return static_cast<double>(read_checkpoint_file(path).global_step);
}

namespace {

// rows x width explanation values (row-major) as an R matrix with the
// model's feature column names in attribute "columns".
SEXP explanation_matrix(const Estimator& e, const std::vector<double>& values, std::int64_t n,
                        bool interactions) {
  const FeatureSet& columns = e.model().features();
  const std::size_t side = columns.size() + 1;
  const std::size_t width =
      static_cast<std::size_t>(e.head().logits_dim()) * (interactions ? side * side : side);
  const std::size_t rows = static_cast<std::size_t>(n);
  Rcpp::NumericMatrix out(static_cast<int>(rows), static_cast<int>(width));
  double* o = out.begin();
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < width; ++j) o[j * rows + r] = values[r * width + j];
  Rcpp::CharacterVector names(static_cast<R_xlen_t>(columns.size()));
  for (std::size_t c = 0; c < columns.size(); ++c)
    names[static_cast<R_xlen_t>(c)] = columns.column(c).name();
  out.attr("columns") = names;
  return out;
}

}  // namespace

// Per-prediction explanations of the rows of `features` (a named list of R
// vectors, read in place): a matrix of rows x (logits x (columns + 1)),
// each logit's contributions of the model's feature columns then its
// baseline (`kind` "interactions": rows x (logits x (columns + 1)^2), each
// logit's matrix of interaction values, row by row; "dfc" and
// "dfc_logistic": TensorFlow's directional feature contributions of the
// logit or of its sigmoid, laid out as the contributions), with
// the columns' names in attribute "columns"; NULL when the model has no
// explanations of that kind.
// [[Rcpp::export(rng = false)]]
SEXP cpp_estimator_explain(SEXP est, Rcpp::List features, int threads, std::string kind) {
  const Estimator& e = estimator_of(est);
  if (kind != "contributions" && kind != "interactions" && kind != "dfc" && kind != "dfc_logistic")
    Rcpp::stop("internal: an explanation is contributions, interactions, dfc or dfc_logistic");
  const bool interactions = kind == "interactions";
  const Explanation which = interactions             ? Explanation::Interactions
                            : kind == "dfc"          ? Explanation::Directional
                            : kind == "dfc_logistic" ? Explanation::DirectionalLogistic
                                                     : Explanation::Contributions;
  Dataset data;
  dataset_from_r(features, R_NilValue, data);
  std::vector<double> values;
  if (!e.explain(data, threads, values, which)) return R_NilValue;
  return explanation_matrix(e, values, data.n, interactions);
}

// Integrated gradients of a model of an input layer (a DNN): each logit's
// gradient with respect to the input layer integrated along the straight
// path from the mean input-layer row of `reference` to each row of
// `features` over `steps` midpoint steps, times the row's difference from
// that mean, summed per feature column; laid out as cpp_estimator_explain()'s
// contributions, the baseline the logit at the mean row. NULL when the model
// has no input layer.
// [[Rcpp::export(rng = false)]]
SEXP cpp_estimator_integrated_gradients(SEXP est, Rcpp::List features, Rcpp::List reference,
                                        int steps, int threads) {
  const Estimator& e = estimator_of(est);
  if (steps < 1) Rcpp::stop("`steps` must be a whole number >= 1");
  Dataset data, ref;
  dataset_from_r(features, R_NilValue, data);
  dataset_from_r(reference, R_NilValue, ref);
  std::vector<double> values;
  if (!e.integrated_gradients(data, ref, steps, threads, values)) return R_NilValue;
  return explanation_matrix(e, values, data.n, false);
}
