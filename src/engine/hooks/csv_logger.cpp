#include <cppestimators/hooks/csv_logger.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <utility>

#include <cppestimators/hooks/history_saver.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

CsvLoggerHook::CsvLoggerHook(std::string path, std::int64_t every_n_step, bool append,
                             EvaluationFn listener)
    : path_(std::move(path)),
      every_(every_n_step),
      append_(append),
      listener_(std::move(listener)) {
  if (every_ <= 0) throw std::invalid_argument("`every_n_step` must be a positive integer");
}

CsvLoggerHook::CsvLoggerHook(const Spec& s, HookEnv& env)
    : CsvLoggerHook(s.str("path"), s.int_or("every_n_step", 1), s.flag_or("append", true),
                    s.has_handle("listener_evaluation") ? env.evaluation(s, "listener_evaluation")
                                                        : EvaluationFn()) {}

CsvLoggerHook::~CsvLoggerHook() {
  if (file_ == nullptr) return;
  try {
    if (pending_) write_row();  // best effort: the loop stopped on an error
  } catch (...) {
  }
  std::fclose(file_);
}

std::string CsvLoggerHook::constructor() const { return "hook_csv_logger"; }

void CsvLoggerHook::begin(Session& s) {
  close();
  iter_ = 0;
  last_logged_ = ended_ = pending_ = false;
  awaiting_ = 0;
  sources_.clear();
  metrics_.clear();
  for (const auto& m : s.head().new_metrics()->result()) metrics_.push_back(m.first);
  const std::vector<std::string>& metrics = metrics_;
  std::string header = "step,mean_losses,total_losses";
  std::vector<std::string> columns;
  auto add_source = [&](const std::string& prefix, EvalRecords* records, bool after_me) {
    sources_.push_back(Source{records, columns.size(), after_me});
    for (const auto& m : metrics) {
      const std::string col = prefix + m;
      for (const auto& c : columns)
        if (c == col)
          throw std::invalid_argument(
              "hook_csv_logger(): two evaluations of the call write the column '" + col +
              "': give the evaluators distinct names");
      columns.push_back(col);
    }
  };
  if (listener_) add_source("eval_", nullptr, false);
  bool after_me = false, first = true;
  for (Hook* h : s.hooks()) {
    if (h == this) after_me = true;
    EvalRecords* records = h->evaluation_records();
    if (records == nullptr) continue;
    const std::string& name = records->name();
    add_source(first || name.empty() ? "eval_" : "eval_" + name + "_", records, after_me);
    first = false;
    records->observe(this);
  }
  for (const auto& c : columns) header += "," + quoted(c);
  evals_.assign(columns.size(), std::numeric_limits<double>::quiet_NaN());
  line_.reserve(32 * (3 + columns.size()) + 16);
  open(header);
}

void CsvLoggerHook::before_run(RunContext& ctx) {
  pull(*ctx.session);
  if (pending_) write_row();
}

void CsvLoggerHook::after_run(RunContext& ctx) {
  ++iter_;
  last_logged_ = (iter_ % every_ == 0);
  if (last_logged_) log_losses(*ctx.session);
}

void CsvLoggerHook::end(Session& s) {
  if (iter_ > 0 && !last_logged_) log_losses(s);
  pull(s);
  ended_ = true;
  // evaluators after this hook evaluate at their end() unless they just did
  for (const Source& src : sources_) {
    if (src.records == nullptr || !src.after_me) continue;
    const auto& r = src.records->records();
    if (r.empty() || r.back().step != s.global_step()) ++awaiting_;
  }
  if (awaiting_ == 0) finish();
}

void CsvLoggerHook::on_evaluation(const EvalRecord& record, Session&, RunContext*) {
  for (const Source& src : sources_) {
    if (src.records == nullptr || &src.records->records().back() != &record) continue;
    fill(src, record.step, record.metrics);
  }
  if (ended_ && awaiting_ > 0 && --awaiting_ == 0) finish();
}

void CsvLoggerHook::log_losses(const Session& s) {
  row(s.global_step());
  const BatchLosses b = batch_losses(s);
  mean_ = b.mean;
  total_ = b.total;
  has_losses_ = true;
}

void CsvLoggerHook::pull(Session& s) {
  if (!listener_) return;
  const MetricList m = listener_(s);
  if (!m.empty()) fill(sources_.front(), s.global_step(), m);
}

void CsvLoggerHook::fill(const Source& src, std::int64_t step, const MetricList& metrics) {
  row(step);
  for (const auto& m : metrics)
    for (std::size_t j = 0; j < metrics_.size(); ++j)
      if (metrics_[j] == m.first) evals_[src.first_column + j] = m.second;
}

void CsvLoggerHook::row(std::int64_t step) {
  if (pending_ && step_ == step) return;
  if (pending_) write_row();
  pending_ = true;
  step_ = step;
  has_losses_ = false;
}

void CsvLoggerHook::finish() {
  if (pending_) write_row();
  close();
}

void CsvLoggerHook::write_row() {
  pending_ = false;
  if (file_ == nullptr) return;
  line_.clear();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(step_));
  line_ += buf;
  append_number(has_losses_ ? mean_ : std::numeric_limits<double>::quiet_NaN(), buf);
  append_number(has_losses_ ? total_ : std::numeric_limits<double>::quiet_NaN(), buf);
  for (double& v : evals_) {
    append_number(v, buf);
    v = std::numeric_limits<double>::quiet_NaN();
  }
  line_ += '\n';
  if (std::fwrite(line_.data(), 1, line_.size(), file_) != line_.size() || std::fflush(file_) != 0)
    throw std::runtime_error(path_ + ": could not write the CSV log: " + std::strerror(errno));
}

void CsvLoggerHook::append_number(double v, char* buf) {
  line_ += ',';
  if (std::isnan(v)) {
    line_ += "NA";
  } else if (std::isinf(v)) {
    line_ += v > 0 ? "Inf" : "-Inf";
  } else {
    std::snprintf(buf, 40, "%.9g", v);
    line_ += buf;
  }
}

std::string CsvLoggerHook::quoted(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void CsvLoggerHook::open(const std::string& header) {
  bool has_rows = false;
  if (append_) {
    std::ifstream in(path_, std::ios::binary);
    std::string first;
    if (in && std::getline(in, first)) {
      has_rows = true;
      if (!first.empty() && first.back() == '\r') first.pop_back();
      if (first != header)
        throw std::invalid_argument("hook_csv_logger(): " + path_ + " has the columns '" + first +
                                    "', not those of this training, '" + header +
                                    "': give another path, or append = FALSE to overwrite it");
    }
  }
  file_ = std::fopen(path_.c_str(), has_rows ? "ab" : "wb");
  if (file_ == nullptr)
    throw std::runtime_error(path_ + ": could not open the CSV log: " + std::strerror(errno));
  if (!has_rows) {
    const std::string line = header + "\n";
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
      throw std::runtime_error(path_ + ": could not write the CSV log: " + std::strerror(errno));
  }
}

void CsvLoggerHook::close() {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
}

}  // namespace cppestimators
