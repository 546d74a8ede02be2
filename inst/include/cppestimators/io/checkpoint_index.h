// The checkpoint index "<dir>/checkpoint": TensorFlow's CheckpointState in
// protobuf text format, listing checkpoint prefixes (paths without
// extension, relative to <dir>):
//
//   model_checkpoint_path: "model.ckpt-1000"
//   all_model_checkpoint_paths: "model.ckpt-600"
//   all_model_checkpoint_paths: "model.ckpt-800"
//   all_model_checkpoint_paths: "model.ckpt-1000"
//
// model_checkpoint_path is the latest checkpoint; all_model_checkpoint_paths
// are the retained ones, oldest first. The reader also accepts TensorFlow's
// timestamp fields (ignored), comments, extra whitespace and single quotes.
// The index is written atomically (atomic_file.h).
#pragma once
#include <string>
#include <vector>

namespace cppestimators {

struct CheckpointState {
  std::string model_checkpoint_path;                    // latest prefix
  std::vector<std::string> all_model_checkpoint_paths;  // retained prefixes, oldest first
};

namespace detail {

// "<dir>/<prefix>.ckpt" (an absolute prefix is kept as is).
std::string prefix_file(const std::string& dir, const std::string& prefix);

}  // namespace detail

// Reads "<dir>/checkpoint". Returns false if it does not exist; throws
// std::runtime_error naming the file if it cannot be read or is malformed.
bool read_checkpoint_state(const std::string& dir, CheckpointState* out);

// Writes "<dir>/checkpoint" atomically.
void write_checkpoint_state(const std::string& dir, const CheckpointState& st);

// The latest checkpoint file of a model directory per its index: the file of
// model_checkpoint_path if it exists, else the newest retained file that
// exists, else "" (also when there is no index).
std::string latest_checkpoint(const std::string& dir);

}  // namespace cppestimators
