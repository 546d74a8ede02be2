#include <cppestimators/io/checkpoint_manager.h>

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include <cppestimators/io/checkpoint_format.h>
#include <cppestimators/io/checkpoint_index.h>

namespace cppestimators {

CheckpointManager::CheckpointManager(std::string dir, std::string basename, int max_to_keep)
    : dir_(std::move(dir)), basename_(std::move(basename)), max_to_keep_(max_to_keep) {
  if (dir_.empty()) throw std::invalid_argument("checkpoint directory must not be empty");
  if (basename_.empty()) throw std::invalid_argument("checkpoint basename must not be empty");
  if (max_to_keep_ < 0) throw std::invalid_argument("`max_to_keep` must be >= 0");
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (!std::filesystem::is_directory(dir_)) {
    throw std::runtime_error(dir_ + ": cannot create checkpoint directory" +
                             (ec ? ": " + ec.message() : std::string()));
  }
}

std::string CheckpointManager::file_for_prefix(const std::string& dir, const std::string& prefix) {
  return detail::prefix_file(dir, prefix);
}

std::string CheckpointManager::save(const CheckpointData& ckpt) {
  const std::string prefix = basename_ + "-" + std::to_string(ckpt.global_step);
  const std::string file = file_for_prefix(dir_, prefix);
  write_checkpoint_file(file, ckpt);

  CheckpointState st;
  read_checkpoint_state(dir_, &st);
  // A re-saved step moves to the end instead of appearing twice.
  std::vector<std::string> kept;
  for (std::string& p : st.all_model_checkpoint_paths) {
    if (!same_file(p, prefix)) kept.push_back(std::move(p));
  }
  kept.push_back(prefix);
  std::vector<std::string> dropped;
  if (max_to_keep_ > 0 && kept.size() > static_cast<std::size_t>(max_to_keep_)) {
    const auto cut = kept.end() - max_to_keep_;
    dropped.assign(kept.begin(), cut);
    kept.erase(kept.begin(), cut);
  }
  st.model_checkpoint_path = prefix;
  st.all_model_checkpoint_paths = std::move(kept);
  write_checkpoint_state(dir_, st);

  for (const std::string& p : dropped) {
    bool listed = false;  // a hand-written index may list a file twice
    for (const std::string& k : st.all_model_checkpoint_paths) listed = listed || same_file(p, k);
    std::error_code ec;  // already gone is fine
    if (!listed) std::filesystem::remove(file_for_prefix(dir_, p), ec);
  }
  return file;
}

std::string CheckpointManager::latest() const { return latest_checkpoint(dir_); }

bool CheckpointManager::same_file(const std::string& a, const std::string& b) const {
  namespace fs = std::filesystem;
  return a == b || fs::path(file_for_prefix(dir_, a)).lexically_normal() ==
                       fs::path(file_for_prefix(dir_, b)).lexically_normal();
}

}  // namespace cppestimators
