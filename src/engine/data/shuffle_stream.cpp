#include <cppestimators/data/shuffle_stream.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cppestimators/data/chunk.h>
#include <cppestimators/data/column.h>
#include <cppestimators/data/rng.h>
#include <cppestimators/data/row_stream.h>

namespace cppestimators {

namespace {

template <class T>
void transpose(std::vector<T>& v, std::vector<T>& scratch, std::size_t n, std::size_t w) {
  scratch.resize(n * w);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < w; ++k) scratch[i + k * n] = v[i * w + k];
  std::swap(v, scratch);
}

}  // namespace

ShuffleStream::ShuffleStream(std::unique_ptr<RowStream> in, std::int64_t buffer_size,
                             std::uint64_t seed, bool reshuffle_each_iteration)
    : in_(std::move(in)), size_(buffer_size), seeds_(seed), reshuffle_(reshuffle_each_iteration) {
  if (buffer_size < 1) throw std::invalid_argument("`buffer_size` must be >= 1");
  first_seed_ = seeds_.next();
  rng_ = Rng(first_seed_);
}

std::int64_t ShuffleStream::read(Chunk& out, std::int64_t max_rows) {
  if (max_rows < 1) throw std::invalid_argument("internal: read() of fewer than 1 row");
  read_rows_ = max_rows;
  while (filled_ < size_ && next_input()) store(live_[static_cast<std::size_t>(filled_++)]);
  if (schema_.columns.empty() && !in_chunk_.columns.empty()) shape_like(in_chunk_, schema_);
  shape_like(schema_, out);
  while (out.n < max_rows && filled_ > 0) {
    const std::size_t j = static_cast<std::size_t>(rng_.below(static_cast<std::uint64_t>(filled_)));
    emit(live_[j], out);
    if (next_input()) {
      store(live_[j]);
    } else {
      std::swap(live_[j], live_[static_cast<std::size_t>(filled_ - 1)]);
      --filled_;
    }
  }
  finish(out);
  return out.n;
}

void ShuffleStream::rewind() {
  in_->rewind();
  in_chunk_.n = 0;
  in_pos_ = 0;
  in_ended_ = false;
  filled_ = 0;
  rng_ = Rng(reshuffle_ ? seeds_.next() : first_seed_);
}

bool ShuffleStream::main_thread_only() const { return in_->main_thread_only(); }

bool ShuffleStream::next_input() {
  if (in_pos_ < in_chunk_.n) return true;
  if (in_ended_) return false;
  const std::int64_t got = in_->read(in_chunk_, std::max<std::int64_t>(read_rows_, 1));
  in_pos_ = 0;
  if (got == 0) {
    in_ended_ = true;
    in_chunk_.n = 0;
    return false;
  }
  if (!allocated_) allocate();
  if (!same_schema(in_chunk_, schema_))
    throw std::runtime_error("the dataset's chunks changed their columns or types");
  return true;
}

void ShuffleStream::allocate() {
  allocated_ = true;
  shape_like(in_chunk_, schema_);
  const std::size_t n = static_cast<std::size_t>(size_);
  slots_.resize(schema_.columns.size());
  for (std::size_t j = 0; j < slots_.size(); ++j) {
    const ChunkColumn& c = schema_.columns[j];
    Slots& s = slots_[j];
    const std::size_t w = static_cast<std::size_t>(c.width);
    if (c.ragged) {
      if (c.type == ColumnType::Double)
        s.ragged_doubles.resize(n);
      else if (c.type == ColumnType::String)
        s.ragged_texts.resize(n), s.ragged_present.resize(n);
      else
        s.ragged_ints.resize(n);
      s.ragged_n.assign(n, 0);
    } else if (c.type == ColumnType::Double) {
      s.doubles.resize(n * w);
    } else if (c.type == ColumnType::String) {
      s.texts.resize(n * w);
      s.present.resize(n * w);
    } else {
      s.ints.resize(n * w);
    }
  }
  live_.resize(n);
  for (std::size_t i = 0; i < n; ++i) live_[i] = static_cast<std::int64_t>(i);
}

void ShuffleStream::store(std::int64_t slot) {
  const std::int64_t i = in_pos_++, n = in_chunk_.n;
  const std::size_t us = static_cast<std::size_t>(slot);
  for (std::size_t j = 0; j < slots_.size(); ++j) {
    const ChunkColumn& c = in_chunk_.columns[j];
    Slots& s = slots_[j];
    if (c.ragged) {
      const std::size_t a = static_cast<std::size_t>(c.row_splits[static_cast<std::size_t>(i)]);
      const std::size_t b = static_cast<std::size_t>(c.row_splits[static_cast<std::size_t>(i) + 1]);
      s.ragged_n[us] = static_cast<std::int64_t>(b - a);
      if (c.type == ColumnType::Double) {
        s.ragged_doubles[us].assign(c.doubles.begin() + static_cast<std::ptrdiff_t>(a),
                                    c.doubles.begin() + static_cast<std::ptrdiff_t>(b));
      } else if (c.type == ColumnType::String) {
        std::vector<std::string>& t = s.ragged_texts[us];
        std::vector<unsigned char>& p = s.ragged_present[us];
        if (t.size() < b - a) t.resize(b - a);  // never shrunk: the strings keep their capacity
        p.resize(b - a);
        for (std::size_t k = a; k < b; ++k) {
          const std::string_view v = c.text_at(static_cast<std::int64_t>(k));
          t[k - a].assign(v.data(), v.size());
          p[k - a] = c.present[k];
        }
      } else {
        s.ragged_ints[us].assign(c.ints.begin() + static_cast<std::ptrdiff_t>(a),
                                 c.ints.begin() + static_cast<std::ptrdiff_t>(b));
      }
      continue;
    }
    const std::size_t w = static_cast<std::size_t>(c.width);
    for (std::size_t k = 0; k < w; ++k) {
      const std::size_t from = static_cast<std::size_t>(i) + k * static_cast<std::size_t>(n);
      const std::size_t to = us * w + k;
      if (c.type == ColumnType::Double) {
        s.doubles[to] = c.doubles[from];
      } else if (c.type == ColumnType::String) {
        const std::string_view v = c.text_at(static_cast<std::int64_t>(from));
        s.texts[to].assign(v.data(), v.size());
        s.present[to] = c.present[from];
      } else {
        s.ints[to] = c.ints[from];
      }
    }
  }
}

void ShuffleStream::emit(std::int64_t slot, Chunk& out) {
  const std::size_t us = static_cast<std::size_t>(slot);
  for (std::size_t j = 0; j < slots_.size(); ++j) {
    ChunkColumn& d = out.columns[j];
    const Slots& s = slots_[j];
    if (d.ragged) {
      const std::size_t m = static_cast<std::size_t>(s.ragged_n[us]);
      if (d.type == ColumnType::Double) {
        d.doubles.insert(d.doubles.end(), s.ragged_doubles[us].begin(),
                         s.ragged_doubles[us].begin() + static_cast<std::ptrdiff_t>(m));
      } else if (d.type == ColumnType::String) {
        for (std::size_t k = 0; k < m; ++k)
          d.push_text(s.ragged_texts[us][k], s.ragged_present[us][k] != 0);
      } else {
        d.ints.insert(d.ints.end(), s.ragged_ints[us].begin(),
                      s.ragged_ints[us].begin() + static_cast<std::ptrdiff_t>(m));
      }
      d.row_splits.push_back(d.row_splits.back() + static_cast<std::int64_t>(m));
      continue;
    }
    const std::size_t w = static_cast<std::size_t>(d.width);
    const std::ptrdiff_t a = static_cast<std::ptrdiff_t>(us * w),
                         b = a + static_cast<std::ptrdiff_t>(w);
    if (d.type == ColumnType::Double) {
      d.doubles.insert(d.doubles.end(), s.doubles.begin() + a, s.doubles.begin() + b);
    } else if (d.type == ColumnType::String) {
      for (std::ptrdiff_t k = a; k < b; ++k)
        d.push_text(s.texts[static_cast<std::size_t>(k)],
                    s.present[static_cast<std::size_t>(k)] != 0);
    } else {
      d.ints.insert(d.ints.end(), s.ints.begin() + a, s.ints.begin() + b);
    }
  }
  ++out.n;
}

void ShuffleStream::finish(Chunk& out) {
  const std::size_t n = static_cast<std::size_t>(out.n);
  for (ChunkColumn& d : out.columns) {
    if (d.ragged || d.width == 1 || n == 0) continue;
    const std::size_t w = static_cast<std::size_t>(d.width);
    if (d.type == ColumnType::Double) {
      transpose(d.doubles, scratch_doubles_, n, w);
    } else if (d.type == ColumnType::String) {
      scratch_text_.type = ColumnType::String;
      scratch_text_.clear();
      for (std::size_t k = 0; k < w; ++k)
        for (std::size_t i = 0; i < n; ++i)
          scratch_text_.push_text(d.text_at(static_cast<std::int64_t>(i * w + k)),
                                  d.present[i * w + k] != 0);
      std::swap(d.text, scratch_text_.text);
      std::swap(d.offsets, scratch_text_.offsets);
      std::swap(d.present, scratch_text_.present);
    } else {
      transpose(d.ints, scratch_ints_, n, w);
    }
  }
}

}  // namespace cppestimators
