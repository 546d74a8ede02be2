// Summary sinks backed by event files: one writer per directory (as TF's
// FileWriterCache), created on the first scalar, flushed every few seconds
// and when the run ends.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "summary_sink.h"
#include "event_file.h"

namespace cppestimators {

class EventFileSink : public SummarySink {
 public:
  EventFileSink(std::string dir, std::string hostname, double flush_secs = 5.0);
  void scalar(std::int64_t step, const std::string& tag, double value) override;
  void scalars(std::int64_t step, const std::vector<std::pair<std::string, float>>& values);
  void flush() override;
  const std::string& dir() const { return dir_; }
  std::string path() const;

 private:
  static double wall_time();
  std::string dir_, host_;
  double flush_secs_;
  std::unique_ptr<EventWriter> writer_;
};

// The sinks of one run, by directory.
class SummaryWriters {
 public:
  explicit SummaryWriters(std::string hostname);
  EventFileSink* get(const std::string& dir);
  void flush_all();

 private:
  std::string host_;
  std::map<std::string, std::unique_ptr<EventFileSink>> sinks_;
};

}  // namespace cppestimators
