#include <cppestimators/model/trees/histograms.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include <cppestimators/features/feature_batch.h>
#include <cppestimators/math/fast_math.h>
#include <cppestimators/math/logistic_step.h>
#include <cppestimators/parallel.h>
#include <cppestimators/model/heads/head.h>
#include <cppestimators/model/parameter.h>
#include <cppestimators/model/training_strategy.h>
#include <cppestimators/model/trees/quantiles.h>

namespace cppestimators {
namespace trees {

void Histograms::allocate(int threads, int max_rows, std::size_t slots, int total_bins, int k) {
  classes = k;
  hess.assign(static_cast<std::size_t>(max_rows) * static_cast<std::size_t>(k), 0.0f);
  totals.assign(static_cast<std::size_t>(threads) * 2 * slots * static_cast<std::size_t>(k), 0.0);
  hist.resize(static_cast<std::size_t>(threads));
  for (auto& h : hist) h.assign(slots * node_stride(total_bins, k), 0.0f);
  sums.assign(slots * node_stride(total_bins, k), 0.0);
  chunk_gh.assign(static_cast<std::size_t>(threads),
                  std::vector<float>(2 * static_cast<std::size_t>(kChunk), 0.0f));
}

#ifdef CPPESTIMATORS_VECTOR_TYPES
typedef float f2 __attribute__((vector_size(8)));
#endif

inline void Histograms::Run::flush(double* totals_t) {
  if (slot >= 0) {
    totals_t[2 * slot] += G;
    totals_t[2 * slot + 1] += H;
  }
  slot = -1;
  G = H = 0.0;
}

namespace {

// add_rows()'s loop over the rows for NF features (0: n_feats, known at run
// time only): with NF known, the features' loop is unrolled and their bin
// offsets stay in registers.
template <int NF, class B, class Add>
inline void rows_into_bins(const int* node, const B* all_bins, const int* ids, std::size_t n_feats,
                           const int* offset, int r0, int r1, int first, std::size_t stride,
                           const float* dl, const float* hs_in, int at, float scale, float* hist_t,
                           Add totals) {
  const std::size_t nf = NF > 0 ? static_cast<std::size_t>(NF) : n_feats;
  int off[NF > 0 ? NF : 1];
  if (NF > 0)
    for (int f = 0; f < NF; ++f) off[f] = offset[f];
  for (int r = r0; r < r1; ++r) {
    const int s = node[static_cast<std::size_t>(r)] - first;
    if (s < 0) continue;  // a leaf of an earlier layer that could not split
    const float g = dl[r - at], h = hs_in[r - at] * scale;
    float* hs = hist_t + static_cast<std::size_t>(s) * stride;
    const B* bins = all_bins + static_cast<std::size_t>(ids ? ids[r] : r) * nf;
#ifdef CPPESTIMATORS_VECTOR_TYPES
    const f2 gh = {g, h};  // (g, h) added as one pair: the same two float sums
    const auto add = [&](float* cell) {
      f2 c;
      __builtin_memcpy(&c, cell, sizeof c);
      c += gh;
      __builtin_memcpy(cell, &c, sizeof c);
    };
#else
    const auto add = [&](float* cell) {
      cell[0] += g;
      cell[1] += h;
    };
#endif
    if (NF > 0) {
#pragma GCC unroll 8
      for (int f = 0; f < NF; ++f)
        add(hs + 2 * (static_cast<std::size_t>(off[f]) + static_cast<std::size_t>(bins[f])));
    } else {
      for (std::size_t f = 0; f < nf; ++f)
        add(hs + 2 * (static_cast<std::size_t>(offset[f]) + static_cast<std::size_t>(bins[f])));
    }
    totals(g, h);
  }
}

}  // namespace

template <class B>
inline void Histograms::add_rows(const FeatureBatch& batch, const int* node, const B* all_bins,
                                 const Bucketizer& buckets, int r0, int r1, int first,
                                 std::size_t stride, const float* dl, const float* hs_in, int at,
                                 float scale, int slots, float* hist_t, Run& run) const {
  const std::size_t n_feats = buckets.features().size();
  const int* offset = buckets.bin_offsets().data();
  const int* ids = batch.whole_in_order ? nullptr : batch.row_ids;  // (else row r is data row r)
  // every row in one node: its totals in registers (else the nodes' totals
  // are the sums of their first feature's bins)
  double G = run.G, H = run.H;  // (the run's sums go on in the same order)
  const auto sum = [&G, &H](float g, float h) {
    G += g;
    H += h;
  };
  const auto none = [](float, float) {};
#define CPPESTIMATORS_ROWS_INTO_BINS(NF)                                                           \
  if (slots == 1)                                                                                  \
    rows_into_bins<NF>(node, all_bins, ids, n_feats, offset, r0, r1, first, stride, dl, hs_in, at, \
                       scale, hist_t, sum);                                                        \
  else                                                                                             \
    rows_into_bins<NF>(node, all_bins, ids, n_feats, offset, r0, r1, first, stride, dl, hs_in, at, \
                       scale, hist_t, none);
  switch (n_feats) {
    case 1:
      CPPESTIMATORS_ROWS_INTO_BINS(1)
      break;
    case 2:
      CPPESTIMATORS_ROWS_INTO_BINS(2)
      break;
    case 3:
      CPPESTIMATORS_ROWS_INTO_BINS(3)
      break;
    case 4:
      CPPESTIMATORS_ROWS_INTO_BINS(4)
      break;
    case 5:
      CPPESTIMATORS_ROWS_INTO_BINS(5)
      break;
    case 6:
      CPPESTIMATORS_ROWS_INTO_BINS(6)
      break;
    case 7:
      CPPESTIMATORS_ROWS_INTO_BINS(7)
      break;
    case 8:
      CPPESTIMATORS_ROWS_INTO_BINS(8)
      break;
    default:
      CPPESTIMATORS_ROWS_INTO_BINS(0)
  }
#undef CPPESTIMATORS_ROWS_INTO_BINS
  if (slots == 1) {
    run.slot = 0;
    run.G = G;
    run.H = H;
  }
}

template <class B>
inline void Histograms::add_rows_classes(const FeatureBatch& batch, const int* node,
                                         const B* all_bins, const Bucketizer& buckets, int r0,
                                         int r1, int first, std::size_t stride,
                                         const float* dlogits, float scale, float* hist_t,
                                         double* totals_t) const {
  const int k = classes;
  const std::size_t n_feats = buckets.features().size();
  const int* offset = buckets.bin_offsets().data();
  for (int r = r0; r < r1; ++r) {
    const int s = node[static_cast<std::size_t>(r)] - first;
    if (s < 0) continue;  // a leaf of an earlier layer that could not split
    const float* g = dlogits + static_cast<std::size_t>(r) * k;
    const float* hr = hess.data() + static_cast<std::size_t>(r) * k;
    float* hs = hist_t + static_cast<std::size_t>(s) * stride;
    const B* bins = all_bins + static_cast<std::size_t>(batch.row_ids[r]) * n_feats;
    for (std::size_t f = 0; f < n_feats; ++f) {
      float* cell = hs + 2 * k * (static_cast<std::size_t>(offset[f]) + bins[f]);
      for (int c = 0; c < k; ++c) {
        cell[2 * c] += g[c];
        cell[2 * c + 1] += hr[c] * scale;
      }
    }
    double* tot = totals_t + static_cast<std::size_t>(s) * 2 * k;
    for (int c = 0; c < k; ++c) {
      tot[2 * c] += g[c];
      tot[2 * c + 1] += hr[c] * scale;
    }
  }
}

template <class B>
StepStats Histograms::compute_stats(const FeatureBatch& batch, const float* logits,
                                    const float* dlogits, const Head& head, const int* node,
                                    const B* all_bins, const Bucketizer& buckets, int first,
                                    int slots, int threads,
                                    const std::function<bool(int)>& exists) {
  const int rows = batch.rows;
  const int k = classes;
  const std::size_t stride = node_stride(buckets.total_bins(), k);
  const std::size_t tail = 2 * static_cast<std::size_t>(k);  // the totals' values
  const float scale =
      1.0f / static_cast<float>(rows);  // hessians of the batch-mean loss (gradients come scaled)
  // Each thread adds a range of the batch's rows to its own histograms, in
  // float (as TensorFlow sums them), with the nodes' totals in double.
  parallel_for(threads, threads, [&](int t) {
    const int r0 = rows * t / threads, r1 = rows * (t + 1) / threads;
    if (!closed_form && !head.hessian(logits + static_cast<std::size_t>(r0) * k, nullptr, r1 - r0,
                                      hess.data() + static_cast<std::size_t>(r0) * k,
                                      batch.example_weights ? batch.example_weights + r0 : nullptr))
      no_hessian = true;
    std::vector<float>& h = hist[static_cast<std::size_t>(t)];
    std::fill(h.begin(),
              h.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(slots) * stride),
              0.0f);
    double* tot =
        totals.data() + static_cast<std::size_t>(t) * tail * static_cast<std::size_t>(slots);
    std::fill(tot, tot + tail * static_cast<std::size_t>(slots), 0.0);
    if (closed_form) {
      float* g = chunk_gh[static_cast<std::size_t>(t)].data();
      const float inv = 1.0f / static_cast<float>(rows);
      const float* w = batch.example_weights;
      Run run;
      for (int c0 = r0; c0 < r1; c0 += kChunk) {
        const int c1 = std::min(r1, c0 + kChunk);
        const std::size_t o = static_cast<std::size_t>(c0);
        fast::logistic_closed_form(logits + o, batch.labels + o, w ? w + o : nullptr, c1 - c0, inv,
                                   g, g + kChunk);
        add_rows(batch, node, all_bins, buckets, c0, c1, first, stride, g, g + kChunk, c0, scale,
                 slots, h.data(), run);
      }
      run.flush(tot);
    } else if (k == 1) {
      Run run;
      add_rows(batch, node, all_bins, buckets, r0, r1, first, stride, dlogits, hess.data(), 0,
               scale, slots, h.data(), run);
      run.flush(tot);
    } else
      add_rows_classes(batch, node, all_bins, buckets, r0, r1, first, stride, dlogits, scale,
                       h.data(), tot);
  });
  if (no_hessian)
    throw std::invalid_argument("this head has no second derivative for boosted trees");
  return reduce(buckets, first, slots, threads, exists);
}

template <class B>
StepStats Histograms::fused_stats(const FeatureBatch& batch, float* logits, float* per_example,
                                  const int* node, const B* all_bins, const Bucketizer& buckets,
                                  int first, int slots, int threads, bool wide,
                                  const std::function<void(int, int)>& walk,
                                  const std::function<bool(int)>& exists, double& loss) {
  const int rows = batch.rows;
  const std::size_t stride = node_stride(buckets.total_bins(), 1);
  const float scale = 1.0f / static_cast<float>(rows), inv = scale;
  double partial[64] = {0.0};
  const int t_count = std::min(threads, 64);
  parallel_for(t_count, t_count, [&](int t) {
    const int r0 = rows * t / t_count, r1 = rows * (t + 1) / t_count;
    std::vector<float>& h = hist[static_cast<std::size_t>(t)];
    std::fill(h.begin(),
              h.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(slots) * stride),
              0.0f);
    double* tot = totals.data() + static_cast<std::size_t>(t) * 2 * static_cast<std::size_t>(slots);
    std::fill(tot, tot + 2 * static_cast<std::size_t>(slots), 0.0);
    float* g = chunk_gh[static_cast<std::size_t>(t)].data();
    const float* w = batch.example_weights;
    Run run;
    double sum = 0.0;
    for (int c0 = r0; c0 < r1; c0 += kChunk) {
      const int c1 = std::min(r1, c0 + kChunk);
      const std::size_t o = static_cast<std::size_t>(c0);
      walk(c0, c1);
      sum += fast::logistic_step(wide, logits + o, batch.labels + o, w ? w + o : nullptr, c1 - c0,
                                 inv, per_example + o, g, g + kChunk);
      add_rows(batch, node, all_bins, buckets, c0, c1, first, stride, g, g + kChunk, c0, scale,
               slots, h.data(), run);
    }
    run.flush(tot);
    partial[t] = sum;
  });
  loss = 0.0;
  for (int t = 0; t < t_count; ++t) loss += partial[t];
  return reduce(buckets, first, slots, t_count, exists);
}

StepStats Histograms::reduce(const Bucketizer& buckets, int first, int slots, int threads,
                             const std::function<bool(int)>& exists) {
  const int k = classes;
  const std::size_t stride = node_stride(buckets.total_bins(), k);
  const std::size_t tail = 2 * static_cast<std::size_t>(k);  // the totals' values
  parallel_for(threads, threads, [&](int part) {             // slots split over the threads
    for (int s = slots * part / threads; s < slots * (part + 1) / threads; ++s) {
      double* out = sums.data() + static_cast<std::size_t>(s) * stride;
      if (!exists(first + s)) {
        std::fill(out, out + stride, 0.0);
        continue;
      }
      for (std::size_t i = 0; i < stride; ++i) {
        double sum = 0.0;
        if (i + tail < stride)
          for (int t = 0; t < threads; ++t)
            sum += hist[static_cast<std::size_t>(t)][static_cast<std::size_t>(s) * stride + i];
        else
          for (int t = 0; t < threads; ++t)
            sum +=
                totals[(static_cast<std::size_t>(t) * slots + static_cast<std::size_t>(s)) * tail +
                       (i + tail - stride)];
        out[i] = sum;
      }
      if (k == 1 && slots > 1) {  // a node's totals: its rows in the first feature's bins
        const int end =
            buckets.features().size() > 1 ? buckets.bin_offsets()[1] : buckets.total_bins();
        double G = 0.0, H = 0.0;
        for (int b = 0; b < end; ++b) {
          G += out[2 * b];
          H += out[2 * b + 1];
        }
        out[stride - 2] = G;
        out[stride - 1] = H;
      }
    }
  });
  threads_used = threads;
  StepStats stats;
  stats.sums = sums.data();
  stats.sum_count = static_cast<std::size_t>(slots) * stride;
  return stats;
}

template StepStats Histograms::compute_stats<std::uint8_t>(
    const FeatureBatch& batch, const float* logits, const float* dlogits, const Head& head,
    const int* node, const std::uint8_t* all_bins, const Bucketizer& buckets, int first, int slots,
    int threads, const std::function<bool(int)>& exists);
template StepStats Histograms::fused_stats<std::uint8_t>(
    const FeatureBatch& batch, float* logits, float* per_example, const int* node,
    const std::uint8_t* all_bins, const Bucketizer& buckets, int first, int slots, int threads,
    bool wide, const std::function<void(int, int)>& walk, const std::function<bool(int)>& exists,
    double& loss);
template StepStats Histograms::fused_stats<std::uint16_t>(
    const FeatureBatch& batch, float* logits, float* per_example, const int* node,
    const std::uint16_t* all_bins, const Bucketizer& buckets, int first, int slots, int threads,
    bool wide, const std::function<void(int, int)>& walk, const std::function<bool(int)>& exists,
    double& loss);
template StepStats Histograms::compute_stats<std::uint16_t>(
    const FeatureBatch& batch, const float* logits, const float* dlogits, const Head& head,
    const int* node, const std::uint16_t* all_bins, const Bucketizer& buckets, int first, int slots,
    int threads, const std::function<bool(int)>& exists);

void Accumulator::add_stats(const StepStats& step, int total_bins, int first, int slots,
                            int threads, bool fresh, const std::function<bool(int)>& exists) {
  const std::size_t k = static_cast<std::size_t>(classes);
  const std::size_t stride = node_stride(total_bins, classes);
  const std::size_t width = static_cast<std::size_t>(total_bins) * 2 * k, tail = 2 * k;
  if (step.sum_count != static_cast<std::size_t>(slots) * stride)
    throw std::logic_error("internal: boosted trees statistics of another layer");
  float* acc = stats->value.data();
  float* tot = totals->value.data();
  if (fresh) {
    std::fill(acc, acc + static_cast<std::size_t>(slots) * width, 0.0f);
    std::fill(tot, tot + static_cast<std::size_t>(slots) * tail, 0.0f);
  }
  parallel_for(threads, threads, [&](int part) {  // slots split over the threads
    for (int s = slots * part / threads; s < slots * (part + 1) / threads; ++s) {
      if (!exists(first + s)) continue;
      const double* in = step.sums + static_cast<std::size_t>(s) * stride;
      for (std::size_t i = 0; i < stride; ++i) {
        float& cell = i + tail < stride
                          ? acc[static_cast<std::size_t>(s) * width + i]
                          : tot[static_cast<std::size_t>(s) * tail + (i + tail - stride)];
        cell = static_cast<float>(cell + in[i]);
      }
    }
  });
}

}  // namespace trees
}  // namespace cppestimators
