// The feature-column family: a spec's kind -> its transform. A new kind of
// feature column is a source in src/engine/features/ with a factory declared
// in kinds.h, plus one `add()` line in src/engine/features/registry.cpp.
#pragma once
#include "../registry.h"
#include "transform.h"

namespace cppestimators {

using ColumnRegistry = Registry<FeatureTransform>;

const ColumnRegistry& column_registry();

}  // namespace cppestimators
