// The R boundary of training across processes: a Collective whose
// operations are R functions (R/distributed.R implements them over a socket
// cluster's connections or over MPI), and the round's combination, which a
// socket cluster's driver computes once for every rank.
#include <Rcpp.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/distributed/collective.h>
#include <cppestimators/session/step_exchange.h>

#include "glue.h"

using cppestimators::Collective;
using cppestimators::StepExchange;

namespace {

Rcpp::RawVector raw_of(const std::string& s) {
  Rcpp::RawVector out(s.size());
  if (!s.empty()) std::copy(s.begin(), s.end(), out.begin());
  return out;
}

std::string string_of(SEXP x, const char* what) {
  if (TYPEOF(x) != RAWSXP) Rcpp::stop("internal: %s must return a raw vector", what);
  return std::string(reinterpret_cast<const char*>(RAW(x)), static_cast<std::size_t>(XLENGTH(x)));
}

// A rank of a job whose transport is R code: `fns` holds rank, size and the
// functions allgather(raw) -> list of raw, broadcast(raw or NULL, root) ->
// raw, abort(reason) and, optionally, allcombine(raw) -> raw (the driver of a
// socket cluster combines once, with cpp_round_combine()).
class RCollective final : public Collective {
 public:
  explicit RCollective(Rcpp::List fns)
      : fns_(fns),
        rank_(Rcpp::as<int>(fns["rank"])),
        size_(Rcpp::as<int>(fns["size"])),
        allgather_(fns["allgather"]),
        broadcast_(fns["broadcast"]),
        abort_(fns["abort"]),
        combines_(fns.containsElementNamed("allcombine") && !Rf_isNull(fns["allcombine"])) {
    if (size_ < 1 || rank_ < 0 || rank_ >= size_)
      Rcpp::stop("internal: rank %d of %d ranks", rank_, size_);
    if (combines_) allcombine_ = fns["allcombine"];
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void allreduce_sum(double* data, std::size_t n) override {
    std::string mine(reinterpret_cast<const char*>(data), n * sizeof(double));
    const std::vector<std::string> all = allgather(mine);
    for (std::size_t r = 0; r < all.size(); ++r)
      if (all[r].size() != mine.size())
        throw std::invalid_argument("allreduce_sum: rank " + std::to_string(r) + " gave " +
                                    std::to_string(all[r].size() / sizeof(double)) +
                                    " values, this rank " + std::to_string(n));
    for (std::size_t i = 0; i < n; ++i) {
      double sum = 0.0;
      for (std::size_t r = 0; r < all.size(); ++r) {
        double x;
        std::memcpy(&x, all[r].data() + i * sizeof(double), sizeof(double));
        sum = r == 0 ? x : sum + x;
      }
      data[i] = sum;
    }
  }

  std::vector<std::string> allgather(const std::string& bytes) override {
    Rcpp::List all = allgather_(raw_of(bytes));
    if (all.size() != size_)
      Rcpp::stop("internal: allgather gave %d parts for %d ranks", static_cast<int>(all.size()),
                 size_);
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(size_));
    for (R_xlen_t i = 0; i < all.size(); ++i) out.push_back(string_of(all[i], "allgather"));
    return out;
  }

  void broadcast(std::string& bytes, int root) override {
    SEXP got =
        broadcast_(rank_ == root ? Rcpp::RObject(raw_of(bytes)) : Rcpp::RObject(R_NilValue), root);
    if (rank_ != root) bytes = string_of(got, "broadcast");
  }

  std::string allcombine(const std::string& bytes, const Combiner& combine) override {
    if (!combines_) return Collective::allcombine(bytes, combine);
    Rcpp::Function f(allcombine_);
    return string_of(f(raw_of(bytes)), "allcombine");
  }

  void abort(const std::string& reason) override { abort_(reason); }

 private:
  Rcpp::List fns_;
  int rank_, size_;
  Rcpp::Function allgather_, broadcast_, abort_;
  bool combines_;
  Rcpp::RObject allcombine_;
};

}  // namespace

// A rank of a training job across processes, for cpp_session_new().
// [[Rcpp::export(rng = false)]]
SEXP cpp_r_collective(Rcpp::List fns) { return Rcpp::XPtr<Collective>(new RCollective(fns), true); }

// The combination of a round's parts (raw vectors, in rank order), as every
// rank computes it.
// [[Rcpp::export(rng = false)]]
Rcpp::RawVector cpp_round_combine(Rcpp::List parts) {
  std::vector<std::string> p;
  p.reserve(static_cast<std::size_t>(parts.size()));
  for (R_xlen_t i = 0; i < parts.size(); ++i) p.push_back(string_of(parts[i], "a round's part"));
  return raw_of(StepExchange::combine(p));
}

namespace {
std::vector<std::string> split_parts(const Rcpp::RawVector& all,
                                     const Rcpp::IntegerVector& counts) {
  std::vector<std::string> p;
  p.reserve(static_cast<std::size_t>(counts.size()));
  std::size_t at = 0;
  const char* data = reinterpret_cast<const char*>(RAW(all));
  for (R_xlen_t i = 0; i < counts.size(); ++i) {
    const std::size_t n = static_cast<std::size_t>(counts[i]);
    if (counts[i] < 0 || at + n > static_cast<std::size_t>(all.size()))
      Rcpp::stop("internal: the ranks' byte counts exceed what was gathered");
    p.emplace_back(data + at, n);
    at += n;
  }
  return p;
}
}  // namespace

// The ranks' parts gathered end to end (`all`, rank r's `counts[r]` bytes
// after the ranks before it), as a list of raw vectors.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_split_parts(Rcpp::RawVector all, Rcpp::IntegerVector counts) {
  const std::vector<std::string> p = split_parts(all, counts);
  Rcpp::List out(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) out[static_cast<R_xlen_t>(i)] = raw_of(p[i]);
  return out;
}

// cpp_round_combine() of parts gathered end to end.
// [[Rcpp::export(rng = false)]]
Rcpp::RawVector cpp_round_combine_flat(Rcpp::RawVector all, Rcpp::IntegerVector counts) {
  return raw_of(StepExchange::combine(split_parts(all, counts)));
}
