#include <cppestimators/session/session.h>
#include <cppestimators/session/tensors.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include <cppestimators/data/stream_feed.h>
#include <cppestimators/distributed/collective.h>
#include <cppestimators/session/step_exchange.h>
#include <cppestimators/parallel.h>
#include <cppestimators/services.h>

namespace cppestimators {

namespace {

// The session's ranks given to its model for what it does before the first
// step (reading rows, fitting bins), taken back when that is done.
struct ModelCollective {
  Model& m;
  ModelCollective(Model& model, const SessionOptions& opt) : m(model) {
    m.set_collective(opt.collective, opt.observer);
  }
  ~ModelCollective() { m.set_collective(nullptr); }
  ModelCollective(const ModelCollective&) = delete;
  ModelCollective& operator=(const ModelCollective&) = delete;
};

}  // namespace

const Dataset& Session::primed(StreamFeed& feed) {
  feed.prime();
  return feed.data();
}

std::unique_ptr<Session::HeldRows> Session::held_rows(Estimator& est, StreamFeed& feed,
                                                      const SessionOptions& opt) {
  if (opt.mode != Mode::Train || !est.model().keeps_streamed_rows()) return nullptr;
  // every rank starts from the chief's estimator (whether its cuts exist
  // decides what the ranks exchange while reading)
  if (opt.collective != nullptr) broadcast_estimator(est, *opt.collective, 0);
  const ModelCollective collective_guard(est.model(), opt);
  auto held = std::make_unique<HeldRows>();
  // the feed's batches, window after window, each window bound and its
  // labels and weights checked; the second pass keeps them
  struct Chunks : RowChunks {
    Estimator& est;
    StreamFeed& feed;
    HeldRows& held;
    bool observer;
    int pass = 0;
    bool weighted = false;
    std::int64_t first = 0, at = 0;  // the first pass's rows; rows kept of the second
    std::unique_ptr<FeatureSet::Binding> binding;
    std::vector<int> rows;
    Chunks(Estimator& e, StreamFeed& f, HeldRows& h, bool o)
        : est(e), feed(f), held(h), observer(o) {}
    int next(FeatureSet::Binding*& b, const int*& r) override {
      if (observer) return 0;
      const int count = feed.next_batch();
      if (count == 0) return 0;
      const Dataset& d = feed.data();
      if (feed.take_refilled() || binding == nullptr) {
        binding = bind_checked(est, d, &feed);
        check_labels(est.head(), d);
      }
      const std::int64_t off = feed.offset();
      rows.resize(static_cast<std::size_t>(count));
      for (int k = 0; k < count; ++k) rows[static_cast<std::size_t>(k)] = static_cast<int>(off + k);
      if (pass == 0) {
        first += count;
        held.data.label_width = d.label_width;
        held.data.weight_key = d.weight_key;
        weighted = d.weights != nullptr;
      } else if (at + count <= first) {
        // (more rows than the first pass gave: the model refuses them)
        const int w = d.label_width;
        for (int j = 0; j < w; ++j)
          for (int k = 0; k < count; ++k)
            held.labels[static_cast<std::size_t>(at + k + j * first)] = d.labels[off + k + j * d.n];
        if (weighted)
          for (int k = 0; k < count; ++k)
            held.weights[static_cast<std::size_t>(at + k)] = d.weights[off + k];
      }
      at += pass == 1 ? count : 0;
      b = binding.get();
      r = rows.data();
      return count;
    }
    void next_pass() override {
      pass = 1;
      binding.reset();
      if (!observer) feed.rewind();
      held.labels.assign(static_cast<std::size_t>(first) * held.data.label_width, 0.0);
      held.weights.assign(weighted ? static_cast<std::size_t>(first) : 0, 0.0);
    }
  } chunks(est, feed, *held, opt.observer);
  const std::int64_t n = est.model().keep_streamed_rows(chunks, opt.threads);
  static const double no_label = 0.0;  // (a rank without rows has labels, none of them)
  held->data.n = n;
  held->data.labels = held->labels.empty() ? &no_label : held->labels.data();
  held->data.weights = chunks.weighted ? held->weights.data() : nullptr;
  return held;
}

SessionOptions Session::held_options(SessionOptions opt, const HeldRows& held) {
  // one batch of every row in order, repeated until training finishes
  opt.batch_size = static_cast<int>(std::max<std::int64_t>(held.data.n, 1));
  opt.num_epochs = -1;
  opt.shuffle = false;
  return opt;
}

Session::Session(Estimator& est, const Dataset& data, const SessionOptions& opt,
                 std::shared_ptr<const DenseRows> block, StreamFeed* feed,
                 std::unique_ptr<HeldRows>&& held)
    : est_(est),
      data_(data),
      opt_(opt),
      held_(std::move(held)),
      feed_(feed),
      block_(std::move(block)),
      batcher_(feed ? 0 : data.n, feed ? feed->batch_size() : opt.batch_size, opt.num_epochs,
               opt.shuffle, opt.seed),
      binding_(held_ ? std::make_unique<FeatureSet::Binding>() : bind_checked(est, data, feed)),
      metrics_((est.model().bind_mode(opt.mode), est.head().new_metrics())) {
  const Head& head = est.head();
  // (held rows: checked window by window as they were read)
  if (opt.mode != Mode::Predict && held_ == nullptr) check_labels(head, data);
  if (feed == nullptr && opt.mode == Mode::Predict && opt.num_epochs < 0)
    throw std::invalid_argument(
        "predict() needs an `input_fn` with a finite `num_epochs` (got NULL, which repeats "
        "forever)");
  // a batch never holds more rows than the whole input delivers
  std::int64_t rows_max = feed ? feed->batch_size() : opt.batch_size;
  if (feed == nullptr && opt.num_epochs >= 0)
    rows_max = std::min<std::int64_t>(rows_max, data.n * opt.num_epochs);
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
  // evaluation and prediction pass kForwardChunk rows at a time through the model
  const int work_rows =
      static_cast<int>(opt.mode == Mode::Train ? b : std::min<std::size_t>(b, kForwardChunk));
  work_rows_ = work_rows;
  // (held rows: the model reads no features of the batch)
  if (held_ == nullptr && (opt.mode != Mode::Train || est.model().reads_training_batches()))
    est.model().features().allocate(*binding_, work_rows, batch_,
                                    block_ == nullptr || !est.model().reads_dense_rows_by_index());
  batch_.data_rows = feed ? feed->window_capacity() : data.n;
  if (opt.collective != nullptr) {
    if (opt.mode != Mode::Train)
      throw std::invalid_argument("only training runs across ranks (evaluate on one)");
    // every rank starts from the chief's estimator, then fits what the
    // model learns from the data before its first step (trees' buckets)
    // from every rank's rows
    broadcast_estimator(est, *opt.collective, 0);
  }
  if (opt.observer && opt.collective == nullptr)
    throw std::invalid_argument("internal: an observing session needs a collective");
  const ModelCollective collective_guard(est.model(), opt);
  est.model().begin_session(*binding_, opt.observer ? 0 : data.n, block_.get(), opt.mode,
                            opt.threads);
  workspace_ = est.model().new_workspace(batch_, work_rows, opt.threads);
  workspace_->rng = Rng(opt.seed ^ 0x9E3779B97F4A7C15ULL);
  if (!gemm::available(opt.kernel))
    throw std::invalid_argument(std::string("this CPU cannot run the ") + gemm::name(opt.kernel) +
                                " kernel");
  workspace_->kernel = opt.kernel;
  y_.assign(b * head.label_dim(), 0.0f);
  weighted_ = data.weights != nullptr && opt.mode != Mode::Predict;
  w_.assign(weighted_ ? b : 0, 0.0f);
  logits_.assign(b * head.logits_dim(), 0.0f);
  dlogits_.assign(opt.mode == Mode::Train ? b * head.logits_dim() : 0, 0.0f);
  per_example_.assign(b * head.per_example_dim(), 0.0f);
  if (opt.mode == Mode::Predict)
    predictions_.reserve(static_cast<std::size_t>(std::min<std::int64_t>(
                             feed ? rows_max : data.n * opt.num_epochs, 1 << 20)) *
                         head.logits_dim());
  if (feed) feed->take_refilled();  // the first window is bound and checked
  ++live_count();
}

Session::~Session() { --live_count(); }

bool Session::run_step() {
  if (opt_.mode == Mode::Train && est_.model().training().finished()) {
    rounds_ended_ = true;  // every rank holds the same model: they all finish here
    return false;          // nothing left to train
  }
  est_.model().bind_mode(opt_.mode);  // a nested session may have bound another mode
  if (opt_.mode == Mode::Train && opt_.collective != nullptr) return run_round();
  const int rows = feed_ ? next_streamed() : batcher_.next(idx_.data());
  if (rows == 0) return false;
  rows_ = rows;
  const Head& head = est_.head();
  // Every row in order (a whole epoch that is not shuffled) twice in a row:
  // the labels and weights gathered last time are these.
  const bool whole = !feed_ && !batcher_.shuffles() && rows == data_.n && batcher_.last_distinct();
  if (opt_.mode == Mode::Train) {
    gather_batch(rows, whole);
    if (fused_train_step(rows)) {
      ++steps_;
      return true;
    }
    est_.model().forward(batch_, opt_.mode, *workspace_, logits_.data());
  } else {
    forward_batch(rows, whole);
  }
  switch (opt_.mode) {
    case Mode::Train: {
      TrainingStrategy& training = est_.model().training();
      float* dlogits = training.needs_head_gradients(head) ? dlogits_.data() : nullptr;
      loss_ = static_cast<float>(batch_loss(rows, dlogits, training.loss_is_batch_mean()));
      if (training.loss_is_batch_mean()) loss_ /= static_cast<float>(rows);
      // A non-finite loss never reaches the weights: the step counts, the
      // update is skipped (the NaN hook decides whether to stop or fail).
      if (std::isfinite(loss_))
        est_.train_step(batch_, logits_.data(), dlogits, *workspace_);
      else
        est_.advance_global_step();
      break;
    }
    case Mode::Eval:
      loss_ = static_cast<float>(batch_loss(rows, nullptr));
      if (est_.model().training().loss_is_batch_mean()) loss_ /= static_cast<float>(rows);
      metrics_->update(logits_.data(), y_.data(), per_example_.data(), rows, loss_, weights());
      break;
    case Mode::Predict:
      predictions_.insert(predictions_.end(), logits_.begin(),
                          logits_.begin() + static_cast<std::ptrdiff_t>(rows) * head.logits_dim());
      break;
  }
  ++steps_;
  return true;
}

bool Session::gather_batch(int rows, bool whole) {
  if (!(whole && gathered_whole_)) {
    if (data_.labels != nullptr && opt_.mode != Mode::Predict) gather_labels(rows);
    if (weighted_) gather_weights(rows);
  }
  gathered_whole_ = whole;
  batch_.example_weights = weighted_ ? w_.data() : nullptr;
  batch_.labels = data_.labels != nullptr && opt_.mode != Mode::Predict ? y_.data() : nullptr;
  if (opt_.mode != Mode::Train && rows > kForwardChunk) return false;
  // (a whole epoch not shuffled holds every row in order)
  if (est_.model().reads_batch_features(opt_.mode, whole)) {
    if (held_ != nullptr)
      throw std::logic_error("internal: a model reading the features of rows it kept itself");
    est_.model().features().gather(*binding_, idx_.data(), rows, batch_, block_.get(), whole);
  } else {  // the rows alone: the model reads its own copy of them
    batch_.rows = rows;
    batch_.row_ids = idx_.data();
    batch_.dense_rows = nullptr;
    batch_.dense_block = nullptr;
    batch_.dense_index = nullptr;
    for (SparseIds& ids : batch_.sparse) ids.clear();
  }
  batch_.distinct_rows = distinct();
  batch_.whole_in_order = whole;
  return true;
}

void Session::forward_batch(int rows, bool whole) {
  if (gather_batch(rows, whole))
    est_.model().forward(batch_, opt_.mode, *workspace_, logits_.data());
  else
    forward_in_chunks(rows);
}

bool Session::fused_train_step(int rows) {
  TrainingStrategy& training = est_.model().training();
  double total = 0.0;
  StepStats stats;
  if (!training.fused_step(batch_, est_.head(), *workspace_, logits_.data(), per_example_.data(),
                           total, stats))
    return false;
  loss_ = static_cast<float>(total);
  if (training.loss_is_batch_mean()) loss_ /= static_cast<float>(rows);
  // as a step in turn: a non-finite loss never reaches the model
  if (std::isfinite(loss_))
    est_.apply_step(stats, *workspace_);
  else
    est_.advance_global_step();
  return true;
}

bool Session::run_round() {
  const int rows = opt_.observer ? 0 : feed_ ? next_streamed() : batcher_.next(idx_.data());
  TrainingStrategy& training = est_.model().training();
  const Head& head = est_.head();
  RoundHead mine;
  mine.data_ranks = opt_.observer ? 0.0 : 1.0;
  StepStats stats;
  rows_ = rows;
  if (rows > 0) {
    const bool whole =
        !feed_ && !batcher_.shuffles() && rows == data_.n && batcher_.last_distinct();
    forward_batch(rows, whole);
    float* dlogits = training.needs_head_gradients(head) ? dlogits_.data() : nullptr;
    const double total =
        static_cast<float>(batch_loss(rows, dlogits, training.loss_is_batch_mean()));
    mine.batches = 1.0;
    mine.rows = rows;
    mine.weight_sum = weighted_ ? weight_sum_ : rows;
    // the batch's summed loss (a batch mean's is the sum of its rows' losses too)
    mine.loss = total;
    const BatchLosses b = local_batch_losses(*this);
    mine.pe_total = b.total;
    mine.pe_weight = b.weights;
    if (std::isfinite(total) || training.computes_across_ranks()) {
      const float local = training.loss_is_batch_mean()
                              ? static_cast<float>(total) / static_cast<float>(rows)
                              : static_cast<float>(total);
      // (a compute() that talks to the other ranks runs whatever the loss:
      // they wait for it; a non-finite round loss then applies nothing)
      if (std::isfinite(local) || training.computes_across_ranks())
        stats = training.compute(batch_, logits_.data(), dlogits, head, *workspace_);
    }
  } else if (training.computes_across_ranks()) {
    // no rows here, but the others' compute() waits for this rank's sums
    batch_.rows = 0;
    batch_.whole_in_order = false;
    stats = training.compute(batch_, logits_.data(), dlogits_.data(), head, *workspace_);
  }
  const std::vector<Parameter*> params = est_.model().parameters();
  const std::size_t n_losses =
      opt_.share_losses
          ? static_cast<std::size_t>(rows) * static_cast<std::size_t>(head.per_example_dim())
          : 0;
  const std::string combined = opt_.collective->allcombine(
      exchange_.pack(mine, per_example_.data(), n_losses, stats, params), &StepExchange::combine);
  StepStats all;
  const RoundHead h = exchange_.unpack(combined, params, all);
  if (h.ends()) {
    rounds_ended_ = true;
    return false;
  }
  round_ = h;
  // the round's loss: the batches' summed loss (a batch mean's: over every
  // rank's rows)
  loss_ = training.loss_is_batch_mean() ? static_cast<float>(h.loss) / static_cast<float>(h.rows)
                                        : static_cast<float>(h.loss);
  if (std::isfinite(loss_) && !all.empty()) {
    est_.update_learning_rates();
    training.apply(all, est_.optimizers(), *workspace_);
    if (est_.model().take_resized()) est_.refresh_variables();
  }
  est_.advance_global_step();
  ++steps_;
  return true;
}

void Session::end_rounds(const std::string& why) noexcept {
  if (opt_.collective == nullptr || rounds_ended_) return;
  rounds_ended_ = true;
  try {
    if (opt_.collective->rank() == 0) {
      RoundHead stop;
      stop.stops = 1.0;
      stop.data_ranks = opt_.observer ? 0.0 : 1.0;
      opt_.collective->allcombine(
          exchange_.pack(stop, nullptr, 0, StepStats(), est_.model().parameters()),
          &StepExchange::combine);
    } else {
      opt_.collective->abort(why);
    }
  } catch (...) {
    // another rank gave up first: nothing is left to tell it
  }
}

void Session::blame_hook(const Hook* h, const char* phase) {
  const std::vector<Hook*>& all = hooks();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i] == h) enter_hook(static_cast<int>(i), phase);
}

double Session::memory_limit() {
  double limit = 64.0 * (1ull << 30);
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    limit = std::min(limit, static_cast<double>(pages) * static_cast<double>(page));
#endif
  return limit;
}

void Session::forward_in_chunks(int rows) {
  const bool distinct = this->distinct();
  const std::size_t width = static_cast<std::size_t>(est_.head().logits_dim());
  for (int off = 0; off < rows; off += kForwardChunk) {
    const int n = std::min(kForwardChunk, rows - off);
    est_.model().features().gather(*binding_, idx_.data() + off, n, batch_, block_.get());
    batch_.distinct_rows = distinct;
    batch_.whole_in_order = false;  // a chunk of the batch
    est_.model().forward(batch_, opt_.mode, *workspace_,
                         logits_.data() + static_cast<std::size_t>(off) * width);
    if (off + n < rows && interrupt_check_ && interrupt_check_()) throw Interrupted();
  }
}

double Session::batch_loss(int rows, float* dlogits, bool mean_gradients) {
  const Head& head = est_.head();
  const int threads = rows >= 16384 && !head.scalar_loss() ? std::max(1, opt_.threads) : 1;
  const float rows_f = static_cast<float>(rows);
  const auto scale = [&](float* dl, int n) {
    if (dl == nullptr || !mean_gradients) return;
    const std::size_t m = static_cast<std::size_t>(n) * static_cast<std::size_t>(head.logits_dim());
    const float inv = 1.0f / rows_f;  // as TF scales a batch mean's gradients
    for (std::size_t i = 0; i < m; ++i) dl[i] *= inv;
  };
  if (threads == 1) {
    const double total =
        head.loss(logits_.data(), y_.data(), rows, per_example_.data(), dlogits, weights());
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
                           per_example_.data() + r * pw, dl, weighted_ ? w_.data() + r : nullptr);
    scale(dl, n);
  });
  double total = 0.0;
  for (int t = 0; t < t_count; ++t) total += partial[t];
  return total;
}

int Session::next_streamed() {
  const int rows = feed_->next_batch();
  if (rows == 0) return 0;
  if (feed_->take_refilled()) {
    binding_ = bind_checked(est_, data_, feed_);
    est_.model().features().ensure_capacity(*binding_, work_rows_, batch_);
    if (opt_.mode != Mode::Predict) check_labels(est_.head(), data_);
    est_.model().rows_replaced(*workspace_);
    gathered_whole_ = false;
  }
  const int off = static_cast<int>(feed_->offset());
  for (int r = 0; r < rows; ++r) idx_[static_cast<std::size_t>(r)] = off + r;
  return rows;
}

std::unique_ptr<FeatureSet::Binding> Session::bind_checked(Estimator& est, const Dataset& data,
                                                           const StreamFeed* feed) {
  if (feed == nullptr || feed->window_first_row() == 0) return est.model().features().bind(data);
  try {
    return est.model().features().bind(data);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) + " (rows counted from row " +
                                std::to_string(feed->window_first_row() + 1) + " of the dataset)");
  }
}

void Session::check_labels(const Head& head, const Dataset& data) {
  if (data.labels == nullptr)
    throw std::invalid_argument(
        "`input_fn` has no response: training and evaluation need one (set `response`)");
  head.check_labels(data.labels, data.n, data.label_width);
  if (data.weights != nullptr) check_weights(data);
}

void Session::gather_labels(int rows) {
  const int w = data_.label_width;
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < w; ++j)
      y_[static_cast<std::size_t>(r) * w + j] =
          static_cast<float>(data_.labels[idx_[r] + j * data_.n]);
}

void Session::gather_weights(int rows) {
  double sum = 0.0;
  for (int r = 0; r < rows; ++r) {
    const float w = static_cast<float>(data_.weights[idx_[r]]);
    w_[static_cast<std::size_t>(r)] = w;
    sum += w;
  }
  weight_sum_ = sum;
}

void Session::check_weights(const Dataset& data) {
  const double top = static_cast<double>(std::numeric_limits<float>::max());
  for (std::int64_t i = 0; i < data.n; ++i) {
    const double w = data.weights[i];
    if (w >= 0.0 && w <= top) continue;
    const std::string where = "weight column '" + data.weight_key + "' contains ",
                      row = std::to_string(i + 1);
    if (std::isnan(w))
      throw std::invalid_argument(where + "missing values (NA), first at row " + row);
    if (w < 0.0)
      throw std::invalid_argument(where + "negative values (" + format_weight(w) +
                                  "), first at row " + row + ": weights must be >= 0");
    if (std::isinf(w)) throw std::invalid_argument(where + "infinite values, first at row " + row);
    throw std::invalid_argument(where +
                                "values beyond the float32 range (> 3.4e38), first at row " + row);
  }
}

std::string Session::format_weight(double w) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", w);
  return buf;
}

}  // namespace cppestimators
