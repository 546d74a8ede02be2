// The one boundary between R and the engine: R specs become C++ objects, R
// closures become RClosureHooks, and engine exceptions become R errors
// (through Rcpp's BEGIN_RCPP/END_RCPP in the generated wrappers).
#include <Rcpp.h>

#include <cppestimators/cppestimators.h>
#include <cppestimators/io/checkpoint.h>
#include <cppestimators/io/event_file.h>
#include <cppestimators/io/summary_writers.h>
#include <cppestimators/model/estimator_io.h>

#include <filesystem>
#include <map>
#include <memory>

#include "fetch.h"
#include "hook_factory.h"
#include "r_services.h"
#include "r_utils.h"

using namespace cppestimators;

namespace {

// Everything a running session needs, kept alive together: the R data it
// reads in place, the views, the estimator and the session itself.
struct SessionBox {
  Rcpp::RObject estimator_ptr;  // keeps the Estimator alive
  Rcpp::List keep;              // the R vectors the Dataset points into
  Dataset data;
  std::unique_ptr<Session> session;
  bool running = false;
  bool interrupt_pending = false;  // an interrupt arrived during R hook code
};

Estimator& estimator_of(SEXP xp) {
  Rcpp::XPtr<Estimator> p(xp);
  if (p.get() == nullptr) Rcpp::stop("the estimator's engine state is gone; rebuild the estimator");
  return *p;
}

SessionBox& box_of(SEXP xp) {
  Rcpp::XPtr<SessionBox> p(xp);
  if (p.get() == nullptr || !p->session) Rcpp::stop("this session is closed");
  return *p;
}

}  // namespace

// [[Rcpp::export(rng = false)]]
SEXP cpp_estimator_new(Rcpp::List spec) {
  EstimatorSpec es;
  es.head = Rcpp::as<std::string>(spec["head"]);  // checked by make_head()
  es.head_n = Rcpp::as<int>(spec["head_n"]);
  Rcpp::List cols = spec["columns"];
  for (R_xlen_t i = 0; i < cols.size(); ++i) {
    Rcpp::List c = cols[i];
    es.columns.push_back({Rcpp::as<std::string>(c["name"]), Rcpp::as<int>(c["width"])});
  }
  Rcpp::List o = spec["optimizer"];
  OptimizerSpec& os = es.optimizer;
  os.name = Rcpp::as<std::string>(o["name"]);
  os.learning_rate = static_cast<float>(num_or(o, "learning_rate", 0.2));
  os.initial_accumulator_value = static_cast<float>(num_or(o, "initial_accumulator_value", 0.1));
  os.learning_rate_power = static_cast<float>(num_or(o, "learning_rate_power", -0.5));
  os.l1 = static_cast<float>(num_or(o, "l1_regularization_strength", 0.0));
  os.l2 = static_cast<float>(num_or(o, "l2_regularization_strength", 0.0));
  os.l2_shrinkage = static_cast<float>(num_or(o, "l2_shrinkage_regularization_strength", 0.0));
  os.beta1 = static_cast<float>(num_or(o, "beta1", 0.9));
  os.beta2 = static_cast<float>(num_or(o, "beta2", 0.999));
  os.epsilon = static_cast<float>(num_or(o, "epsilon", -1.0));
  os.decay = static_cast<float>(num_or(o, "decay", 0.9));
  os.momentum = static_cast<float>(num_or(o, "momentum", 0.0));
  return Rcpp::XPtr<Estimator>(new Estimator(es), true);
}

// [[Rcpp::export(rng = false)]]
double cpp_estimator_global_step(SEXP est) {
  return static_cast<double>(estimator_of(est).global_step());
}

// [[Rcpp::export(rng = false)]]
Rcpp::CharacterVector cpp_estimator_variable_names(SEXP est) {
  const Estimator& e = estimator_of(est);
  Rcpp::CharacterVector out;
  out.push_back("global_step");
  for (const auto& v : e.variables()) out.push_back(v.name);
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

// features: named list of double vectors/matrices (column-major);
// labels: double vector/matrix or NULL.
// [[Rcpp::export(rng = false)]]
SEXP cpp_session_new(SEXP est, Rcpp::List features, SEXP labels, std::string mode,
                     int batch_size, double num_epochs, bool shuffle, double seed) {
  Estimator& e = estimator_of(est);
  std::unique_ptr<SessionBox> box(new SessionBox());
  box->estimator_ptr = est;
  box->keep = Rcpp::List::create(features, labels);
  Rcpp::CharacterVector names = features.names();
  R_xlen_t n = -1;
  for (R_xlen_t i = 0; i < features.size(); ++i) {
    SEXP col = features[i];
    if (TYPEOF(col) != REALSXP) Rcpp::stop("internal: feature columns must be double");
    SEXP dim = Rf_getAttrib(col, R_DimSymbol);
    const R_xlen_t rows = Rf_isNull(dim) ? Rf_xlength(col) : INTEGER(dim)[0];
    const int width = Rf_isNull(dim) ? 1 : INTEGER(dim)[1];
    if (n < 0) n = rows;
    if (rows != n)
      Rcpp::stop("feature '" + std::string(names[i]) + "' has " + std::to_string(rows) +
                 " rows but the first feature has " + std::to_string(n));
    box->data.features.push_back({std::string(names[i]), REAL(col), width});
  }
  if (!Rf_isNull(labels)) {
    if (TYPEOF(labels) != REALSXP) Rcpp::stop("internal: labels must be double");
    SEXP dim = Rf_getAttrib(labels, R_DimSymbol);
    const R_xlen_t rows = Rf_isNull(dim) ? Rf_xlength(labels) : INTEGER(dim)[0];
    if (n >= 0 && rows != n)
      Rcpp::stop("the response has " + std::to_string(rows) + " rows but the features have " +
                 std::to_string(n));
    if (n < 0) n = rows;
    box->data.labels = REAL(labels);
    box->data.label_width = Rf_isNull(dim) ? 1 : INTEGER(dim)[1];
  }
  box->data.n = n < 0 ? 0 : n;
  SessionOptions opt;
  opt.mode = mode == "train" ? Mode::Train : mode == "eval" ? Mode::Eval : Mode::Predict;
  opt.batch_size = batch_size;
  opt.num_epochs = static_cast<std::int64_t>(num_epochs);
  opt.shuffle = shuffle;
  opt.seed = static_cast<std::uint64_t>(seed);
  box->session.reset(new Session(e, box->data, opt));
  return Rcpp::XPtr<SessionBox>(box.release(), true);
}

namespace {

Rcpp::List history_list(const History& h) {
  Rcpp::NumericVector steps(h.steps.begin(), h.steps.end());
  return Rcpp::List::create(Rcpp::Named("mean_losses") = Rcpp::wrap(h.mean_losses),
                            Rcpp::Named("total_losses") = Rcpp::wrap(h.total_losses),
                            Rcpp::Named("steps") = steps);
}

}  // namespace

// Runs the monitored loop with the given hooks (a list of hook specs).
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_session_run(SEXP ses, Rcpp::List hooks, SEXP r_session, SEXP r_context,
                           std::string hostname) {
  SessionBox& box = box_of(ses);
  if (box.running) Rcpp::stop("this session is already running");
  box.interrupt_pending = false;
  RServices svc(&box.interrupt_pending);
  SummaryWriters writers(hostname);
  std::vector<std::unique_ptr<Hook>> owned;
  std::vector<Hook*> list;
  HistorySaverHook* history = nullptr;
  for (R_xlen_t i = 0; i < hooks.size(); ++i) {
    owned.push_back(make_hook(hooks[i], svc, writers, r_session, r_context));
    list.push_back(owned.back().get());
    if (history == nullptr) history = dynamic_cast<HistorySaverHook*>(owned.back().get());
  }
  wire_hooks(hooks, list);
  struct Running {
    SessionBox& b;
    ~Running() { b.running = false; }
  } running{box};
  box.running = true;
  const LoopOutcome out = run_monitored(*box.session, list, svc);
  writers.flush_all();
  if (out.interrupted) throw Rcpp::internal::InterruptedException();
  return Rcpp::List::create(
      Rcpp::Named("steps") = static_cast<double>(out.steps),
      Rcpp::Named("end_of_input") = out.end_of_input,
      Rcpp::Named("global_step") = static_cast<double>(box.session->global_step()),
      Rcpp::Named("loss") = box.session->loss(),
      Rcpp::Named("history") = history ? Rcpp::RObject(history_list(history->history()))
                                       : Rcpp::RObject(R_NilValue),
      Rcpp::Named("evaluations") = evaluation_results(list));
}

// [[Rcpp::export(rng = false)]]
SEXP cpp_session_fetch(SEXP ses, SEXP fetches) {
  return resolve_fetches(*box_of(ses).session, fetches);
}

// [[Rcpp::export(rng = false)]]
void cpp_session_request_stop(SEXP ses) {
  Session& s = *box_of(ses).session;
  if (s.current_context == nullptr)
    Rcpp::stop("request_stop() can only be called from before_run() or after_run()");
  s.current_context->request_stop();
}

// [[Rcpp::export(rng = false)]]
bool cpp_session_stop_requested(SEXP ses) {
  Session& s = *box_of(ses).session;
  return s.current_context != nullptr && s.current_context->stop_requested;
}

// Where the last failure happened: hook position (1-based, NA if none) and phase.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_session_error_origin(SEXP ses) {
  Session& s = *box_of(ses).session;
  return Rcpp::List::create(
      Rcpp::Named("hook") = s.current_hook < 0 ? NA_INTEGER : s.current_hook + 1,
      Rcpp::Named("phase") = s.current_phase ? Rcpp::RObject(Rcpp::wrap(std::string(s.current_phase)))
                                             : Rcpp::RObject(R_NilValue));
}

// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector cpp_session_metrics(SEXP ses) {
  Session& s = *box_of(ses).session;
  const MetricList m = s.metrics().result();
  Rcpp::NumericVector out(m.size());
  Rcpp::CharacterVector nm(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) {
    out[i] = m[i].second;
    nm[i] = m[i].first;
  }
  out.attr("names") = nm;
  return out;
}

// Prediction keys of the estimator's head, in TF's order.
// [[Rcpp::export(rng = false)]]
Rcpp::CharacterVector cpp_estimator_prediction_keys(SEXP est) {
  return Rcpp::wrap(estimator_of(est).head().prediction_keys());
}

// Predictions of a finished predict session: a named list, one numeric
// matrix [examples x width] per key.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_session_predictions(SEXP ses, Rcpp::CharacterVector keys) {
  Session& s = *box_of(ses).session;
  const Head& head = s.head();
  const std::vector<float>& logits = s.predictions();
  const int u = head.logits_dim();
  const int rows = static_cast<int>(logits.size() / u);
  Rcpp::List out(keys.size());
  for (R_xlen_t k = 0; k < keys.size(); ++k) {
    const std::string key(keys[k]);
    const int w = head.key_width(key);
    std::vector<double> tmp(static_cast<std::size_t>(rows) * w);
    head.predict(key, logits.data(), rows, tmp.data());
    Rcpp::NumericMatrix m(rows, w);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < w; ++j) m(i, j) = tmp[static_cast<std::size_t>(i) * w + j];
    out[k] = m;
  }
  out.attr("names") = keys;
  return out;
}

// [[Rcpp::export(rng = false)]]
bool cpp_xptr_is_null(SEXP p) {
  return TYPEOF(p) != EXTPTRSXP || R_ExternalPtrAddr(p) == nullptr;
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

// The estimator's state as checkpoint bytes (kept in the R object so that
// saveRDS() carries the weights), and back.
// [[Rcpp::export(rng = false)]]
Rcpp::RawVector cpp_estimator_encode(SEXP est) {
  CheckpointData data;
  snapshot(estimator_of(est), data);
  const std::string bytes = encode_checkpoint(data);
  Rcpp::RawVector out(bytes.size());
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

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

// Writes one event of scalars (evaluation metrics) into a directory's
// event file; returns the file's path.
// [[Rcpp::export(rng = false)]]
std::string cpp_write_scalars(std::string dir, double step, Rcpp::NumericVector values,
                              std::string hostname) {
  Rcpp::CharacterVector names = values.names();
  std::vector<std::pair<std::string, float>> v;
  for (R_xlen_t i = 0; i < values.size(); ++i)
    v.emplace_back(std::string(names[i]), static_cast<float>(values[i]));
  // One writer per directory for the life of the process (as TF's
  // FileWriterCache), so that repeated evaluations append to one file; a
  // writer whose file was removed is replaced.
  static std::map<std::string, std::unique_ptr<EventFileSink>> cache;
  auto it = cache.find(dir);
  if (it != cache.end()) {
    const std::string path = it->second->path();
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) cache.erase(it), it = cache.end();
  }
  if (it == cache.end()) it = cache.emplace(dir, std::make_unique<EventFileSink>(dir, hostname)).first;
  it->second->scalars(static_cast<std::int64_t>(step), v);
  it->second->flush();
  return it->second->path();
}

// Every scalar of one event file, as columns.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_read_events(std::string path) {
  const std::vector<ScalarEvent> ev = read_scalar_events(path);
  Rcpp::NumericVector step(ev.size()), value(ev.size()), wall(ev.size());
  Rcpp::CharacterVector tag(ev.size());
  for (std::size_t i = 0; i < ev.size(); ++i) {
    step[i] = static_cast<double>(ev[i].step);
    tag[i] = ev[i].tag;
    value[i] = ev[i].value;
    wall[i] = ev[i].wall_time;
  }
  return Rcpp::List::create(Rcpp::Named("step") = step, Rcpp::Named("tag") = tag,
                            Rcpp::Named("value") = value, Rcpp::Named("wall_time") = wall);
}

namespace {
SEXP first_bad_fetch(SEXP x) {
  if (Rf_isNull(x) || Rf_inherits(x, "cppestimators_tensor")) return R_NilValue;
  if (TYPEOF(x) == STRSXP && Rf_length(x) == 1) return R_NilValue;
  if (TYPEOF(x) == VECSXP) {
    for (R_xlen_t i = 0; i < Rf_xlength(x); ++i) {
      SEXP bad = first_bad_fetch(VECTOR_ELT(x, i));
      if (!Rf_isNull(bad)) return bad;
    }
    return R_NilValue;
  }
  return x;
}
}  // namespace

// The first element of a fetch structure that is neither a tensor handle nor
// a tensor name (NULL when all are fine).
// [[Rcpp::export(rng = false)]]
SEXP cpp_check_fetches(SEXP x) { return first_bad_fetch(x); }

// Frees a finished session's buffers now rather than at garbage collection.
// [[Rcpp::export(rng = false)]]
void cpp_session_close(SEXP ses) {
  Rcpp::XPtr<SessionBox> p(ses);
  if (p.get() != nullptr && !p->running) p->session.reset();
}

// Number of engine sessions alive (for leak checks).
// [[Rcpp::export(rng = false)]]
double cpp_live_sessions() { return static_cast<double>(Session::live_count()); }

// Called by the R layer's interrupt handler: while the session runs, the
// first interrupt is noted (and R resumes the hook code it interrupted) so
// that the loop stops at the next step boundary and calls every end().
// [[Rcpp::export(rng = false)]]
bool cpp_session_note_interrupt(SEXP ses) {
  Rcpp::XPtr<SessionBox> p(ses);
  if (p.get() == nullptr || !p->running || p->interrupt_pending) return false;
  p->interrupt_pending = true;
  return true;
}
