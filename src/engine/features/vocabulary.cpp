// column_categorical_with_vocabulary_list() and _file(): the id of a value is
// its position in the vocabulary; a value outside it gets `default_value`
// (-1, later pruned) or, with num_oov_buckets = k > 0, V + Fingerprint64 mod k
// (integers hashed through their decimal text), as TF's lookup tables.
// R's NA is looked up as the text "NA" (so it is out of the vocabulary unless
// the vocabulary has "NA"); "" and -1 yield no id.
// Factor levels are looked up once per session, not once per row.
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <cppestimators/features/cell_ids.h>
#include <cppestimators/features/fingerprint.h>
#include <cppestimators/features/kinds.h>
#include <cppestimators/features/values.h>

namespace cppestimators {

namespace {

class VocabularyTransform : public FeatureTransform {
 public:
  explicit VocabularyTransform(const Spec& spec)
      : FeatureTransform(spec),
        kind_(spec.kind),
        key_(spec.str("key")),
        default_(spec.int_or("default_value", -1)),
        oov_(spec.int_or("num_oov_buckets", 0)) {
    if (spec.strs.count("vocabulary")) {
      words_ = spec.strings("vocabulary");  // never resized: word_ids_ holds views of it
      for (std::size_t i = 0; i < words_.size(); ++i)
        if (!word_ids_.emplace(std::string_view(words_[i]), static_cast<std::int64_t>(i)).second)
          throw std::invalid_argument("Duplicate keys in the vocabulary of column '" + name() +
                                      "': '" + words_[i] + "'");
      size_ = static_cast<std::int64_t>(words_.size());
      input_ = InputKind::Text;
    } else {
      const auto& v = spec.numbers("vocabulary");
      for (std::size_t i = 0; i < v.size(); ++i)
        if (!int_ids_.emplace(static_cast<std::int64_t>(v[i]), static_cast<std::int64_t>(i)).second)
          throw std::invalid_argument("Duplicate keys in the vocabulary of column '" + name() +
                                      "'");
      size_ = static_cast<std::int64_t>(v.size());
      input_ = InputKind::Integer;
    }
    if (size_ == 0) throw std::invalid_argument("vocabulary of column '" + name() + "' is empty");
    if (oov_ < 0) throw std::invalid_argument("num_oov_buckets must be >= 0");
    if (default_ < -1 || default_ >= size_)
      throw std::invalid_argument("default_value " + std::to_string(default_) + " of column '" +
                                  name() + "' is not -1 or an id of its vocabulary [0, " +
                                  std::to_string(size_) + ")");
  }
  std::string constructor() const override {
    return "column_categorical_with_" +
           std::string(kind_ == "vocabulary_file" ? "vocabulary_file()" : "vocabulary_list()");
  }
  ColumnRole role() const override { return ColumnRole::Categorical; }
  std::int64_t num_buckets() const override { return size_ + oov_; }

  std::int64_t lookup(std::string_view s) const {
    auto it = word_ids_.find(s);
    if (it != word_ids_.end()) return it->second;
    return oov_ > 0 ? size_ + static_cast<std::int64_t>(fingerprint64(s) %
                                                        static_cast<std::uint64_t>(oov_))
                    : default_;
  }
  std::int64_t lookup_na() const { return lookup(std::string_view("NA")); }
  std::int64_t lookup(std::int64_t v) const {
    auto it = int_ids_.find(v);
    if (it != int_ids_.end()) return it->second;
    return oov_ > 0 ? size_ + static_cast<std::int64_t>(fingerprint64(int64_decimal(v)) %
                                                        static_cast<std::uint64_t>(oov_))
                    : default_;
  }

  std::unique_ptr<BoundIds> bind_ids(const Dataset& data) const override {
    const ColumnView& c = data.require(key_, name());
    require_input(c, input_, constructor());
    return std::make_unique<Bound>(*this, c);
  }

 private:
  class Bound : public CellIds {
   public:
    Bound(const VocabularyTransform& t, const ColumnView& c) : CellIds(c), t_(t) { map_levels(); }

   protected:
    std::int64_t text_id(std::string_view s) const override { return t_.lookup(s); }
    std::int64_t int_id(std::int64_t v) const override { return t_.lookup(v); }
    std::int64_t na_id() const override { return t_.lookup_na(); }

   private:
    const VocabularyTransform& t_;
  };

  std::string kind_, key_;
  std::int64_t default_, oov_, size_ = 0;
  InputKind input_ = InputKind::Text;
  std::vector<std::string> words_;
  std::unordered_map<std::string_view, std::int64_t> word_ids_;
  std::unordered_map<std::int64_t, std::int64_t> int_ids_;
};

}  // namespace

std::unique_ptr<FeatureTransform> make_vocabulary_column(const Spec& spec) {
  return std::make_unique<VocabularyTransform>(spec);
}

}  // namespace cppestimators
