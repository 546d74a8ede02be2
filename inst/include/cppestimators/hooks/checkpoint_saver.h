// hook_checkpoint_saver(): saves the estimator at session creation, then
// every N steps or seconds, and at end() unless the last save was at that
// step. Listeners are told before and after each save; an after_save that
// returns true requests a stop. A state whose weights are not finite is
// never saved.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../io/checkpoint.h"
#include "../session/hook.h"
#include "timer.h"

namespace cppestimators {

class HookEnv;
class Services;
struct Spec;

class CheckpointListener {
 public:
  virtual ~CheckpointListener() = default;
  virtual void begin();
  virtual void before_save(Session&, std::int64_t);
  // true requests a stop
  virtual bool after_save(Session&, std::int64_t);
  virtual void end(Session&, std::int64_t);
};

class CheckpointSaverHook : public Hook {
  static std::vector<std::unique_ptr<CheckpointListener>> listeners_of(const Spec& s, HookEnv& env);

 public:
  CheckpointSaverHook(std::string dir, double save_secs, std::int64_t save_steps,
                      std::string basename, int keep_max,
                      std::vector<std::unique_ptr<CheckpointListener>> listeners, Services& svc,
                      bool verbose);
  // spec: checkpoint_dir, save_secs, save_steps, checkpoint_basename,
  // keep_checkpoint_max, verbose, listeners (specs the host builds)
  CheckpointSaverHook(const Spec& s, HookEnv& env);
  std::string constructor() const override;

  void begin(Session&) override;
  void after_create_session(Session& s) override;
  void after_run(RunContext& ctx) override;
  void end(Session& s) override;

 private:
  // Returns true when a listener asked to stop.
  bool save(Session& s, std::int64_t step);

  std::string dir_, basename_;
  int keep_max_;
  SecondOrStepTimer timer_;
  std::vector<std::unique_ptr<CheckpointListener>> listeners_;
  Services& svc_;
  bool verbose_;
  bool save_at_start_ = true;  // a checkpoint at global step 0 too
  std::unique_ptr<CheckpointManager> manager_;
  CheckpointData data_;
};

}  // namespace cppestimators
