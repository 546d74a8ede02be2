// The feature-column family: a spec's kind -> its transform. A new kind of
// feature column is a new header plus one `add()` line here.
#pragma once
#include <memory>

#include "../registry.h"
#include "bucketized.h"
#include "crossed.h"
#include "hash_bucket.h"
#include "identity.h"
#include "numeric.h"
#include "vocabulary.h"
#include "wrappers.h"

namespace cppestimators {

using ColumnRegistry = Registry<FeatureTransform>;

inline const ColumnRegistry& column_registry() {
  static const ColumnRegistry registry = [] {
    ColumnRegistry r("feature column");
    r.add<NumericTransform>("numeric")
        .add<BucketizedTransform>("bucketized")
        .add<VocabularyTransform>("vocabulary_list")
        .add<VocabularyTransform>("vocabulary_file")
        .add<IdentityTransform>("identity")
        .add<HashBucketTransform>("hash_bucket")
        .add<CrossedTransform>("crossed")
        .add<IndicatorTransform>("indicator")
        .add<EmbeddingTransform>("embedding")
        .add<WeightedTransform>("weighted");
    return r;
  }();
  return registry;
}

inline std::unique_ptr<FeatureTransform> make_transform(const Spec& spec) {
  return column_registry().make(spec);
}

}  // namespace cppestimators
