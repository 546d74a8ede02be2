// Named tensors (decisions §12): what hooks fetch by name. Values are read
// from the session's buffers after a step; derived ones (predictions) are
// computed only when asked for. read_tensor() reuses the capacity of `out`,
// so a hook that reads the same tensor every step allocates nothing.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cppestimators {

class Session;

struct TensorValue {
  std::vector<int> shape;  // {} scalar, {n} vector, {rows, cols} matrix
  std::vector<double> data;
  bool integer = false;  // printed without decimals (global_step)
};

// Strips a trailing ":0" so that TF-style names work (a view: no copy;
// inline: hooks call it per fetch).
inline std::string_view tensor_base_view(std::string_view name) {
  if (name.size() > 2 && name.substr(name.size() - 2) == ":0")
    return name.substr(0, name.size() - 2);
  return name;
}
inline std::string tensor_base_name(const std::string& name) {
  return std::string(tensor_base_view(name));
}

// The fixed names, for messages.
std::string known_tensor_names();

// Returns false when `name` is not a tensor of this session.
bool read_tensor(const Session& s, const std::string& full_name, TensorValue& out);

bool tensor_exists(const Session& s, const std::string& full_name);

// The known name nearest to `name` and the estimator's variables (the first
// `max_shown`), for the message of an unknown tensor; empty for a tensor
// this session has no value of (labels when predicting).
std::string unknown_tensor_hint(const Session& s, std::string_view name,
                                std::size_t max_shown = 10);

// Throws naming the hook when `name` is not a tensor of this session.
void require_tensor(const Session& s, const std::string& name, const char* hook);

// numpy-like text of a value: shortest float32 round trip ("96.96749",
// "3.0"), integers without decimals, vectors as "[a b c]".
std::string format_number(double v, bool integer);
std::string format_tensor(const TensorValue& t);

namespace detail {
// Levenshtein distance, for suggesting the nearest known name.
std::size_t edit_distance(std::string_view a, std::string_view b);
}  // namespace detail

// The mean and the sum of the last batch's per-example losses (weighted by
// the examples' weights when the input has a weight column), and the sum
// of their weights. Across ranks: every rank's batch of the last round.
struct BatchLosses {
  double mean, total, weights;
};

BatchLosses batch_losses(const Session& s);

// This rank's batch alone.
BatchLosses local_batch_losses(const Session& s);

}  // namespace cppestimators
