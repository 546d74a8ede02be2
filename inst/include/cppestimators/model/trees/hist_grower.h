// One tree of the histogram growths, grown from every sampled row's
// gradient and hessian, computed once per tree (xgboost's "hist" and
// LightGBM's method):
//
// - The rows are partitioned node by node (one index array, each node a
//   range of it, kept in ascending row order). A node's histogram holds, per
//   bin of every feature, the sums of its rows' gradients and hessians, in
//   double. Splitting a node builds the smaller child's histogram from its
//   rows and takes the larger one's as the parent's minus it, in the
//   parent's buffer. Nodes with few rows (below small_rows(), where a
//   histogram costs more than its rows) find their split from their rows
//   sorted by bin instead, with the same candidates. Histograms exist only
//   for the nodes that may still split, in a pool of buffers reused across
//   trees.
// - Split gain on xgboost's scale: with T(G) = sign(G) max(|G| - l1, 0) and
//   S(G, H) = T(G)^2 / (H + l2), gain = S(left) + S(right) - S(node); a
//   split needs gain > max(gamma, 1e-6) and both children's hessians >=
//   min_child_weight. Leaf value: -T(G) / (H + l2) times the learning rate.
// - Missing values (bin 0) go to the side that gains more, learnt per split
//   (when a node had none, to the side with the larger hessian).
// - A categorical feature splits into two sets of categories. With at most
//   max_cat_to_onehot (64) categories present in the node, one category
//   against the rest (the splits one-hot columns give: on modeldata's
//   lending_club, 5 splits, mean held-out AUC 0.701 against 0.676 for sets
//   of categories there); with more, LightGBM's method: the categories seen
//   on at least min_data_per_group rows (counts estimated from the
//   hessians, as LightGBM does), sorted by G / (H + cat_smooth), and the
//   best prefix of at most max_cat_threshold of them from either end, with
//   l2 + cat_l2 in the gain. The set goes left; every other category goes
//   right. (Each setting is a spec field of the same name.)
// - "depthwise" expands every splittable node of a depth before the next
//   (to max_depth); "lossguide" expands the leaf of largest gain first
//   until max_leaves leaves (and max_depth when > 0). Ties go to the
//   feature, bin and node of lower index, so a tree depends on its data
//   only, not on threads.
// - Monotone constraints (xgboost's): a feature constrained to increase
//   (decrease) takes no split whose left child's weight is above (below)
//   its right child's; every node's weight is held within bounds its
//   ancestors set: past a constrained split, the left subtree's weights
//   are at most (at least) the mean of the two children's weights and the
//   right subtree's at least (at most) it. Gains are computed with the
//   weights as bounded. Every tree is then monotone in the feature.
// - Interaction constraints: sets of features; a node may split on a
//   feature that shares a set with every feature split on above it (a
//   feature in no set is a set of its own), so a path's features all come
//   from one set.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hist_bins.h"

namespace cppestimators {
namespace trees {

struct GrowParams {
  bool lossguide = false;
  int max_depth = 6;   // 0: no limit (lossguide)
  int max_leaves = 0;  // 0: no limit (depthwise)
  double l1 = 0.0, l2 = 1.0, gamma = 0.0, min_child_weight = 1.0;
  double learning_rate = 0.3;
  int max_cat_to_onehot = 64, max_cat_threshold = 32, min_data_per_group = 10;
  double cat_smooth = 10.0, cat_l2 = 10.0;
  // Every node's histogram built from its rows (no subtraction, no split
  // from sorted rows): the reference the tests compare the fast paths to.
  bool direct_histograms = false;
  // Per feature, -1, 0 or 1 (null: no feature constrained).
  const signed char* monotone = nullptr;
  // Per feature, `set_words` words of bits: the interaction sets it is in
  // (null: no constraint).
  const std::uint64_t* feature_sets = nullptr;
  int set_words = 0;
};

// A node of a grown tree. Children are made in pairs: right = left + 1.
struct GrownNode {
  int feature = -1;  // -1: a leaf
  int left = -1;
  int bin = 0;                       // numeric, ordinal: left when 0 < bin <= this
  bool default_left = true;          // where bin 0 (missing) goes
  bool categorical = false;          // left when the category is in the set
  int cat_begin = 0, cat_count = 0;  // the set: categories[cat_begin, + cat_count), ascending
  double value = 0.0;                // the learning rate times the node's weight
  double gain = 0.0;
  double cover = 0.0;  // the node's hessian sum
};

struct GrownTree {
  std::vector<GrownNode> nodes;
  std::vector<int> categories;
  void clear() {
    nodes.clear();
    categories.clear();
  }
};

struct GradPair {
  float g, h;
};

// Sums over the ranks of a training across processes, added in rank order
// (distributed/collective.h): a tree grown by W ranks from their rows is
// the tree one process grows from all of them.
class RankSums {
 public:
  virtual ~RankSums() = default;
  virtual void sum(double* data, std::size_t n) = 0;
};

class Grower {
 public:
  // Grows `out` from gh[rows[i]] for the n given rows (ascending), with the
  // features whose `use` entry is nonzero (null: all).
  // With `across` (several ranks), every node's sums and histograms are
  // summed over the ranks and every node keeps a histogram (a node's rows
  // are spread over the ranks).
  void grow(const BinMatrix& x, const HistFeatures& feats, const GradPair* gh, const int* rows,
            int n, const GrowParams& p, const char* use, int threads, GrownTree& out,
            RankSums* across = nullptr);

  // After grow(): the leaf each row of the matrix reached (-1: a row the
  // tree did not see); the caller may swap it out (grow() refills it).
  std::vector<int>& leaf_rows() { return leaf_row_; }

  // The leaf a row reaches by its bins (rows grow() did not see).
  static int leaf_of(const BinMatrix& x, const HistFeatures& feats, const GrownTree& t,
                     std::int64_t row);

  // Histogram buffers held (for tests of the pool's bound).
  std::size_t pool_size() const { return pool_.size(); }

 private:
  struct BinStat {
    int bin;
    double g, h;
  };
  struct Split {
    int feature = -1, bin = 0;
    bool default_left = true, categorical = false;
    double gain = 0.0, lg = 0.0, lh = 0.0;
    int cat_begin = 0, cat_count = 0;  // into cats_
  };
  struct Open {
    int begin = 0, end = 0, depth = 0, node = 0, slot = -1;
    std::int64_t n = 0;  // its rows on every rank
    double g = 0.0, h = 0.0;
    // the bounds of its weight (monotone constraints)
    double lo = -kUnbounded, hi = kUnbounded;
    int sets = -1;  // its interaction sets: their first word in sets_ (-1: every set)
    Split best;
  };
  static constexpr double kUnbounded = 1e300;
  struct Scratch {
    std::vector<BinStat> list;
    std::vector<std::uint32_t> keys;
    std::vector<int> order;
    std::vector<int> set;
  };

  // A node split: its two children, which one's histogram is to be built
  // (0 left, 1 right, -1 neither: the other takes the parent's minus it),
  // whether they are leaves whatever their rows.
  struct Children {
    Open l, r;
    int build = -1;
    bool last = false;
  };

  int small_rows() const;
  // The node's split applied: rows partitioned, the node and its two
  // children written to the tree, their histogram buffers chosen.
  void split_open(Open& o, Children& c, int& leaves);
  void set_node(const Open& o);
  // A histogram of rows idx_[b, e) into h, on the calling thread.
  void accumulate(int b, int e, double* h) const;
  int take_slot();
  void give_slot(int s);
  double* slot(int s) { return pool_[static_cast<std::size_t>(s)].data(); }
  void build_hist(const Open& o, double* dst);
  void subtract(double* larger, const double* smaller);
  // Finds o.best (from its histogram when o.slot >= 0, else from its rows).
  void evaluate(Open& o);
  void feature_list(const Open& o, int f, Scratch& s, double& gm, double& hm);
  void scan(const Open& o, int f, Scratch& s, double gm, double hm, Split& best,
            std::vector<int>& best_set) const;
  double score(double g, double h, double extra_l2 = 0.0) const;
  double weight(double g, double h) const;
  // The weight within the node's bounds.
  double bounded_weight(const Open& o, double g, double h) const;
  // The loss reduction of weight w on (g, h): score() when w is the best.
  double gain_at(double g, double h, double w, double extra_l2) const;
  // Whether node o may split on feature j (interaction constraints).
  bool allowed(const Open& o, int j) const;
  // The children's bounds and interaction sets from their parent's split.
  void constrain_children(const Open& o, Open& l, Open& r);
  bool splittable(const Open& o) const;
  // Partitions o's rows by its split (mid: the first right row); with
  // classify >= 0, notes each row's leaf (classify, classify + 1) instead.
  void partition(Open& o, int& mid, int classify);
  void leaf(const Open& o);

  const BinMatrix* x_ = nullptr;
  const HistFeatures* f_ = nullptr;
  const GradPair* gh_ = nullptr;
  const char* use_ = nullptr;
  GrowParams p_;
  int threads_ = 1;
  int parallel_rows_ = 8192;
  GrownTree* out_ = nullptr;
  RankSums* across_ = nullptr;

  std::vector<int> idx_, tmp_, tmp2_;
  std::vector<int> narrow_off_, wide_off_;  // each block column's first bin
  std::vector<std::vector<double>> pool_;
  std::vector<int> free_;
  std::vector<std::vector<double>> piece_hist_;
  std::vector<Scratch> scratch_;  // per feature
  std::vector<Split> per_feature_;
  std::vector<std::vector<int>> per_feature_set_;
  std::vector<int> cats_;
  std::vector<std::uint64_t> sets_;  // the nodes' interaction sets, set_words each
  std::vector<std::uint8_t> side_;   // partition(): per bin of the split's feature, 1: left
  std::vector<int> leaf_row_;
  std::vector<Open> open_;
  std::vector<Children> children_;  // grow(): the nodes of one depth split
  std::vector<std::int64_t> piece_left_;
};

}  // namespace trees
}  // namespace cppestimators
