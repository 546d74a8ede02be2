// One registry shape for every family of engine objects (feature columns,
// heads, optimizers, models, hooks): a table from a spec's `kind` to a
// factory. A new member of a family is a new header plus one `add()` line in
// that family's registry.h. Registries list their kinds, so error messages
// and the R layer can say what exists.
#pragma once
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "spec.h"

namespace cppestimators {

template <class Product, class... Args>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Product>(const Spec&, Args...)>;
  // Builds the message for an unknown kind from the kind and the known ones.
  using UnknownMessage =
      std::function<std::string(const std::string&, const std::vector<std::string>&)>;

  // `family` names the members in messages ("feature column", "hook").
  explicit Registry(std::string family, UnknownMessage unknown = nullptr)
      : family_(std::move(family)), unknown_(std::move(unknown)) {}

  // Registers `kind`; a kind registered twice is a programming error.
  Registry& add(const std::string& kind, Factory factory) {
    if (!factories_.emplace(kind, std::move(factory)).second)
      throw std::logic_error("the " + family_ + " kind '" + kind + "' is registered twice");
    return *this;
  }

  // Registers `kind` as the class T, built as T(spec, args...).
  template <class T>
  Registry& add(const std::string& kind) {
    return add(kind, [](const Spec& s, Args... args) -> std::unique_ptr<Product> {
      return std::make_unique<T>(s, std::forward<Args>(args)...);
    });
  }

  bool has(const std::string& kind) const { return factories_.count(kind) != 0; }

  // The registered kinds, sorted.
  std::vector<std::string> kinds() const {
    std::vector<std::string> out;
    for (const auto& kv : factories_) out.push_back(kv.first);
    return out;
  }

  const std::string& family() const { return family_; }

  // Builds the member the spec's kind names; an unknown kind is an error
  // naming it and the known ones (never a default).
  std::unique_ptr<Product> make(const Spec& spec, Args... args) const {
    auto it = factories_.find(spec.kind);
    if (it == factories_.end()) throw std::invalid_argument(unknown_message(spec.kind));
    return it->second(spec, std::forward<Args>(args)...);
  }

  std::string unknown_message(const std::string& kind) const {
    const std::vector<std::string> known = kinds();
    if (unknown_) return unknown_(kind, known);
    return "unknown " + family_ + " kind '" + kind + "'; known kinds are " + join(known, "'");
  }

  // "a, b, c", each name between `quote`s.
  static std::string join(const std::vector<std::string>& names, const std::string& quote = "") {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + quote + n + quote;
    return out;
  }

 private:
  std::string family_;
  UnknownMessage unknown_;
  std::map<std::string, Factory> factories_;
};

}  // namespace cppestimators
