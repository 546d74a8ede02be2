// Summary sinks backed by event files: one writer per directory (as TF's
// FileWriterCache), created on the first scalar, flushed every few seconds
// and when the run ends.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../hooks/summary_sink.h"
#include <chrono>
#include "event_file.h"

namespace cppestimators {

class EventFileSink : public SummarySink {
 public:
  EventFileSink(std::string dir, std::string hostname, double flush_secs = 5.0)
      : dir_(std::move(dir)), host_(std::move(hostname)), flush_secs_(flush_secs) {}
  void scalar(std::int64_t step, const std::string& tag, double value) override {
    const double now = wall_time();
    if (!writer_) writer_.reset(new EventWriter(dir_, host_, now));
    writer_->add_scalar(step, tag, static_cast<float>(value), now);
    writer_->flush_if_due(now, flush_secs_);
  }
  void scalars(std::int64_t step, const std::vector<std::pair<std::string, float>>& values) {
    const double now = wall_time();
    if (!writer_) writer_.reset(new EventWriter(dir_, host_, now));
    writer_->add_scalars(step, values, now);
    writer_->flush_if_due(now, flush_secs_);
  }
  void flush() override {
    if (writer_) writer_->flush();
  }
  const std::string& dir() const { return dir_; }
  std::string path() const { return writer_ ? writer_->path() : std::string(); }

 private:
  static double wall_time() {
    using clock = std::chrono::system_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
  }
  std::string dir_, host_;
  double flush_secs_;
  std::unique_ptr<EventWriter> writer_;
};

// The sinks of one run, by directory.
class SummaryWriters {
 public:
  explicit SummaryWriters(std::string hostname) : host_(std::move(hostname)) {}
  EventFileSink* get(const std::string& dir) {
    auto it = sinks_.find(dir);
    if (it == sinks_.end())
      it = sinks_.emplace(dir, std::make_unique<EventFileSink>(dir, host_)).first;
    return it->second.get();
  }
  void flush_all() {
    for (auto& kv : sinks_) kv.second->flush();
  }

 private:
  std::string host_;
  std::map<std::string, std::unique_ptr<EventFileSink>> sinks_;
};

}  // namespace cppestimators
