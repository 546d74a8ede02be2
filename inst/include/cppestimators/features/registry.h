// The one place that maps a column spec's kind to its transform. A new kind
// of feature column is a new header plus one line here.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "bucketized.h"
#include "crossed.h"
#include "hash_bucket.h"
#include "identity.h"
#include "numeric.h"
#include "vocabulary.h"
#include "wrappers.h"

namespace cppestimators {

namespace detail {
template <class T>
std::unique_ptr<FeatureTransform> build(const Spec& s) {
  return std::make_unique<T>(s);
}
}  // namespace detail

inline std::unique_ptr<FeatureTransform> make_transform(const Spec& spec) {
  using Factory = std::unique_ptr<FeatureTransform> (*)(const Spec&);
  static const std::map<std::string, Factory> kinds = {
      {"numeric", &detail::build<NumericTransform>},
      {"bucketized", &detail::build<BucketizedTransform>},
      {"vocabulary_list", &detail::build<VocabularyTransform>},
      {"vocabulary_file", &detail::build<VocabularyTransform>},
      {"identity", &detail::build<IdentityTransform>},
      {"hash_bucket", &detail::build<HashBucketTransform>},
      {"crossed", &detail::build<CrossedTransform>},
      {"indicator", &detail::build<IndicatorTransform>},
      {"embedding", &detail::build<EmbeddingTransform>},
      {"weighted", &detail::build<WeightedTransform>},
  };
  auto it = kinds.find(spec.kind);
  if (it == kinds.end()) throw std::invalid_argument("unknown kind of feature column: '" + spec.kind + "'");
  return it->second(spec);
}

}  // namespace cppestimators
