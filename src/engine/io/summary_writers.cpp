#include <cppestimators/io/summary_writers.h>

#include <chrono>

namespace cppestimators {

EventFileSink::EventFileSink(std::string dir, std::string hostname, double flush_secs)
    : dir_(std::move(dir)), host_(std::move(hostname)), flush_secs_(flush_secs) {}

void EventFileSink::scalar(std::int64_t step, const std::string& tag, double value) {
  const double now = wall_time();
  if (!writer_) writer_.reset(new EventWriter(dir_, host_, now));
  writer_->add_scalar(step, tag, static_cast<float>(value), now);
  writer_->flush_if_due(now, flush_secs_);
}

void EventFileSink::scalars(std::int64_t step,
                            const std::vector<std::pair<std::string, float>>& values) {
  const double now = wall_time();
  if (!writer_) writer_.reset(new EventWriter(dir_, host_, now));
  writer_->add_scalars(step, values, now);
  writer_->flush_if_due(now, flush_secs_);
}

void EventFileSink::flush() {
  if (writer_) writer_->flush();
}

std::string EventFileSink::path() const { return writer_ ? writer_->path() : std::string(); }

double EventFileSink::wall_time() {
  using clock = std::chrono::system_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

SummaryWriters::SummaryWriters(std::string hostname) : host_(std::move(hostname)) {}

EventFileSink* SummaryWriters::get(const std::string& dir) {
  auto it = sinks_.find(dir);
  if (it == sinks_.end())
    it = sinks_.emplace(dir, std::make_unique<EventFileSink>(dir, host_)).first;
  return it->second.get();
}

void SummaryWriters::flush_all() {
  for (auto& kv : sinks_) kv.second->flush();
}

}  // namespace cppestimators
