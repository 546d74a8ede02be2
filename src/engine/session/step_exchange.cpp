// A round's bytes (distributed/step_exchange.h), in the io/ codec's
// little-endian layout so that hosts of one job need not share a byte order:
//   u32 magic | RoundHead (8 f64) | u64 n, n f32 per-example losses |
//   u32 kind: 0 nothing, 1 gradients, 2 sums
//   gradients: u32 count, then per gradient: u32 parameter, u32 sparse,
//     u64 n (dense: values; sparse: rows), u64 width (sparse: floats per row),
//     then dense: n f32; sparse: n i64 rows, n x width f32
//   sums: u64 n, n f64
#include <cppestimators/session/step_exchange.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cppestimators/distributed/collective.h>
#include <cppestimators/io/little_endian.h>
#include <cppestimators/model/estimator.h>

namespace cppestimators {
// (named, not anonymous: the engine compiles as one unit)
namespace step_bytes {

using detail::LittleEndianReader;

constexpr std::uint32_t kMagic = 0x31584543;  // "CEX1"
constexpr std::uint32_t kNothing = 0, kGradients = 1, kSums = 2;

double load_f64(const char* p) { return detail::double_from_bits(detail::load_u64(p)); }

double f64(LittleEndianReader& in, const char* field) {
  return detail::double_from_bits(in.u64(field));
}

void put_head(std::string& out, const RoundHead& h) {
  for (double v :
       {h.batches, h.data_ranks, h.stops, h.loss, h.rows, h.weight_sum, h.pe_total, h.pe_weight})
    detail::put_f64(out, v);
}

RoundHead read_head(LittleEndianReader& in) {
  if (in.u32("magic") != kMagic)
    throw std::invalid_argument("a round's bytes are not a training step's (wrong magic)");
  RoundHead h;
  h.batches = f64(in, "head");
  h.data_ranks = f64(in, "head");
  h.stops = f64(in, "head");
  h.loss = f64(in, "head");
  h.rows = f64(in, "head");
  h.weight_sum = f64(in, "head");
  h.pe_total = f64(in, "head");
  h.pe_weight = f64(in, "head");
  return h;
}

// One gradient of a part as read (views into the part's bytes).
struct GradView {
  std::uint32_t param = 0;
  bool sparse = false;
  std::uint64_t n = 0, width = 1;
  const char* rows = nullptr;    // sparse: n i64
  const char* values = nullptr;  // dense: n f32; sparse: n x width f32
};

// A part's statistics: its gradients or its sums.
struct PartView {
  RoundHead head;
  std::uint64_t n_losses = 0;
  const char* losses = nullptr;
  std::size_t stats_at = 0;  // where the kind starts
  std::uint32_t kind = kNothing;
  std::vector<GradView> grads;
  std::uint64_t sum_count = 0;
  const char* sums = nullptr;
};

// Appends n values, each converted by `bits` to its fixed-width pattern,
// growing the string once (a round carries up to millions of them).
template <class T, class Bits>
void append_all(std::string& out, const T* v, std::size_t n, std::size_t width, Bits bits) {
  const std::size_t at = out.size();
  out.resize(at + n * width);
  char* p = &out[at];
  for (std::size_t i = 0; i < n; ++i, p += width) {
    if (width == 4)
      detail::store_u32(p, static_cast<std::uint32_t>(bits(v[i])));
    else
      detail::store_u64(p, static_cast<std::uint64_t>(bits(v[i])));
  }
}
void append_f32(std::string& out, const float* v, std::size_t n) {
  append_all(out, v, n, 4, [](float x) { return detail::float_bits(x); });
}
void append_f32(std::string& out, const double* v, std::size_t n) {  // rounded to float
  append_all(out, v, n, 4, [](double x) { return detail::float_bits(static_cast<float>(x)); });
}
void append_f64(std::string& out, const double* v, std::size_t n) {
  append_all(out, v, n, 8, [](double x) { return detail::double_bits(x); });
}
void append_i64(std::string& out, const std::int64_t* v, std::size_t n) {
  append_all(out, v, n, 8, [](std::int64_t x) { return static_cast<std::uint64_t>(x); });
}

// Where the next `count` items of `width` bytes start; the reader moves past them.
const char* skip(LittleEndianReader& in, std::uint64_t count, std::size_t width,
                 const std::string& data, const char* field) {
  in.need(count, width, field);  // count x width fits in what remains: no overflow below
  const char* p = data.data() + in.pos();
  in = LittleEndianReader(data.data(), data.size(),
                          in.pos() + static_cast<std::size_t>(count) * width);
  return p;
}

PartView read_part(const std::string& bytes) {
  detail::LittleEndianReader in(bytes.data(), bytes.size());
  PartView v;
  try {
    v.head = read_head(in);
    v.n_losses = in.u64("losses");
    v.losses = skip(in, v.n_losses, 4, bytes, "losses");
    v.stats_at = in.pos();
    v.kind = in.u32("kind");
    if (v.kind == kGradients) {
      const std::uint32_t count = in.u32("gradients");
      v.grads.resize(count);
      for (GradView& g : v.grads) {
        g.param = in.u32("parameter");
        g.sparse = in.u32("sparse") != 0;
        g.n = in.u64("size");
        g.width = in.u64("width");
        if (g.width == 0 || g.width > (1u << 30))
          throw std::invalid_argument("a round's gradient has rows of " + std::to_string(g.width) +
                                      " values");
        if (g.sparse) {
          g.rows = skip(in, g.n, 8, bytes, "rows");
          g.values = skip(in, g.n, 4 * g.width, bytes, "values");
        } else {
          g.values = skip(in, g.n, 4, bytes, "values");
        }
      }
    } else if (v.kind == kSums) {
      v.sum_count = in.u64("sums");
      v.sums = skip(in, v.sum_count, 8, bytes, "sums");
    } else if (v.kind != kNothing) {
      throw std::invalid_argument("a round's bytes hold statistics of unknown kind " +
                                  std::to_string(v.kind));
    }
  } catch (const detail::TruncatedInput& e) {
    throw std::invalid_argument("a round's bytes end inside their " + e.field());
  }
  return v;
}

std::uint32_t index_of(const Parameter* p, const std::vector<Parameter*>& params) {
  for (std::size_t i = 0; i < params.size(); ++i)
    if (params[i] == p) return static_cast<std::uint32_t>(i);
  throw std::logic_error("internal: a gradient of a parameter the model does not list");
}

// Whether two parts' statistics have one shape (what their combination needs).
void check_same_shape(const PartView& a, const PartView& b, std::size_t rank) {
  const std::string who = "rank " + std::to_string(rank) + "'s statistics differ from rank 0's";
  if (a.kind != b.kind) throw std::invalid_argument(who + " (another kind of training)");
  if (a.kind == kSums && a.sum_count != b.sum_count)
    throw std::invalid_argument(who + " (" + std::to_string(b.sum_count) + " sums, not " +
                                std::to_string(a.sum_count) + ")");
  if (a.kind != kGradients) return;
  if (a.grads.size() != b.grads.size())
    throw std::invalid_argument(who + " (another number of gradients)");
  for (std::size_t i = 0; i < a.grads.size(); ++i) {
    const GradView &x = a.grads[i], &y = b.grads[i];
    if (x.param != y.param || x.sparse != y.sparse || x.width != y.width ||
        (!x.sparse && x.n != y.n))
      throw std::invalid_argument(who + " (gradient " + std::to_string(i + 1) +
                                  " has another parameter or shape)");
  }
}

}  // namespace step_bytes

std::string StepExchange::pack(const RoundHead& head, const float* losses, std::size_t n_losses,
                               const StepStats& stats,
                               const std::vector<Parameter*>& params) const {
  std::string out;
  std::size_t bytes = 4 + 8 * 8 + 8 + 4 * n_losses + 4;
  if (stats.gradients != nullptr)
    for (const Gradient& g : *stats.gradients)
      bytes += 24 + (g.sparse && !g.zero_elsewhere ? g.count * (8 + 4 * g.param->row_width)
                                                   : 4 * g.param->value.size());
  if (stats.sums != nullptr) bytes += 8 + 8 * stats.sum_count;
  out.reserve(bytes);
  detail::put_u32(out, step_bytes::kMagic);
  step_bytes::put_head(out, head);
  detail::put_u64(out, n_losses);
  step_bytes::append_f32(out, losses, n_losses);
  if (stats.gradients != nullptr) {
    detail::put_u32(out, step_bytes::kGradients);
    detail::put_u32(out, static_cast<std::uint32_t>(stats.gradients->size()));
    for (const Gradient& g : *stats.gradients) {
      // (a dense variable's gradient given by rows travels as the dense
      // gradient it is: summed over the ranks, it is applied as one)
      const bool by_rows = g.sparse && !g.zero_elsewhere;
      detail::put_u32(out, step_bytes::index_of(g.param, params));
      detail::put_u32(out, by_rows ? 1u : 0u);
      const std::uint64_t width = by_rows ? g.param->row_width : 1;
      const std::uint64_t n = by_rows ? g.count : g.param->value.size();
      detail::put_u64(out, n);
      detail::put_u64(out, width);
      if (g.sparse && !by_rows) {
        std::vector<float> dense(g.param->value.size(), 0.0f);
        const std::size_t w = g.param->row_width;
        for (std::size_t k = 0; k < g.count; ++k)
          std::copy(
              g.values + k * w, g.values + (k + 1) * w,
              dense.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(g.rows[k]) * w));
        step_bytes::append_f32(out, dense.data(), dense.size());
      } else if (by_rows) {
        step_bytes::append_i64(out, g.rows, static_cast<std::size_t>(n));
        step_bytes::append_f32(out, g.values, static_cast<std::size_t>(n * width));
      } else {
        step_bytes::append_f32(out, g.dense, static_cast<std::size_t>(n));
      }
    }
  } else if (stats.sums != nullptr) {
    detail::put_u32(out, step_bytes::kSums);
    detail::put_u64(out, stats.sum_count);
    step_bytes::append_f64(out, stats.sums, stats.sum_count);
  } else {
    detail::put_u32(out, step_bytes::kNothing);
  }
  return out;
}

std::string StepExchange::combine(const std::vector<std::string>& parts) {
  if (parts.empty()) throw std::invalid_argument("a round of no ranks");
  std::vector<step_bytes::PartView> views;
  views.reserve(parts.size());
  for (const std::string& p : parts) views.push_back(step_bytes::read_part(p));
  RoundHead head;
  for (const step_bytes::PartView& v : views) {
    head.batches += v.head.batches;
    head.data_ranks += v.head.data_ranks;
    head.stops += v.head.stops;
    head.loss += v.head.loss;
    head.rows += v.head.rows;
    head.weight_sum += v.head.weight_sum;
    head.pe_total += v.head.pe_total;
    head.pe_weight += v.head.pe_weight;
  }
  // the parts with statistics, in rank order
  std::vector<std::size_t> with;
  for (std::size_t r = 0; r < views.size(); ++r)
    if (views[r].kind != step_bytes::kNothing) with.push_back(r);
  std::string out;
  detail::put_u32(out, step_bytes::kMagic);
  step_bytes::put_head(out, head);
  std::uint64_t n_losses = 0;
  for (const step_bytes::PartView& v : views) n_losses += v.n_losses;
  detail::put_u64(out, head.ends() ? 0 : n_losses);
  if (!head.ends())
    for (const step_bytes::PartView& v : views)
      out.append(v.losses, static_cast<std::size_t>(v.n_losses) * 4);  // as they are
  if (with.empty() || head.ends()) {
    detail::put_u32(out, step_bytes::kNothing);
    return out;
  }
  const step_bytes::PartView& first = views[with.front()];
  for (std::size_t r : with) step_bytes::check_same_shape(first, views[r], r);
  if (with.size() == 1) {  // one contribution: its statistics as they are
    out.append(parts[with.front()], first.stats_at, std::string::npos);
    return out;
  }
  if (first.kind == step_bytes::kSums) {
    detail::put_u32(out, step_bytes::kSums);
    detail::put_u64(out, first.sum_count);
    std::vector<double> sum(static_cast<std::size_t>(first.sum_count));
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = step_bytes::load_f64(first.sums + 8 * i);
    for (std::size_t k = 1; k < with.size(); ++k) {
      const char* s = views[with[k]].sums;
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += step_bytes::load_f64(s + 8 * i);
    }
    step_bytes::append_f64(out, sum.data(), sum.size());
    return out;
  }
  detail::put_u32(out, step_bytes::kGradients);
  detail::put_u32(out, static_cast<std::uint32_t>(first.grads.size()));
  std::vector<double> acc;
  for (std::size_t gi = 0; gi < first.grads.size(); ++gi) {
    const step_bytes::GradView& g0 = first.grads[gi];
    detail::put_u32(out, g0.param);
    detail::put_u32(out, g0.sparse ? 1u : 0u);
    if (!g0.sparse) {
      detail::put_u64(out, g0.n);
      detail::put_u64(out, 1);
      acc.assign(static_cast<std::size_t>(g0.n), 0.0);
      for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = detail::load_f32(g0.values + 4 * i);
      for (std::size_t k = 1; k < with.size(); ++k) {
        const char* x = views[with[k]].grads[gi].values;
        for (std::size_t i = 0; i < acc.size(); ++i) acc[i] += detail::load_f32(x + 4 * i);
      }
      step_bytes::append_f32(out, acc.data(), acc.size());
      continue;
    }
    // sparse: every rank's rows, a row's values added in rank order
    struct Entry {
      std::int64_t row;
      std::size_t part, at;
    };
    std::vector<Entry> entries;
    for (std::size_t k = 0; k < with.size(); ++k) {
      const step_bytes::GradView& g = views[with[k]].grads[gi];
      for (std::uint64_t i = 0; i < g.n; ++i)
        entries.push_back(Entry{detail::load_i64(g.rows + 8 * i), k, static_cast<std::size_t>(i)});
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.row < b.row; });
    const std::size_t width = static_cast<std::size_t>(g0.width);
    std::vector<std::int64_t> rows;
    std::vector<double> values;
    for (const Entry& e : entries) {
      if (rows.empty() || rows.back() != e.row) {
        rows.push_back(e.row);
        values.resize(values.size() + width, 0.0);
      }
      const char* src = views[with[e.part]].grads[gi].values + 4 * e.at * width;
      double* dst = values.data() + values.size() - width;
      for (std::size_t j = 0; j < width; ++j) dst[j] += detail::load_f32(src + 4 * j);
    }
    detail::put_u64(out, rows.size());
    detail::put_u64(out, width);
    step_bytes::append_i64(out, rows.data(), rows.size());
    step_bytes::append_f32(out, values.data(), values.size());
  }
  return out;
}

RoundHead StepExchange::unpack(const std::string& combined, const std::vector<Parameter*>& params,
                               StepStats& stats) {
  const step_bytes::PartView v = step_bytes::read_part(combined);
  losses_.resize(static_cast<std::size_t>(v.n_losses));
  for (std::size_t i = 0; i < losses_.size(); ++i) losses_[i] = detail::load_f32(v.losses + 4 * i);
  stats = StepStats();
  stats.batches = static_cast<int>(v.head.batches);
  if (v.kind == step_bytes::kSums) {
    sums_.resize(static_cast<std::size_t>(v.sum_count));
    for (std::size_t i = 0; i < sums_.size(); ++i) sums_[i] = step_bytes::load_f64(v.sums + 8 * i);
    stats.sums = sums_.data();
    stats.sum_count = sums_.size();
  } else if (v.kind == step_bytes::kGradients) {
    grads_.resize(v.grads.size());
    floats_.resize(v.grads.size());
    rows_.resize(v.grads.size());
    for (std::size_t i = 0; i < v.grads.size(); ++i) {
      const step_bytes::GradView& g = v.grads[i];
      if (g.param >= params.size())
        throw std::invalid_argument("a round's gradient names parameter " +
                                    std::to_string(g.param) + " of a model of " +
                                    std::to_string(params.size()));
      Parameter& p = *params[g.param];
      Gradient& out = grads_[i];
      out = Gradient();
      out.param = &p;
      out.sparse = g.sparse;
      std::vector<float>& f = floats_[i];
      const std::size_t nf = static_cast<std::size_t>(g.n * (g.sparse ? g.width : 1));
      if (g.sparse ? g.width != p.row_width : g.n != p.value.size())
        throw std::invalid_argument("a round's gradient of '" +
                                    (p.views.empty() ? std::string("?") : p.views[0].name) +
                                    "' has another shape than this rank's parameter");
      f.resize(nf);
      for (std::size_t k = 0; k < nf; ++k) f[k] = detail::load_f32(g.values + 4 * k);
      if (g.sparse) {
        std::vector<std::int64_t>& r = rows_[i];
        r.resize(static_cast<std::size_t>(g.n));
        for (std::size_t k = 0; k < r.size(); ++k) {
          r[k] = detail::load_i64(g.rows + 8 * k);
          if (r[k] < 0 || static_cast<std::size_t>(r[k]) >= p.rows())
            throw std::invalid_argument("a round's sparse gradient names row " +
                                        std::to_string(r[k]) + " of a parameter of " +
                                        std::to_string(p.rows()) + " rows");
        }
        out.rows = r.data();
        out.values = f.data();
        out.count = r.size();
      } else {
        out.dense = f.data();
      }
    }
    stats.gradients = &grads_;
  }
  return v.head;
}

void broadcast_estimator(Estimator& est, Collective& collective, int root) {
  std::string bytes;
  if (collective.rank() == root) {
    detail::put_i64(bytes, est.global_step());
    detail::put_f64(bytes, est.learning_rate_scale());
    detail::put_u32(bytes, est.uses_learning_rate_scale() ? 1u : 0u);
    detail::put_u32(bytes, static_cast<std::uint32_t>(est.variables().size()));
    for (const VariableRef& v : est.variables()) {
      detail::put_u32(bytes, static_cast<std::uint32_t>(v.name.size()));
      bytes += v.name;
      detail::put_u64(bytes, v.size);
      step_bytes::append_f32(bytes, v.data, v.size);
    }
  }
  collective.broadcast(bytes, root);
  if (collective.rank() == root) return;
  detail::LittleEndianReader in(bytes.data(), bytes.size());
  try {
    const std::int64_t step = in.i64("global step");
    const double scale = detail::double_from_bits(in.u64("scale"));
    if (in.u32("scale in use") != 0 && !est.uses_learning_rate_scale())
      est.use_learning_rate_scale();
    est.set_learning_rate_scale(scale);
    const std::uint32_t count = in.u32("variables");
    // (read first: growable variables take the chief's lengths before the
    // table is matched)
    struct Entry {
      std::string name;
      std::uint64_t n;
      std::vector<float> values;
    };
    std::vector<Entry> entries(count);
    for (Entry& e : entries) {
      in.bytes(in.u32("name"), &e.name, "name");
      e.n = in.u64("size");
      e.values.resize(static_cast<std::size_t>(e.n));
      for (float& x : e.values) x = in.f32("values");
      est.fit_growable(e.name, {static_cast<std::int64_t>(e.n)});
    }
    est.refresh_variables();
    if (count != est.variables().size())
      throw std::invalid_argument("the chief's model has " + std::to_string(count) +
                                  " variables, this rank's " +
                                  std::to_string(est.variables().size()));
    for (std::size_t k = 0; k < entries.size(); ++k) {
      const VariableRef& v = est.variables()[k];
      const Entry& e = entries[k];
      if (e.name != v.name || e.n != v.size)
        throw std::invalid_argument("the chief's variable '" + e.name + "' (" +
                                    std::to_string(e.n) + " values) is not this rank's '" + v.name +
                                    "' (" + std::to_string(v.size) + ")");
      std::copy(e.values.begin(), e.values.end(), v.data);
    }
    est.variables_loaded();
    est.set_global_step(step);
  } catch (const detail::TruncatedInput& e) {
    throw std::invalid_argument("the chief's estimator state ends inside its " + e.field());
  }
}

}  // namespace cppestimators
