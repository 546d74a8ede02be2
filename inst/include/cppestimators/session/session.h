// A Session runs one step per run_step(): gather a batch of features, the
// model's forward pass, the head's loss, and, by mode, an optimizer update
// (train), metric updates (eval) or stored logits (predict). The feature
// columns are bound to the data and every buffer (batch, model workspace) is
// sized once, at creation, for the largest batch; the steady state allocates
// nothing and copies no input data beyond the batch itself.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include "../data/batcher.h"
#include "../features/dense_block.h"
#include "../data/dataset.h"
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
};

struct RunContext;
class Hook;

class Session {
 public:
  // `block`: the dense features of every row of `data` for this model's
  // columns (features/dense_block.h), or null to gather them batch by batch.
  Session(Estimator& est, const Dataset& data, const SessionOptions& opt,
          std::shared_ptr<const DenseRows> block = nullptr)
      : est_(est),
        data_(data),
        opt_(opt),
        block_(std::move(block)),
        batcher_(data.n, opt.batch_size, opt.num_epochs, opt.shuffle, opt.seed),
        binding_(est.model().features().bind(data)),
        metrics_(est.head().new_metrics()) {
    const Head& head = est.head();
    if (opt.mode != Mode::Predict) {
      if (data.labels == nullptr)
        throw std::invalid_argument(
            "`input_fn` has no response: training and evaluation need one (set `response`)");
      head.check_labels(data.labels, data.n, data.label_width);
    }
    if (opt.mode == Mode::Predict && opt.num_epochs < 0)
      throw std::invalid_argument(
          "predict() needs an `input_fn` with a finite `num_epochs` (got NULL, which repeats "
          "forever)");
    // a batch never holds more rows than the whole input delivers
    std::int64_t rows_max = opt.batch_size;
    if (opt.num_epochs >= 0) rows_max = std::min<std::int64_t>(rows_max, data.n * opt.num_epochs);
    // buffers are sized up front: refuse sizes no machine holds before trying
    const double per_row = 4.0 * (est.model().features().dense_width() + 3.0 * head.logits_dim() +
                                  head.label_dim() + head.per_example_dim() + 2.0);
    if (static_cast<double>(rows_max) * per_row > memory_limit())
      throw std::invalid_argument(
          "`batch_size` of " + std::to_string(rows_max) + " rows would need " +
          std::to_string(static_cast<long long>(rows_max * per_row / (1ull << 30))) +
          " GiB of batch buffers; use a smaller batch_size (or a finite num_epochs)");
    const std::size_t b = static_cast<std::size_t>(std::max<std::int64_t>(rows_max, 1));
    idx_.assign(b, 0);
    est.model().features().allocate(*binding_, static_cast<int>(b), batch_,
                                    block_ == nullptr || !est.model().reads_dense_rows_by_index());
    batch_.data_rows = data.n;
    est.model().begin_session(*binding_, data.n, block_.get(), opt.mode, opt.threads);
    workspace_ = est.model().new_workspace(batch_, static_cast<int>(b), opt.threads);
    workspace_->rng = Rng(opt.seed ^ 0x9E3779B97F4A7C15ULL);
    if (!gemm::available(opt.kernel))
      throw std::invalid_argument(std::string("this CPU cannot run the ") + gemm::name(opt.kernel) +
                                  " kernel");
    workspace_->kernel = opt.kernel;
    y_.assign(b * head.label_dim(), 0.0f);
    logits_.assign(b * head.logits_dim(), 0.0f);
    dlogits_.assign(opt.mode == Mode::Train ? b * head.logits_dim() : 0, 0.0f);
    per_example_.assign(b * head.per_example_dim(), 0.0f);
    if (opt.mode == Mode::Predict)
      predictions_.reserve(
          static_cast<std::size_t>(std::min<std::int64_t>(data.n * opt.num_epochs, 1 << 20)) *
          head.logits_dim());
    ++live_count();
  }
  ~Session() { --live_count(); }
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
  bool run_step() {
    if (opt_.mode == Mode::Train && est_.model().training().finished())
      return false;  // nothing left to train
    const int rows = batcher_.next(idx_.data());
    if (rows == 0) return false;
    rows_ = rows;
    est_.model().features().gather(*binding_, idx_.data(), rows, batch_, block_.get());
    batch_.distinct_rows = batcher_.last_distinct();
    const Head& head = est_.head();
    if (data_.labels != nullptr && opt_.mode != Mode::Predict) gather_labels(rows);
    est_.model().forward(batch_, opt_.mode, *workspace_, logits_.data());
    switch (opt_.mode) {
      case Mode::Train:
        loss_ = static_cast<float>(
            batch_loss(rows, dlogits_.data(), est_.model().training().loss_is_batch_mean()));
        if (est_.model().training().loss_is_batch_mean()) loss_ /= static_cast<float>(rows);
        // A non-finite loss never reaches the weights: the step counts, the
        // update is skipped (the NaN hook decides whether to stop or fail).
        if (std::isfinite(loss_))
          est_.train_step(batch_, logits_.data(), dlogits_.data(), *workspace_);
        else
          est_.advance_global_step();
        break;
      case Mode::Eval:
        loss_ = static_cast<float>(batch_loss(rows, nullptr));
        if (est_.model().training().loss_is_batch_mean()) loss_ /= static_cast<float>(rows);
        metrics_->update(logits_.data(), y_.data(), per_example_.data(), rows, loss_);
        break;
      case Mode::Predict:
        predictions_.insert(
            predictions_.end(), logits_.begin(),
            logits_.begin() + static_cast<std::ptrdiff_t>(rows) * head.logits_dim());
        break;
    }
    ++steps_;
    return true;
  }

  // Bytes the batch buffers may take: the machine's memory where it can be
  // asked, at most 64 GiB.
  static double memory_limit() {
    double limit = 64.0 * (1ull << 30);
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
      limit = std::min(limit, static_cast<double>(pages) * static_cast<double>(page));
#endif
    return limit;
  }

  // The head's summed loss of the batch (and its logit gradients, divided by
  // the batch's rows when `mean_gradients`, for models whose loss is the
  // batch mean): large batches split their rows over the session's threads,
  // partial sums added in thread order, so a thread count gives one result.
  double batch_loss(int rows, float* dlogits, bool mean_gradients = false) {
    const Head& head = est_.head();
    const int threads = rows >= 16384 ? std::max(1, opt_.threads) : 1;
    const float rows_f = static_cast<float>(rows);
    const auto scale = [&](float* dl, int n) {
      if (dl == nullptr || !mean_gradients) return;
      const std::size_t m =
          static_cast<std::size_t>(n) * static_cast<std::size_t>(head.logits_dim());
      const float inv = 1.0f / rows_f;  // as TF scales a batch mean's gradients
      for (std::size_t i = 0; i < m; ++i) dl[i] *= inv;
    };
    if (threads == 1) {
      const double total = head.loss(logits_.data(), y_.data(), rows, per_example_.data(), dlogits);
      scale(dlogits, rows);
      return total;
    }
    double partial[64] = {0.0};
    const int t_count = std::min(threads, 64);
    const std::size_t lw = static_cast<std::size_t>(head.logits_dim()),
                      yw = static_cast<std::size_t>(head.label_dim()),
                      pw = static_cast<std::size_t>(head.per_example_dim());
    parallel_for(t_count, t_count, [&](int t) {
      const int r0 = rows * t / t_count, n = rows * (t + 1) / t_count - r0;
      const std::size_t r = static_cast<std::size_t>(r0);
      float* dl = dlogits != nullptr ? dlogits + r * lw : nullptr;
      partial[t] = head.loss(logits_.data() + r * lw, y_.data() + r * yw, n,
                             per_example_.data() + r * pw, dl);
      scale(dl, n);
    });
    double total = 0.0;
    for (int t = 0; t < t_count; ++t) total += partial[t];
    return total;
  }

  // What the last completed step produced.
  std::int64_t steps_run() const { return steps_; }
  int rows() const { return rows_; }
  double loss() const { return loss_; }
  // The mean per-example loss of the last step (the loss is their sum, or
  // already their batch mean for models that report it so).
  double average_loss() const {
    const int m = rows_ * est_.head().per_example_dim();
    if (m <= 0) return 0.0;
    const double sum =
        est_.model().training().loss_is_batch_mean() ? static_cast<double>(loss_) * rows_ : loss_;
    return sum / m;
  }
  const float* per_example_losses() const { return per_example_.data(); }
  const float* logits() const { return logits_.data(); }
  const float* labels() const { return y_.data(); }
  std::int64_t global_step() const { return est_.global_step(); }
  double learning_rate() const { return est_.learning_rate(); }
  const MetricAccumulator& metrics() const { return *metrics_; }
  const std::vector<float>& predictions() const { return predictions_; }

  // Which hook and phase is running, for error messages (-1 / nullptr: none).
  int current_hook = -1;
  const char* current_phase = nullptr;
  // The context of the step in progress (null between steps).
  RunContext* current_context = nullptr;
  // The hooks of the loop running this session, in order (empty outside
  // one): cooperating hooks find each other here at begin().
  const std::vector<Hook*>& hooks() const { return hooks_ ? *hooks_ : no_hooks(); }
  void set_hooks(const std::vector<Hook*>* hooks) { hooks_ = hooks; }

 private:
  void gather_labels(int rows) {
    const int w = data_.label_width;
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < w; ++j)
        y_[static_cast<std::size_t>(r) * w + j] =
            static_cast<float>(data_.labels[idx_[r] + j * data_.n]);
  }

  Estimator& est_;
  const Dataset& data_;
  SessionOptions opt_;
  std::shared_ptr<const DenseRows> block_;
  Batcher batcher_;
  std::unique_ptr<FeatureSet::Binding> binding_;
  FeatureBatch batch_;
  std::unique_ptr<Workspace> workspace_;
  std::unique_ptr<MetricAccumulator> metrics_;
  std::vector<int> idx_;
  std::vector<float> y_, logits_, dlogits_, per_example_, predictions_;
  int rows_ = 0;
  double loss_ = 0.0;
  std::int64_t steps_ = 0;
  const std::vector<Hook*>* hooks_ = nullptr;
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
