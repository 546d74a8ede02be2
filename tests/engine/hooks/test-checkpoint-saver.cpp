// Engine unit tests: the checkpoint saver hook (hooks/checkpoint_saver.h):
// which steps it saves at (session creation, every N steps, the end), the
// files it leaves in the directory (rotation by keep_checkpoint_max) and
// what they hold.
#include <testthat.h>

#include <memory>
#include <string>
#include <vector>

#include <cppestimators/hooks/checkpoint_saver.h>
#include <cppestimators/session/monitored_loop.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

// Writes down the step of every save.
class SaveLog : public CheckpointListener {
 public:
  explicit SaveLog(std::vector<std::int64_t>& steps) : steps_(steps) {}
  void before_save(Session&, std::int64_t step) override { steps_.push_back(step); }

 private:
  std::vector<std::int64_t>& steps_;
};

// The hook under test: saves "model.ckpt" into `dir` every `every_steps`
// steps, keeping `keep_max`, logging each save's step into `saved`.
std::unique_ptr<CheckpointSaverHook> checkpoint_saver(const std::string& dir,
                                                      std::int64_t every_steps, int keep_max,
                                                      std::vector<std::int64_t>& saved,
                                                      Services& svc) {
  std::vector<std::unique_ptr<CheckpointListener>> listeners;
  listeners.push_back(std::make_unique<SaveLog>(saved));
  return std::make_unique<CheckpointSaverHook>(dir, -1.0, every_steps, "model.ckpt", keep_max,
                                               std::move(listeners), svc, true);
}

}  // namespace

context("Checkpoint saver") {
  test_that(
      "saves at creation, every N steps and at the end; the newest keep_checkpoint_max stay") {
    TempDir dir;
    LineData d(5);
    Estimator est(linear({numeric("x")}, "SGD", 0.01));
    Session s(est, d.data, batches_of(1, 1));  // 5 steps
    CapturingServices svc;
    std::vector<std::int64_t> saved;
    auto saver = checkpoint_saver(dir.str(), 2, 2, saved, svc);
    const LoopOutcome out = run_monitored(s, {saver.get()}, svc);
    expect_true(out.steps == 5);
    expect_true(saved == (std::vector<std::int64_t>{0, 2, 4, 5}));
    expect_true(listing(dir.path) ==
                (std::vector<std::string>{"checkpoint", "model.ckpt-4.ckpt", "model.ckpt-5.ckpt"}));
    expect_true(svc.messages.size() == 4);
    expect_true(svc.messages[1] == "Saving checkpoints for 2 into " + dir.str() + "/model.ckpt.");
    CheckpointState state;
    expect_true(read_checkpoint_state(dir.str(), &state));
    expect_true(state.model_checkpoint_path == "model.ckpt-5");
    expect_true(state.all_model_checkpoint_paths ==
                (std::vector<std::string>{"model.ckpt-4", "model.ckpt-5"}));
    // the last file holds the weights as training left them
    const CheckpointData last = read_checkpoint_file(dir / "model.ckpt-5.ckpt");
    expect_true(last.global_step == 5);
    const VariableRef* w = est.find_variable("linear/linear_model/x/weights");
    bool found = false;
    for (const TensorRecord& t : last.tensors)
      if (t.name == w->name)
        found = t.data.size() == 1 && t.data[0] == w->data[0] && w->data[0] != 0.0f;
    expect_true(found);
  }

  test_that("a run that ends on a save step saves it once; keep_checkpoint_max = 0 keeps all") {
    TempDir dir;
    LineData d(4);
    Estimator est(linear({numeric("x")}, "SGD", 0.01));
    Session s(est, d.data, batches_of(1, 1));  // 4 steps
    CapturingServices svc;
    std::vector<std::int64_t> saved;
    auto saver = checkpoint_saver(dir.str(), 2, 0, saved, svc);
    run_monitored(s, {saver.get()}, svc);
    expect_true(saved == (std::vector<std::int64_t>{0, 2, 4}));
    expect_true(listing(dir.path) ==
                (std::vector<std::string>{"checkpoint", "model.ckpt-0.ckpt", "model.ckpt-2.ckpt",
                                          "model.ckpt-4.ckpt"}));
  }
}
