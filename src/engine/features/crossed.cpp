// column_crossed(): every combination of the values of its inputs, hashed as
// TF's sparse_cross_hashed does: h = hash_key; for each input in order,
// h = FingerprintCat64(h, v), where v is a categorical input's id, a raw
// integer feature's value or a raw string feature's Fingerprint64; the id is
// h mod hash_bucket_size. Categorical inputs come first, then raw features
// (TF passes sparse inputs before dense ones), each group in the order given.
#include <memory>
#include <string>
#include <vector>

#include <cppestimators/features/cell_ids.h>
#include <cppestimators/features/fingerprint.h>
#include <cppestimators/features/kinds.h>
#include <cppestimators/features/values.h>

namespace cppestimators {

namespace {

// A raw feature named in a cross: yields the value the cross hashes. A
// missing value (NA) yields nothing; "" and -1 are kept, as in TF.
class RawKeyTransform : public FeatureTransform {
 public:
  explicit RawKeyTransform(const Spec& spec) : FeatureTransform(spec), key_(spec.str("key")) {}
  std::string constructor() const override { return "column_crossed()"; }
  ColumnRole role() const override { return ColumnRole::Categorical; }

  std::unique_ptr<BoundIds> bind_ids(const Dataset& data) const override {
    const ColumnView& c = data.require(key_, name());
    if (!c.text()) require_whole(c, "column_crossed() of a numeric feature");
    return std::make_unique<Bound>(c);
  }

 private:
  class Bound : public CellIds {
   public:
    explicit Bound(const ColumnView& c) : CellIds(c) { map_levels(); }

   protected:
    std::int64_t text_id(std::string_view s) const override {
      return static_cast<std::int64_t>(fingerprint64(s));
    }
    std::int64_t int_id(std::int64_t v) const override { return v; }
    std::int64_t empty_text_id() const override { return text_id(""); }
    std::int64_t empty_int_id() const override { return -1; }
  };

  std::string key_;
};

class CrossedTransform : public FeatureTransform {
 public:
  static constexpr std::uint64_t kDefaultHashKey = 0xDECAFCAFFEULL;  // TF's default hash_key
  explicit CrossedTransform(const Spec& spec)
      : FeatureTransform(spec),
        size_(static_cast<std::int64_t>(spec.num("hash_bucket_size"))),
        hash_key_(spec.has("hash_key") ? static_cast<std::uint64_t>(spec.num("hash_key"))
                                       : kDefaultHashKey) {
    if (size_ <= 1) throw std::invalid_argument("hash_bucket_size must be > 1");
    std::vector<std::unique_ptr<FeatureTransform>> raw;
    for (const Spec& k : spec.children("keys")) {
      if (k.kind == "raw") {
        raw.push_back(std::make_unique<RawKeyTransform>(k));
      } else {
        if (k.kind == "weighted")
          throw std::invalid_argument("column_crossed() does not support weighted columns: '" +
                                      k.str("name") + "'");
        if (k.kind == "hash_bucket")
          throw std::invalid_argument(
              "column_categorical_with_hash_bucket() is not supported in column_crossed(). "
              "Instead, "
              "use the feature name as a string.");
        inputs_.push_back(make_categorical(k, "column_crossed()"));
      }
    }
    for (auto& r : raw) inputs_.push_back(std::move(r));
    if (inputs_.size() < 2) throw std::invalid_argument("keys must be a list with length > 1");
  }
  std::string constructor() const override { return "column_crossed()"; }
  ColumnRole role() const override { return ColumnRole::Categorical; }
  std::int64_t num_buckets() const override { return size_; }

  std::unique_ptr<BoundIds> bind_ids(const Dataset& data) const override {
    auto b = std::make_unique<Bound>(*this);
    for (const auto& in : inputs_) b->inputs.push_back(in->bind_ids(data));
    b->parts.resize(inputs_.size());
    b->at.resize(inputs_.size());
    return b;
  }

 private:
  struct Bound : public BoundIds {
    explicit Bound(const CrossedTransform& t) : t_(t) {}
    std::int64_t max_ids_per_row() const override {
      std::int64_t m = 1;
      for (const auto& in : inputs) m *= in->max_ids_per_row();
      return m;
    }
    void gather(const int* rows, int count, SparseIds& out) override {
      if (reserved_ < count) {  // once: the first batch is the largest
        for (std::size_t i = 0; i < inputs.size(); ++i)
          parts[i].reserve(count, inputs[i]->max_ids_per_row());
        reserved_ = count;
      }
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        parts[i].clear();
        inputs[i]->gather(rows, count, parts[i]);
      }
      const std::size_t m = inputs.size();
      for (int r = 0; r < count; ++r) {
        bool empty = false;
        for (std::size_t i = 0; i < m; ++i) {
          at[i] = parts[i].begin(r);
          empty = empty || at[i] == parts[i].end(r);
        }
        // odometer over the Cartesian product, the last input fastest
        while (!empty) {
          std::uint64_t h = t_.hash_key_;
          for (std::size_t i = 0; i < m; ++i)
            h = fingerprint_cat64(h, static_cast<std::uint64_t>(parts[i].id(at[i])));
          out.push(static_cast<std::int64_t>(h % static_cast<std::uint64_t>(t_.size_)));
          std::size_t i = m;
          while (i > 0) {
            --i;
            if (++at[i] < parts[i].end(r)) break;
            at[i] = parts[i].begin(r);
            if (i == 0) empty = true;
          }
        }
        out.end_row();
      }
    }
    const CrossedTransform& t_;
    std::vector<std::unique_ptr<BoundIds>> inputs;
    std::vector<SparseIds> parts;
    std::vector<int> at;
    int reserved_ = 0;
  };

  std::int64_t size_;
  std::uint64_t hash_key_;
  std::vector<std::unique_ptr<FeatureTransform>> inputs_;
};

}  // namespace

std::unique_ptr<FeatureTransform> make_crossed_column(const Spec& spec) {
  return std::make_unique<CrossedTransform>(spec);
}

}  // namespace cppestimators
