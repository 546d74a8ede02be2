// The engine's io family as one translation unit of the R package: every
// source under src/engine/io/, included once. R's build compiles this file
// (src/Makevars lists engine/io.o), so the headers these sources share
// are parsed once per family instead of once per file; tools/engine/
// CMakeLists.txt reads the lines below and compiles each source on its own,
// and fails when a source under src/engine/io/ is missing here.
// A new source of the family: one line below, kept sorted.

#include "io/atomic_file.cpp"
#include "io/checkpoint_format.cpp"
#include "io/checkpoint_index.cpp"
#include "io/checkpoint_manager.cpp"
#include "io/crc32c.cpp"
#include "io/event_file.cpp"
#include "io/event_proto.cpp"
#include "io/example_parse.cpp"
#include "io/example_proto.cpp"
#include "io/example_reader.cpp"
#include "io/little_endian.cpp"
#include "io/protobuf_wire.cpp"
#include "io/summary_writers.cpp"
#include "io/tfrecord.cpp"
