// The engine's data family as one translation unit of the R package: every
// source under src/engine/data/, included once. R's build compiles this file
// (src/Makevars lists engine/data.o), so the headers these sources share
// are parsed once per family instead of once per file; tools/engine/
// CMakeLists.txt reads the lines below and compiles each source on its own,
// and fails when a source under src/engine/data/ is missing here.
// A new source of the family: one line below, kept sorted.

#include "data/batch_transforms.cpp"
#include "data/batcher.cpp"
#include "data/chunk.cpp"
#include "data/column.cpp"
#include "data/csv_reader.cpp"
#include "data/dataset.cpp"
#include "data/pipeline.cpp"
#include "data/prefetch_stream.cpp"
#include "data/registry.cpp"
#include "data/row_stream.cpp"
#include "data/shuffle_stream.cpp"
#include "data/stream_feed.cpp"
#include "data/stream_sources.cpp"
#include "data/stream_transforms.cpp"
