#include <cppestimators/model/optimizers/optimizer.h>

#include <stdexcept>

namespace cppestimators {

Optimizer::Optimizer(const Spec& spec, std::string scope)
    : spec_(spec),
      scope_(std::move(scope)),
      lr_(static_cast<float>(spec.num("learning_rate"))),
      base_lr_(spec.num("learning_rate")) {
  if (!(lr_ > 0.0f)) throw std::invalid_argument("`learning_rate` must be a positive number");
  if (spec.children("schedule").size() == 1)
    schedule_ = std::make_unique<LearningRateSchedule>(spec.child("schedule"));
  set_step(0, 1.0);
}

double Optimizer::scheduled_rate(std::int64_t global_step) const {
  return schedule_ ? schedule_->rate(global_step) : base_lr_;
}

void Optimizer::set_step(std::int64_t global_step, double scale) {
  lr_ = static_cast<float>(scheduled_rate(global_step) * scale);
  step_ = global_step;
}

std::vector<std::string> Optimizer::slot_names() const { return {}; }

std::vector<float> Optimizer::slot_initial_values() const { return {}; }

std::vector<std::pair<std::string, float*>> Optimizer::extra_variables() { return {}; }

void Optimizer::reset_extra() {}

void Optimizer::apply_sparse(float* param, float* const* slots, std::size_t width,
                             std::size_t /*table_rows*/, const std::int64_t* rows,
                             const float* grad, std::size_t count) {
  const std::size_t nslots = slot_names().size();
  float* s[kMaxSlots] = {nullptr, nullptr, nullptr, nullptr};
  constexpr std::size_t kAhead = 8;  // rows of large tables are far apart: prefetch
  for (std::size_t k = 0; k < count; ++k) {
    if (k + kAhead < count) {
      const std::size_t next = static_cast<std::size_t>(rows[k + kAhead]) * width;
      __builtin_prefetch(param + next, 1);
      for (std::size_t i = 0; i < nslots; ++i) __builtin_prefetch(slots[i] + next, 1);
    }
    const std::size_t at = static_cast<std::size_t>(rows[k]) * width;
    for (std::size_t i = 0; i < nslots; ++i) s[i] = slots[i] + at;
    apply_dense(param + at, grad + k * width, s, width);
  }
}

void Optimizer::finish_step() {}

float Optimizer::param(const char* field) const { return static_cast<float>(spec_.num(field)); }

}  // namespace cppestimators
