// CheckpointManager: saves checkpoints into a model directory, keeps the
// index up to date and rotates old checkpoints out.
//
// Crash safety: each file is written atomically (atomic_file.h); the index is
// only updated after the checkpoint file is in place, and rotated checkpoints
// are deleted only after the index has dropped them.
#pragma once
#include <string>

namespace cppestimators {

struct CheckpointData;  // checkpoint_format.h

// Saves "<dir>/<basename>-<step>.ckpt" files, keeps the index up to date and
// deletes all but the newest `max_to_keep` checkpoints (0 keeps all). The
// index is re-read on every call, so a manager continues the list of a
// directory that already has one.
class CheckpointManager {
 public:
  explicit CheckpointManager(std::string dir, std::string basename = "model.ckpt",
                             int max_to_keep = 5);

  const std::string& dir() const { return dir_; }
  const std::string& basename() const { return basename_; }
  int max_to_keep() const { return max_to_keep_; }

  static std::string file_for_prefix(const std::string& dir, const std::string& prefix);

  // Writes the checkpoint, then the index naming it as the latest, then
  // deletes the checkpoints that fell out of the index. Returns the file path.
  std::string save(const CheckpointData& ckpt);

  // The latest checkpoint file per the index, or "" if there is none.
  std::string latest() const;

 private:
  // Prefixes naming the same file (e.g. a relative and an absolute spelling).
  bool same_file(const std::string& a, const std::string& b) const;

  std::string dir_, basename_;
  int max_to_keep_;
};

}  // namespace cppestimators
