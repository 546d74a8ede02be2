// The R boundary for TensorBoard event files: evaluation scalars and reading
// files back.
#include <Rcpp.h>

#include <cppestimators/io/event_file.h>
#include <cppestimators/io/summary_writers.h>

#include <filesystem>
#include <map>
#include <memory>


using namespace cppestimators;

// Writes one event of scalars (evaluation metrics) into a directory's
// event file; returns the file's path.
// [[Rcpp::export(rng = false)]]
std::string cpp_write_scalars(std::string dir, double step, Rcpp::NumericVector values,
                              std::string hostname) {
  Rcpp::CharacterVector names = values.names();
  std::vector<std::pair<std::string, float>> v;
  for (R_xlen_t i = 0; i < values.size(); ++i)
    v.emplace_back(std::string(names[i]), static_cast<float>(values[i]));
  // One writer per directory for the life of the process (as TF's
  // FileWriterCache), so that repeated evaluations append to one file; a
  // writer whose file was removed is replaced.
  static std::map<std::string, std::unique_ptr<EventFileSink>> cache;
  auto it = cache.find(dir);
  if (it != cache.end()) {
    const std::string path = it->second->path();
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) cache.erase(it), it = cache.end();
  }
  if (it == cache.end()) it = cache.emplace(dir, std::make_unique<EventFileSink>(dir, hostname)).first;
  it->second->scalars(static_cast<std::int64_t>(step), v);
  it->second->flush();
  return it->second->path();
}

// Every scalar of one event file, as columns.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_read_events(std::string path) {
  const std::vector<ScalarEvent> ev = read_scalar_events(path);
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

