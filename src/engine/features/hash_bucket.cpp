// column_categorical_with_hash_bucket(): id = Fingerprint64(value) mod
// hash_bucket_size, integers hashed through their decimal text — the ids
// TensorFlow's string_to_hash_bucket_fast gives. Factor levels are hashed
// once per session. R's NA is hashed as the text "NA" (as it reached
// TensorFlow from R); "" and -1 yield no id.
#include <memory>
#include <string>
#include <vector>

#include <cppestimators/features/cell_ids.h>
#include <cppestimators/features/fingerprint.h>
#include <cppestimators/features/kinds.h>
#include <cppestimators/features/values.h>

namespace cppestimators {

namespace {

class HashBucketTransform : public FeatureTransform {
 public:
  explicit HashBucketTransform(const Spec& spec)
      : FeatureTransform(spec),
        key_(spec.str("key")),
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
  class Bound : public CellIds {
   public:
    Bound(const HashBucketTransform& t, const ColumnView& c) : CellIds(c), t_(t) { map_levels(); }

   protected:
    std::int64_t text_id(std::string_view s) const override { return t_.bucket(s); }
    std::int64_t int_id(std::int64_t v) const override { return t_.bucket(int64_decimal(v)); }
    std::int64_t na_id() const override { return t_.bucket("NA"); }

   private:
    const HashBucketTransform& t_;
  };

  std::string key_;
  std::int64_t size_;
};

}  // namespace

std::unique_ptr<FeatureTransform> make_hash_bucket_column(const Spec& spec) {
  return std::make_unique<HashBucketTransform>(spec);
}

}  // namespace cppestimators
