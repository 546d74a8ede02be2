#include <cppestimators/model/hist_boosted_trees.h>

#include <cppestimators/model/heads/pointwise.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cppestimators/data/rng.h>
#include <cppestimators/distributed/collective.h>
#include <cppestimators/io/little_endian.h>
#include <cppestimators/model/heads/head.h>
#include <cppestimators/parallel.h>

namespace cppestimators {

namespace {

int whole_number(const Spec& spec, const char* name, double dflt, double min, double max) {
  const double v = spec.num_or(name, dflt);
  if (!(v >= min && v <= max) || v != std::floor(v))
    throw std::invalid_argument(std::string(name) + " must be a whole number in [" +
                                std::to_string(static_cast<long long>(min)) + ", " +
                                std::to_string(static_cast<long long>(max)) + "]");
  return static_cast<int>(v);
}

double fraction(const Spec& spec, const char* name) {
  const double v = spec.num_or(name, 1.0);
  if (!(v > 0.0 && v <= 1.0)) throw std::invalid_argument(std::string(name) + " must be in (0, 1]");
  return v;
}

double non_negative(const Spec& spec, const char* name, double dflt) {
  const double v = spec.num_or(name, dflt);
  if (!(v >= 0.0) || !std::isfinite(v))
    throw std::invalid_argument(std::string(name) + " must be a finite number >= 0");
  return v;
}

}  // namespace

HistBoostedTreesModel::HistBoostedTreesModel(const Spec& spec, int units) : Model(spec, units) {
  if (units < 1) throw std::invalid_argument("boosted trees need at least one logit");
  classes_ = units;
  n_trees_ = whole_number(spec, "n_trees", 100, 1, 1e7);
  const std::string growth = spec.str_or("growth", "depthwise");
  if (growth != "depthwise" && growth != "lossguide")
    throw std::invalid_argument("growth must be one of: tensorflow, depthwise, lossguide");
  grow_.lossguide = growth == "lossguide";
  grow_.max_depth = whole_number(spec, "max_depth", 6, grow_.lossguide ? 0 : 1, 64);
  grow_.max_leaves =
      whole_number(spec, "max_leaves", grow_.lossguide ? 31 : 0, grow_.lossguide ? 2 : 0, 1 << 24);
  grow_.l1 = non_negative(spec, "l1_regularization", 0.0);
  grow_.l2 = non_negative(spec, "l2_regularization", 1.0);
  grow_.gamma = non_negative(spec, "tree_complexity", 0.0);
  grow_.min_child_weight = non_negative(spec, "min_node_weight", 1.0);
  grow_.learning_rate = non_negative(spec, "learning_rate", 0.3);
  if (!(grow_.learning_rate > 0.0)) throw std::invalid_argument("learning_rate must be positive");
  const int max_bin = whole_number(spec, "max_bin", 256, 4, 65535);
  // category-set splits (trees/hist_grower.h)
  grow_.max_cat_to_onehot = whole_number(spec, "max_cat_to_onehot", 64, 1, 65535);
  grow_.max_cat_threshold = whole_number(spec, "max_cat_threshold", 32, 1, 65535);
  grow_.min_data_per_group = whole_number(spec, "min_data_per_group", 10, 1, 1e9);
  grow_.cat_smooth = non_negative(spec, "cat_smooth", 10.0);
  grow_.cat_l2 = non_negative(spec, "cat_l2", 10.0);
  subsample_ = fraction(spec, "subsample");
  colsample_ = fraction(spec, "colsample");
  seed_ = static_cast<std::uint64_t>(spec.num_or("seed", 0.0));
  feats_.build(
      features_, [this](const std::string& name) { return uses(name); }, max_bin);
  constraints(spec);
  const int k = classes_;
  state_ = &var("state", {kStateSize}, 0.0, false);
  base_ = &var("base_score", {k}, 0.0, false);
  const int numeric = std::max(1, feats_.numeric_count());
  Parameter& cuts = var("bin_cuts", {numeric, feats_.cut_capacity()}, 0.0, false);
  Parameter& counts = var("bin_counts", {numeric}, 0.0, false);
  feats_.attach(cuts, counts);
  tree_nodes_ = &var("tree_nodes", {0}, 0.0, true);
  tree_cats_ = &var("tree_categories", {0}, 0.0, true);
  categories_ = &var("categories", {0}, 0.0, true);
  n_feature_ = &var("node_feature", {0}, 0.0, true);
  n_left_ = &var("node_left", {0}, 0.0, true);
  n_threshold_ = &var("node_threshold", {0}, 0.0, true);
  n_default_ = &var("node_default_left", {0}, 0.0, true);
  n_value_ = &var("node_value", {0}, 0.0, true);
  n_gain_ = &var("node_gain", {0}, 0.0, true);
  n_cover_ = &var("node_cover", {0}, 0.0, true);
  tree_start_.assign(1, 0);
  cat_start_.assign(1, 0);
  set_training(boosting_);
}

void HistBoostedTreesModel::constraints(const Spec& spec) {
  std::vector<trees::FeatureOrigin> origins;
  for (const trees::HistFeature& f : feats_.features())
    origins.push_back({features_.column(static_cast<std::size_t>(f.col)).name(),
                       f.kind != trees::HistFeature::Categorical});
  constraints_ = trees::TreeConstraints::from_spec(spec, origins);
  grow_.monotone = constraints_.monotone_or_null();
  grow_.feature_sets = constraints_.sets_or_null();
  grow_.set_words = constraints_.words;
}

Parameter& HistBoostedTreesModel::var(const std::string& name, std::vector<int> shape, double init,
                                      bool growable) {
  Parameter p = Parameter::single("boosted_trees/" + name, std::move(shape));
  p.init = Init::Constant;
  p.init_scale = init;
  p.trainable = false;
  p.growable = growable;
  if (growable) p.row_width = 1;
  return add(std::move(p));
}

std::string HistBoostedTreesModel::kind() const { return "boosted_trees"; }

std::vector<std::string> HistBoostedTreesModel::groups() const { return {"boosted_trees"}; }

bool HistBoostedTreesModel::reads_dense_rows_by_index() const { return true; }

void HistBoostedTreesModel::variables_loaded() {
  const std::size_t t = tree_nodes_->value.size();
  if (tree_cats_->value.size() != t)
    throw std::runtime_error("the boosted trees' variables disagree: " + std::to_string(t) +
                             " trees of nodes but " + std::to_string(tree_cats_->value.size()) +
                             " of categories");
  tree_start_.assign(t + 1, 0);
  cat_start_.assign(t + 1, 0);
  for (std::size_t i = 0; i < t; ++i) {
    tree_start_[i + 1] = tree_start_[i] + static_cast<std::int64_t>(tree_nodes_->value[i]);
    cat_start_[i + 1] = cat_start_[i] + static_cast<std::int64_t>(tree_cats_->value[i]);
  }
  if (static_cast<std::size_t>(tree_start_[t]) != n_feature_->value.size() ||
      static_cast<std::size_t>(cat_start_[t]) != categories_->value.size())
    throw std::runtime_error(
        "the boosted trees' variables disagree: the trees' node counts sum "
        "to " +
        std::to_string(tree_start_[t]) + " but " + std::to_string(n_feature_->value.size()) +
        " nodes are stored");
  ++epoch_;
}

void HistBoostedTreesModel::begin_session(FeatureSet::Binding& binding, std::int64_t n,
                                          const DenseRows* block, Mode mode, int threads) {
  pending_binding_ = nullptr;
  if (mode != Mode::Train) {
    held_ = false;
    held_bins_ = trees::BinMatrix();
    return;
  }
  session_binned_ = false;
  const bool across = collective_ != nullptr && collective_->size() > 1;
  shard_ = 0;
  shards_ = 1;
  std::int64_t total = n;
  if (across) {
    const ShardLayout layout = shard_layout(collective_, n, observer_);
    shard_ = layout.shard;
    shards_ = layout.shards;
    total = layout.total;
  }
  if (held_ && held_bins_.rows != n)
    throw std::logic_error("internal: a session over other rows than the streamed ones kept");
  if (!held_ && state_->value[kCutsReady] == 0.0f && total > 0) {
    feats_.fit(features_, binding, n, block, threads, shard_, shards_,
               across ? collective_ : nullptr);
    state_->value[kCutsReady] = 1.0f;
  }
  pending_binding_ = &binding;
  pending_block_ = block;
  pending_n_ = n;
}

bool HistBoostedTreesModel::keeps_streamed_rows() const { return true; }

std::int64_t HistBoostedTreesModel::keep_streamed_rows(RowChunks& chunks, int threads) {
  held_ = false;
  held_bins_ = trees::BinMatrix();
  const bool across = collective_ != nullptr && collective_->size() > 1;
  int shard = 0, shards = 1;
  if (across) {
    const ShardLayout layout = shard_layout(collective_, 0, observer_);
    shard = layout.shard;
    shards = layout.shards;
  }
  // the first pass: the rows counted and, without cuts yet, sampled
  const bool fitting = state_->value[kCutsReady] == 0.0f;
  trees::HistFeatures::RowSample sample(feats_.numeric_count());
  std::vector<std::int64_t> global;
  FeatureSet::Binding* binding = nullptr;
  const int* rows = nullptr;
  std::int64_t n = 0;
  for (int count; (count = chunks.next(binding, rows)) > 0; n += count) {
    if (!fitting) continue;
    global.resize(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) global[static_cast<std::size_t>(k)] = shard + (n + k) * shards;
    sample.offer_rows(feats_, features_, *binding, nullptr, rows, global.data(), count);
  }
  if (n > std::numeric_limits<int>::max())
    throw std::invalid_argument("boosted trees: a streamed dataset of " + std::to_string(n) +
                                " rows; one process holds at most 2^31 - 1 rows");
  std::int64_t total = n;
  if (across) total = shard_layout(collective_, n, observer_).total;
  if (fitting && total > 0) {
    std::vector<std::vector<float>> values = sample.values(across ? collective_ : nullptr);
    feats_.set_cuts(values, threads);
    state_->value[kCutsReady] = 1.0f;
  }
  // the second pass: the bins
  chunks.next_pass();
  trees::BinMatrix bins;
  bins.resize(n, feats_.narrow_width(), feats_.wide_width());
  std::int64_t at = 0;
  const auto changed = [&](std::int64_t second) {
    return std::invalid_argument(
        "the streamed dataset gave " + std::to_string(n) + " rows on its first pass and " +
        std::to_string(second) + (second > n ? " or more" : "") +
        " on its second: boosted trees of the histogram growths read it twice (cuts, then "
        "bins), so every pass must give the same rows");
  };
  for (int count; (count = chunks.next(binding, rows)) > 0; at += count) {
    if (at + count > n) throw changed(at + count);
    feats_.bin_rows_at(features_, *binding, rows, count, nullptr, threads, bins, at);
  }
  if (at != n) throw changed(at);
  held_bins_ = std::move(bins);
  held_ = true;
  return n;
}

void HistBoostedTreesModel::rows_replaced(Workspace& base) {
  Work& w = static_cast<Work&>(base);
  w.binned = false;
  w.preds_rounds = -1;
}

std::unique_ptr<Workspace> HistBoostedTreesModel::new_workspace(const FeatureBatch&, int,
                                                                int threads) const {
  auto ws = std::make_unique<Work>();
  ws->threads = std::max(1, threads);
  if (pending_binding_ != nullptr) {
    if (held_) {
      ws->bins = std::move(held_bins_);
      held_bins_ = trees::BinMatrix();
      held_ = false;
    } else {
      feats_.bin_rows(features_, *pending_binding_, pending_n_, pending_block_, ws->threads,
                      ws->bins);
    }
    ws->binned = true;
    session_binned_ = true;
    const std::size_t n = static_cast<std::size_t>(pending_n_);
    ws->preds.assign(n * static_cast<std::size_t>(classes_), 0.0);
    ws->gh.resize(n);
    pending_binding_ = nullptr;
  }
  if (collective_ != nullptr && collective_->size() > 1) {
    struct Sums : trees::RankSums {
      Collective* c;
      explicit Sums(Collective* c_) : c(c_) {}
      void sum(double* data, std::size_t n) override { c->allreduce_sum(data, n); }
    };
    ws->across = std::make_unique<Sums>(collective_);
  }
  return ws;
}

const std::vector<Gradient>& HistBoostedTreesModel::backward(const FeatureBatch&, const float*,
                                                             Workspace& base) {
  static const std::vector<Gradient> none;
  (void)base;
  return none;
}

void HistBoostedTreesModel::compile() const {
  Compiled& c = compiled_;
  const std::size_t stored = tree_nodes_->value.size();
  if (c.epoch != epoch_) {
    c.nodes.clear();
    c.shap.clear();
    c.shap_depth.clear();
    c.cat_bits.clear();
    c.tree_start.assign(1, 0);
    c.epoch = epoch_;
  }
  for (std::size_t t = c.tree_start.size() - 1; t < stored; ++t) {
    const std::int64_t b = tree_start_[t], e = tree_start_[t + 1];
    // the tree's category sets: (size, ids...) from its first one on
    const float* sets = categories_->value.data() + cat_start_[t];
    for (std::int64_t i = b; i < e; ++i) {
      const std::size_t u = static_cast<std::size_t>(i);
      Compiled::Node n;
      n.feature = static_cast<int>(n_feature_->value[u]);
      n.left = static_cast<int>(n_left_->value[u]);
      n.threshold = n_threshold_->value[u];
      n.value = n_value_->value[u];
      n.default_left = n_default_->value[u] != 0.0f;
      n.bits = -1;
      n.count = 0;
      n.bin = 0;
      if (n.feature >= 0) {
        const trees::HistFeature& f = feats_.features()[static_cast<std::size_t>(n.feature)];
        n.bin = f.kind == trees::HistFeature::Numeric ? feats_.numeric_bin(f.numeric, n.threshold)
                                                      : static_cast<int>(n.threshold) + 1;
      }
      if (n.feature >= 0 && feats_.features()[static_cast<std::size_t>(n.feature)].kind ==
                                trees::HistFeature::Categorical) {
        const trees::HistFeature& f = feats_.features()[static_cast<std::size_t>(n.feature)];
        const float* set = sets + static_cast<std::int64_t>(n.threshold);
        n.count = f.bins - 1;
        n.bits = static_cast<int>(c.cat_bits.size());
        c.cat_bits.resize(c.cat_bits.size() + (static_cast<std::size_t>(n.count) + 63) / 64, 0);
        const int size = static_cast<int>(set[0]);
        for (int j = 1; j <= size; ++j) {
          const int id = static_cast<int>(set[j]);
          if (id >= 0 && id < n.count)
            c.cat_bits[static_cast<std::size_t>(n.bits) + static_cast<std::size_t>(id >> 6)] |=
                std::uint64_t{1} << (id & 63);
        }
      }
      c.nodes.push_back(n);
      trees::ShapNode s;
      s.left = n.feature >= 0 ? n.left : -1;
      s.group = n.feature >= 0 ? feats_.features()[static_cast<std::size_t>(n.feature)].col : -1;
      s.cover = n_cover_->value[u];
      s.value = n.value;
      c.shap.push_back(s);
    }
    c.shap_depth.push_back(trees::tree_depth(c.shap.data() + c.tree_start.back()));
    c.tree_start.push_back(static_cast<std::int64_t>(c.nodes.size()));
  }
}

void HistBoostedTreesModel::row_values(const FeatureBatch& batch, int r, double* x) const {
  const float* dense = nullptr;
  if (batch.dense_width > 0)
    dense = batch.dense_rows != nullptr
                ? batch.dense_rows + static_cast<std::size_t>(r) * batch.dense_width
                : batch.dense_block->row(batch.dense_index[r]);
  const std::vector<trees::HistFeature>& feats = feats_.features();
  for (std::size_t f = 0; f < feats.size(); ++f) {
    const trees::HistFeature& h = feats[f];
    if (h.kind == trees::HistFeature::Numeric) {
      x[f] = dense[h.source];  // (NaN stays NaN)
    } else {
      const SparseIds& s = batch.sparse[static_cast<std::size_t>(h.source)];
      x[f] = s.end(r) <= s.begin(r) ? std::numeric_limits<double>::quiet_NaN()
                                    : static_cast<double>(s.id(s.begin(r)));
    }
  }
}

void HistBoostedTreesModel::add_tree_values(int t, const double* x, std::size_t nf, int rows,
                                            double* out, std::size_t stride) const {
  const Compiled& c = compiled_;
  const Compiled::Node* nodes = c.nodes.data() + c.tree_start[static_cast<std::size_t>(t)];
  int at[kWalkBlock];
  for (int j0 = 0; j0 < rows; j0 += kWalkBlock) {
    const int m = std::min(kWalkBlock, rows - j0);
    std::fill(at, at + m, 0);
    for (bool moved = true; moved;) {
      moved = false;
      for (int j = 0; j < m; ++j) {
        const Compiled::Node& n = nodes[at[j]];
        if (n.feature < 0) continue;  // at its leaf
        const double v =
            x[static_cast<std::size_t>(j0 + j) * nf + static_cast<std::size_t>(n.feature)];
        at[j] = n.left + (c.goes_left(n, v) ? 0 : 1);
        moved = true;
      }
    }
    for (int j = 0; j < m; ++j)
      out[static_cast<std::size_t>(j0 + j) * stride] += nodes[at[j]].value;
  }
}

bool HistBoostedTreesModel::explain(const FeatureBatch& batch, int threads, double* out,
                                    Explanation kind) const {
  if (kind != Explanation::Contributions && kind != Explanation::Interactions) return false;
  const bool interactions = kind == Explanation::Interactions;
  compile();
  const Compiled& c = compiled_;
  const int k = classes_;
  const int rows = batch.rows;
  const std::size_t columns = features_.size();
  const std::size_t width = interactions ? (columns + 1) * (columns + 1) : columns + 1;
  const std::size_t last = width - 1;  // the baseline's cell
  const int used = tree_limit_ >= 0 ? std::min(tree_limit_, rounds()) : rounds();
  const int n_trees = std::min<int>(used * k, static_cast<int>(c.tree_start.size()) - 1);
  // each logit's baseline: the base score and the trees' expected values
  std::vector<double> baseline(static_cast<std::size_t>(k));
  for (int j = 0; j < k; ++j)
    baseline[static_cast<std::size_t>(j)] = base_->value[static_cast<std::size_t>(j)];
  for (int t = 0; t < n_trees; ++t)
    baseline[static_cast<std::size_t>(t % k)] +=
        trees::tree_expected_value(c.shap.data() + c.tree_start[static_cast<std::size_t>(t)]);
  const int pieces = std::max(1, std::min(rows, std::max(1, threads) * 4));
  parallel_for(pieces, threads, [&](int p) {
    const int r0 = static_cast<int>(static_cast<std::int64_t>(rows) * p / pieces);
    const int r1 = static_cast<int>(static_cast<std::int64_t>(rows) * (p + 1) / pieces);
    const std::size_t nf = feats_.features().size();
    std::vector<double> x(nf), pairs(interactions ? columns * columns : 0), work;
    std::vector<unsigned char> left;
    trees::ShapScratch scratch;
    for (int r = r0; r < r1; ++r) {
      row_values(batch, r, x.data());
      double* row = out + static_cast<std::size_t>(r) * static_cast<std::size_t>(k) * width;
      std::fill(row, row + static_cast<std::size_t>(k) * width, 0.0);
      for (int j = 0; j < k; ++j)
        row[static_cast<std::size_t>(j) * width + last] = baseline[static_cast<std::size_t>(j)];
      for (int j = 0; j < k; ++j) {
        double* logit = row + static_cast<std::size_t>(j) * width;
        std::fill(pairs.begin(), pairs.end(), 0.0);
        for (int t = j; t < n_trees; t += k) {  // this logit's trees
          const std::int64_t b = c.tree_start[static_cast<std::size_t>(t)],
                             e = c.tree_start[static_cast<std::size_t>(t) + 1];
          left.resize(static_cast<std::size_t>(e - b));
          for (std::int64_t i = b; i < e; ++i) {
            const Compiled::Node& n = c.nodes[static_cast<std::size_t>(i)];
            left[static_cast<std::size_t>(i - b)] =
                n.feature >= 0 && c.goes_left(n, x[static_cast<std::size_t>(n.feature)]);
          }
          const int depth = c.shap_depth[static_cast<std::size_t>(t)];
          if (interactions)
            trees::tree_shap_interactions(c.shap.data() + b, left.data(), static_cast<int>(columns),
                                          pairs.data(), scratch, work, depth);
          else
            trees::tree_shap(c.shap.data() + b, left.data(), logit, scratch, 0, -1, depth);
        }
        if (interactions)  // the columns x columns block into its (columns + 1)-wide rows
          for (std::size_t a = 0; a < columns; ++a)
            std::copy(pairs.begin() + static_cast<std::ptrdiff_t>(a * columns),
                      pairs.begin() + static_cast<std::ptrdiff_t>((a + 1) * columns),
                      logit + a * (columns + 1));
      }
    }
  });
  return true;
}

float HistBoostedTreesModel::tree_value_binned(int t, const trees::BinMatrix& x,
                                               std::int64_t row) const {
  const Compiled& c = compiled_;
  const Compiled::Node* nodes = c.nodes.data() + c.tree_start[static_cast<std::size_t>(t)];
  const std::vector<trees::HistFeature>& feats = feats_.features();
  int i = 0;
  for (;;) {
    const Compiled::Node& n = nodes[i];
    if (n.feature < 0) return n.value;
    const trees::HistFeature& f = feats[static_cast<std::size_t>(n.feature)];
    const int b = x.bin(f.wide, f.column, row);
    bool left;
    if (b == 0) {
      left = n.default_left;
    } else if (n.bits >= 0) {
      left = c.in_set(n, b - 1);
    } else {
      left = b <= n.bin;
    }
    i = left ? n.left : n.left + 1;
  }
}

bool HistBoostedTreesModel::reads_batch_features(Mode mode, bool whole) const {
  return !(mode == Mode::Train && whole && session_binned_ && tree_limit_ < 0);
}

void HistBoostedTreesModel::forward(const FeatureBatch& batch, Mode mode, Workspace& base,
                                    float* logits) const {
  Work& w = static_cast<Work&>(base);
  const int k = classes_;
  const int rows = batch.rows;
  const bool cache =
      mode == Mode::Train && w.binned && batch.whole_in_order && tree_limit_ < 0 &&
      static_cast<std::int64_t>(rows) * k <= static_cast<std::int64_t>(w.preds.size());
  if (cache && w.preds_rounds != this->rounds()) {
    // the running predictions from the trees so far, walked over the bins
    compile();
    const int n_trees =
        std::min<int>(this->rounds() * k, static_cast<int>(compiled_.tree_start.size()) - 1);
    const int pieces = rows >= 4096 ? std::max(1, w.threads) * 4 : 1;
    parallel_for(pieces, w.threads, [&](int p) {
      const int r0 = static_cast<int>(static_cast<std::int64_t>(rows) * p / pieces);
      const int r1 = static_cast<int>(static_cast<std::int64_t>(rows) * (p + 1) / pieces);
      // blocks of rows, tree by tree: a tree's nodes stay in the cache while
      // the block's rows walk it, and their walks overlap
      for (int b0 = r0; b0 < r1; b0 += kWalkBlock) {
        const int b1 = std::min(r1, b0 + kWalkBlock);
        for (int r = b0; r < b1; ++r)
          for (int c = 0; c < k; ++c)
            w.preds[static_cast<std::size_t>(r) * k + c] =
                base_->value[static_cast<std::size_t>(c)];
        for (int t = 0; t < n_trees; ++t)
          for (int r = b0; r < b1; ++r)
            w.preds[static_cast<std::size_t>(r) * k + t % k] += tree_value_binned(t, w.bins, r);
      }
    });
    w.preds_rounds = this->rounds();
  }
  if (cache) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(rows) * k; ++i)
      logits[i] = static_cast<float>(w.preds[i]);
    return;
  }
  compile();
  const int done = this->rounds();
  const int used = tree_limit_ >= 0 ? std::min(tree_limit_, done) : done;
  const int n_trees = std::min<int>(used * k, static_cast<int>(compiled_.tree_start.size()) - 1);
  const int pieces = rows >= 4096 ? std::max(1, w.threads) * 4 : 1;
  parallel_for(pieces, w.threads, [&](int p) {
    const int r0 = static_cast<int>(static_cast<std::int64_t>(rows) * p / pieces);
    const int r1 = static_cast<int>(static_cast<std::int64_t>(rows) * (p + 1) / pieces);
    // blocks of rows, tree by tree (as the walk over bins above)
    const int per = std::min(kWalkBlock, std::max(1, kWalkBlock * kMaxWalkClasses / k));
    std::vector<double> sum(static_cast<std::size_t>(per) * static_cast<std::size_t>(k));
    const std::size_t nf = feats_.features().size();
    std::vector<double> x(static_cast<std::size_t>(per) * nf);  // the block's rows' values
    for (int b0 = r0; b0 < r1; b0 += per) {
      const int b1 = std::min(r1, b0 + per);
      for (int r = b0; r < b1; ++r) {
        const std::size_t j = static_cast<std::size_t>(r - b0);
        row_values(batch, r, x.data() + j * nf);
        for (int c = 0; c < k; ++c) sum[j * k + c] = base_->value[static_cast<std::size_t>(c)];
      }
      for (int t = 0; t < n_trees; ++t)
        add_tree_values(t, x.data(), nf, b1 - b0, sum.data() + t % k, static_cast<std::size_t>(k));
      for (int r = b0; r < b1; ++r)
        for (int c = 0; c < k; ++c) {
          const double v = sum[static_cast<std::size_t>(r - b0) * k + c];
          logits[static_cast<std::size_t>(r) * k + c] = static_cast<float>(v);
          if (cache) w.preds[static_cast<std::size_t>(r) * k + c] = v;
        }
    }
  });
  if (cache) w.preds_rounds = done;
}

void HistBoostedTreesModel::base_score(const Head& head, const FeatureBatch& batch,
                                       trees::RankSums* across) {
  const float* labels = batch.labels;
  const int rows = labels != nullptr ? batch.rows : 0;
  // within one process, the exact start of a head that has one (a
  // quantile); else the head's start from its label statistics summed over
  // every rank
  if (across == nullptr &&
      head.exact_base_logits(labels, batch.example_weights, rows, base_->value.data()))
    return;
  std::vector<double> stats(static_cast<std::size_t>(head.base_stats_width()), 0.0);
  if (rows > 0) head.add_base_stats(labels, batch.example_weights, rows, stats.data());
  if (across != nullptr) across->sum(stats.data(), stats.size());
  head.base_logits(stats.data(), base_->value.data());
}

// LightGBM's and scikit-learn's renewal for losses whose second derivative
// says nothing (absolute error, quantiles): each leaf's value becomes the
// learning rate times the `level` quantile of its rows' residuals y - f
// (the constant that minimizes the leaf's pinball loss), weighted by the
// examples' weights. Rows the round did not sample (leaf -1) are left out.
void HistBoostedTreesModel::renew_leaves(const FeatureBatch& batch, const float* logits,
                                         const Head& head, int c, double level,
                                         const std::vector<int>& leaf_of, double rate,
                                         trees::GrownTree& tree, Work& w) {
  const int k = head.logits_dim(), d = head.label_dim();
  const int column = d == k ? c : 0;  // the label a logit predicts
  const std::size_t nodes = tree.nodes.size();
  const auto id_of = [&](int r) {
    return batch.whole_in_order ? static_cast<std::size_t>(r)
                                : static_cast<std::size_t>(batch.row_ids[r]);
  };
  const auto leaf_at = [&](int r) {
    const std::size_t id = id_of(r);
    return id < leaf_of.size() ? leaf_of[id] : -1;
  };
  // rows grouped by leaf (a counting sort into buffers the workspace keeps)
  std::vector<int>& start = w.renew_start;
  start.assign(nodes + 1, 0);
  for (int r = 0; r < batch.rows; ++r) {
    const int leaf = leaf_at(r);
    if (leaf >= 0) ++start[static_cast<std::size_t>(leaf) + 1];
  }
  for (std::size_t n = 0; n < nodes; ++n) start[n + 1] += start[n];
  const float* wt = batch.example_weights;
  const std::size_t total = static_cast<std::size_t>(start[nodes]);
  // unweighted: residuals alone (a selection per leaf); weighted: with
  // their weights (a sort per leaf)
  if (wt == nullptr) {
    w.renew_resid.resize(total);
  } else {
    w.renew.resize(total);
  }
  for (int r = 0; r < batch.rows; ++r) {
    const int leaf = leaf_at(r);
    if (leaf < 0) continue;
    const float resid = batch.labels[static_cast<std::size_t>(r) * d + column] -
                        logits[static_cast<std::size_t>(r) * k + c];
    const std::size_t at = static_cast<std::size_t>(start[static_cast<std::size_t>(leaf)]++);
    if (wt == nullptr) {
      w.renew_resid[at] = resid;
    } else {
      w.renew[at] = {resid, wt[r]};
    }
  }
  for (std::size_t n = nodes; n > 0; --n) start[n] = start[n - 1];  // back to the starts
  start[0] = 0;
  for (std::size_t n = 0; n < nodes; ++n) {
    const std::ptrdiff_t b = start[n], e = start[n + 1];
    if (tree.nodes[n].feature >= 0 || b == e) continue;
    double q;
    if (wt == nullptr) {
      // the smallest residual with at least level x count at or below it
      const auto first = w.renew_resid.begin() + b, last = w.renew_resid.begin() + e;
      const std::ptrdiff_t m = e - b;
      std::ptrdiff_t at =
          static_cast<std::ptrdiff_t>(std::ceil(level * static_cast<double>(m))) - 1;
      at = std::min(m - 1, std::max<std::ptrdiff_t>(0, at));
      std::nth_element(first, first + at, last);
      q = *(first + at);
    } else {
      q = weighted_quantile(w.renew.data() + b, w.renew.data() + e, level);
    }
    tree.nodes[n].value = rate * q;
  }
}

bool HistBoostedTreesModel::sampled(std::int64_t g, int round) const {
  std::uint64_t z = seed_ * 0x9E3779B97F4A7C15ULL +
                    static_cast<std::uint64_t>(round) * 0xD1B54A32D192ED03ULL +
                    static_cast<std::uint64_t>(g);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53 < subsample_;
}

StepStats HistBoostedTreesModel::Boosting::compute(const FeatureBatch& batch, const float* logits,
                                                   const float* dlogits, const Head& head,
                                                   Workspace& base) {
  HistBoostedTreesModel& m = m_;
  if (finished()) return {};
  Work& w = static_cast<Work&>(base);
  if (!w.binned)
    throw std::logic_error("internal: the histogram trees' training session binned no rows");
  const bool empty = batch.rows == 0;  // a rank without rows across processes
  if (!empty && (dlogits == nullptr || batch.labels == nullptr))
    throw std::logic_error("internal: the histogram trees need the head's gradients");
  trees::RankSums* across = w.across.get();
  const int k = m.classes_;
  const int rows = batch.rows;
  const std::size_t rk = static_cast<std::size_t>(rows) * k;
  const float* lg = logits;
  const float* dl = dlogits;
  if (m.rounds() == 0 && m.state_->value[kAttempted] == 0.0f) {
    // the first round starts from the labels' mean (log-odds, log-priors)
    m.base_score(head, batch, across);
    w.dl.resize(rk);
    w.moved.resize(rk);
    for (std::size_t i = 0; i < rk; ++i) w.moved[i] = logits[i] + m.base_->value[i % k];
    w.per_example.resize(static_cast<std::size_t>(rows) * head.per_example_dim());
    if (!empty)
      head.loss(w.moved.data(), batch.labels, rows, w.per_example.data(), w.dl.data(),
                batch.example_weights);
    if (w.preds_rounds == 0 && batch.whole_in_order)
      for (std::size_t i = 0; i < rk && i < w.preds.size(); ++i) w.preds[i] = w.moved[i];
    else
      w.preds_rounds = -1;
    lg = w.moved.data();
    dl = w.dl.data();
  }
  w.hess.resize(rk);
  if (!empty && !head.hessian(lg, batch.labels, rows, w.hess.data(), batch.example_weights))
    throw std::invalid_argument("boosted trees need a loss with a second derivative; the " +
                                head.name() + " head has none");
  // the rows the trees grow on: every row of the batch, once
  const std::size_t n = w.gh.size();
  w.rows.clear();
  if (batch.whole_in_order) {
    w.rows.resize(static_cast<std::size_t>(rows));
    std::iota(w.rows.begin(), w.rows.end(), 0);
  } else {
    for (int r = 0; r < rows; ++r) w.rows.push_back(batch.row_ids[r]);
    std::sort(w.rows.begin(), w.rows.end());
    w.rows.erase(std::unique(w.rows.begin(), w.rows.end()), w.rows.end());
  }
  const int round = m.rounds();
  Rng rng(m.seed_ * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(round) + 1);
  if (m.subsample_ < 1.0) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < w.rows.size(); ++i)
      if (m.sampled(m.shard_ + static_cast<std::int64_t>(w.rows[i]) * m.shards_, round))
        w.rows[kept++] = w.rows[i];
    w.rows.resize(kept);
  }
  const int nf = static_cast<int>(m.feats_.features().size());
  const char* use = nullptr;
  if (m.colsample_ < 1.0) {
    std::vector<int> order(static_cast<std::size_t>(nf));
    std::iota(order.begin(), order.end(), 0);
    for (int i = nf - 1; i > 0; --i)
      std::swap(order[static_cast<std::size_t>(i)],
                order[static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(i) + 1))]);
    const int keep = std::max(1, static_cast<int>(std::ceil(m.colsample_ * nf)));
    w.use.assign(static_cast<std::size_t>(nf), 0);
    for (int i = 0; i < keep; ++i)
      w.use[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = 1;
    use = w.use.data();
  }
  // (squared error on xgboost's scale: half the head's gradient and hessian)
  const float scale = head.tree_scale();
  w.grown.resize(static_cast<std::size_t>(k));
  w.grown_rows.resize(static_cast<std::size_t>(k));
  for (int c = 0; c < k; ++c) {
    if (batch.whole_in_order) {
      for (int r = 0; r < rows && static_cast<std::size_t>(r) < n; ++r)
        w.gh[static_cast<std::size_t>(r)] = {scale * dl[static_cast<std::size_t>(r) * k + c],
                                             scale * w.hess[static_cast<std::size_t>(r) * k + c]};
    } else {
      for (int r = 0; r < rows; ++r)
        w.gh[static_cast<std::size_t>(batch.row_ids[r])] = {0.0f, 0.0f};
      for (int r = 0; r < rows; ++r) {
        trees::GradPair& p = w.gh[static_cast<std::size_t>(batch.row_ids[r])];
        p.g += scale * dl[static_cast<std::size_t>(r) * k + c];
        p.h += scale * w.hess[static_cast<std::size_t>(r) * k + c];
      }
    }
    w.grower.grow(w.bins, m.feats_, w.gh.data(), w.rows.data(), static_cast<int>(w.rows.size()),
                  m.grow_, use, w.threads, w.grown[static_cast<std::size_t>(c)], across);
    const double level = head.leaf_quantile(c);
    if (level >= 0.0 && !empty && across == nullptr)
      renew_leaves(batch, lg, head, c, level, w.grower.leaf_rows(), m.grow_.learning_rate,
                   w.grown[static_cast<std::size_t>(c)], w);
    // each leaf's rows, for moving the running predictions
    std::vector<int>& leaf_of = w.grown_rows[static_cast<std::size_t>(c)];
    if (w.preds_rounds == round && batch.whole_in_order) {
      leaf_of.swap(w.grower.leaf_rows());  // (the grower refills the other)
    } else {
      leaf_of.clear();
    }
  }
  // (the first round's logits from the base score, its gradients and losses
  // are used once: 12 bytes a row and logit not held for the rest)
  std::vector<float>().swap(w.dl);
  std::vector<float>().swap(w.moved);
  std::vector<float>().swap(w.per_example);
  StepStats stats;
  // (one number, 1 per rank: what the ranks' steps exchange says that
  // there are trees to apply; the trees themselves are the same everywhere)
  w.marker = 1.0;
  stats.sums = &w.marker;
  stats.sum_count = 1;
  return stats;
}

void HistBoostedTreesModel::Boosting::apply(const StepStats& stats, const Optimizers&,
                                            Workspace& base) {
  HistBoostedTreesModel& m = m_;
  if (stats.sums == nullptr || finished()) return;
  Work& w = static_cast<Work&>(base);
  const int k = m.classes_;
  const int round = m.rounds();
  const bool moving = w.preds_rounds == round && !w.grown_rows.empty() && !w.grown_rows[0].empty();
  for (int c = 0; c < k; ++c) {
    const trees::GrownTree& t = w.grown[static_cast<std::size_t>(c)];
    m.append(t);
    if (!moving) continue;
    const std::vector<int>& leaf_of = w.grown_rows[static_cast<std::size_t>(c)];
    const std::int64_t n = static_cast<std::int64_t>(leaf_of.size());
    const int pieces = n >= 65536 ? w.threads * 4 : 1;
    parallel_for(pieces, w.threads, [&](int p) {
      const std::int64_t b = n * p / pieces, e = n * (p + 1) / pieces;
      for (std::int64_t r = b; r < e; ++r) {
        int leaf = leaf_of[static_cast<std::size_t>(r)];
        if (leaf < 0) leaf = trees::Grower::leaf_of(w.bins, m.feats_, t, r);  // not sampled
        w.preds[static_cast<std::size_t>(r) * k + c] +=
            static_cast<float>(t.nodes[static_cast<std::size_t>(leaf)].value);
      }
    });
  }
  m.state_->value[kRounds] = static_cast<float>(round + 1);
  m.state_->value[kAttempted] += 1.0f;
  w.preds_rounds = moving ? round + 1 : -1;
}

void HistBoostedTreesModel::append(const trees::GrownTree& t) {
  const std::size_t n0 = n_feature_->value.size(), m = t.nodes.size();
  std::size_t cats = 0;
  for (const trees::GrownNode& g : t.nodes)
    if (g.feature >= 0 && g.categorical) cats += 1 + static_cast<std::size_t>(g.cat_count);
  const std::size_t c0 = categories_->value.size();
  for (Parameter* p : {n_feature_, n_left_, n_threshold_, n_default_, n_value_, n_gain_, n_cover_})
    resize_growable(*p, n0 + m);
  resize_growable(*categories_, c0 + cats);
  const std::size_t t0 = tree_nodes_->value.size();
  resize_growable(*tree_nodes_, t0 + 1);
  resize_growable(*tree_cats_, t0 + 1);
  tree_nodes_->value[t0] = static_cast<float>(m);
  tree_cats_->value[t0] = static_cast<float>(cats);
  std::size_t at = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const trees::GrownNode& g = t.nodes[i];
    const std::size_t u = n0 + i;
    n_feature_->value[u] = static_cast<float>(g.feature);
    n_left_->value[u] = static_cast<float>(g.left);
    n_default_->value[u] = g.default_left ? 1.0f : 0.0f;
    n_value_->value[u] = static_cast<float>(g.value);
    n_gain_->value[u] = static_cast<float>(g.gain);
    n_cover_->value[u] = static_cast<float>(g.cover);
    float threshold = 0.0f;
    if (g.feature >= 0) {
      const trees::HistFeature& f = feats_.features()[static_cast<std::size_t>(g.feature)];
      if (f.kind == trees::HistFeature::Numeric) {
        threshold = feats_.cut_value(f.numeric, g.bin);
      } else if (f.kind == trees::HistFeature::Ordinal) {
        threshold = static_cast<float>(g.bin - 1);
      } else {
        threshold = static_cast<float>(at);
        categories_->value[c0 + at++] = static_cast<float>(g.cat_count);
        for (int j = 0; j < g.cat_count; ++j)
          categories_->value[c0 + at++] =
              static_cast<float>(t.categories[static_cast<std::size_t>(g.cat_begin + j)]);
      }
    }
    n_threshold_->value[u] = threshold;
  }
  tree_start_.push_back(tree_start_.back() + static_cast<std::int64_t>(m));
  cat_start_.push_back(cat_start_.back() + static_cast<std::int64_t>(cats));
  resized_ = true;
}

bool HistBoostedTreesModel::Boosting::finished() const { return m_.rounds() >= m_.n_trees_; }

std::vector<std::pair<std::string, double>> HistBoostedTreesModel::Boosting::importances() const {
  const auto& feats = m_.feats_.features();
  std::vector<std::pair<std::string, double>> out;
  for (const auto& f : feats) out.emplace_back(f.name, 0.0);
  const std::vector<float>& fv = m_.n_feature_->value;
  for (std::size_t i = 0; i < fv.size(); ++i)
    if (fv[i] >= 0.0f) out[static_cast<std::size_t>(fv[i])].second += m_.n_gain_->value[i];
  return out;
}

}  // namespace cppestimators
