// hook_history_saver(every_n_step): records the mean and the sum of the
// per-example losses of the batch (weighted by the examples' weights when
// the input has a weight column: sum(w * loss) / sum(w) and sum(w * loss))
// and the global step at local iterations
// where iteration %% every_n_step == 0, plus the last iteration of the run
// when it was not recorded, so a history is never empty.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../session/hook.h"
#include "../session/tensors.h"

namespace cppestimators {

class HookEnv;
struct Spec;

struct History {
  std::vector<double> mean_losses, total_losses;
  std::vector<std::int64_t> steps;
};

class HistorySaverHook : public Hook {
 public:
  explicit HistorySaverHook(std::int64_t every_n_step);
  HistorySaverHook(const Spec& s, HookEnv&);
  std::string constructor() const override;
  const History* recorded_history() const override;

  void begin(Session&) override;
  void after_run(RunContext& ctx) override;
  void end(Session& s) override;

  const History& history() const { return history_; }

 private:
  void record(const Session& s);

  std::int64_t every_;
  std::int64_t iter_ = 0;
  bool last_recorded_ = false;
  History history_;
};

}  // namespace cppestimators
