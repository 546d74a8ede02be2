// The R boundary for TensorBoard event files: evaluation scalars and reading
// files back.
#include <Rcpp.h>

#include <cppestimators/io/event_file.h>
#include <cppestimators/io/summary_writers.h>

#include <filesystem>
#include <map>
#include <memory>

using cppestimators::EventFileSink;
using cppestimators::EventTail;
using cppestimators::read_scalar_events;
using cppestimators::read_scalar_events_from;
using cppestimators::ScalarEvent;

// Writes one event of scalars (evaluation metrics) into a directory's
// event file; returns the file's path.
// [[Rcpp::export(rng = false)]]
std::string cpp_write_scalars(std::string dir, double step, Rcpp::NumericVector values,
                              std::string hostname) {
  Rcpp::CharacterVector names = values.names();
  std::vector<std::pair<std::string, float>> v;
  for (R_xlen_t i = 0; i < values.size(); ++i)
    v.emplace_back(std::string(names[i]), static_cast<float>(values[i]));
  // One writer per directory (as TF's FileWriterCache), so that repeated
  // evaluations append to one file; a writer whose file was removed is
  // replaced. At most kOpen writers stay open: the least recently used one is
  // closed first (its directory gets a new file if evaluated again), so
  // that thousands of estimators do not exhaust the process's open files.
  struct Entry {
    std::unique_ptr<EventFileSink> sink;
    std::uint64_t used = 0;
  };
  static std::map<std::string, Entry> cache;
  static std::uint64_t clock = 0;
  constexpr std::size_t kOpen = 16;
  auto it = cache.find(dir);
  if (it != cache.end()) {
    const std::string path = it->second.sink->path();
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) cache.erase(it), it = cache.end();
  }
  if (it == cache.end()) {
    while (cache.size() >= kOpen) {
      auto oldest = cache.begin();
      for (auto j = cache.begin(); j != cache.end(); ++j)
        if (j->second.used < oldest->second.used) oldest = j;
      cache.erase(oldest);
    }
    it = cache.emplace(dir, Entry{std::make_unique<EventFileSink>(dir, hostname), 0}).first;
  }
  it->second.used = ++clock;
  it->second.sink->scalars(static_cast<std::int64_t>(step), v);
  it->second.sink->flush();
  return it->second.sink->path();
}

// Every scalar of one event file, as columns.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_read_events(std::string path) {
  std::size_t tail = 0;
  const std::vector<ScalarEvent> ev = read_scalar_events(path, &tail);
  if (tail != static_cast<std::size_t>(-1))
    Rcpp::warning(path + ": the last record, at offset " + std::to_string(tail) +
                  ", is incomplete (the file was cut short); it is skipped");
  Rcpp::NumericVector step(ev.size()), value(ev.size()), wall(ev.size());
  Rcpp::CharacterVector tag(ev.size());
  for (std::size_t i = 0; i < ev.size(); ++i) {
    step[i] = static_cast<double>(ev[i].step);
    tag[i] = ev[i].tag;
    value[i] = ev[i].value;
    wall[i] = ev[i].wall_time;
  }
  return Rcpp::List::create(Rcpp::Named("step") = step, Rcpp::Named("tag") = tag,
                            Rcpp::Named("value") = value, Rcpp::Named("wall_time") = wall);
}

// The scalars of the whole records of an event file from byte `offset` on
// (for following a file being written): the columns of cpp_read_events()
// plus `offset`, the offset to read from next time, `records`, the whole
// records read, and `bytes`, the bytes they take. An incomplete last record
// is left for the next call; CRC errors are errors naming file and offset.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_read_events_from(std::string path, double offset) {
  if (!(offset >= 0) || offset > 9007199254740992.0)
    Rcpp::stop("`offset` must be a byte offset >= 0");
  const std::size_t from = static_cast<std::size_t>(offset);
  const EventTail t = read_scalar_events_from(path, from);
  const std::size_t n = t.events.size();
  Rcpp::NumericVector step(n), value(n), wall(n);
  Rcpp::CharacterVector tag(n);
  for (std::size_t i = 0; i < n; ++i) {
    step[i] = static_cast<double>(t.events[i].step);
    tag[i] = t.events[i].tag;
    value[i] = t.events[i].value;
    wall[i] = t.events[i].wall_time;
  }
  return Rcpp::List::create(Rcpp::Named("step") = step, Rcpp::Named("tag") = tag,
                            Rcpp::Named("value") = value, Rcpp::Named("wall_time") = wall,
                            Rcpp::Named("offset") = static_cast<double>(t.end),
                            Rcpp::Named("records") = static_cast<double>(t.records),
                            Rcpp::Named("bytes") = static_cast<double>(t.end - from));
}
