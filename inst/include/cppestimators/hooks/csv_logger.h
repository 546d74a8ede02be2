// hook_csv_logger(path, every_n_step, append): one CSV row per logged step
// -- the global step, the batch's mean and total loss (as the history saver
// records them, at local iterations where iteration %% every_n_step == 0 and
// at the last one) and the evaluations made at that step during the call
// (eval_<metric> columns, NA when none). Evaluations come from the
// in-memory evaluators of the loop (observed as they happen) and, in
// train_and_evaluate(), from a host callable that hands over the
// evaluation made since it was last asked. A step's row is written once
// every hook has run for it (at the next step, or at end() once the
// evaluators still to come have evaluated), and flushed; a row still
// pending when the loop stops on an error is written when the hook is
// destroyed. With `append`, a file that exists keeps its rows and must have
// the same header.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "eval_records.h"
#include "../session/hook.h"
#include "hook_env.h"

namespace cppestimators {

class CsvLoggerHook : public Hook, public EvalObserver {
 public:
  CsvLoggerHook(std::string path, std::int64_t every_n_step, bool append, EvaluationFn listener);
  // spec: path, every_n_step, append, listener_evaluation (a host callable; optional)
  CsvLoggerHook(const Spec& s, HookEnv& env);
  ~CsvLoggerHook() override;
  std::string constructor() const override;

  void begin(Session& s) override;
  void before_run(RunContext& ctx) override;
  void after_run(RunContext& ctx) override;
  void end(Session& s) override;
  void on_evaluation(const EvalRecord& record, Session&, RunContext*) override;

 private:
  struct Source {
    EvalRecords* records;  // null: the host's evaluations (train_and_evaluate())
    std::size_t first_column;
    bool after_me;  // positioned after this hook: evaluates after its callbacks
  };

  void log_losses(const Session& s);
  void pull(Session& s);
  void fill(const Source& src, std::int64_t step, const MetricList& metrics);

  // Makes the pending row the one of `step`, writing a pending row of
  // another step first.
  void row(std::int64_t step);

  void finish();
  void write_row();
  void append_number(double v, char* buf);
  static std::string quoted(const std::string& s);
  void open(const std::string& header);
  void close();

  std::string path_;
  std::int64_t every_;
  bool append_;
  EvaluationFn listener_;
  std::FILE* file_ = nullptr;
  std::vector<Source> sources_;
  std::vector<std::string> metrics_;  // the head's metrics, sorted
  std::vector<double> evals_;
  std::string line_;
  std::int64_t iter_ = 0, step_ = 0, awaiting_ = 0;
  bool last_logged_ = false, ended_ = false, pending_ = false, has_losses_ = false;
  double mean_ = 0.0, total_ = 0.0;
};

}  // namespace cppestimators
