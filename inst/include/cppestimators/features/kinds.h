// The built-in kinds of feature column, one factory each. Their classes live
// in src/engine/features/ (numeric.cpp holds numeric and bucketized columns,
// wrappers.cpp indicator, embedding and weighted columns); only the family's
// registry (src/engine/features/registry.cpp) calls these.
#pragma once
#include <memory>

#include "transform.h"

namespace cppestimators {

std::unique_ptr<FeatureTransform> make_numeric_column(const Spec& spec);
std::unique_ptr<FeatureTransform> make_bucketized_column(const Spec& spec);
std::unique_ptr<FeatureTransform> make_vocabulary_column(const Spec& spec);
std::unique_ptr<FeatureTransform> make_identity_column(const Spec& spec);
std::unique_ptr<FeatureTransform> make_hash_bucket_column(const Spec& spec);
std::unique_ptr<FeatureTransform> make_crossed_column(const Spec& spec);
std::unique_ptr<FeatureTransform> make_indicator_column(const Spec& spec);
std::unique_ptr<FeatureTransform> make_embedding_column(const Spec& spec);
std::unique_ptr<FeatureTransform> make_weighted_column(const Spec& spec);

}  // namespace cppestimators
