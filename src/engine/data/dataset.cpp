#include <cppestimators/data/dataset.h>

#include <stdexcept>
#include <string>

namespace cppestimators {

const ColumnView* Dataset::find(const std::string& key) const {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt > 0 || indexed_ != features.size()) {
      index_.clear();
      for (std::size_t i = 0; i < features.size(); ++i) index_.emplace(features[i].key, i);
      indexed_ = features.size();
    }
    const auto it = index_.find(key);
    if (it != index_.end() && it->second < features.size() && features[it->second].key == key)
      return &features[it->second];
  }
  return nullptr;
}

const ColumnView& Dataset::require(const std::string& key, const std::string& user) const {
  if (const ColumnView* c = find(key)) return *c;
  std::string have;
  for (const auto& c : features) have += (have.empty() ? "" : ", ") + c.key;
  throw std::invalid_argument("feature '" + key + "' is used by feature column '" + user +
                              "' but is not among the input's features (" +
                              (have.empty() ? "none" : have) + ")");
}

}  // namespace cppestimators
