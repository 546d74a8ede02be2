// The engine's features family as one translation unit of the R package: every
// source under src/engine/features/, included once. R's build compiles this file
// (src/Makevars lists engine/features.o), so the headers these sources share
// are parsed once per family instead of once per file; tools/engine/
// CMakeLists.txt reads the lines below and compiles each source on its own,
// and fails when a source under src/engine/features/ is missing here.
// A new source of the family: one line below, kept sorted.

#include "features/cell_ids.cpp"
#include "features/crossed.cpp"
#include "features/dense_block.cpp"
#include "features/feature_set.cpp"
#include "features/hash_bucket.cpp"
#include "features/identity.cpp"
#include "features/numeric.cpp"
#include "features/registry.cpp"
#include "features/values.cpp"
#include "features/vocabulary.cpp"
#include "features/wrappers.cpp"
