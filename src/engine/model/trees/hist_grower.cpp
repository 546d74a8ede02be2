#include <cppestimators/model/trees/hist_grower.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <cppestimators/math/fast_math.h>
#include <cppestimators/model/trees/constraints.h>
#include <cppestimators/parallel.h>

namespace cppestimators {
namespace trees {

namespace {

// The pieces a large node's rows are split into (a fixed number, so that a
// tree does not depend on the threads).
constexpr int kPieces = 4;
constexpr int kParallelRows = 8192;
// ... when nodes split one at a time ("lossguide": GBM-perf's shape took
// 12.6-13.8 s with 2,048, 14.4-16.4 s with 8,192)
constexpr int kParallelRowsAlone = 2048;

inline int bin_at(const BinMatrix& x, const HistFeature& f, std::int64_t row) {
  return x.bin(f.wide, f.column, row);
}

inline bool in_categories(const GrownTree& t, const GrownNode& n, int category) {
  const int* b = t.categories.data() + n.cat_begin;
  return std::binary_search(b, b + n.cat_count, category);
}

}  // namespace

int Grower::small_rows() const {
  const int nf = std::max<int>(1, static_cast<int>(f_->features().size()));
  return std::min(256, std::max(16, f_->total_bins() / nf / 2));
}

int Grower::take_slot() {
  if (!free_.empty()) {
    const int s = free_.back();
    free_.pop_back();
    return s;
  }
  pool_.emplace_back(static_cast<std::size_t>(f_->total_bins()) * 2, 0.0);
  return static_cast<int>(pool_.size()) - 1;
}

void Grower::give_slot(int s) {
  if (s >= 0) free_.push_back(s);
}

double Grower::score(double g, double h, double extra_l2) const {
  const double t = g > p_.l1 ? g - p_.l1 : g < -p_.l1 ? g + p_.l1 : 0.0;
  const double d = h + p_.l2 + extra_l2;
  return d > 0.0 ? t * t / d : 0.0;
}

double Grower::weight(double g, double h) const {
  const double t = g > p_.l1 ? g - p_.l1 : g < -p_.l1 ? g + p_.l1 : 0.0;
  const double d = h + p_.l2;
  return d > 0.0 ? -t / d : 0.0;
}

double Grower::bounded_weight(const Open& o, double g, double h) const {
  return std::min(o.hi, std::max(o.lo, weight(g, h)));
}

double Grower::gain_at(double g, double h, double w, double extra_l2) const {
  const double t = g > p_.l1 ? g - p_.l1 : g < -p_.l1 ? g + p_.l1 : 0.0;
  return -(2.0 * t * w + (h + p_.l2 + extra_l2) * w * w);
}

bool Grower::allowed(const Open& o, int j) const {
  if (p_.feature_sets == nullptr || o.sets < 0) return true;
  return shares_a_set(
      sets_.data() + o.sets,
      p_.feature_sets + static_cast<std::size_t>(j) * static_cast<std::size_t>(p_.set_words),
      p_.set_words);
}

void Grower::constrain_children(const Open& o, Open& l, Open& r) {
  l.lo = r.lo = o.lo;
  l.hi = r.hi = o.hi;
  const int j = o.best.feature;
  const int c = p_.monotone != nullptr ? p_.monotone[j] : 0;
  if (c != 0) {
    const double mid = 0.5 * (bounded_weight(o, l.g, l.h) + bounded_weight(o, r.g, r.h));
    if (c > 0) {
      l.hi = mid;
      r.lo = mid;
    } else {
      l.lo = mid;
      r.hi = mid;
    }
  }
  if (p_.feature_sets != nullptr) {
    // the sets both the node and its feature are in
    const std::size_t words = static_cast<std::size_t>(p_.set_words);
    const int at = static_cast<int>(sets_.size());
    const std::uint64_t* f = p_.feature_sets + static_cast<std::size_t>(j) * words;
    for (std::size_t w = 0; w < words; ++w)
      sets_.push_back(o.sets < 0 ? f[w] : sets_[static_cast<std::size_t>(o.sets) + w] & f[w]);
    l.sets = r.sets = at;
  }
}

bool Grower::splittable(const Open& o) const {
  return (p_.max_depth <= 0 || o.depth < p_.max_depth) && o.n >= 2 &&
         o.h >= 2.0 * p_.min_child_weight && o.h > 0.0;
}

void Grower::leaf(const Open& o) {
  for (int i = o.begin; i < o.end; ++i)
    leaf_row_[static_cast<std::size_t>(idx_[static_cast<std::size_t>(i)])] = o.node;
}

namespace {

// A bin's (g, h): one 16-byte load, add and store where the compiler has
// vector types.
#ifdef CPPESTIMATORS_VECTOR_TYPES
typedef double d2 __attribute__((vector_size(16)));
inline d2 load_pair(const double* p) {
  d2 c;
  std::memcpy(&c, p, sizeof c);
  return c;
}
inline void store_pair(double* p, d2 c) { std::memcpy(p, &c, sizeof c); }
#else
struct d2 {
  double g, h;
};
inline d2 load_pair(const double* p) { return {p[0], p[1]}; }
inline void store_pair(double* p, d2 c) {
  p[0] = c.g;
  p[1] = c.h;
}
inline d2 operator+(d2 a, d2 b) { return {a.g + b.g, a.h + b.h}; }
#endif
inline void add_pair(double* p, d2 gh) { store_pair(p, load_pair(p) + gh); }

}  // namespace

void Grower::accumulate(int b, int e, double* h) const {
  const std::size_t total = static_cast<std::size_t>(f_->total_bins()) * 2;
  const std::size_t nw = static_cast<std::size_t>(x_->narrow_width),
                    ww = static_cast<std::size_t>(x_->wide_width);
  std::fill(h, h + total, 0.0);
  const std::uint8_t* narrow = x_->narrow.data();
  const std::uint16_t* wide = x_->wide.data();
  const int* noff = narrow_off_.data();
  const int* woff = wide_off_.data();
  const int* rows = idx_.data();
  const std::size_t nw4 = nw & ~static_cast<std::size_t>(3);
  for (int i = b; i < e; ++i) {
    const std::size_t r = static_cast<std::size_t>(rows[i]);
    if (i + 16 < e) {  // the rows of a deep node are not contiguous
      const std::size_t ahead = static_cast<std::size_t>(rows[i + 16]);
      __builtin_prefetch(narrow + ahead * nw);
      if (ww > 0) __builtin_prefetch(wide + ahead * ww);
      __builtin_prefetch(gh_ + ahead);
    }
    const d2 gh = {static_cast<double>(gh_[r].g), static_cast<double>(gh_[r].h)};
    const std::uint8_t* nb = narrow + r * nw;
    // four features at a time: their bins are in disjoint ranges, so the
    // four read-add-writes are independent (the compiler can not know)
    std::size_t c = 0;
    for (; c < nw4; c += 4) {
      double* p0 = h + 2 * static_cast<std::size_t>(noff[c] + nb[c]);
      double* p1 = h + 2 * static_cast<std::size_t>(noff[c + 1] + nb[c + 1]);
      double* p2 = h + 2 * static_cast<std::size_t>(noff[c + 2] + nb[c + 2]);
      double* p3 = h + 2 * static_cast<std::size_t>(noff[c + 3] + nb[c + 3]);
      const d2 a0 = load_pair(p0) + gh, a1 = load_pair(p1) + gh, a2 = load_pair(p2) + gh,
               a3 = load_pair(p3) + gh;
      store_pair(p0, a0);
      store_pair(p1, a1);
      store_pair(p2, a2);
      store_pair(p3, a3);
    }
    for (; c < nw; ++c) add_pair(h + 2 * static_cast<std::size_t>(noff[c] + nb[c]), gh);
    const std::uint16_t* wb = wide + r * ww;
    for (std::size_t k = 0; k < ww; ++k)
      add_pair(h + 2 * static_cast<std::size_t>(woff[k] + wb[k]), gh);
  }
}

void Grower::build_hist(const Open& o, double* dst) {
  const std::size_t total = static_cast<std::size_t>(f_->total_bins()) * 2;
  const int cnt = o.end - o.begin;
  // (pieces by the rows alone, summed in order: the same sums on any threads)
  if (cnt < parallel_rows_) {
    accumulate(o.begin, o.end, dst);
    if (across_ != nullptr) across_->sum(dst, total);
    return;
  }
  if (piece_hist_.size() < kPieces - 1) piece_hist_.resize(kPieces - 1);
  for (auto& ph : piece_hist_) ph.resize(total);
  parallel_for(kPieces, threads_, [&](int k) {
    const int b = o.begin + static_cast<int>(static_cast<std::int64_t>(cnt) * k / kPieces);
    const int e = o.begin + static_cast<int>(static_cast<std::int64_t>(cnt) * (k + 1) / kPieces);
    accumulate(b, e, k == 0 ? dst : piece_hist_[static_cast<std::size_t>(k) - 1].data());
  });
  const int chunks = 8;
  parallel_for(chunks, threads_, [&](int c) {
    const std::size_t b = total * static_cast<std::size_t>(c) / chunks,
                      e = total * static_cast<std::size_t>(c + 1) / chunks;
    for (std::size_t i = b; i < e; ++i) {
      double s = dst[i];
      for (const auto& ph : piece_hist_) s += ph[i];
      dst[i] = s;
    }
  });
  if (across_ != nullptr) across_->sum(dst, total);
}

void Grower::subtract(double* larger, const double* smaller) {
  const std::size_t total = static_cast<std::size_t>(f_->total_bins()) * 2;
  for (std::size_t i = 0; i < total; ++i) larger[i] -= smaller[i];
}

void Grower::feature_list(const Open& o, int j, Scratch& s, double& gm, double& hm) {
  const HistFeature& f = f_->features()[static_cast<std::size_t>(j)];
  s.list.clear();
  gm = hm = 0.0;
  // a bin is empty when its hessian is nothing next to the node's (a
  // subtracted histogram leaves rounding residue in empty bins)
  const double eps = std::max(1e-12, std::abs(o.h) * 1e-10);
  if (o.slot >= 0) {
    const double* h = pool_[static_cast<std::size_t>(o.slot)].data() + 2 * f.offset;
    if (h[1] > eps) {
      gm = h[0];
      hm = h[1];
    }
    for (int b = 1; b < f.bins; ++b)
      if (h[2 * b + 1] > eps) s.list.push_back({b, h[2 * b], h[2 * b + 1]});
    return;
  }
  const int cnt = o.end - o.begin;
  s.keys.resize(static_cast<std::size_t>(cnt));
  for (int i = 0; i < cnt; ++i) {
    const int row = idx_[static_cast<std::size_t>(o.begin + i)];
    s.keys[static_cast<std::size_t>(i)] =
        (static_cast<std::uint32_t>(bin_at(*x_, f, row)) << 16) | static_cast<std::uint32_t>(i);
  }
  std::sort(s.keys.begin(), s.keys.end());
  for (int i = 0; i < cnt;) {
    const std::uint32_t b = s.keys[static_cast<std::size_t>(i)] >> 16;
    double g = 0.0, h = 0.0;
    for (; i < cnt && (s.keys[static_cast<std::size_t>(i)] >> 16) == b; ++i) {
      const std::size_t r =
          static_cast<std::size_t>(idx_[static_cast<std::size_t>(o.begin) +
                                        (s.keys[static_cast<std::size_t>(i)] & 0xFFFFu)]);
      g += gh_[r].g;
      h += gh_[r].h;
    }
    if (!(h > eps)) continue;
    if (b == 0) {
      gm = g;
      hm = h;
    } else {
      s.list.push_back({static_cast<int>(b), g, h});
    }
  }
}

void Grower::scan(const Open& o, int j, Scratch& s, double gm, double hm, Split& best,
                  std::vector<int>& best_set) const {
  best = Split{};
  best_set.clear();
  const HistFeature& f = f_->features()[static_cast<std::size_t>(j)];
  const double G = o.g, H = o.h;
  const double mcw = p_.min_child_weight, floor_gain = std::max(p_.gamma, 1e-6);
  const bool missing = hm > 0.0;
  int won = -1;  // which candidate won (categorical: its position)
  bool won_desc = false;
  // monotone constraints: the weights within the node's bounds, in order
  const int mono = p_.monotone != nullptr ? p_.monotone[j] : 0;
  const bool bounded = mono != 0 || o.lo > -kUnbounded || o.hi < kUnbounded;
  const auto consider = [&](double lg, double lh, bool dl, int bin, double extra) {
    const double rg = G - lg, rh = H - lh;
    if (lh < mcw || rh < mcw || !(lh > 0.0) || !(rh > 0.0)) return false;
    double gain;
    if (bounded) {
      const double wl = bounded_weight(o, lg, lh), wr = bounded_weight(o, rg, rh);
      if ((mono > 0 && wl > wr) || (mono < 0 && wl < wr)) return false;
      gain = gain_at(lg, lh, wl, extra) + gain_at(rg, rh, wr, extra) -
             gain_at(G, H, bounded_weight(o, G, H), extra);
    } else {
      gain = score(lg, lh, extra) + score(rg, rh, extra) - score(G, H, extra);
    }
    if (!(gain > floor_gain) || !(gain > best.gain)) return false;
    best.feature = j;
    best.bin = bin;
    best.default_left = dl;
    best.gain = gain;
    best.lg = lg;
    best.lh = lh;
    return true;
  };
  const int n = static_cast<int>(s.list.size());
  if (f.kind != HistFeature::Categorical) {
    double gl = 0.0, hl = 0.0;
    for (int i = 0; i < n; ++i) {
      gl += s.list[static_cast<std::size_t>(i)].g;
      hl += s.list[static_cast<std::size_t>(i)].h;
      const int bin = s.list[static_cast<std::size_t>(i)].bin;
      const bool last = i == n - 1;
      if (!last || missing) consider(gl, hl, missing ? false : hl >= H - hl, bin, 0.0);
      if (missing && !last) consider(gl + gm, hl + hm, true, bin, 0.0);
    }
    return;
  }
  if (n + (missing ? 1 : 0) < 2) return;
  if (n <= p_.max_cat_to_onehot) {
    for (int i = 0; i < n; ++i) {
      const BinStat& c = s.list[static_cast<std::size_t>(i)];
      if (consider(c.g, c.h, missing ? false : c.h >= H - c.h, c.bin, 0.0)) won = i;
      if (missing && consider(c.g + gm, c.h + hm, true, c.bin, 0.0)) won = i;
    }
    if (won >= 0) {
      best.categorical = true;
      best_set.push_back(s.list[static_cast<std::size_t>(won)].bin - 1);
    }
    return;
  }
  const double per_h = static_cast<double>(o.n) / H;  // rows per unit of hessian
  s.order.clear();
  for (int i = 0; i < n; ++i)
    if (s.list[static_cast<std::size_t>(i)].h * per_h >= p_.min_data_per_group)
      s.order.push_back(i);
  const int m = static_cast<int>(s.order.size());
  if (m < 1) return;
  const double smooth = p_.cat_smooth, cat_l2 = p_.cat_l2;
  std::sort(s.order.begin(), s.order.end(), [&](int a, int b) {
    const BinStat& x = s.list[static_cast<std::size_t>(a)];
    const BinStat& y = s.list[static_cast<std::size_t>(b)];
    const double kx = x.g / (x.h + smooth), ky = y.g / (y.h + smooth);
    return kx < ky || (kx == ky && x.bin < y.bin);
  });
  const int most = std::max(1, std::min(p_.max_cat_threshold, (m + 1) / 2));
  for (int dir = 0; dir < 2; ++dir) {
    double gl = 0.0, hl = 0.0;
    for (int k = 0; k < most && k < m; ++k) {
      const int i = s.order[static_cast<std::size_t>(dir == 0 ? k : m - 1 - k)];
      gl += s.list[static_cast<std::size_t>(i)].g;
      hl += s.list[static_cast<std::size_t>(i)].h;
      bool hit = consider(gl, hl, missing ? false : hl >= H - hl, 0, cat_l2);
      if (missing && consider(gl + gm, hl + hm, true, 0, cat_l2)) hit = true;
      if (hit) {
        won = k;
        won_desc = dir == 1;
      }
    }
  }
  if (won >= 0) {
    best.categorical = true;
    for (int k = 0; k <= won; ++k) {
      const int i = s.order[static_cast<std::size_t>(won_desc ? m - 1 - k : k)];
      best_set.push_back(s.list[static_cast<std::size_t>(i)].bin - 1);
    }
    std::sort(best_set.begin(), best_set.end());
  }
}

void Grower::evaluate(Open& o) {
  const int nf = static_cast<int>(f_->features().size());
  const auto one = [&](int j) {
    Split& b = per_feature_[static_cast<std::size_t>(j)];
    if ((use_ != nullptr && use_[j] == 0) || !allowed(o, j)) {
      b = Split{};
      return;
    }
    Scratch& s = scratch_[static_cast<std::size_t>(j)];
    double gm = 0.0, hm = 0.0;
    feature_list(o, j, s, gm, hm);
    scan(o, j, s, gm, hm, b, per_feature_set_[static_cast<std::size_t>(j)]);
  };
  const std::int64_t work =
      o.slot >= 0 ? f_->total_bins() : static_cast<std::int64_t>(o.end - o.begin) * nf * 8;
  if (threads_ > 1 && work >= 8192)
    parallel_for(nf, threads_, one);
  else
    for (int j = 0; j < nf; ++j) one(j);
  Split best;
  for (int j = 0; j < nf; ++j) {
    const Split& b = per_feature_[static_cast<std::size_t>(j)];
    if (b.feature >= 0 && b.gain > best.gain) best = b;
  }
  if (best.categorical) {
    const std::vector<int>& set = per_feature_set_[static_cast<std::size_t>(best.feature)];
    best.cat_begin = static_cast<int>(cats_.size());
    best.cat_count = static_cast<int>(set.size());
    cats_.insert(cats_.end(), set.begin(), set.end());
  }
  o.best = best;
}

void Grower::partition(Open& o, int& mid, int classify) {
  const Split& s = o.best;
  const HistFeature& f = f_->features()[static_cast<std::size_t>(s.feature)];
  // the side of every bin of the feature (1: left), read once per row
  // without a branch: the rows' sides are as good as random
  side_.assign(static_cast<std::size_t>(f.bins), 0);
  side_[0] = s.default_left ? 1 : 0;
  if (s.categorical) {
    for (int k = 0; k < s.cat_count; ++k) {
      const std::size_t b =
          static_cast<std::size_t>(cats_[static_cast<std::size_t>(s.cat_begin + k)]) + 1;
      if (b < side_.size()) side_[b] = 1;
    }
  } else {
    for (int b = 1; b <= s.bin && b < f.bins; ++b) side_[static_cast<std::size_t>(b)] = 1;
  }
  const std::uint8_t* side = side_.data();
  const std::uint8_t* col8 =
      f.wide ? nullptr : x_->narrow_cols.data() + static_cast<std::size_t>(f.column) * x_->rows;
  const std::uint16_t* col16 =
      f.wide ? x_->wide_cols.data() + static_cast<std::size_t>(f.column) * x_->rows : nullptr;
  const int cnt = o.end - o.begin;
  int* idx = idx_.data() + o.begin;
  // rows [b, e) of the node: fn(i, row, left) for each, with the bins of
  // the rows kAhead on fetched early (a deep node's rows are far apart)
  constexpr int kAhead = 32;
  const auto each = [&](int b, int e, auto&& fn) {
    if (col8 != nullptr) {
      for (int i = b; i < e; ++i) {
        if (i + kAhead < e) __builtin_prefetch(col8 + idx[i + kAhead]);
        const int row = idx[i];
        fn(i, row, static_cast<int>(side[col8[row]]));
      }
    } else {
      for (int i = b; i < e; ++i) {
        if (i + kAhead < e) __builtin_prefetch(col16 + idx[i + kAhead]);
        const int row = idx[i];
        fn(i, row, static_cast<int>(side[col16[row]]));
      }
    }
  };
  if (classify >= 0) {
    // children that are leaves: each row's leaf, the rows left in place
    int* leaf = leaf_row_.data();
    const int pieces = cnt < parallel_rows_ || threads_ <= 1 ? 1 : kPieces * 2;
    parallel_for(pieces, threads_, [&](int k) {
      const int b = static_cast<int>(static_cast<std::int64_t>(cnt) * k / pieces);
      const int e = static_cast<int>(static_cast<std::int64_t>(cnt) * (k + 1) / pieces);
      each(b, e, [&](int, int row, int left) { leaf[row] = classify + 1 - left; });
    });
    mid = o.begin;
  } else if (cnt < parallel_rows_ || threads_ <= 1) {
    // lefts move down in place (never past the row being read), rights to tmp_
    int l = 0, r = 0;
    int* right = tmp_.data();
    each(0, cnt, [&](int, int row, int left) {
      idx[l] = row;
      right[r] = row;
      l += left;
      r += 1 - left;
    });
    std::copy(tmp_.begin(), tmp_.begin() + r, idx + l);
    mid = o.begin + l;
  } else {
    // one read of each row's bin: every piece writes its left rows to tmp_
    // and its right rows to tmp2_ from its own start, then the pieces' runs
    // are copied into place (lefts first), keeping ascending order
    const int pieces = kPieces * 2;
    piece_left_.assign(static_cast<std::size_t>(pieces) + 1, 0);
    if (tmp2_.size() < tmp_.size()) tmp2_.resize(tmp_.size());
    const auto bounds = [&](int k) {
      return static_cast<int>(static_cast<std::int64_t>(cnt) * k / pieces);
    };
    parallel_for(pieces, threads_, [&](int k) {
      int l = bounds(k), r = bounds(k);
      int* lefts = tmp_.data();
      int* rights = tmp2_.data();
      each(bounds(k), bounds(k + 1), [&](int, int row, int left) {
        lefts[l] = row;
        rights[r] = row;
        l += left;
        r += 1 - left;
      });
      piece_left_[static_cast<std::size_t>(k) + 1] = l - bounds(k);
    });
    for (int k = 0; k < pieces; ++k)
      piece_left_[static_cast<std::size_t>(k) + 1] += piece_left_[static_cast<std::size_t>(k)];
    const std::int64_t lefts = piece_left_[static_cast<std::size_t>(pieces)];
    parallel_for(pieces, threads_, [&](int k) {
      const int b = bounds(k), e = bounds(k + 1);
      const std::int64_t l0 = piece_left_[static_cast<std::size_t>(k)];
      const std::int64_t nl = piece_left_[static_cast<std::size_t>(k) + 1] - l0;
      std::copy(tmp_.begin() + b, tmp_.begin() + b + nl, idx + l0);
      // rights before this piece: the rows before it minus their lefts
      const std::int64_t r0 = lefts + (b - l0);
      std::copy(tmp2_.begin() + b, tmp2_.begin() + (e - nl), idx + r0);
    });
    mid = o.begin + static_cast<int>(lefts);
  }
}

void Grower::set_node(const Open& o) {
  GrownNode& g = out_->nodes[static_cast<std::size_t>(o.node)];
  g.value = bounded_weight(o, o.g, o.h) * p_.learning_rate;
  g.cover = o.h;
}

void Grower::split_open(Open& o, Children& c, int& leaves) {
  GrownTree& out = *out_;
  int mid = o.begin;
  const int left = static_cast<int>(out.nodes.size());
  // children that can not split whatever their rows: their rows' leaves
  // are noted without moving the rows
  c.last = (p_.max_depth > 0 && o.depth + 1 >= p_.max_depth) ||
           (p_.max_leaves > 0 && leaves + 1 >= p_.max_leaves);
  c.build = -1;
  partition(o, mid, c.last ? left : -1);
  {
    GrownNode& g = out.nodes[static_cast<std::size_t>(o.node)];
    g.feature = o.best.feature;
    g.left = left;
    g.bin = o.best.bin;
    g.default_left = o.best.default_left;
    g.categorical = o.best.categorical;
    g.gain = o.best.gain;
    if (o.best.categorical) {
      g.cat_begin = static_cast<int>(out.categories.size());
      g.cat_count = o.best.cat_count;
      out.categories.insert(out.categories.end(), cats_.begin() + o.best.cat_begin,
                            cats_.begin() + o.best.cat_begin + o.best.cat_count);
    }
  }
  out.nodes.emplace_back();
  out.nodes.emplace_back();
  ++leaves;
  Open& l = c.l;
  Open& r = c.r;
  l = Open{};
  r = Open{};
  l.begin = o.begin;
  l.end = mid;
  r.begin = mid;
  r.end = o.end;
  l.depth = r.depth = o.depth + 1;
  l.node = left;
  r.node = left + 1;
  l.n = mid - o.begin;
  if (across_ != nullptr && !c.last) {
    double count = static_cast<double>(l.n);
    across_->sum(&count, 1);
    l.n = static_cast<std::int64_t>(count);
  }
  r.n = o.n - l.n;
  l.g = o.best.lg;
  l.h = o.best.lh;
  r.g = o.g - l.g;
  r.h = o.h - l.h;
  constrain_children(o, l, r);
  set_node(l);
  set_node(r);
  if (c.last) {
    give_slot(o.slot);
    return;
  }
  if (o.slot >= 0) {
    if (splittable(l) || splittable(r)) {
      // the smaller child's histogram is built (by the caller), the larger
      // one's is the parent's minus it, in the parent's buffer
      c.build = l.n <= r.n ? 0 : 1;
      Open& small = c.build == 0 ? l : r;
      Open& big = c.build == 0 ? r : l;
      small.slot = take_slot();
      big.slot = o.slot;
    } else {
      give_slot(o.slot);
    }
  }
}

void Grower::grow(const BinMatrix& x, const HistFeatures& feats, const GradPair* gh,
                  const int* rows, int n, const GrowParams& p, const char* use, int threads,
                  GrownTree& out, RankSums* across) {
  across_ = across;
  x_ = &x;
  f_ = &feats;
  gh_ = gh;
  use_ = use;
  p_ = p;
  threads_ = std::max(1, threads);
  // (leaf-wise, one node at a time: a smaller node is worth sharing)
  parallel_rows_ = p.lossguide ? kParallelRowsAlone : kParallelRows;
  out_ = &out;
  out.clear();
  cats_.clear();
  sets_.clear();
  open_.clear();
  const std::size_t nf = feats.features().size();
  const std::size_t total = static_cast<std::size_t>(feats.total_bins()) * 2;
  if (!pool_.empty() && pool_[0].size() != total) {
    pool_.clear();
    free_.clear();
    piece_hist_.clear();
  }
  free_.clear();
  for (std::size_t s = pool_.size(); s-- > 0;) free_.push_back(static_cast<int>(s));
  if (scratch_.size() < nf) scratch_.resize(nf);
  per_feature_.resize(nf);
  per_feature_set_.resize(nf);
  narrow_off_.assign(static_cast<std::size_t>(x.narrow_width), 0);
  wide_off_.assign(static_cast<std::size_t>(x.wide_width), 0);
  for (const HistFeature& f : feats.features())
    (f.wide ? wide_off_ : narrow_off_)[static_cast<std::size_t>(f.column)] = f.offset;
  idx_.assign(rows, rows + n);
  // each row's leaf (-1: a row the tree did not see)
  if (leaf_row_.size() != static_cast<std::size_t>(x.rows) || n < x.rows)
    leaf_row_.assign(static_cast<std::size_t>(x.rows), -1);
  tmp_.resize(static_cast<std::size_t>(n));

  Open root;
  root.begin = 0;
  root.end = n;
  for (int i = 0; i < n; ++i) {
    root.g += gh[rows[i]].g;
    root.h += gh[rows[i]].h;
  }
  root.n = n;
  if (across_ != nullptr) {
    double sums[3] = {root.g, root.h, static_cast<double>(n)};
    across_->sum(sums, 3);
    root.g = sums[0];
    root.h = sums[1];
    root.n = static_cast<std::int64_t>(sums[2]);
  }
  out.nodes.emplace_back();
  set_node(root);
  int leaves = 1;
  // a node whose split is found: kept open (with its histogram when big
  // enough for its children to use), else a leaf
  const auto settle = [&](Open& o) {
    if (splittable(o)) {
      evaluate(o);
    } else {
      o.best = Split{};
    }
    if (o.best.feature < 0) {
      give_slot(o.slot);
      o.slot = -1;
      leaf(o);
      return;
    }
    if (o.slot >= 0 && across_ == nullptr && !p_.direct_histograms && o.n < small_rows()) {
      give_slot(o.slot);
      o.slot = -1;
    }
    open_.push_back(o);
  };
  if (splittable(root)) {
    root.slot = take_slot();
    build_hist(root, slot(root.slot));
  }
  settle(root);
  std::size_t head = 0;
  while (head < open_.size()) {
    if (p_.max_leaves > 0 && leaves >= p_.max_leaves) break;
    if (p_.lossguide) {  // the largest gain first; ties to the lower node
      std::size_t pick = head;
      for (std::size_t k = head + 1; k < open_.size(); ++k) {
        const Open& a = open_[k];
        const Open& b = open_[pick];
        if (a.best.gain > b.best.gain || (a.best.gain == b.best.gain && a.node < b.node)) pick = k;
      }
      if (pick != head) {
        const Open moved = open_[pick];
        open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(pick));
        open_.insert(open_.begin() + static_cast<std::ptrdiff_t>(head), moved);
      }
    }
    // depth-wise, with threads: the nodes of this depth split one after
    // another, then their children's histograms built on the threads at
    // once (a deep node's rows are too few to share), then settled in order
    const bool batch = !p_.lossguide && across_ == nullptr && !p_.direct_histograms && threads_ > 1;
    const int depth = open_[head].depth;
    children_.clear();
    while (head < open_.size() && (children_.empty() || (batch && open_[head].depth == depth))) {
      if (p_.max_leaves > 0 && leaves >= p_.max_leaves) break;
      Open o = open_[head++];
      Children c;
      split_open(o, c, leaves);
      children_.push_back(c);
    }
    // the smaller children's histograms: those of few rows a thread each
    const int nc = static_cast<int>(children_.size());
    if (nc > 1) {
      parallel_for(nc, threads_, [&](int k) {
        const Children& c = children_[static_cast<std::size_t>(k)];
        if (c.build < 0) return;
        const Open& small = c.build == 0 ? c.l : c.r;
        if (small.end - small.begin < kParallelRows)
          accumulate(small.begin, small.end, slot(small.slot));
      });
    }
    for (Children& c : children_) {
      if (c.build >= 0) {
        Open& small = c.build == 0 ? c.l : c.r;
        Open& big = c.build == 0 ? c.r : c.l;
        if (nc <= 1 || small.end - small.begin >= kParallelRows)
          build_hist(small, slot(small.slot));
        if (p_.direct_histograms)
          build_hist(big, slot(big.slot));
        else
          subtract(slot(big.slot), slot(small.slot));
      }
      if (!c.last) {
        settle(c.l);
        settle(c.r);
      }
    }
  }
  for (std::size_t k = head; k < open_.size(); ++k) {
    give_slot(open_[k].slot);
    leaf(open_[k]);
  }
  open_.clear();
}

int Grower::leaf_of(const BinMatrix& x, const HistFeatures& feats, const GrownTree& t,
                    std::int64_t row) {
  int node = 0;
  for (;;) {
    const GrownNode& n = t.nodes[static_cast<std::size_t>(node)];
    if (n.feature < 0) return node;
    const HistFeature& f = feats.features()[static_cast<std::size_t>(n.feature)];
    const int b = bin_at(x, f, row);
    const bool left = b == 0          ? n.default_left
                      : n.categorical ? in_categories(t, n, b - 1)
                                      : b <= n.bin;
    node = left ? n.left : n.left + 1;
  }
}

}  // namespace trees
}  // namespace cppestimators
