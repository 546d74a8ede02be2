#include <cppestimators/model/heads/metric_accumulator.h>

#include <algorithm>

namespace cppestimators {

MetricAccumulator::MetricAccumulator(int per_example_dim) : per_example_dim_(per_example_dim) {}

void MetricAccumulator::reset() {
  batches_ = examples_ = 0;
  batch_loss_sum_ = loss_elem_sum_ = loss_weight_sum_ = weight_sum_ = 0.0;
  clear();
}

void MetricAccumulator::update(const float* logits, const float* labels, const float* per_example,
                               int rows, double batch_loss, const float* weights) {
  ++batches_;
  batch_loss_sum_ += batch_loss;
  const int pe = rows * per_example_dim_;
  if (weights == nullptr) {
    for (int i = 0; i < pe; ++i) loss_elem_sum_ += per_example[i];
    loss_weight_sum_ += pe;
    weight_sum_ += rows;
  } else {
    for (int i = 0; i < pe; ++i)
      loss_elem_sum_ += static_cast<double>(weights[i / per_example_dim_]) * per_example[i];
    double w = 0.0;
    for (int i = 0; i < rows; ++i) w += weights[i];
    loss_weight_sum_ += w * per_example_dim_;
    weight_sum_ += w;
  }
  examples_ += rows;
  accumulate(logits, labels, weights, rows);
}

MetricList MetricAccumulator::result() const {
  MetricList out;
  if (report_average_loss_)
    out.emplace_back("average_loss", mean(loss_elem_sum_, loss_weight_sum_));
  out.emplace_back("loss", mean(batch_loss_sum_, static_cast<double>(batches_)));
  append(out);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace cppestimators
