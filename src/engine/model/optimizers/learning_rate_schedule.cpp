#include <cppestimators/model/optimizers/learning_rate_schedule.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace cppestimators {

LearningRateSchedule::LearningRateSchedule(const Spec& s) : kind_(kind_of(s.kind)) {
  if (kind_ == Kind::Piecewise) {
    boundaries_ = s.numbers("boundaries");
    values_ = s.numbers("values");
    if (values_.size() != boundaries_.size() + 1)
      throw std::invalid_argument(
          "piecewise constant schedule: `values` must have one more element than "
          "`boundaries`");
    return;
  }
  lr_ = s.num("learning_rate");
  steps_ = s.num(kind_ == Kind::CosineRestarts ? "first_decay_steps" : "decay_steps");
  if (!(steps_ > 0)) throw std::invalid_argument("learning-rate schedule: steps must be > 0");
  rate_ = s.num_or("decay_rate", 0);
  staircase_ = s.flag_or("staircase", false);
  end_ = s.num_or("end_learning_rate", 0.0001);
  power_ = s.num_or("power", 1);
  cycle_ = s.flag_or("cycle", false);
  alpha_ = s.num_or("alpha", 0);
  beta_ = s.num_or("beta", 0.001);
  periods_ = s.num_or("num_periods", 0.5);
  t_mul_ = s.num_or("t_mul", 2);
  m_mul_ = s.num_or("m_mul", 1);
}

double LearningRateSchedule::rate(std::int64_t global_step) const {
  constexpr double kPi = 3.14159265358979323846;
  double step = static_cast<double>(global_step);
  switch (kind_) {
    case Kind::Exponential:
      return lr_ * std::pow(rate_, progress(step));
    case Kind::InverseTime:
      return lr_ / (1.0 + rate_ * progress(step));
    case Kind::NaturalExp:
      return lr_ * std::exp(-rate_ * progress(step));
    case Kind::Piecewise: {
      // x <= b0: v0; b0 < x <= b1: v1; ...; x > b_last: v_last
      std::size_t i = 0;
      while (i < boundaries_.size() && step > boundaries_[i]) ++i;
      return values_[i];
    }
    case Kind::Polynomial: {
      double steps = steps_;
      if (cycle_) {
        steps *= step == 0 ? 1.0 : std::ceil(step / steps_);
      } else {
        step = std::min(step, steps_);
      }
      return (lr_ - end_) * std::pow(1.0 - step / steps, power_) + end_;
    }
    case Kind::Cosine: {
      const double fraction = std::min(step, steps_) / steps_;
      return lr_ * ((1.0 - alpha_) * 0.5 * (1.0 + std::cos(kPi * fraction)) + alpha_);
    }
    case Kind::CosineRestarts: {
      // period i lasts first_decay_steps * t_mul^i steps and starts at m_mul^i
      double fraction = step / steps_, restart;
      if (t_mul_ == 1.0) {
        restart = std::floor(fraction);
        fraction -= restart;
      } else {
        restart = std::floor(std::log(1.0 - fraction * (1.0 - t_mul_)) / std::log(t_mul_));
        const double before = (1.0 - std::pow(t_mul_, restart)) / (1.0 - t_mul_);
        fraction = (fraction - before) / std::pow(t_mul_, restart);
      }
      const double cosine = 0.5 * std::pow(m_mul_, restart) * (1.0 + std::cos(kPi * fraction));
      return lr_ * ((1.0 - alpha_) * cosine + alpha_);
    }
    case Kind::LinearCosine: {
      step = std::min(step, steps_);
      const double linear = (steps_ - step) / steps_;
      const double cosine = 0.5 * (1.0 + std::cos(kPi * 2.0 * periods_ * step / steps_));
      return lr_ * ((alpha_ + linear) * cosine + beta_);
    }
  }
  return lr_;
}

LearningRateSchedule::Kind LearningRateSchedule::kind_of(const std::string& k) {
  if (k == "exponential_decay") return Kind::Exponential;
  if (k == "inverse_time_decay") return Kind::InverseTime;
  if (k == "natural_exp_decay") return Kind::NaturalExp;
  if (k == "piecewise_constant") return Kind::Piecewise;
  if (k == "polynomial_decay") return Kind::Polynomial;
  if (k == "cosine_decay") return Kind::Cosine;
  if (k == "cosine_decay_restarts") return Kind::CosineRestarts;
  if (k == "linear_cosine_decay") return Kind::LinearCosine;
  throw std::invalid_argument("unknown learning-rate schedule '" + k + "'");
}

double LearningRateSchedule::progress(double step) const {
  const double p = step / steps_;
  return staircase_ ? std::floor(p) : p;
}

}  // namespace cppestimators
