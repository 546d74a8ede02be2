// Learning-rate schedules: the rate of a training step as a function of the
// global step read at the start of that step (before its increment), with
// the formulas of TF 1.x's tf.train.*_decay functions. A schedule is built
// once from its spec (the "schedule" child of an optimizer's spec, written
// by the R constructors learning_rate_*()); rate() allocates nothing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../../spec.h"

namespace cppestimators {

class LearningRateSchedule {
 public:
  enum class Kind {
    Exponential,
    InverseTime,
    NaturalExp,
    Piecewise,
    Polynomial,
    Cosine,
    CosineRestarts,
    LinearCosine
  };

  explicit LearningRateSchedule(const Spec& s);

  Kind kind() const { return kind_; }

  // The rate of the step that starts at global step `global_step`.
  double rate(std::int64_t global_step) const;

 private:
  static Kind kind_of(const std::string& k);
  // global_step / decay_steps, floored for a staircase
  double progress(double step) const;

  Kind kind_;
  double lr_ = 0, steps_ = 1, rate_ = 0, end_ = 0.0001, power_ = 1, alpha_ = 0, beta_ = 0.001,
         periods_ = 0.5, t_mul_ = 2, m_mul_ = 1;
  bool staircase_ = false, cycle_ = false;
  std::vector<double> boundaries_, values_;
};

}  // namespace cppestimators
