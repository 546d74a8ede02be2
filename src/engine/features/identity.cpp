// column_categorical_with_identity(): the id is the integer value itself.
// -1 is missing (no id); NA and values outside [0, num_buckets) take
// `default_value`, or are an error when there is none (checked when the
// column is bound, so a batch never fails half-way).
#include <memory>
#include <string>

#include <cppestimators/features/cell_ids.h>
#include <cppestimators/features/kinds.h>
#include <cppestimators/features/values.h>

namespace cppestimators {

namespace {

class IdentityTransform : public FeatureTransform {
 public:
  explicit IdentityTransform(const Spec& spec)
      : FeatureTransform(spec),
        key_(spec.str("key")),
        buckets_(static_cast<std::int64_t>(spec.num("num_buckets"))),
        has_default_(spec.nums.count("default_value") > 0),
        default_(spec.int_or("default_value", -1)) {
    if (buckets_ < 1) throw std::invalid_argument("num_buckets must be >= 1");
    if (has_default_ && (default_ < 0 || default_ >= buckets_))
      throw std::invalid_argument("default_value " + std::to_string(default_) +
                                  " not in range [0, " + std::to_string(buckets_) + ")");
  }
  std::string constructor() const override { return "column_categorical_with_identity()"; }
  ColumnRole role() const override { return ColumnRole::Categorical; }
  std::int64_t num_buckets() const override { return buckets_; }

  std::unique_ptr<BoundIds> bind_ids(const Dataset& data) const override {
    const ColumnView& c = data.require(key_, name());
    require_input(c, InputKind::Integer, constructor());
    if (!has_default_) {
      each_int_cell(c, [&](std::int64_t r, Cell cell, std::int64_t v) {
        if (cell == Cell::NA)
          throw std::invalid_argument(where(c, r) + " is NA; set `default_value` of " +
                                      constructor() + " '" + name() + "' to map missing values");
        if (cell == Cell::Value && (v < 0 || v >= buckets_))
          throw std::invalid_argument(where(c, r) + " is " + std::to_string(v) + ", outside [0, " +
                                      std::to_string(buckets_) + ") of " + constructor() + " '" +
                                      name() + "'; set `default_value` to map such values");
      });
    }
    return std::make_unique<Bound>(*this, c);
  }

 private:
  class Bound : public CellIds {
   public:
    Bound(const IdentityTransform& t, const ColumnView& c) : CellIds(c), t_(t) {}

   protected:
    std::int64_t text_id(std::string_view) const override { return kNoId; }  // refused at bind
    std::int64_t int_id(std::int64_t v) const override {
      return v >= 0 && v < t_.buckets_ ? v : t_.default_;
    }
    std::int64_t na_id() const override { return t_.default_; }

   private:
    const IdentityTransform& t_;
  };

  std::string key_;
  std::int64_t buckets_;
  bool has_default_;
  std::int64_t default_;
};

}  // namespace

std::unique_ptr<FeatureTransform> make_identity_column(const Spec& spec) {
  return std::make_unique<IdentityTransform>(spec);
}

}  // namespace cppestimators
