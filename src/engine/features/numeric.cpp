// column_numeric(): the feature's values (prod(shape) per row) as float32.
// column_bucketized(): a numeric column cut at sorted boundaries. The bucket
// of x is the number of boundaries <= x (compared in float32, as TF); value
// j of a multi-valued source gets ids offset by j * (boundaries + 1).
//
// A numeric feature may be a sparse matrix (a dgCMatrix), read in place:
// its rows are indexed once per binding (CSR, the non-zeros only). A column
// built with `sparse = TRUE` yields those non-zeros as ids (their positions)
// with weights (their values): linear models and input layers read them as
// the same numbers without a dense block of rows x width. Its normalizer
// may scale but not shift (a shift would make every zero a value).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <cppestimators/features/kinds.h>
#include <cppestimators/features/transform.h>

namespace cppestimators {

namespace {

class NumericTransform : public FeatureTransform {
 public:
  explicit NumericTransform(const Spec& spec)
      : FeatureTransform(spec),
        key_(spec.str("key")),
        width_(static_cast<int>(spec.num("width"))),
        allow_missing_(spec.flag_or("allow_missing", false)),
        sparse_(spec.flag_or("sparse", false)) {
    if (width_ <= 0)
      throw std::invalid_argument("column '" + name() + "' must have a positive shape");
    // a normalizer the engine applies: (x - shift) / scale, per value column
    if (spec.has("shift") || spec.has("scale")) {
      shift_ = per_value(spec, "shift", 0.0);
      scale_ = per_value(spec, "scale", 1.0);
      for (double v : scale_)
        if (!(v > 0.0) || !std::isfinite(v))
          throw std::invalid_argument("column '" + name() +
                                      "': the normalizer's scale must be > 0");
      for (double v : shift_)
        if (sparse_ && v != 0.0)
          throw std::invalid_argument("column '" + name() +
                                      "' is sparse: its normalizer may scale the values but not "
                                      "center them (that would make every zero a value)");
    }
  }
  std::string constructor() const override { return "column_numeric()"; }
  ColumnRole role() const override { return sparse_ ? ColumnRole::Indicator : ColumnRole::Dense; }
  int dense_width() const override { return sparse_ ? 0 : width_; }
  std::int64_t num_buckets() const override { return sparse_ ? width_ : 0; }
  bool sparse_numeric() const override { return sparse_; }

  std::unique_ptr<BoundIds> bind_ids(const Dataset& data) const override {
    if (!sparse_) return FeatureTransform::bind_ids(data);
    bool clean = false;
    const ColumnView& c = checked_view(data, &clean);
    return std::make_unique<SparseBound>(c, scale_);
  }

  std::unique_ptr<BoundDense> bind_dense(const Dataset& data) const override {
    bool clean = false;
    const ColumnView& c = checked_view(data, &clean);
    if (c.is_sparse()) {
      auto b = std::make_unique<SparseDenseBound>(shift_, scale_, width_);
      b->rows.build(c, {});
      return b;
    }
    return std::make_unique<Bound>(c, shift_, scale_, allow_missing_ && !clean);
  }

 private:
  // The feature, its type, shape and values checked.
  // `clean`: set when no value is missing.
  const ColumnView& checked_view(const Dataset& data, bool* clean) const {
    const ColumnView& c = data.require(key_, name());
    require_plain(c, constructor() + " '" + name() + "'", false, true);
    if (!c.numeric())
      throw std::invalid_argument(
          "feature '" + name() + "' is " + column_type_name(c.type) +
          ": column_numeric() needs numbers. For categories use a categorical column "
          "(column_categorical_with_vocabulary_list(), column_categorical_with_hash_bucket(), "
          "...), "
          "wrapped in column_indicator() or column_embedding() for a DNN");
    if (c.width != width_)
      throw std::invalid_argument("feature '" + name() + "' has " + std::to_string(c.width) +
                                  " value(s) per row but its column_numeric() has shape " +
                                  std::to_string(width_) + ": it must be a matrix with " +
                                  std::to_string(width_) + " columns");
    *clean = true;
    if (c.is_sparse()) {
      check_sparse(c);
      return c;
    }
    if (c.checked || all_valid(c)) return c;
    *clean = false;
    // something to report: find the first problem, in the order of the messages
    // (missing values are NaN for a model that reads them: "allow_missing")
    for (int j = 0; j < c.width && !allow_missing_; ++j)
      for (std::int64_t r = 0; r < c.n; ++r)
        if (c.missing(r, j))
          throw std::invalid_argument("feature '" + name() +
                                      "' contains missing values (NA), first at row " +
                                      std::to_string(r + 1) +
                                      ": impute them (recipes::step_impute_mean(), "
                                      "step_impute_median(), step_impute_knn(), ...) or drop those "
                                      "rows (na.omit()); predict() gives NA for such rows");
    // values the engine's float32 cannot hold would give Inf or NaN predictions
    if (c.type == ColumnType::Double)
      for (int j = 0; j < c.width; ++j)
        for (std::int64_t r = 0; r < c.n; ++r) {
          const double v = c.doubles[static_cast<std::int64_t>(j) * c.n + r];
          if (std::isnan(v)) continue;  // (missing, allowed)
          if (std::isinf(v))
            throw std::invalid_argument("feature '" + name() + "' contains infinite values (" +
                                        (v > 0 ? "Inf" : "-Inf") + "), first at row " +
                                        std::to_string(r + 1));
          if (std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max()))
            throw std::invalid_argument(
                "feature '" + name() +
                "' contains values beyond the float32 range (|x| > 3.4e38), first at row " +
                std::to_string(r + 1));
        }
    return c;
  }

  // The stored values of a sparse matrix: finite, within float32's range
  // (a sparse matrix with NAs is refused: its zeros are values, not gaps).
  void check_sparse(const ColumnView& c) const {
    const std::int64_t nnz = c.csc_p[c.width];
    const double limit = static_cast<double>(std::numeric_limits<float>::max());
    for (std::int64_t k = 0; k < nnz; ++k) {
      const double v = c.csc_x[k];
      if (std::fabs(v) <= limit) continue;
      const std::string row = std::to_string(static_cast<std::int64_t>(c.csc_i[k]) + 1);
      if (std::isnan(v))
        throw std::invalid_argument("feature '" + name() +
                                    "' contains missing values (NA), first at row " + row +
                                    " of the sparse matrix: impute them or drop those rows");
      throw std::invalid_argument("feature '" + name() + "' contains " +
                                  (std::isinf(v) ? "infinite values" : "values beyond float32") +
                                  ", first at row " + row);
    }
  }

  // The non-zeros of a sparse matrix by row (CSR), built once per binding;
  // values are divided by `scale` (per matrix column) when given. A dense
  // matrix given to a sparse column is indexed the same way.
  struct SparseRows {
    std::vector<std::int64_t> start;  // n + 1
    std::vector<int> cols;
    std::vector<double> values;  // (doubles: normalized as the dense values are)
    void build(const ColumnView& c, const std::vector<double>& scale) {
      const std::int64_t n = c.n;
      start.assign(static_cast<std::size_t>(n) + 1, 0);
      const auto divide = [&](int j, double v) {
        return scale.empty() ? v : v / scale[static_cast<std::size_t>(j)];
      };
      if (c.is_sparse()) {
        const std::int64_t nnz = c.csc_p[c.width];
        for (std::int64_t k = 0; k < nnz; ++k) ++start[static_cast<std::size_t>(c.csc_i[k]) + 1];
        for (std::int64_t i = 0; i < n; ++i)
          start[static_cast<std::size_t>(i) + 1] += start[static_cast<std::size_t>(i)];
        cols.resize(static_cast<std::size_t>(nnz));
        values.resize(static_cast<std::size_t>(nnz));
        std::vector<std::int64_t> at(start.begin(), start.end() - 1);
        for (int j = 0; j < c.width; ++j)  // by column: each row's entries in column order
          for (int k = c.csc_p[j]; k < c.csc_p[j + 1]; ++k) {
            const std::size_t o =
                static_cast<std::size_t>(at[static_cast<std::size_t>(c.csc_i[k])]++);
            cols[o] = j;
            values[o] = divide(j, c.csc_x[k]);
          }
        return;
      }
      cols.clear();
      values.clear();
      for (std::int64_t i = 0; i < n; ++i) {
        for (int j = 0; j < c.width; ++j) {
          const double v = c.number(i, j);
          if (v == 0.0) continue;
          cols.push_back(j);
          values.push_back(divide(j, v));
        }
        start[static_cast<std::size_t>(i) + 1] = static_cast<std::int64_t>(cols.size());
      }
    }
    std::int64_t widest() const {
      std::int64_t m = 1;
      for (std::size_t i = 0; i + 1 < start.size(); ++i) m = std::max(m, start[i + 1] - start[i]);
      return m;
    }
  };

  // A sparse column's ids: each row's non-zeros (position, value).
  // Its rows are indexed (SparseRows) the first time rows are asked for: a
  // model that reads the matrix column by column (the linear model's
  // coordinate-descent solver) never needs them.
  class SparseBound : public BoundIds {
   public:
    SparseBound(const ColumnView& c, const std::vector<double>& scale) : c_(c), scale_(scale) {}
    std::int64_t max_ids_per_row() const override {
      if (widest_ < 0) widest_ = indexed().widest();
      return widest_;
    }
    bool column_major(ColumnMajor& out) const override {
      if (!c_.is_sparse()) return false;
      out.p = c_.csc_p;
      out.i = c_.csc_i;
      out.x = c_.csc_x;
      out.scale = scale_.empty() ? nullptr : scale_.data();
      out.width = c_.width;
      return true;
    }
    void gather(const int* r, int count, SparseIds& out) override {
      indexed();
      for (int i = 0; i < count; ++i) {
        const std::size_t row = static_cast<std::size_t>(r[i]);
        for (std::int64_t k = rows.start[row]; k < rows.start[row + 1]; ++k)
          out.push(rows.cols[static_cast<std::size_t>(k)],
                   static_cast<float>(rows.values[static_cast<std::size_t>(k)]));
        out.end_row();
      }
    }

   private:
    const SparseRows& indexed() const {
      if (!built_) {
        rows.build(c_, scale_);
        built_ = true;
      }
      return rows;
    }
    const ColumnView& c_;
    const std::vector<double>& scale_;
    mutable SparseRows rows;
    mutable bool built_ = false;
    mutable std::int64_t widest_ = -1;
  };

  // A sparse matrix read as dense rows: each row's zeros, then its non-zeros,
  // normalized as the dense values are.
  class SparseDenseBound : public BoundDense {
   public:
    SparseDenseBound(const std::vector<double>& shift, const std::vector<double>& scale, int width)
        : shift_(shift), scale_(scale), zero_(static_cast<std::size_t>(width), 0.0f) {
      if (!scale_.empty())
        for (std::size_t j = 0; j < zero_.size(); ++j)
          zero_[j] = static_cast<float>((0.0 - shift_[j]) / scale_[j]);
    }
    void gather(const int* r, int count, float* out, int stride) override {
      for (int i = 0; i < count; ++i) {
        float* o = out + static_cast<std::size_t>(i) * static_cast<std::size_t>(stride);
        std::copy(zero_.begin(), zero_.end(), o);
        const std::size_t row = static_cast<std::size_t>(r[i]);
        for (std::int64_t k = rows.start[row]; k < rows.start[row + 1]; ++k) {
          const std::size_t j = static_cast<std::size_t>(rows.cols[static_cast<std::size_t>(k)]);
          const double v = rows.values[static_cast<std::size_t>(k)];
          o[j] = static_cast<float>(scale_.empty() ? v : (v - shift_[j]) / scale_[j]);
        }
      }
    }
    SparseRows rows;

   private:
    const std::vector<double>& shift_;
    const std::vector<double>& scale_;
    std::vector<float> zero_;
  };

  std::vector<double> per_value(const Spec& spec, const char* field, double none) const {
    if (!spec.has(field)) return std::vector<double>(static_cast<std::size_t>(width_), none);
    const std::vector<double>& v = spec.numbers(field);
    if (v.size() == 1) return std::vector<double>(static_cast<std::size_t>(width_), v[0]);
    if (v.size() != static_cast<std::size_t>(width_))
      throw std::invalid_argument("column '" + name() + "': the normalizer has " +
                                  std::to_string(v.size()) + " values of " + field + " for " +
                                  std::to_string(width_) + " values per row");
    return v;
  }

  // One branch-free pass over the values (vectorised by the compiler): true
  // when none is missing and every double is finite within float32's range.
  static bool all_valid(const ColumnView& c) {
    const std::int64_t size = c.n * c.width;
    if (c.type == ColumnType::Double) {
      const double limit = static_cast<double>(std::numeric_limits<float>::max());
      bool ok = true;
      for (std::int64_t i = 0; i < size; ++i) ok &= std::fabs(c.doubles[i]) <= limit;  // NaN: false
      return ok;
    }
    bool ok = true;
    for (std::int64_t i = 0; i < size; ++i) ok &= c.ints[i] != kNaInteger;
    return ok;
  }

  class Bound : public BoundDense {
   public:
    Bound(const ColumnView& c, const std::vector<double>& shift, const std::vector<double>& scale,
          bool missing)
        : c_(c), shift_(shift), scale_(scale), missing_(missing && c.type != ColumnType::Double) {}
    // Column by column: each value column of the batch is read from one
    // contiguous R vector.
    void gather(const int* rows, int count, float* out, int stride) override {
      for (int j = 0; j < c_.width; ++j) {
        const std::int64_t base = static_cast<std::int64_t>(j) * c_.n;
        float* o = out + j;
        if (!scale_.empty()) {  // normalized in double, as R computes (x - mean) / sd
          const double m = shift_[static_cast<std::size_t>(j)];
          const double sd = scale_[static_cast<std::size_t>(j)];
          if (c_.type == ColumnType::Double) {
            const double* src = c_.doubles + base;
            for (int r = 0; r < count; ++r)
              o[static_cast<std::size_t>(r) * stride] = static_cast<float>((src[rows[r]] - m) / sd);
          } else {
            const int* src = c_.ints + base;
            for (int r = 0; r < count; ++r)
              o[static_cast<std::size_t>(r) * stride] = static_cast<float>((src[rows[r]] - m) / sd);
            if (missing_) mark_missing(src, rows, count, o, stride);
          }
          continue;
        }
        if (c_.type == ColumnType::Double) {
          const double* src = c_.doubles + base;
          for (int r = 0; r < count; ++r)
            o[static_cast<std::size_t>(r) * stride] = static_cast<float>(src[rows[r]]);
        } else {
          const int* src = c_.ints + base;
          for (int r = 0; r < count; ++r)
            o[static_cast<std::size_t>(r) * stride] = static_cast<float>(src[rows[r]]);
          if (missing_) mark_missing(src, rows, count, o, stride);
        }
      }
    }

   private:
    // Integer NAs as NaN (a double's NA already is one).
    static void mark_missing(const int* src, const int* rows, int count, float* o, int stride) {
      for (int r = 0; r < count; ++r)
        if (src[rows[r]] == kNaInteger)
          o[static_cast<std::size_t>(r) * stride] = std::numeric_limits<float>::quiet_NaN();
    }

    const ColumnView& c_;
    const std::vector<double>& shift_;
    const std::vector<double>& scale_;  // empty: the values as they are
    bool missing_;                      // integer NAs possible: made NaN
  };

  std::string key_;
  int width_;
  bool allow_missing_;  // missing values read as NaN (models that split on them)
  bool sparse_;         // ids and weights of the non-zeros, not dense values
  std::vector<double> shift_, scale_;
};

// Number of boundaries <= x.
inline std::int64_t bucket_of(const std::vector<float>& boundaries, float x) {
  return std::upper_bound(boundaries.begin(), boundaries.end(), x) - boundaries.begin();
}

class BucketizedTransform : public FeatureTransform {
 public:
  explicit BucketizedTransform(const Spec& spec)
      : FeatureTransform(spec), source_(make_transform(spec.child("source_column"))) {
    if (source_->role() != ColumnRole::Dense)
      throw std::invalid_argument("source_column of column_bucketized() must be a numeric column");
    for (double b : spec.numbers("boundaries")) boundaries_.push_back(static_cast<float>(b));
    for (std::size_t i = 1; i < boundaries_.size(); ++i)
      if (!(boundaries_[i - 1] < boundaries_[i]))
        throw std::invalid_argument("boundaries must be a sorted list.");
  }
  std::string constructor() const override { return "column_bucketized()"; }
  ColumnRole role() const override { return ColumnRole::Categorical; }
  bool one_hot_ok() const override { return true; }
  std::int64_t num_buckets() const override {
    return static_cast<std::int64_t>(boundaries_.size() + 1) * source_->dense_width();
  }
  const std::vector<float>& boundaries() const { return boundaries_; }

  std::unique_ptr<BoundIds> bind_ids(const Dataset& data) const override {
    return std::make_unique<Bound>(*this, source_->bind_dense(data));
  }

 private:
  class Bound : public BoundIds {
   public:
    Bound(const BucketizedTransform& t, std::unique_ptr<BoundDense> src)
        : t_(t), src_(std::move(src)), width_(t.source_->dense_width()) {}
    std::int64_t max_ids_per_row() const override { return width_; }
    void gather(const int* rows, int count, SparseIds& out) override {
      const std::size_t need = static_cast<std::size_t>(count) * width_;
      if (values_.size() < need) values_.resize(need);  // once: the first batch is the largest
      src_->gather(rows, count, values_.data(), width_);
      const std::int64_t per = static_cast<std::int64_t>(t_.boundaries_.size()) + 1;
      for (int r = 0; r < count; ++r) {
        for (int j = 0; j < width_; ++j)
          out.push(bucket_of(t_.boundaries_, values_[static_cast<std::size_t>(r) * width_ + j]) +
                   per * j);
        out.end_row();
      }
    }

   private:
    const BucketizedTransform& t_;
    std::unique_ptr<BoundDense> src_;
    int width_;
    std::vector<float> values_;
  };

  std::unique_ptr<FeatureTransform> source_;
  std::vector<float> boundaries_;
};

}  // namespace

std::unique_ptr<FeatureTransform> make_numeric_column(const Spec& spec) {
  return std::make_unique<NumericTransform>(spec);
}

std::unique_ptr<FeatureTransform> make_bucketized_column(const Spec& spec) {
  return std::make_unique<BucketizedTransform>(spec);
}

}  // namespace cppestimators
