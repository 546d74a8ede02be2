// One training step across ranks (a round): what each rank contributes (the
// round's head: does it have a batch, its loss and rows; and its step's
// statistics from TrainingStrategy::compute()), as bytes; their combination
// in rank order, the same on whichever rank or driver computes it; and the
// combined statistics read back as StepStats for TrainingStrategy::apply().
//
// Combining: dense gradients and boosting sums are added in rank order in
// doubles (then rounded to float for gradients); sparse gradient rows are
// gathered and coalesced (rows ascending, a row's values added in rank
// order). One contribution comes back as it went in, so one rank trains
// exactly as a session without a collective.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../model/parameter.h"
#include "../model/training_strategy.h"

namespace cppestimators {

class Collective;
class Estimator;

// The head of a round: each rank's values, summed by the combination.
struct RoundHead {
  double batches = 0;     // ranks with a batch this round
  double data_ranks = 0;  // ranks that read data (a driver that only applies does not)
  double stops = 0;       // ranks asking every rank to stop before this step
  double loss = 0;        // the batches' summed losses (a batch mean's times its rows)
  double rows = 0;        // the batches' rows
  double weight_sum = 0;  // the batches' example weights (rows when unweighted)
  double pe_total = 0;    // the per-example losses, weighted, summed (the history's total)
  double pe_weight = 0;   // their weights (per-example values count once each)

  // Whether the ranks stop here, without applying: a rank asked to, or a
  // rank that reads data has none left.
  bool ends() const { return stops > 0 || batches < data_ranks || data_ranks == 0; }
};

class StepExchange {
 public:
  // One rank's bytes: `head`, its batch's per-example losses (`n_losses`
  // values, for the chief's hooks) and, unless empty, `stats`, whose
  // gradients name their parameters by position in `params` (the model's
  // parameters()).
  std::string pack(const RoundHead& head, const float* losses, std::size_t n_losses,
                   const StepStats& stats, const std::vector<Parameter*>& params) const;

  // The combination of the ranks' bytes, in rank order (std::invalid_argument
  // when two ranks' statistics disagree in shape).
  static std::string combine(const std::vector<std::string>& parts);

  // Reads a combination: its head, and `stats` pointing into this
  // exchange's buffers (valid until its next unpack); stats.batches is the
  // number of batches combined.
  RoundHead unpack(const std::string& combined, const std::vector<Parameter*>& params,
                   StepStats& stats);
  // The last unpacked round's per-example losses, every rank's in rank order.
  const std::vector<float>& losses() const { return losses_; }

 private:
  std::vector<float> losses_;
  std::vector<Gradient> grads_;
  std::vector<std::vector<float>> floats_;
  std::vector<std::vector<std::int64_t>> rows_;
  std::vector<double> sums_;
};

// Makes every rank's estimator `root`'s: global step, learning-rate scale and
// every variable (weights, optimizer slots and variables, a tree ensemble),
// so that only the root needs to read a checkpoint. std::invalid_argument
// when a rank's estimator has other variables than the root's.
void broadcast_estimator(Estimator& est, Collective& collective, int root = 0);

}  // namespace cppestimators
