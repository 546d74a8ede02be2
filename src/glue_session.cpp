// The R boundary for sessions: one per train(), evaluate() or predict() call
// over R data read in place, run through the monitored loop with hooks built
// from their specs.
#include <Rcpp.h>

#include <cppestimators/distributed/collective.h>
#include <cppestimators/features/dense_block.h>
#include <cppestimators/hooks/history_saver.h>
#include <cppestimators/hooks/registry.h>
#include <cppestimators/io/summary_writers.h>
#include <cppestimators/math/gemm.h>
#include <cppestimators/session/monitored_loop.h>

#include "r_fetch.h"
#include "glue.h"
#include "r_hooks.h"
#include "r_data.h"
#include "r_services.h"
#include "r_stream.h"

using cppestimators::block_of;
using cppestimators::BlockBox;
using cppestimators::box_of;
using cppestimators::Collective;
using cppestimators::Dataset;
using cppestimators::dataset_from_r;
using cppestimators::DenseBlock;
using cppestimators::DenseRows;
using cppestimators::Estimator;
using cppestimators::estimator_of;
using cppestimators::evaluation_results;
using cppestimators::FeatureSet;
using cppestimators::FeedColumns;
using cppestimators::Head;
using cppestimators::History;
using cppestimators::Hook;
using cppestimators::LoopOutcome;
using cppestimators::MetricList;
using cppestimators::Mode;
using cppestimators::Pipeline;
using cppestimators::RHookEnv;
using cppestimators::RServices;
using cppestimators::Session;
using cppestimators::SessionBox;
using cppestimators::SessionOptions;
using cppestimators::Spec;
using cppestimators::StreamFeed;
namespace gemm = cppestimators::gemm;
using cppestimators::make_hooks;
using cppestimators::mode_of;
using cppestimators::pipeline_from_r;
using cppestimators::resolve_fetches;

namespace {
// The kernel named "auto" (the widest this CPU runs), "avx512", "avx2" or
// "portable"; an error for other names and for kernels the CPU cannot run.
gemm::Kernel kernel_named(const std::string& name) {
  if (name == "auto") return gemm::best_available();
  for (gemm::Kernel k : {gemm::Kernel::Avx512, gemm::Kernel::Avx2, gemm::Kernel::Portable}) {
    if (name != gemm::name(k)) continue;
    if (!gemm::available(k)) Rcpp::stop("this CPU cannot run the %s kernel", name);
    return k;
  }
  Rcpp::stop("unknown kernel '%s'", name);
}
// A distributed session's ranks (cpp_r_collective()), kept by the box.
void set_collective(SessionBox& box, SessionOptions& opt, SEXP collective, bool observer) {
  if (Rf_isNull(collective)) return;
  Rcpp::XPtr<Collective> c(collective);
  if (c.get() == nullptr) Rcpp::stop("internal: the collective is gone");
  box.collective = collective;
  opt.collective = c.get();
  opt.observer = observer;
}
}  // namespace

// features: named list of R vectors/matrices (read in place); labels: a
// double vector/matrix or NULL; weights: the weight column's values (a
// double vector, read in place) or NULL, named `weight_key` in messages.
// [[Rcpp::export(rng = false)]]
SEXP cpp_session_new(SEXP est, Rcpp::List features, SEXP labels, SEXP weights,
                     std::string weight_key, std::string mode, int batch_size, double num_epochs,
                     bool shuffle, double seed, SEXP block, int threads, std::string kernel,
                     SEXP collective = R_NilValue, bool observer = false,
                     bool share_losses = true) {
  Estimator& e = estimator_of(est);
  std::unique_ptr<SessionBox> box(new SessionBox());
  box->estimator_ptr = est;
  box->keep = Rcpp::List::create(features, labels, weights);
  dataset_from_r(features, labels, box->data);
  if (!Rf_isNull(weights)) {
    if (TYPEOF(weights) != REALSXP) Rcpp::stop("internal: weights must be double");
    if (static_cast<std::int64_t>(XLENGTH(weights)) != box->data.n)
      Rcpp::stop("the weight column '" + weight_key + "' has " +
                 std::to_string(static_cast<long long>(XLENGTH(weights))) +
                 " rows but the input has " + std::to_string(static_cast<long long>(box->data.n)));
    box->data.weights = REAL_RO(weights);
    box->data.weight_key = weight_key;
  }
  SessionOptions opt;
  opt.mode = mode_of(mode);
  opt.batch_size = batch_size;
  opt.num_epochs = static_cast<std::int64_t>(num_epochs);
  opt.shuffle = shuffle;
  opt.seed = static_cast<std::uint64_t>(seed);
  opt.threads = threads;
  opt.kernel = kernel_named(kernel);
  set_collective(*box, opt, collective, observer);
  opt.share_losses = share_losses;
  std::shared_ptr<const DenseRows> rows;
  if (!Rf_isNull(block)) {
    const BlockBox& b = block_of(block);
    if (b.block->rows() != box->data.n || b.block->width() != e.model().features().dense_width())
      Rcpp::stop("internal: the cached feature block does not match the input");
    rows = b.block;
  }
  box->session.reset(new Session(e, box->data, opt, rows));
  return Rcpp::XPtr<SessionBox>(box.release(), true);
}

// A session over a streaming dataset: `description` as engine_pipeline()
// gives it; `features` the keys the feature columns read; `response` ("" for
// none), mapped through `vocabulary` when `has_vocabulary`; the weight
// column `weight_key` ("" for none); `batch_size` for a dataset without
// dataset_batch(); windows of `window_rows` rows.
// [[Rcpp::export(rng = false)]]
SEXP cpp_stream_session_new(SEXP est, Rcpp::List description, std::vector<std::string> features,
                            std::string response, bool has_vocabulary,
                            std::vector<std::string> vocabulary, std::string weight_key,
                            std::string mode, int batch_size, double seed, double window_rows,
                            int threads, std::string kernel, SEXP collective = R_NilValue,
                            bool observer = false, bool share_losses = true) {
  Estimator& e = estimator_of(est);
  SessionOptions opt;
  opt.mode = mode_of(mode);
  std::unique_ptr<SessionBox> box(new SessionBox());
  box->estimator_ptr = est;
  Pipeline p = pipeline_from_r(description, static_cast<std::uint64_t>(seed), box->host);
  FeedColumns cols;
  cols.features = std::move(features);
  if (opt.mode != Mode::Predict) cols.response = response;
  cols.has_vocabulary = has_vocabulary;
  cols.vocabulary = std::move(vocabulary);
  if (opt.mode != Mode::Predict) cols.weight_key = weight_key;
  box->feed = std::make_unique<StreamFeed>(std::move(p.rows), p.plan, batch_size,
                                           static_cast<std::int64_t>(window_rows), std::move(cols));
  opt.batch_size = box->feed->batch_size();
  opt.num_epochs = 1;
  opt.seed = static_cast<std::uint64_t>(seed);
  opt.threads = threads;
  opt.kernel = kernel_named(kernel);
  set_collective(*box, opt, collective, observer);
  opt.share_losses = share_losses;
  box->session.reset(new Session(e, *box->feed, opt));
  return Rcpp::XPtr<SessionBox>(box.release(), true);
}

// The dense features of the input for the estimator's columns, as one float32
// block shared by the sessions over that input (R/feature_cache.R keeps it).
// [[Rcpp::export(rng = false)]]
SEXP cpp_dense_block(SEXP est, Rcpp::List features, int threads) {
  Estimator& e = estimator_of(est);
  Dataset data;
  dataset_from_r(features, R_NilValue, data);
  const FeatureSet& fs = e.model().features();
  auto binding = fs.bind(data);
  std::unique_ptr<BlockBox> box(new BlockBox());
  box->block = std::make_shared<const DenseBlock>(fs, *binding, data.n, threads);
  return Rcpp::XPtr<BlockBox>(box.release(), true);
}

// Width of the estimator's dense block (0: no dense columns).
// [[Rcpp::export(rng = false)]]
int cpp_estimator_dense_width(SEXP est) {
  return estimator_of(est).model().features().dense_width();
}

// Number of cached feature blocks alive (for tests).
// [[Rcpp::export(rng = false)]]
double cpp_live_blocks() { return static_cast<double>(DenseBlock::live_count()); }

namespace {

Rcpp::List history_list(const History& h) {
  Rcpp::NumericVector steps(h.steps.begin(), h.steps.end());
  return Rcpp::List::create(Rcpp::Named("mean_losses") = Rcpp::wrap(h.mean_losses),
                            Rcpp::Named("total_losses") = Rcpp::wrap(h.total_losses),
                            Rcpp::Named("steps") = steps);
}

}  // namespace

namespace {
// Sessions running now (an in-memory evaluation runs inside a training), and
// whether an interrupt arrived while one of them ran R code: every running
// session honours it, so an evaluation interrupted in its R code stops too.
int running_sessions = 0;
bool interrupt_noted = false;
}  // namespace

// Runs the monitored loop with the given hooks (a list of hook specs).
// Interrupted, the outermost session signals R's interrupt; a session run
// inside another returns NULL, and the one around it stops in order. An R
// error raised by R's interrupt check (setTimeLimit()'s limits) also stops
// the loop in order, then continues as that R error.
// [[Rcpp::export(rng = false)]]
SEXP cpp_session_run(SEXP ses, Rcpp::List hooks, SEXP r_session, SEXP r_context,
                     std::string hostname) {
  SessionBox& box = box_of(ses);
  if (box.running) Rcpp::stop("this session is already running");
  if (running_sessions == 0) interrupt_noted = false;
  const bool nested = running_sessions > 0;
  RServices svc(&interrupt_noted);
  RHookEnv env(svc, hostname, r_session, r_context);
  std::vector<Spec> specs;
  specs.reserve(static_cast<std::size_t>(hooks.size()));
  for (R_xlen_t i = 0; i < hooks.size(); ++i) specs.push_back(env.spec(hooks[i]));
  const std::vector<std::unique_ptr<Hook>> owned = make_hooks(specs, env);
  std::vector<Hook*> list;
  const History* history = nullptr;
  for (const auto& h : owned) {
    list.push_back(h.get());
    if (history == nullptr) history = h->recorded_history();
  }
  struct Running {
    SessionBox& b;
    ~Running() {
      b.running = false;
      --running_sessions;
    }
  } running{box};
  box.running = true;
  ++running_sessions;
  const LoopOutcome out = run_monitored(*box.session, list, svc);
  env.writers().flush_all();
  // a jump out of R's interrupt check (an R error such as a time limit)
  // resumes now that the loop ended in order
  if (svc.jumped()) svc.resume_jump();
  if (out.interrupted) {
    if (nested) return R_NilValue;
    throw Rcpp::internal::InterruptedException();
  }
  return Rcpp::List::create(
      Rcpp::Named("steps") = static_cast<double>(out.steps),
      Rcpp::Named("end_of_input") = out.end_of_input,
      Rcpp::Named("global_step") = static_cast<double>(box.session->global_step()),
      Rcpp::Named("loss") = box.session->loss(),
      Rcpp::Named("history") =
          history ? Rcpp::RObject(history_list(*history)) : Rcpp::RObject(R_NilValue),
      Rcpp::Named("evaluations") = evaluation_results(list));
}

// [[Rcpp::export(rng = false)]]
SEXP cpp_session_fetch(SEXP ses, SEXP fetches) {
  return resolve_fetches(*box_of(ses).session, fetches);
}

// [[Rcpp::export(rng = false)]]
void cpp_session_request_stop(SEXP ses) {
  Session& s = *box_of(ses).session;
  if (s.current_context() == nullptr)
    Rcpp::stop("request_stop() can only be called from before_run() or after_run()");
  s.current_context()->request_stop();
}

// [[Rcpp::export(rng = false)]]
bool cpp_session_stop_requested(SEXP ses) {
  Session& s = *box_of(ses).session;
  return s.current_context() != nullptr && s.current_context()->stop_requested;
}

// Where the last failure happened: hook position (1-based, NA if none) and phase.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_session_error_origin(SEXP ses) {
  Session& s = *box_of(ses).session;
  return Rcpp::List::create(
      Rcpp::Named("hook") = s.current_hook() < 0 ? NA_INTEGER : s.current_hook() + 1,
      Rcpp::Named("phase") = s.current_phase()
                                 ? Rcpp::RObject(Rcpp::wrap(std::string(s.current_phase())))
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

// Predictions of a finished predict session: a named list with, per key, a
// numeric vector (one value per example, written in place) or a matrix
// [examples x width].
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
    if (w == 1) {
      Rcpp::NumericVector v(rows);
      head.predict(key, logits.data(), rows, v.begin());
      out[k] = v;
      continue;
    }
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
bool cpp_xptr_is_null(SEXP p) { return TYPEOF(p) != EXTPTRSXP || R_ExternalPtrAddr(p) == nullptr; }

namespace {
// How deeply fetches may nest (session_run_args()'s documentation says so):
// deeper structures are refused before the recursions below could overflow
// the C stack.
constexpr int kMaxFetchDepth = 100;

// The first element of x that is neither a tensor handle nor a tensor name
// (R_NilValue when none); `too_deep` when x nests beyond kMaxFetchDepth.
SEXP first_bad_fetch(SEXP x, int depth, bool& too_deep) {
  if (Rf_isNull(x) || Rf_inherits(x, "cppestimators_tensor")) return R_NilValue;
  if (TYPEOF(x) == STRSXP && Rf_length(x) == 1) return R_NilValue;
  if (TYPEOF(x) == VECSXP) {
    if (depth >= kMaxFetchDepth) {
      too_deep = true;
      return x;
    }
    for (R_xlen_t i = 0; i < Rf_xlength(x); ++i) {
      SEXP bad = first_bad_fetch(VECTOR_ELT(x, i), depth + 1, too_deep);
      if (!Rf_isNull(bad)) return bad;
    }
    return R_NilValue;
  }
  return x;
}
}  // namespace

// NULL when every element of a fetch structure is a tensor handle or a
// tensor name; otherwise list(value = the first that is not, too_deep =
// whether the structure nests lists more than 100 levels deep).
// [[Rcpp::export(rng = false)]]
SEXP cpp_check_fetches(SEXP x) {
  bool too_deep = false;
  SEXP bad = first_bad_fetch(x, 0, too_deep);
  if (Rf_isNull(bad)) return R_NilValue;
  return Rcpp::List::create(Rcpp::Named("value") = too_deep ? R_NilValue : bad,
                            Rcpp::Named("too_deep") = too_deep);
}

// The last answer of session_run_args() without options (preserved).
static SEXP& run_args_cache() {
  static SEXP last = nullptr;
  return last;
}

// session_run_args()'s object, list(fetches =, feed_dict = NULL, options =)
// of class cppestimators_session_run_args, or NULL when an element of
// `fetches` is neither a tensor handle nor a tensor name or the structure
// nests too deeply (the R layer then says which, with cpp_check_fetches()).
// Hooks make one every step: one call, no R-level checks.
// [[Rcpp::export(rng = false)]]
SEXP cpp_session_run_args(SEXP fetches, SEXP options) {
  // A hook asks for the same fetches every step (the same collection
  // objects under the same names): the last answer is given again, unchanged
  // (it is not mutable, so R copies it before any change).
  SEXP& last = run_args_cache();
  if (last != nullptr && Rf_isNull(options) && TYPEOF(fetches) == VECSXP) {
    SEXP prev = VECTOR_ELT(last, 0);
    const R_xlen_t n = Rf_xlength(fetches);
    bool same = TYPEOF(prev) == VECSXP && Rf_xlength(prev) == n &&
                Rf_isNull(ATTRIB(fetches)) == Rf_isNull(ATTRIB(prev));
    SEXP fn = Rf_getAttrib(fetches, R_NamesSymbol), pn = Rf_getAttrib(prev, R_NamesSymbol);
    same = same && Rf_xlength(fn) == Rf_xlength(pn) && Rf_length(ATTRIB(fetches)) <= 1;
    for (R_xlen_t i = 0; same && i < n; ++i) same = VECTOR_ELT(fetches, i) == VECTOR_ELT(prev, i);
    for (R_xlen_t i = 0; same && i < Rf_xlength(fn); ++i)
      same = STRING_ELT(fn, i) == STRING_ELT(pn, i);
    if (same) return last;
  }
  bool too_deep = false;
  if (!Rf_isNull(first_bad_fetch(fetches, 0, too_deep))) return R_NilValue;
  static SEXP names = nullptr, cls = nullptr;
  if (names == nullptr) {
    names = Rf_allocVector(STRSXP, 3);
    R_PreserveObject(names);
    SET_STRING_ELT(names, 0, Rf_mkChar("fetches"));
    SET_STRING_ELT(names, 1, Rf_mkChar("feed_dict"));
    SET_STRING_ELT(names, 2, Rf_mkChar("options"));
    MARK_NOT_MUTABLE(names);
    cls = Rf_mkString("cppestimators_session_run_args");
    R_PreserveObject(cls);
    MARK_NOT_MUTABLE(cls);
  }
  Rcpp::Shield<SEXP> args(Rf_allocVector(VECSXP, 3));
  SET_VECTOR_ELT(args, 0, fetches);
  SET_VECTOR_ELT(args, 2, options);
  Rf_setAttrib(args, R_NamesSymbol, names);
  Rf_setAttrib(args, R_ClassSymbol, cls);
  if (Rf_isNull(options)) {
    // kept for the next step's call (see above)
    if (last != nullptr) R_ReleaseObject(last);
    MARK_NOT_MUTABLE(fetches);
    MARK_NOT_MUTABLE(args);
    R_PreserveObject(args);
    last = args;
  }
  return args;
}

// session_run_args() from its frame: the fetches are read from `...` without
// an R list, and when they are the objects of the last call under the same
// names (a hook's collection, step after step) the last answer is given
// again. NULL when feed_dict or options are given or a fetch needs checking:
// the R function then takes the long way.
// [[Rcpp::export(rng = false)]]
SEXP cpp_session_run_args_frame(SEXP frame) {
  static SEXP feed = Rf_install("feed_dict"), opts = Rf_install("options");
  if (!Rf_isNull(Rf_eval(feed, frame)) || !Rf_isNull(Rf_eval(opts, frame))) return R_NilValue;
  SEXP dots = Rf_findVarInFrame3(frame, R_DotsSymbol, TRUE);
  if (TYPEOF(dots) != DOTSXP) return R_NilValue;
  R_xlen_t n = 0;
  for (SEXP d = dots; d != R_NilValue; d = CDR(d)) ++n;
  SEXP last = run_args_cache();
  if (last != nullptr) {
    SEXP prev = VECTOR_ELT(last, 0);
    SEXP pn = Rf_getAttrib(prev, R_NamesSymbol);
    bool same = TYPEOF(prev) == VECSXP && Rf_xlength(prev) == n && Rf_xlength(pn) == n;
    R_xlen_t i = 0;
    for (SEXP d = dots; same && d != R_NilValue; d = CDR(d), ++i) {
      SEXP v = CAR(d);
      if (TYPEOF(v) == PROMSXP) v = Rf_eval(v, frame);  // forces the argument, as list(...) would
      same = TAG(d) != R_NilValue && PRINTNAME(TAG(d)) == STRING_ELT(pn, i) &&
             v == VECTOR_ELT(prev, i);
    }
    if (same) return last;
  }
  Rcpp::Shield<SEXP> fetches(Rf_allocVector(VECSXP, n));
  Rcpp::Shield<SEXP> names(Rf_allocVector(STRSXP, n));
  R_xlen_t i = 0;
  for (SEXP d = dots; d != R_NilValue; d = CDR(d), ++i) {
    SEXP v = CAR(d);
    if (TYPEOF(v) == PROMSXP) v = Rf_eval(v, frame);
    SET_VECTOR_ELT(fetches, i, v);
    SET_STRING_ELT(names, i, TAG(d) == R_NilValue ? R_BlankString : PRINTNAME(TAG(d)));
  }
  Rf_setAttrib(fetches, R_NamesSymbol, names);
  return cpp_session_run_args(fetches, R_NilValue);
}

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
  if (p.get() == nullptr || !p->running || interrupt_noted) return false;
  interrupt_noted = true;
  return true;
}

// The matrix-product kernel a name ("auto", "avx512", "avx2" or "portable")
// stands for on this CPU and, as an attribute, those this CPU can run.
// Nothing is chosen here: sessions are given their kernel (cpp_session_new).
// [[Rcpp::export(rng = false)]]
Rcpp::CharacterVector cpp_gemm_kernel(std::string name) {
  using gemm::Kernel;
  Rcpp::CharacterVector available;
  for (Kernel k : {Kernel::Avx512, Kernel::Avx2, Kernel::Portable})
    if (gemm::available(k)) available.push_back(gemm::name(k));
  Rcpp::CharacterVector out = Rcpp::CharacterVector::create(gemm::name(kernel_named(name)));
  out.attr("available") = available;
  return out;
}

// Clears the object bit of a classed environment that R closure hooks read
// every step (the run context, its session): `$` on them then needs no S3
// dispatch (0.8 us each), while print() and inherits(), which read the
// class attribute, work as before.
// [[Rcpp::export(rng = false)]]
SEXP cpp_without_dispatch(SEXP x) {
  if (TYPEOF(x) != ENVSXP) Rcpp::stop("internal: cpp_without_dispatch() takes an environment");
  SET_OBJECT(x, 0);
  return x;
}
