// The engine's session family as one translation unit of the R package: every
// source under src/engine/session/, included once. R's build compiles this file
// (src/Makevars lists engine/session.o), so the headers these sources share
// are parsed once per family instead of once per file; tools/engine/
// CMakeLists.txt reads the lines below and compiles each source on its own,
// and fails when a source under src/engine/session/ is missing here.
// A new source of the family: one line below, kept sorted.

#include "session/monitored_loop.cpp"
#include "session/session.cpp"
#include "session/tensors.cpp"
