// The engine's math family as one translation unit of the R package: every
// source under src/engine/math/, included once. R's build compiles this file
// (src/Makevars lists engine/math.o), so the headers these sources share
// are parsed once per family instead of once per file; tools/engine/
// CMakeLists.txt reads the lines below and compiles each source on its own,
// and fails when a source under src/engine/math/ is missing here.
// A new source of the family: one line below, kept sorted.

#include "math/gemm.cpp"
