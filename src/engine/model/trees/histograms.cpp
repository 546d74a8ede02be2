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

void Histograms::allocate(int threads, int max_rows, int total_bins, int k) {
  classes = k;
  hess.assign(static_cast<std::size_t>(max_rows) * static_cast<std::size_t>(k), 0.0f);
  hist.resize(static_cast<std::size_t>(threads));
  prepare(threads, 1, node_stride(total_bins, k));
  chunk_gh.assign(static_cast<std::size_t>(threads),
                  std::vector<float>(2 * static_cast<std::size_t>(kChunk), 0.0f));
}

void Histograms::prepare(int threads, int count, std::size_t stride) {
  const std::size_t n = static_cast<std::size_t>(count) * stride;
  const std::size_t tail = 2 * static_cast<std::size_t>(classes) * static_cast<std::size_t>(count);
  if (hist.size() < static_cast<std::size_t>(threads))
    hist.resize(static_cast<std::size_t>(threads));
  // (a larger layer grows the buffers; a smaller one uses their start)
  if (totals.size() < static_cast<std::size_t>(threads) * tail)
    totals.resize(static_cast<std::size_t>(threads) * tail);
  if (sums.size() < n) sums.resize(n);
  for (int t = 0; t < threads; ++t) {
    std::vector<float>& h = hist[static_cast<std::size_t>(t)];
    if (h.size() < n) h.resize(n);
  }
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
                           const int* offset, int r0, int r1, int first, const int* slot,
                           std::size_t stride, const float* dl, const float* hs_in, int at,
                           float scale, float* hist_t, Add totals) {
  const std::size_t nf = NF > 0 ? static_cast<std::size_t>(NF) : n_feats;
  int off[NF > 0 ? NF : 1];
  if (NF > 0)
    for (int f = 0; f < NF; ++f) off[f] = offset[f];
  for (int r = r0; r < r1; ++r) {
    const int place = node[static_cast<std::size_t>(r)] - first;
    if (place < 0) continue;  // a leaf of an earlier layer that could not split
    const int s = slot[place];
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
                                 const Bucketizer& buckets, int r0, int r1, const LayerNodes& layer,
                                 std::size_t stride, const float* dl, const float* hs_in, int at,
                                 float scale, float* hist_t, Run& run) const {
  const int first = layer.first, slots = layer.width;
  const int* slot = layer.slot.data();
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
#define CPPESTIMATORS_ROWS_INTO_BINS(NF)                                                      \
  if (slots == 1)                                                                             \
    rows_into_bins<NF>(node, all_bins, ids, n_feats, offset, r0, r1, first, slot, stride, dl, \
                       hs_in, at, scale, hist_t, sum);                                        \
  else                                                                                        \
    rows_into_bins<NF>(node, all_bins, ids, n_feats, offset, r0, r1, first, slot, stride, dl, \
                       hs_in, at, scale, hist_t, none);
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
                                         int r1, const LayerNodes& layer, std::size_t stride,
                                         const float* dlogits, float scale, float* hist_t,
                                         double* totals_t) const {
  const int k = classes;
  const std::size_t n_feats = buckets.features().size();
  const int* offset = buckets.bin_offsets().data();
  for (int r = r0; r < r1; ++r) {
    const int place = node[static_cast<std::size_t>(r)] - layer.first;
    if (place < 0) continue;  // a leaf of an earlier layer that could not split
    const int s = layer.slot[static_cast<std::size_t>(place)];
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
StepStats Histograms::compute(const FeatureBatch& batch, const float* logits, const float* dlogits,
                              const Head& head, const int* node, const B* all_bins,
                              const Bucketizer& buckets, const LayerNodes& layer, int threads) {
  const int rows = batch.rows;
  const int k = classes;
  const int slots = layer.count();
  const std::size_t stride = node_stride(buckets.total_bins(), k);
  prepare(threads, slots, stride);
  const std::size_t tail = 2 * static_cast<std::size_t>(k);  // the totals' values
  const float scale =
      1.0f / static_cast<float>(rows);  // hessians of the batch-mean loss (gradients come scaled)
  // Each thread adds a range of the batch's rows to its own histograms, in
  // float (as TensorFlow sums them), with the nodes' totals in double.
  parallel_for(threads, threads, [&](int t) {
    const int r0 = rows * t / threads, r1 = rows * (t + 1) / threads;
    const float* labels = batch.labels != nullptr
                              ? batch.labels + static_cast<std::size_t>(r0) * head.label_dim()
                              : nullptr;
    if (!closed_form && !head.hessian(logits + static_cast<std::size_t>(r0) * k, labels, r1 - r0,
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
        add_rows(batch, node, all_bins, buckets, c0, c1, layer, stride, g, g + kChunk, c0, scale,
                 h.data(), run);
      }
      run.flush(tot);
    } else if (k == 1) {
      Run run;
      add_rows(batch, node, all_bins, buckets, r0, r1, layer, stride, dlogits, hess.data(), 0,
               scale, h.data(), run);
      run.flush(tot);
    } else
      add_rows_classes(batch, node, all_bins, buckets, r0, r1, layer, stride, dlogits, scale,
                       h.data(), tot);
  });
  if (no_hessian)
    throw std::invalid_argument("this head has no second derivative for boosted trees");
  return reduce(buckets, layer, threads);
}

template <class B>
StepStats Histograms::fused(const FeatureBatch& batch, float* logits, float* per_example,
                            const int* node, const B* all_bins, const Bucketizer& buckets,
                            const LayerNodes& layer, int threads, bool wide,
                            const std::function<void(int, int)>& walk, double& loss) {
  const int rows = batch.rows;
  const int slots = layer.count();
  const std::size_t stride = node_stride(buckets.total_bins(), 1);
  const float scale = 1.0f / static_cast<float>(rows), inv = scale;
  double partial[64] = {0.0};
  const int t_count = std::min(threads, 64);
  prepare(t_count, slots, stride);
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
      add_rows(batch, node, all_bins, buckets, c0, c1, layer, stride, g, g + kChunk, c0, scale,
               h.data(), run);
    }
    run.flush(tot);
    partial[t] = sum;
  });
  loss = 0.0;
  for (int t = 0; t < t_count; ++t) loss += partial[t];
  return reduce(buckets, layer, t_count);
}

StepStats Histograms::reduce(const Bucketizer& buckets, const LayerNodes& layer, int threads) {
  const int k = classes;
  const int slots = layer.count();
  const std::size_t stride = node_stride(buckets.total_bins(), k);
  const std::size_t tail = 2 * static_cast<std::size_t>(k);  // the totals' values
  parallel_for(threads, threads, [&](int part) {             // slots split over the threads
    for (int s = slots * part / threads; s < slots * (part + 1) / threads; ++s) {
      double* out = sums.data() + static_cast<std::size_t>(s) * stride;
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
      if (k == 1 && layer.width > 1) {  // a node's totals: its rows in the first feature's bins
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

template StepStats Histograms::compute<std::uint8_t>(const FeatureBatch& batch, const float* logits,
                                                     const float* dlogits, const Head& head,
                                                     const int* node, const std::uint8_t* all_bins,
                                                     const Bucketizer& buckets,
                                                     const LayerNodes& layer, int threads);
template StepStats Histograms::compute<std::uint16_t>(const FeatureBatch& batch,
                                                      const float* logits, const float* dlogits,
                                                      const Head& head, const int* node,
                                                      const std::uint16_t* all_bins,
                                                      const Bucketizer& buckets,
                                                      const LayerNodes& layer, int threads);
template StepStats Histograms::fused<std::uint8_t>(
    const FeatureBatch& batch, float* logits, float* per_example, const int* node,
    const std::uint8_t* all_bins, const Bucketizer& buckets, const LayerNodes& layer, int threads,
    bool wide, const std::function<void(int, int)>& walk, double& loss);
template StepStats Histograms::fused<std::uint16_t>(
    const FeatureBatch& batch, float* logits, float* per_example, const int* node,
    const std::uint16_t* all_bins, const Bucketizer& buckets, const LayerNodes& layer, int threads,
    bool wide, const std::function<void(int, int)>& walk, double& loss);

void LayerNodes::reached(int layer, const int* node, int rows) {
  first = (1 << layer) - 1;
  width = 1 << layer;
  slot.assign(static_cast<std::size_t>(width), -1);
  for (int r = 0; r < rows; ++r) {
    const int place = node[r] - first;
    if (place >= 0) slot[static_cast<std::size_t>(place)] = 0;
  }
  nodes.clear();
  for (int p = 0; p < width; ++p)
    if (slot[static_cast<std::size_t>(p)] == 0) {
      slot[static_cast<std::size_t>(p)] = static_cast<int>(nodes.size());
      nodes.push_back(first + p);
    } else {
      slot[static_cast<std::size_t>(p)] = -1;
    }
}

void Accumulator::index(int first, int width) {
  first_ = first;
  rows_.assign(static_cast<std::size_t>(width), -1);
  const float* id = nodes->value.data();
  for (int i = 0; i < count(); ++i) {
    const int place = static_cast<int>(id[i]) - first;
    if (place >= 0 && place < width) rows_[static_cast<std::size_t>(place)] = i;
  }
}

bool Accumulator::add(const StepStats& step, int total_bins, const LayerNodes& held, int threads,
                      bool fresh) {
  const std::size_t k = static_cast<std::size_t>(classes);
  const std::size_t stride = node_stride(total_bins, classes);
  const std::size_t width = static_cast<std::size_t>(total_bins) * 2 * k, tail = 2 * k;
  const int slots = held.count();
  if (step.sum_count != static_cast<std::size_t>(slots) * stride)
    throw std::logic_error("internal: boosted trees statistics of another layer");
  const int before = count();
  if (fresh) {
    // (emptied before resizing: nothing of the last layer is copied)
    for (Parameter* p : {stats, totals, nodes}) resize_growable(*p, 0);
  }
  index(held.first, held.width);
  int rows = count();
  for (int s = 0; s < slots; ++s)
    if (row_of(held.nodes[static_cast<std::size_t>(s)]) < 0) ++rows;
  if (rows != count()) {  // nodes met for the first time: rows of zeros
    const int at = count();
    for (Parameter* p : {stats, totals, nodes}) resize_growable(*p, static_cast<std::size_t>(rows));
    int next = at;
    for (int s = 0; s < slots; ++s) {
      const int node = held.nodes[static_cast<std::size_t>(s)];
      if (row_of(node) >= 0) continue;
      nodes->value[static_cast<std::size_t>(next)] = static_cast<float>(node);
      rows_[static_cast<std::size_t>(node - first_)] = next++;
    }
  }
  float* acc = stats->value.data();
  float* tot = totals->value.data();
  parallel_for(threads, threads, [&](int part) {  // nodes split over the threads
    for (int s = slots * part / threads; s < slots * (part + 1) / threads; ++s) {
      const double* in = step.sums + static_cast<std::size_t>(s) * stride;
      const std::size_t row =
          static_cast<std::size_t>(row_of(held.nodes[static_cast<std::size_t>(s)]));
      for (std::size_t i = 0; i < stride; ++i) {
        float& cell =
            i + tail < stride ? acc[row * width + i] : tot[row * tail + (i + tail - stride)];
        cell = static_cast<float>(cell + in[i]);
      }
    }
  });
  return count() != before;
}

bool Accumulator::adopt_places(int first, int width) {
  if (count() != 0 || totals->value.empty()) return false;
  const int rows = std::min(width, static_cast<int>(totals->value.size() / (2 * classes)));
  for (Parameter* p : {stats, totals}) resize_growable(*p, static_cast<std::size_t>(rows));
  resize_growable(*nodes, static_cast<std::size_t>(rows));
  for (int s = 0; s < rows; ++s)
    nodes->value[static_cast<std::size_t>(s)] = static_cast<float>(first + s);
  return true;
}

}  // namespace trees
}  // namespace cppestimators
