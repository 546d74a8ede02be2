// hook_checkpoint_saver(): saves the estimator at session creation, then
// every N steps or seconds, and at end() unless the last save was at that
// step. Listeners are told before and after each save; an after_save that
// returns true requests a stop. A state whose weights are not finite is
// never saved.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../io/checkpoint.h"
#include "../model/estimator_io.h"
#include "../services.h"
#include "hook.h"
#include "hook_env.h"
#include "timer.h"

namespace cppestimators {

class CheckpointListener {
 public:
  virtual ~CheckpointListener() = default;
  virtual void begin() {}
  virtual void before_save(Session&, std::int64_t) {}
  // true requests a stop
  virtual bool after_save(Session&, std::int64_t) { return false; }
  virtual void end(Session&, std::int64_t) {}
};

class CheckpointSaverHook : public Hook {
  static std::vector<std::unique_ptr<CheckpointListener>> listeners_of(const Spec& s,
                                                                       HookEnv& env) {
    std::vector<std::unique_ptr<CheckpointListener>> out;
    for (const Spec& l : s.children("listeners")) out.push_back(env.checkpoint_listener(l));
    return out;
  }

 public:
  CheckpointSaverHook(std::string dir, double save_secs, std::int64_t save_steps,
                      std::string basename, int keep_max,
                      std::vector<std::unique_ptr<CheckpointListener>> listeners, Services& svc,
                      bool verbose)
      : dir_(std::move(dir)),
        basename_(std::move(basename)),
        keep_max_(keep_max),
        timer_(save_secs, save_steps),
        listeners_(std::move(listeners)),
        svc_(svc),
        verbose_(verbose) {}
  // spec: checkpoint_dir, save_secs, save_steps, checkpoint_basename,
  // keep_checkpoint_max, verbose, listeners (specs the host builds)
  CheckpointSaverHook(const Spec& s, HookEnv& env)
      : CheckpointSaverHook(s.str("checkpoint_dir"), s.num_or("save_secs", -1),
                            s.int_or("save_steps", -1), s.str("checkpoint_basename"),
                            static_cast<int>(s.int_or("keep_checkpoint_max", 5)),
                            listeners_of(s, env), env.services(), s.flag_or("verbose", true)) {}
  std::string kind() const override { return "hook_checkpoint_saver"; }

  void begin(Session&) override {
    timer_.reset();
    manager_.reset(new CheckpointManager(dir_, basename_, keep_max_));
    for (auto& l : listeners_) l->begin();
  }
  void after_create_session(Session& s) override {
    const std::int64_t step = s.global_step();
    save(s, step);
    timer_.update(step, svc_.now(), nullptr, nullptr);
  }
  void after_run(RunContext& ctx) override {
    const std::int64_t step = ctx.session->global_step();
    if (!timer_.should_trigger(step, timer_.by_time() ? svc_.now() : 0.0)) return;
    timer_.update(step, svc_.now(), nullptr, nullptr);
    if (save(*ctx.session, step)) ctx.request_stop();
  }
  void end(Session& s) override {
    const std::int64_t step = s.global_step();
    if (!timer_.triggered() || step != timer_.last_step()) save(s, step);
    for (auto& l : listeners_) l->end(s, step);
  }

 private:
  // Returns true when a listener asked to stop.
  bool save(Session& s, std::int64_t step) {
    if (!snapshot(s.estimator(), data_)) {
      svc_.message("Not saving a checkpoint for step " + std::to_string(step) +
                   ": the weights are not finite.");
      return false;
    }
    if (verbose_)
      svc_.message("Saving checkpoints for " + std::to_string(step) + " into " + dir_ + "/" +
                   basename_ + ".");
    for (auto& l : listeners_) l->before_save(s, step);
    manager_->save(data_);
    bool stop = false;
    for (std::size_t i = 0; i < listeners_.size(); ++i) {
      if (listeners_[i]->after_save(s, step)) {
        svc_.message("A CheckpointSaverListener requested that training be stopped. listener: " +
                     std::to_string(i + 1));
        stop = true;
      }
    }
    return stop;
  }

  std::string dir_, basename_;
  int keep_max_;
  SecondOrStepTimer timer_;
  std::vector<std::unique_ptr<CheckpointListener>> listeners_;
  Services& svc_;
  bool verbose_;
  std::unique_ptr<CheckpointManager> manager_;
  CheckpointData data_;
};

}  // namespace cppestimators
