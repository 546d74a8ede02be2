// The head family: a head's kind -> the head. A new head is a new file in
// this folder plus one `add()` line in src/engine/model/heads/registry.cpp.
// Heads are built from their spec (kind, and the numbers "power", "delta"
// or "levels" of the heads that take them) and n, the label dimension
// (regression heads), the number of classes or of labels.
#pragma once
#include <memory>
#include <string>

#include "../../registry.h"

namespace cppestimators {

class Head;

using HeadRegistry = Registry<Head, int>;

const HeadRegistry& head_registry();

// Throws std::invalid_argument for an unknown kind, naming the known ones.
std::unique_ptr<Head> make_head(const Spec& spec, int n);
std::unique_ptr<Head> make_head(const std::string& kind, int n);

}  // namespace cppestimators
