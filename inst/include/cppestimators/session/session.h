// A Session runs one step per run_step(): gather a batch of features, the
// model's forward pass, the head's loss, and, by mode, an optimizer update
// (train), metric updates (eval) or stored logits (predict). The feature
// columns are bound to the data and every buffer (batch, model workspace) is
// sized once, at creation, for the largest batch; the steady state allocates
// nothing and copies no input data beyond the batch itself.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../data/batcher.h"
#include "../data/dataset.h"
#include "step_exchange.h"
#include "../features/feature_batch.h"
#include "../features/feature_set.h"
#include "../math/gemm.h"
#include "../model/estimator.h"
#include "../model/mode.h"

namespace cppestimators {

struct SessionOptions {
  Mode mode = Mode::Train;
  int batch_size = 128;
  std::int64_t num_epochs = 1;  // < 0: repeat forever
  bool shuffle = false;
  std::uint64_t seed = 0;
  int threads = 1;  // for the model's products on large batches
  gemm::Kernel kernel =
      gemm::Kernel::Portable;  // the model's matrix products (gemm::available() ones only)
  // Training across ranks (distributed/collective.h): the session starts
  // from rank 0's estimator, and every step is a round whose statistics
  // combine every rank's batch; null trains alone. Training only.
  Collective* collective = nullptr;
  // This rank reads no data: it applies the rounds' results (a socket
  // cluster's driver, which runs the hooks while the workers read).
  bool observer = false;
  // Whether a round carries every batch's per-example losses to every rank
  // (what a chief's hooks fetching `per_example_loss` read; 4 bytes an
  // example, which for whole-shard batches of trees outweighs the rest).
  bool share_losses = true;
};

struct RunContext;
class Hook;
class MetricAccumulator;
class StreamFeed;

class Session {
 public:
  // `block`: the dense features of every row of `data` for this model's
  // columns (features/dense_block.h), or null to gather them batch by batch.
  Session(Estimator& est, const Dataset& data, const SessionOptions& opt,
          std::shared_ptr<const DenseRows> block = nullptr)
      : Session(est, data, opt, std::move(block), nullptr) {}

  // A session over a streaming dataset (data/stream_feed.h): batches of the
  // feed's size, cut from its windows of rows; the feature columns are bound
  // to each window in turn, checking its values as they are for R data.
  // Training a model that keeps its own copy of the rows
  // (Model::keeps_streamed_rows()) reads the whole feed first (checking its
  // labels and weights as above) and then trains as over rows in memory:
  // every step one batch of every row, in order, until training finishes.
  Session(Estimator& est, StreamFeed& feed, const SessionOptions& opt)
      : Session(est, feed, opt, held_rows(est, feed, opt)) {}

 private:
  static const Dataset& primed(StreamFeed& feed);

  // A streamed dataset's rows kept by the model: their labels and weights.
  struct HeldRows {
    Dataset data;  // no features: the model holds them
    std::vector<double> labels, weights;
  };
  static std::unique_ptr<HeldRows> held_rows(Estimator& est, StreamFeed& feed,
                                             const SessionOptions& opt);
  static SessionOptions held_options(SessionOptions opt, const HeldRows& held);
  Session(Estimator& est, StreamFeed& feed, const SessionOptions& opt,
          std::unique_ptr<HeldRows>&& held)
      : Session(est, held ? held->data : primed(feed), held ? held_options(opt, *held) : opt,
                nullptr, held ? nullptr : &feed, std::move(held)) {}

  Session(Estimator& est, const Dataset& data, const SessionOptions& opt,
          std::shared_ptr<const DenseRows> block, StreamFeed* feed,
          std::unique_ptr<HeldRows>&& held = nullptr);

 public:
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Sessions alive in this process (tests check that nested evaluations do
  // not leak them).
  static long& live_count() {
    static long n = 0;
    return n;
  }

  Mode mode() const { return opt_.mode; }
  Estimator& estimator() { return est_; }
  const Estimator& estimator() const { return est_; }
  const Head& head() const { return est_.head(); }

  // One step. Returns false at end of input, leaving the previous step's
  // buffers untouched.
  bool run_step();

  // Called between the chunks of a large evaluation or prediction batch
  // (kForwardChunk rows each, some milliseconds of work): true stops the
  // step by throwing Interrupted, which the monitored loop turns into an
  // orderly stop.
  void set_interrupt_check(std::function<bool()> check) { interrupt_check_ = std::move(check); }

  // Rows of an evaluation or prediction batch the forward pass takes at a
  // time (the rows are independent; training passes keep the whole batch for
  // the backward pass).
  static constexpr int kForwardChunk = 16384;

  // Bytes the batch buffers may take: the machine's memory where it can be
  // asked, at most 64 GiB.
  static double memory_limit();

  // The forward pass of a large evaluation or prediction batch, chunk by
  // chunk into logits_, checking for an interrupt after each.
  void forward_in_chunks(int rows);

  // The head's summed loss of the batch, each example's loss times its weight
  // (and its logit gradients, divided by the batch's rows when
  // `mean_gradients`, for models whose loss is the batch mean: TF's
  // SUM_OVER_BATCH_SIZE, whose denominator holds no weights): large batches
  // split their rows over the session's threads, partial sums added in
  // thread order, so a thread count gives one result.
  double batch_loss(int rows, float* dlogits, bool mean_gradients = false);

  // Training across ranks (SessionOptions::collective).
  bool distributed() const { return opt_.collective != nullptr; }
  Collective* collective() const { return opt_.collective; }
  // Whether the ranks ended together: a round ended (a rank asked to stop
  // or had no batch left) or training finished on every rank. When a
  // distributed loop ends otherwise, end_rounds() tells the other ranks.
  bool rounds_ended() const { return rounds_ended_; }
  // Rank 0 (the chief): a last round asking every rank to stop. Another
  // rank: gives the job up (the others' next round throws). Errors of the
  // other ranks are not thrown from here: the caller has its own outcome.
  void end_rounds(const std::string& why) noexcept;
  // The last round's totals (distributed training), for the history.
  const RoundHead& round() const { return round_; }

  // What the last completed step produced.
  std::int64_t steps_run() const { return steps_; }
  // The last step's rows and per-example losses: across ranks, every rank's
  // batch of the round (the other per-batch tensors, logits and labels, are
  // this rank's batch: local_rows() of them).
  int rows() const { return distributed() ? static_cast<int>(round_.rows) : rows_; }
  int local_rows() const { return rows_; }
  // Whether this rank reads no data (a socket cluster's chief).
  bool observer() const { return opt_.observer; }
  double loss() const { return loss_; }
  // The mean per-example loss of the last step (the loss is their sum, or
  // already their batch mean for models that report it so), weighted: the
  // weighted sum over the sum of the weights (TF's training summary).
  // (Across ranks: the round's, every rank's batch together.)
  double average_loss() const {
    const double rows = distributed() ? round_.rows : static_cast<double>(rows_);
    const double weights = distributed() ? round_.weight_sum : weighted_ ? weight_sum_ : rows;
    const double m = weights * est_.head().per_example_dim();
    if (rows <= 0 || m <= 0) return 0.0;
    if (est_.head().scalar_loss()) return loss_;  // a custom estimator's loss is the batch's
    const double sum =
        est_.model().training().loss_is_batch_mean() ? static_cast<double>(loss_) * rows : loss_;
    return sum / m;
  }
  const float* per_example_losses() const {
    return distributed() ? exchange_.losses().data() : per_example_.data();
  }
  const float* local_per_example_losses() const { return per_example_.data(); }
  // Whether per_example_losses() holds rows() x per_example_dim() values
  // (not across ranks whose rounds do not share them).
  bool has_per_example_losses() const {
    return !distributed() ||
           exchange_.losses().size() == static_cast<std::size_t>(rows()) *
                                            static_cast<std::size_t>(head().per_example_dim());
  }
  const float* logits() const { return logits_.data(); }
  const float* labels() const { return y_.data(); }
  // The last batch's example weights (null when the input has none).
  const float* weights() const { return weighted_ ? w_.data() : nullptr; }
  std::int64_t global_step() const { return est_.global_step(); }
  double learning_rate() const { return est_.learning_rate(); }
  const MetricAccumulator& metrics() const { return *metrics_; }
  const std::vector<float>& predictions() const { return predictions_; }

  // Which hook and phase is running, for error messages (-1 / nullptr:
  // none): the loop enters and leaves each hook's call.
  int current_hook() const { return current_hook_; }
  const char* current_phase() const { return current_phase_; }
  void enter_hook(int i, const char* phase) {
    current_hook_ = i;
    current_phase_ = phase;
  }
  void leave_hook() { enter_hook(-1, nullptr); }
  // Names hook `h` (one of hooks()) in phase `phase` as the one running: a
  // hook whose error arises in another's call (an evaluation it watches).
  void blame_hook(const Hook* h, const char* phase);
  // The context of the step in progress (null between steps).
  RunContext* current_context() const { return current_context_; }
  void set_current_context(RunContext* c) { current_context_ = c; }
  // The hooks of the loop running this session, in order (empty outside
  // one): cooperating hooks find each other here at begin().
  const std::vector<Hook*>& hooks() const { return hooks_ ? *hooks_ : no_hooks(); }
  void set_hooks(const std::vector<Hook*>* hooks) { hooks_ = hooks; }

 private:
  // A training step of a distributed session: this rank's part of the round,
  // the round, and the combined statistics applied.
  bool run_round();

  // The last batch's features gathered and its forward pass (training, or a
  // batch small enough for one pass).
  void forward_batch(int rows, bool whole);
  // forward_batch()'s first part: the labels, weights and (training, or a
  // batch small enough for one pass) features gathered; returns whether the
  // features were.
  bool gather_batch(int rows, bool whole);
  // A training step the model's strategy runs in one pass (fused_step()):
  // whether it did.
  bool fused_train_step(int rows);

  // Whether the last batch holds each of its rows once.
  bool distinct() const { return feed_ != nullptr || batcher_.last_distinct(); }

  // The next batch of the feed as row indices of its window; a new window
  // is bound and checked first.
  int next_streamed();

  // The feature columns bound to `data`; a streamed window's errors say
  // where the window starts, since their row numbers count from it.
  static std::unique_ptr<FeatureSet::Binding> bind_checked(Estimator& est, const Dataset& data,
                                                           const StreamFeed* feed);

  // The data's labels (there must be some: a response) and weights, checked.
  static void check_labels(const Head& head, const Dataset& data);

  void gather_labels(int rows);

  void gather_weights(int rows);

  // Weights must be finite numbers >= 0 (in float32's range); the error
  // names the weight column and the first row that is not.
  static void check_weights(const Dataset& data);

  static std::string format_weight(double w);

  Estimator& est_;
  const Dataset& data_;
  SessionOptions opt_;
  std::unique_ptr<HeldRows> held_;  // a streamed dataset's rows, kept by the model
  StreamFeed* feed_ = nullptr;      // the streaming input, or null for R data
  int work_rows_ = 0;               // rows the batch buffers hold
  std::shared_ptr<const DenseRows> block_;
  Batcher batcher_;
  std::unique_ptr<FeatureSet::Binding> binding_;
  FeatureBatch batch_;
  std::function<bool()> interrupt_check_;
  std::unique_ptr<Workspace> workspace_;
  std::unique_ptr<MetricAccumulator> metrics_;
  std::vector<int> idx_;
  bool gathered_whole_ = false;  // the last batch's labels were every row's, in order
  std::vector<float> y_, w_, logits_, dlogits_, per_example_, predictions_;
  bool weighted_ = false;    // the batches carry example weights (w_)
  double weight_sum_ = 0.0;  // of the last batch's weights
  int rows_ = 0;
  double loss_ = 0.0;
  std::int64_t steps_ = 0;
  const std::vector<Hook*>* hooks_ = nullptr;
  int current_hook_ = -1;
  const char* current_phase_ = nullptr;
  RunContext* current_context_ = nullptr;
  StepExchange exchange_;  // a distributed session's rounds
  RoundHead round_;
  bool rounds_ended_ = false;
  static const std::vector<Hook*>& no_hooks() {
    static const std::vector<Hook*> none;
    return none;
  }
};

// One per step, shared by every hook's before_run and after_run of that step.
struct RunContext {
  explicit RunContext(Session* s) : session(s) {}
  Session* session;
  bool stop_requested = false;
  void request_stop() { stop_requested = true; }
};

}  // namespace cppestimators
