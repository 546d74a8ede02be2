// TensorBoard's `Event` protobuf, hand-encoded and parsed (protobuf_wire.h):
//   Event         { double wall_time = 1; int64 step = 2; string file_version = 3;
//                   Summary summary = 5; }
//   Summary       { repeated Value value = 1; }
//   Summary.Value { string tag = 1; oneof value { float simple_value = 2; ... } }
// Fields with default values are omitted as in proto3, except simple_value, which is a oneof
// member and therefore always present. The first Event of a file carries wall_time and
// file_version "brain.Event:2".
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "protobuf_wire.h"

namespace cppestimators {

// One Summary.Value with a simple_value, together with its Event's step and wall time.
struct ScalarEvent {
  std::int64_t step;
  std::string tag;
  double value;
  double wall_time;
};

namespace event_detail {

// Appends Event{wall_time, step, summary} to `out`. Nested lengths are computed up front, so
// the message is written in one pass without temporaries.
void append_scalar_event(std::string& out, double wall_time, std::int64_t step,
                         const std::vector<std::pair<std::string, float>>& values);

void append_file_version_event(std::string& out, double wall_time);

// Parses one Event, appending a ScalarEvent per simple_value. Summary fields may appear several
// times (protobuf merges them) and before or after wall_time and step.
bool parse_event(WireReader r, std::vector<ScalarEvent>& out);

}  // namespace event_detail

// Serialized Event{wall_time, step, summary{value{tag, simple_value}...}}.
std::string encode_scalar_event(double wall_time, std::int64_t step,
                                const std::vector<std::pair<std::string, float>>& values);

// Serialized Event{wall_time, file_version: "brain.Event:2"}, the first record of every file.
std::string encode_file_version_event(double wall_time);

}  // namespace cppestimators
