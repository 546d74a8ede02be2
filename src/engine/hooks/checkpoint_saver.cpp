#include <cppestimators/hooks/checkpoint_saver.h>

#include <utility>

#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/model/estimator_io.h>
#include <cppestimators/services.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

void CheckpointListener::begin() {}
void CheckpointListener::before_save(Session&, std::int64_t) {}
bool CheckpointListener::after_save(Session&, std::int64_t) { return false; }
void CheckpointListener::end(Session&, std::int64_t) {}

std::vector<std::unique_ptr<CheckpointListener>> CheckpointSaverHook::listeners_of(const Spec& s,
                                                                                   HookEnv& env) {
  std::vector<std::unique_ptr<CheckpointListener>> out;
  for (const Spec& l : s.children("listeners")) out.push_back(env.checkpoint_listener(l));
  return out;
}

CheckpointSaverHook::CheckpointSaverHook(std::string dir, double save_secs, std::int64_t save_steps,
                                         std::string basename, int keep_max,
                                         std::vector<std::unique_ptr<CheckpointListener>> listeners,
                                         Services& svc, bool verbose)
    : dir_(std::move(dir)),
      basename_(std::move(basename)),
      keep_max_(keep_max),
      timer_(save_secs, save_steps),
      listeners_(std::move(listeners)),
      svc_(svc),
      verbose_(verbose) {}

CheckpointSaverHook::CheckpointSaverHook(const Spec& s, HookEnv& env)
    : CheckpointSaverHook(s.str("checkpoint_dir"), s.num_or("save_secs", -1),
                          s.int_or("save_steps", -1), s.str("checkpoint_basename"),
                          static_cast<int>(s.int_or("keep_checkpoint_max", 5)),
                          listeners_of(s, env), env.services(), s.flag_or("verbose", true)) {
  save_at_start_ = s.flag_or("save_at_start", true);
}

std::string CheckpointSaverHook::constructor() const { return "hook_checkpoint_saver"; }

void CheckpointSaverHook::begin(Session&) {
  timer_.reset();
  manager_.reset(new CheckpointManager(dir_, basename_, keep_max_));
  for (auto& l : listeners_) l->begin();
}

void CheckpointSaverHook::after_create_session(Session& s) {
  const std::int64_t step = s.global_step();
  // (TF saves the initial variables of a new model too; save_at_start =
  // false leaves that checkpoint out: training's end saves in any case)
  if (step > 0 || save_at_start_) save(s, step);
  timer_.update(step, svc_.now(), nullptr, nullptr);
}

void CheckpointSaverHook::after_run(RunContext& ctx) {
  const std::int64_t step = ctx.session->global_step();
  if (!timer_.should_trigger(step, timer_.by_time() ? svc_.now() : 0.0)) return;
  timer_.update(step, svc_.now(), nullptr, nullptr);
  if (save(*ctx.session, step)) ctx.request_stop();
}

void CheckpointSaverHook::end(Session& s) {
  const std::int64_t step = s.global_step();
  if (!timer_.triggered() || step != timer_.last_step()) save(s, step);
  for (auto& l : listeners_) l->end(s, step);
}

bool CheckpointSaverHook::save(Session& s, std::int64_t step) {
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

}  // namespace cppestimators
