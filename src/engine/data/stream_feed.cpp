#include <cppestimators/data/stream_feed.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cppestimators/data/batch_plan.h>
#include <cppestimators/data/chunk.h>
#include <cppestimators/data/column.h>
#include <cppestimators/data/registry.h>
#include <cppestimators/data/row_stream.h>

namespace cppestimators {

// Batch transform k pulls from the base and the transforms before it.
class StreamFeed::Upstream : public BatchSource {
 public:
  Upstream(StreamFeed& feed, std::size_t k) : feed_(feed), k_(k) {}
  bool next() override { return feed_.pull(k_); }
  void rewind() override { feed_.rewind_level(k_); }

 private:
  StreamFeed& feed_;
  std::size_t k_;
};

StreamFeed::StreamFeed(std::unique_ptr<RowStream> rows, BatchPlan plan, int default_batch_size,
                       std::int64_t window_rows, FeedColumns columns)
    : rows_(std::move(rows)), plan_(std::move(plan)), cols_(std::move(columns)) {
  batch_ = plan_.batch_size > 0 ? plan_.batch_size : default_batch_size;
  if (batch_ < 1) throw std::invalid_argument("`batch_size` must be a positive integer");
  window_ = std::max<std::int64_t>(window_rows, batch_);
  for (const Spec& op : plan_.after) ops_.push_back(make_batch_op(op));
  for (std::size_t i = 0; i < cols_.vocabulary.size(); ++i)
    vocab_.emplace(cols_.vocabulary[i], static_cast<double>(i));
}

void StreamFeed::prime() {
  if (!primed_) refill();
}

int StreamFeed::next_batch() {
  prime();
  if (!pull(ops_.size())) return 0;
  return cur_rows_;
}

void StreamFeed::rewind() { rewind_level(ops_.size()); }

bool StreamFeed::pull(std::size_t k) {
  if (k == 0) return base_next();
  Upstream in(*this, k - 1);
  return ops_[k - 1]->next(in);
}

void StreamFeed::rewind_level(std::size_t k) {
  for (std::size_t i = 0; i < k && i < ops_.size(); ++i) ops_[i]->reset();
  rows_->rewind();
  ended_ = false;
  win_.n = 0;
  pos_ = 0;
  first_row_ = 0;
  primed_ = false;
}

bool StreamFeed::base_next() {
  prime();
  if (available() < batch_ && !ended_) refill();
  const std::int64_t take = std::min<std::int64_t>(batch_, available());
  if (take == 0) return false;
  if (take < batch_ && plan_.batch_size > 0 && plan_.drop_remainder) {
    pos_ = win_.n;
    return false;
  }
  cur_off_ = pos_;
  cur_rows_ = static_cast<int>(take);
  pos_ += take;
  return true;
}

void StreamFeed::refill() {
  primed_ = true;
  first_row_ += pos_;
  if (!win_.columns.empty()) {
    shape_like(win_, next_);
    append_rows(win_, pos_, win_.n - pos_, next_);
  } else {
    next_.clear();
  }
  while (next_.n < window_ && !ended_) {
    const std::int64_t got = rows_->read(in_, window_ - next_.n);
    if (next_.columns.empty() || (next_.n == 0 && !same_schema(in_, next_))) {
      if (!in_.columns.empty()) shape_like(in_, next_);
    } else if (got > 0 && !same_schema(in_, next_)) {
      throw std::runtime_error("the dataset's chunks changed their columns or types");
    }
    if (got == 0) {
      ended_ = true;
      break;
    }
    if (next_.n == 0 && got == window_) {
      std::swap(in_, next_);  // a whole window read at once: nothing to copy
      break;
    }
    append_rows(in_, 0, got, next_);
  }
  std::swap(win_, next_);
  pos_ = 0;
  refilled_ = true;
  rebuild_views();
}

std::string StreamFeed::row_name(std::int64_t i) const {
  return std::to_string(first_row_ + i + 1);
}

void StreamFeed::rebuild_views() {
  if (!cols_.views) return;
  data_.features.clear();
  data_.labels = nullptr;
  data_.weights = nullptr;
  data_.n = win_.n;
  const ChunkColumn* response = nullptr;
  const ChunkColumn* weight = nullptr;
  for (const ChunkColumn& c : win_.columns) {
    if (!cols_.response.empty() && c.key == cols_.response) response = &c;
    if (!cols_.weight_key.empty() && c.key == cols_.weight_key) weight = &c;
    const bool wanted =
        cols_.features.empty() ||
        std::find(cols_.features.begin(), cols_.features.end(), c.key) != cols_.features.end();
    if (!wanted) continue;
    data_.features.push_back(win_.view(c));
  }
  data_.indexed_ = static_cast<std::size_t>(-1);  // keys may have moved: index again
  if (!cols_.response.empty()) {
    if (response == nullptr)
      throw std::invalid_argument("the response '" + cols_.response +
                                  "' is not a column of the dataset");
    labels_from(*response);
    data_.labels = labels_.data();
    data_.label_width = response->width;
  }
  if (!cols_.weight_key.empty()) {
    if (weight == nullptr)
      throw std::invalid_argument("the weight column '" + cols_.weight_key +
                                  "' is not a column of the dataset");
    if (weight->ragged || weight->width != 1 || weight->type == ColumnType::String)
      throw std::invalid_argument("the weight column '" + cols_.weight_key +
                                  "' must hold one number per row");
    numbers_from(*weight, weights_, "the weight column '" + cols_.weight_key + "'");
    data_.weights = weights_.data();
    data_.weight_key = cols_.weight_key;
  }
}

void StreamFeed::numbers_from(const ChunkColumn& c, std::vector<double>& out,
                              const std::string& what) {
  const std::size_t m = static_cast<std::size_t>(win_.n) * static_cast<std::size_t>(c.width);
  out.resize(std::max<std::size_t>(m, 1));
  for (std::size_t k = 0; k < m; ++k) {
    const double v = c.type == ColumnType::Double ? c.doubles[k]
                     : c.ints[k] == kNaInteger    ? std::nan("")
                                                  : static_cast<double>(c.ints[k]);
    if (std::isnan(v))
      throw std::invalid_argument(
          what + " contains missing values (NA), first at row " +
          row_name(static_cast<std::int64_t>(k) % std::max<std::int64_t>(win_.n, 1)));
    out[k] = v;
  }
}

void StreamFeed::labels_from(const ChunkColumn& c) {
  const std::string what = "response '" + c.key + "'";
  if (c.ragged)
    throw std::invalid_argument("the " + what + " must have a fixed number of values per row");
  if (c.type != ColumnType::String) {
    numbers_from(c, labels_, what);
    return;
  }
  if (!cols_.has_vocabulary)
    throw std::invalid_argument("the " + what +
                                " is character: give the classifier a `label_vocabulary`");
  const std::size_t m = static_cast<std::size_t>(win_.n) * static_cast<std::size_t>(c.width);
  labels_.resize(std::max<std::size_t>(m, 1));
  for (std::size_t k = 0; k < m; ++k) {
    const std::int64_t row = static_cast<std::int64_t>(k) % std::max<std::int64_t>(win_.n, 1);
    if (!c.present[k])
      throw std::invalid_argument(what + " contains missing values (NA), first at row " +
                                  row_name(row));
    const std::string_view s = c.text_at(static_cast<std::int64_t>(k));
    key_.assign(s.data(), s.size());
    const auto it = vocab_.find(key_);
    if (it == vocab_.end())
      throw std::invalid_argument(what + " has values not in `label_vocabulary`: '" + key_ +
                                  "' (row " + row_name(row) + ")");
    labels_[k] = it->second;
  }
}

}  // namespace cppestimators
