// The columns that wrap a categorical column: column_indicator() (its ids as
// a multi-hot vector), column_embedding() (its ids looked up in a trainable
// table) and column_categorical_weighted() (a weight per id from another
// feature). Each yields the ids of the column it wraps.
#include <cmath>
#include <memory>
#include <string>

#include <cppestimators/features/kinds.h>
#include <cppestimators/features/transform.h>
#include <cppestimators/features/values.h>

namespace cppestimators {

namespace {

class WrapperTransform : public FeatureTransform {
 public:
  WrapperTransform(const Spec& spec, const char* ctor)
      : FeatureTransform(spec),
        ctor_(ctor),
        inner_(make_categorical(spec.child("categorical_column"), ctor)) {}
  std::string constructor() const override { return ctor_; }
  std::int64_t num_buckets() const override { return inner_->num_buckets(); }
  std::unique_ptr<BoundIds> bind_ids(const Dataset& data) const override {
    return inner_->bind_ids(data);
  }
  const FeatureTransform& inner() const { return *inner_; }

 private:
  std::string ctor_;
  std::unique_ptr<FeatureTransform> inner_;
};

class IndicatorTransform : public WrapperTransform {
 public:
  explicit IndicatorTransform(const Spec& spec) : WrapperTransform(spec, "column_indicator()") {}
  ColumnRole role() const override { return ColumnRole::Indicator; }
};

class EmbeddingTransform : public WrapperTransform {
 public:
  explicit EmbeddingTransform(const Spec& spec) : WrapperTransform(spec, "column_embedding()") {
    p_.dimension = static_cast<int>(spec.num("dimension"));
    if (p_.dimension < 1)
      throw std::invalid_argument("Invalid dimension " + std::to_string(p_.dimension) + ".");
    p_.combiner = spec.str_or("combiner", "mean");
    if (p_.combiner != "mean" && p_.combiner != "sqrtn" && p_.combiner != "sum")
      throw std::invalid_argument("combiner must be one of \"mean\", \"sqrtn\" or \"sum\", not \"" +
                                  p_.combiner + "\"");
    p_.max_norm = spec.num_or("max_norm", 0.0);
    p_.trainable = spec.flag_or("trainable", true);
    p_.init_stddev =
        spec.num_or("initializer_stddev", 1.0 / std::sqrt(static_cast<double>(p_.dimension)));
  }
  ColumnRole role() const override { return ColumnRole::Embedding; }
  const EmbeddingParams* embedding() const override { return &p_; }

 private:
  EmbeddingParams p_;
};

class WeightedTransform : public WrapperTransform {
 public:
  explicit WeightedTransform(const Spec& spec)
      : WrapperTransform(spec, "column_categorical_weighted()"),
        weight_key_(spec.str("weight_feature_key")),
        values_key_(spec.child("categorical_column").str_or("key", "")) {}
  ColumnRole role() const override { return ColumnRole::Categorical; }

  std::unique_ptr<BoundIds> bind_ids(const Dataset& data) const override {
    const ColumnView& w = data.require(weight_key_, name());
    if (!w.numeric() || w.is_sparse())
      throw std::invalid_argument("the weights of column_categorical_weighted() '" + name() +
                                  "' must be numbers, but feature '" + weight_key_ + "' is " +
                                  column_shape_name(w));
    auto ids = inner().bind_ids(data);
    const ColumnView* values = data.find(values_key_);
    if (w.is_ragged()) {
      // a list of weights per row, parallel to a list of values
      if (values == nullptr || !values->is_ragged())
        throw std::invalid_argument("the weights of column_categorical_weighted() '" + name() +
                                    "' are a list column, so its categorical column must read a "
                                    "list column too (feature '" +
                                    values_key_ + "')");
      for (std::int64_t r = 0; r < w.n; ++r) {
        const RaggedRow a = values->row_values(r), b = w.row_values(r);
        if (a.count != b.count)
          throw std::invalid_argument(
              "column_categorical_weighted() '" + name() + "': row " + std::to_string(r + 1) +
              " of feature '" + values_key_ + "' has " + std::to_string(a.count) +
              " values but its weights '" + weight_key_ + "' " + std::to_string(b.count));
        for (std::int64_t k = 0; k < b.count; ++k) {
          const double v = ragged_number(b, k);
          if (std::isnan(v))
            throw std::invalid_argument("weight feature '" + weight_key_ +
                                        "' contains missing values (NA), first at row " +
                                        std::to_string(r + 1));
        }
      }
      ids->keep_positions();
      return std::make_unique<Bound>(std::move(ids), w);
    }
    for (std::int64_t i = 0; i < w.n * w.width; ++i)
      if (w.missing(i % w.n, static_cast<int>(i / w.n)))
        throw std::invalid_argument("weight feature '" + weight_key_ +
                                    "' contains missing values (NA), first at row " +
                                    std::to_string(i % w.n + 1));
    // one value per row: a row's id and its weight are then the same cell
    if (ids->max_ids_per_row() != 1 || w.width != 1)
      throw std::invalid_argument("column_categorical_weighted() '" + name() +
                                  "' supports one value and one weight per row, or a list column "
                                  "of values with a list column of weights; feature '" +
                                  weight_key_ + "' has " + std::to_string(w.width) + " and '" +
                                  inner().name() + "' up to " +
                                  std::to_string(ids->max_ids_per_row()));
    return std::make_unique<Bound>(std::move(ids), w);
  }

 private:
  // A row's id gets the row's weight; weights <= 0 are pruned later, which
  // sparsifies a dense weight vector as TF does.
  class Bound : public BoundIds {
   public:
    Bound(std::unique_ptr<BoundIds> ids, const ColumnView& w) : ids_(std::move(ids)), w_(w) {}
    std::int64_t max_ids_per_row() const override { return ids_->max_ids_per_row(); }
    void gather(const int* rows, int count, SparseIds& out) override {
      if (reserved_ < count) {
        part_.reserve(count, ids_->max_ids_per_row());
        reserved_ = count;
      }
      part_.clear();
      ids_->gather(rows, count, part_);
      for (int r = 0; r < count; ++r) {
        if (w_.is_ragged()) {  // the ids line up with the row's weights (keep_positions())
          const RaggedRow b = w_.row_values(rows[r]);
          for (int k = part_.begin(r), j = 0; k < part_.end(r); ++k, ++j)
            out.push(part_.id(k), static_cast<float>(ragged_number(b, j)));
        } else {
          for (int k = part_.begin(r), j = 0; k < part_.end(r); ++k, ++j)
            out.push(part_.id(k), static_cast<float>(w_.number(rows[r], j)));
        }
        out.end_row();
      }
    }

   private:
    std::unique_ptr<BoundIds> ids_;
    const ColumnView& w_;
    SparseIds part_;
    int reserved_ = 0;
  };

  std::string weight_key_;
  std::string values_key_;  // the feature its categorical column reads
};

}  // namespace

std::unique_ptr<FeatureTransform> make_indicator_column(const Spec& spec) {
  return std::make_unique<IndicatorTransform>(spec);
}

std::unique_ptr<FeatureTransform> make_embedding_column(const Spec& spec) {
  return std::make_unique<EmbeddingTransform>(spec);
}

std::unique_ptr<FeatureTransform> make_weighted_column(const Spec& spec) {
  return std::make_unique<WeightedTransform>(spec);
}

}  // namespace cppestimators
