// column_categorical_with_hash_bucket(): id = Fingerprint64(value) mod
// hash_bucket_size, integers hashed through their decimal text — the ids
// TensorFlow's string_to_hash_bucket_fast gives. Factor levels are hashed
// once per session.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "fingerprint.h"
#include "transform.h"
#include "values.h"

namespace cppestimators {

class HashBucketTransform : public FeatureTransform {
 public:
  explicit HashBucketTransform(const Spec& spec)
      : FeatureTransform(spec), key_(spec.str("key")),
        size_(static_cast<std::int64_t>(spec.num("hash_bucket_size"))) {
    if (size_ <= 1) throw std::invalid_argument("hash_bucket_size must be larger than 1");
  }
  std::string constructor() const override { return "column_categorical_with_hash_bucket()"; }
  ColumnRole role() const override { return ColumnRole::Categorical; }
  std::int64_t num_buckets() const override { return size_; }
  std::int64_t bucket(std::string_view s) const { return hash_bucket(s.data(), s.size(), size_); }

  std::unique_ptr<BoundIds> bind_ids(const Dataset& data) const override {
    const ColumnView& c = data.require(key_, name());
    if (!c.text()) require_whole(c, constructor());
    return std::make_unique<Bound>(*this, c);
  }

 private:
  class Bound : public BoundIds {
   public:
    Bound(const HashBucketTransform& t, const ColumnView& c)
        : t_(t), c_(c), text_(static_cast<std::size_t>(c.width)) {
      if (c.type == ColumnType::Factor)
        for (const auto& level : c.levels) level_ids_.push_back(level.empty() ? -1 : t.bucket(level));
    }
    std::int64_t max_ids_per_row() const override { return c_.width; }
    void gather(const int* rows, int count, SparseIds& out) override {
      if (c_.type == ColumnType::String)
        for (int j = 0; j < c_.width; ++j) text_[static_cast<std::size_t>(j)].read(c_, rows, count, j);
      for (int r = 0; r < count; ++r) {
        for (int j = 0; j < c_.width; ++j) {
          if (c_.type == ColumnType::Factor) {
            const int code = c_.ints[c_.index(rows[r], j)];
            if (code != kNaInteger && level_ids_[static_cast<std::size_t>(code - 1)] >= 0)
              out.push(level_ids_[static_cast<std::size_t>(code - 1)]);
          } else if (c_.type == ColumnType::String) {
            std::string_view s;
            if (text_[static_cast<std::size_t>(j)].get(r, &s)) out.push(t_.bucket(s));
          } else {
            std::int64_t v;
            if (int_at(c_, rows[r], j, &v)) out.push(t_.bucket(int64_decimal(v)));
          }
        }
        out.end_row();
      }
    }

   private:
    const HashBucketTransform& t_;
    const ColumnView& c_;
    std::vector<std::int64_t> level_ids_;
    std::vector<TextBatch> text_;
  };

  std::string key_;
  std::int64_t size_;
};

}  // namespace cppestimators
