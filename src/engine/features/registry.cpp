// The feature-column registry, filled with the built-in kinds.
#include <cppestimators/features/kinds.h>
#include <cppestimators/features/registry.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace cppestimators {

const ColumnRegistry& column_registry() {
  static const ColumnRegistry registry = [] {
    ColumnRegistry r("feature column");
    r.add("numeric", make_numeric_column)
        .add("bucketized", make_bucketized_column)
        .add("vocabulary_list", make_vocabulary_column)
        .add("vocabulary_file", make_vocabulary_column)
        .add("identity", make_identity_column)
        .add("hash_bucket", make_hash_bucket_column)
        .add("crossed", make_crossed_column)
        .add("indicator", make_indicator_column)
        .add("embedding", make_embedding_column)
        .add("weighted", make_weighted_column);
    return r;
  }();
  return registry;
}

std::unique_ptr<FeatureTransform> make_transform(const Spec& spec) {
  return column_registry().make(spec);
}

std::unique_ptr<FeatureTransform> make_categorical(const Spec& spec, const std::string& user) {
  auto t = make_transform(spec);
  if (t->role() != ColumnRole::Categorical)
    throw std::invalid_argument(user + " needs a categorical column, not '" + t->name() + "' (" +
                                t->constructor() + ")");
  return t;
}

}  // namespace cppestimators
