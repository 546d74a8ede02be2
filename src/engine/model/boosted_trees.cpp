#include <cppestimators/model/boosted_trees.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cppestimators/distributed/collective.h>
#include <cppestimators/model/heads/head.h>
#include <cppestimators/model/trees/tree_shap.h>
#include <cppestimators/parallel.h>

namespace cppestimators {

BoostedTreesModel::BoostedTreesModel(const Spec& spec, int units) : Model(spec, units) {
  if (units < 1) throw std::invalid_argument("boosted trees need at least one logit");
  const int k = units;
  const int n_trees = whole(spec, "n_trees", 1);
  const int max_depth = whole(spec, "max_depth", 1);
  batches_per_layer_ = whole(spec, "n_batches_per_layer", 1);
  learning_rate_ = static_cast<float>(spec.num_or("learning_rate", 0.1));
  reg_.l1 = static_cast<float>(spec.num_or("l1_regularization", 0.0));
  reg_.l2 = static_cast<float>(spec.num_or("l2_regularization", 0.0));
  reg_.tree_complexity = static_cast<float>(spec.num_or("tree_complexity", 0.0));
  reg_.min_node_weight = static_cast<float>(spec.num_or("min_node_weight", 0.0));
  reg_.min_child_weight = static_cast<float>(spec.num_or("min_child_weight", 0.0));
  const double epsilon = spec.num_or("quantile_sketch_epsilon", 0.01);
  if (!(epsilon > 0.0 && epsilon < 1.0) || trees::quantiles_for(epsilon) > 65533)
    throw std::invalid_argument("quantile_sketch_epsilon must be in (0, 1) and at least 1/65533");
  const std::string pruning = spec.str_or("pruning_mode", "none");
  if (pruning != "none" && pruning != "pre" && pruning != "post")
    throw std::invalid_argument("pruning_mode mode must be one of: none, post, pre");
  center_bias_ = spec.flag_or("center_bias", false);
  if (max_depth > 20) throw std::invalid_argument("max_depth must be at most 20");
  const std::int64_t nodes = (std::int64_t{1} << (max_depth + 1)) - 1;
  if (static_cast<double>(n_trees) * nodes > static_cast<double>(1 << 24))
    throw std::invalid_argument(
        "n_trees x 2^(max_depth + 1) must be at most 2^24 tree nodes (got n_trees = " +
        std::to_string(n_trees) + ", max_depth = " + std::to_string(max_depth) +
        "); lower one of them");
  if (k > 1 && center_bias_)
    throw std::invalid_argument(
        "center_bias needs one logit: it is not supported with n_classes > 2");
  ensemble_ = trees::Ensemble(n_trees, max_depth, k);
  ensemble_.set_pruning(pruning == "pre"    ? trees::Ensemble::kPrePruning
                        : pruning == "post" ? trees::Ensemble::kPostPruning
                                            : trees::Ensemble::kNoPruning);
  ensemble_.set_finish_unsplit(spec.flag_or("finish_unsplit_trees", false));
  buckets_.build(
      features_, [this](const std::string& name) { return uses(name); }, epsilon);
  {
    std::vector<trees::FeatureOrigin> origins;
    for (const trees::Feature& f : buckets_.features())
      origins.push_back({features_.column(static_cast<std::size_t>(f.col)).name(),
                         f.kind != trees::Feature::Indicator});
    constraints_ = trees::TreeConstraints::from_spec(spec, origins);
    if (k > 1 && !constraints_.monotone.empty())
      throw std::invalid_argument(
          "monotone_constraints need one logit in TensorFlow's growth (n_classes > 2 grows every "
          "class in one tree): use growth = \"depthwise\" or \"lossguide\"");
    if (!constraints_.monotone.empty() || !constraints_.sets.empty())
      ensemble_.set_constraints(&constraints_);
  }
  const int t = n_trees, n = static_cast<int>(nodes);
  Parameter& feature = add_var("tree_feature", {t, n}, -1.0);
  Parameter& threshold = add_var("tree_threshold", {t, n}, 0.0);
  // one logit keeps the shapes of one-logit checkpoints; K logits add a class dimension
  Parameter& value =
      add_var("tree_value", k == 1 ? std::vector<int>{t, n} : std::vector<int>{t, n, k}, 0.0);
  Parameter& gain = add_var("tree_gain", {t, n}, 0.0);
  ensemble_.attach(feature, threshold, value, gain);
  // (optional: models saved before covers were recorded restore without)
  Parameter& cover = add_var("tree_cover", {t, n}, 0.0);
  cover.optional = true;
  ensemble_.attach_cover(cover);
  // per node of the layer being grown that batches reached (growable: sized
  // by those nodes; checkpoints written before `accumulator_nodes` had a row
  // per place of the deepest layer and restore without it)
  accumulator_.stats = &add_var("accumulator_stats", {1, buckets_.total_bins() * 2 * k}, 0.0, true);
  accumulator_.totals = &add_var("accumulator_totals", {1, 2 * k}, 0.0, true);
  accumulator_.nodes = &add_var("accumulator_nodes", {1}, 0.0, true);
  accumulator_.nodes->optional = true;
  accumulator_.classes = k;
  const int numeric = std::max(1, buckets_.numeric_count());
  // without numeric features, the shape models saved before the sketch had
  const int width = buckets_.numeric_count() > 0 ? buckets_.boundary_capacity() : 255;
  Parameter& boundaries = add_var("bucket_boundaries", {numeric, width}, 0.0);
  Parameter& counts = add_var("bucket_counts", {numeric}, 0.0);
  buckets_.attach(boundaries, counts);
  ensemble_.attach_state(add_var("state", {trees::Ensemble::kStateSize}, 0.0));
  // (centering done, centering steps taken): only with center_bias,
  // so that models without it keep their variables
  if (center_bias_) centering_ = &add_var("center_bias", {2}, 0.0);
  set_training(boosting_);
}

std::string BoostedTreesModel::kind() const { return "boosted_trees"; }

std::vector<std::string> BoostedTreesModel::groups() const { return {"boosted_trees"}; }

bool BoostedTreesModel::reads_dense_rows_by_index() const { return true; }

void BoostedTreesModel::begin_session(FeatureSet::Binding& binding, std::int64_t n,
                                      const DenseRows* block, Mode mode, int threads) {
  // (a rank with no rows still meets the others' fit)
  const bool across = collective_ != nullptr && collective_->size() > 1;
  across_ = across;
  if (mode != Mode::Train || buckets_.numeric_count() == 0 ||
      ensemble_.state(trees::Ensemble::kBoundariesReady) != 0.0f || (n == 0 && !across))
    return;
  ShardLayout layout;
  layout.total = n;
  layout.shard_rank.assign(1, 0);
  if (across) layout = shard_layout(collective_, n, observer_);
  buckets_.fit(features_, binding, n, block, threads, across ? collective_ : nullptr, layout);
  ensemble_.set_state(trees::Ensemble::kBoundariesReady, 1.0f);
}

void BoostedTreesModel::variables_loaded() {
  // statistics of a checkpoint without `accumulator_nodes` had a row per
  // place of the deepest layer: node first + s in row s
  if (accumulator_.count() > 0 || accumulator_.totals->value.empty()) return;
  const int layer = static_cast<int>(ensemble_.state(trees::Ensemble::kLayer));
  if (ensemble_.state(trees::Ensemble::kBatches) > 0.0f && !ensemble_.training_finished() &&
      layer < ensemble_.max_depth()) {
    accumulator_.adopt_places((1 << layer) - 1, 1 << layer);
  } else {  // between layers: nothing accumulated to keep
    resize_growable(*accumulator_.stats, 0);
    resize_growable(*accumulator_.totals, 0);
  }
  resized_ = true;
}

void BoostedTreesModel::rows_replaced(Workspace& base) {
  static_cast<Work&>(base).rows.forget_rows();
}

std::unique_ptr<Workspace> BoostedTreesModel::new_workspace(const FeatureBatch& batch, int max_rows,
                                                            int threads) const {
  auto ws = std::make_unique<Work>();
  ws->threads = std::max(1, threads);
  const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(batch.data_rows, 0));
  const int k = ensemble_.classes();
  ws->rows.allocate(n, buckets_.features().size(), buckets_.narrow(), max_rows, k);
  ws->hist.allocate(ws->threads, max_rows, buckets_.total_bins(), k);
  return ws;
}

void BoostedTreesModel::forward(const FeatureBatch& batch, Mode, Workspace& base,
                                float* logits) const {
  Work& ws = static_cast<Work&>(base);
  ensemble_.forward(batch, buckets_, ws.rows, ws.threads, logits);
}

const std::vector<Gradient>& BoostedTreesModel::backward(const FeatureBatch&, const float*,
                                                         Workspace& base) {
  static_cast<Work&>(base).grads.clear();
  return static_cast<Work&>(base).grads;
}

BoostedTreesModel::Boosting::Boosting(BoostedTreesModel& model) : m_(model) {}

StepStats BoostedTreesModel::Boosting::compute(const FeatureBatch& batch, const float* logits,
                                               const float* dlogits, const Head& head,
                                               Workspace& base) {
  if (m_.training_finished()) return {};
  Work& ws = static_cast<Work&>(base);
  const trees::Ensemble& e = m_.ensemble_;
  const int layer = static_cast<int>(e.state(trees::Ensemble::kLayer));
  const int* reached = e.nodes_reached(batch, ws.rows);
  // the nodes the batch reached; every node that exists across ranks (their
  // statistics are summed place by place)
  if (m_.across_)
    e.layer_nodes(static_cast<int>(e.finished_trees()), layer, ws.layer);
  else
    ws.layer.reached(layer, reached, batch.rows);
  const int threads = batch.rows >= 4096 ? ws.threads : 1;
  const float* g = dlogits;
  // the binary head's gradients are TF's closed form, computed with the histograms
  ws.hist.closed_form = closed_form(head) && batch.labels != nullptr;
  if (!ws.hist.closed_form && g == nullptr)
    throw std::logic_error("internal: boosted trees need the head's gradients");
  StepStats stats = m_.buckets_.narrow()
                        ? ws.hist.compute(batch, logits, g, head, reached, ws.rows.bins8.data(),
                                          m_.buckets_, ws.layer, threads)
                        : ws.hist.compute(batch, logits, g, head, reached, ws.rows.bins16.data(),
                                          m_.buckets_, ws.layer, threads);
  centered(stats, batch.rows, ws);
  return stats;
}

void BoostedTreesModel::Boosting::centered(StepStats&, int rows, Work& ws) const {
  if (m_.centering()) {  // the batch's mean gradient and hessian (every row at the root)
    double* tot = ws.hist.sums.data() + trees::node_stride(m_.buckets_.total_bins()) - 2;
    tot[0] = static_cast<float>(tot[0]) / static_cast<float>(rows);
    tot[1] = static_cast<float>(tot[1]) / static_cast<float>(rows);
  }
}

bool BoostedTreesModel::Boosting::fused_step(const FeatureBatch& batch, const Head& head,
                                             Workspace& base, float* logits, float* per_example,
                                             double& loss, StepStats& stats) {
  Work& ws = static_cast<Work&>(base);
  trees::Ensemble& e = m_.ensemble_;
  if (m_.training_finished() || batch.labels == nullptr || !closed_form(head) ||
      !e.walks_in_order(batch, ws.rows))
    return false;
  const int layer = static_cast<int>(e.state(trees::Ensemble::kLayer));
  // (its statistics are of every node that exists: a deep layer's, of the
  // nodes the rows reach, come from the walk first, then compute())
  if (layer > kFusedLayers) return false;
  int finished = 0, current = -1;
  e.begin_walk(ws.rows, finished, current);
  if (current < 0) return false;
  e.layer_nodes(static_cast<int>(e.finished_trees()), layer, ws.layer);
  const int threads = batch.rows >= 4096 ? ws.threads : 1;
  const std::size_t n_feats = m_.buckets_.features().size();
  trees::RowCache& cache = ws.rows;
  const bool wide = ws.kernel != gemm::Kernel::Portable;
  ws.hist.closed_form = true;
  const auto walk = [&](int r0, int r1) {
    if (m_.buckets_.narrow())
      e.walk_all_rows(cache, cache.bins8.data(), n_feats, r0, r1, finished, current, logits);
    else
      e.walk_all_rows(cache, cache.bins16.data(), n_feats, r0, r1, finished, current, logits);
  };
  stats = m_.buckets_.narrow()
              ? ws.hist.fused(batch, logits, per_example, cache.node_of.data(), cache.bins8.data(),
                              m_.buckets_, ws.layer, threads, wide, walk, loss)
              : ws.hist.fused(batch, logits, per_example, cache.node_of.data(), cache.bins16.data(),
                              m_.buckets_, ws.layer, threads, wide, walk, loss);
  cache.all_base_trees = finished;
  cache.all_node_tree = current;
  centered(stats, batch.rows, ws);
  return true;
}

bool BoostedTreesModel::Boosting::closed_form(const Head& head) {
  return head.logistic_closed_form();
}

bool BoostedTreesModel::Boosting::needs_head_gradients(const Head& head) const {
  return !closed_form(head);
}

void BoostedTreesModel::Boosting::apply(const StepStats& stats, const Optimizers&,
                                        Workspace& base) {
  if (stats.sums == nullptr || m_.training_finished()) return;
  Work& ws = static_cast<Work&>(base);
  trees::Ensemble& e = m_.ensemble_;
  const int tree = static_cast<int>(e.finished_trees());
  // across ranks, every node that exists (a rank without rows computed no
  // statistics of its own); else the nodes compute() held
  if (m_.across_) e.layer_nodes(tree, static_cast<int>(e.state(trees::Ensemble::kLayer)), ws.layer);
  if (m_.accumulator_.add(stats, m_.buckets_.total_bins(), ws.layer,
                          std::max(1, ws.hist.threads_used),
                          e.state(trees::Ensemble::kBatches) == 0.0f))
    m_.resized_ = true;
  // batches from every rank count, as TF's accumulator counts every worker's
  const float batches =
      e.state(trees::Ensemble::kBatches) + static_cast<float>(std::max(1, stats.batches));
  e.set_state(trees::Ensemble::kBatches, batches);
  if (batches < static_cast<float>(m_.batches_per_layer_)) return;
  // the statistics are averaged over the batches taken (n_batches_per_layer
  // alone; more when the last round brought several ranks' batches)
  if (m_.centering()) {
    m_.center(batches);
    return;
  }
  e.layer_nodes(tree, static_cast<int>(e.state(trees::Ensemble::kLayer)), ws.layer);
  e.grow_layer(tree, ws.layer, ws.threads, m_.accumulator_, m_.buckets_, m_.reg_, m_.learning_rate_,
               static_cast<int>(batches));
}

bool BoostedTreesModel::Boosting::finished() const { return m_.training_finished(); }

bool BoostedTreesModel::Boosting::loss_is_batch_mean() const { return true; }

std::vector<std::pair<std::string, double>> BoostedTreesModel::Boosting::importances() const {
  return m_.ensemble_.importances(m_.buckets_.features());
}

void BoostedTreesModel::center(float per) {
  const float none[2] = {0.0f, 0.0f};  // (no batch had rows)
  const float* tot = accumulator_.count() > 0 ? accumulator_.node(0) : none;
  const float g = per == 1.0f ? tot[0] : tot[0] / per, h = per == 1.0f ? tot[1] : tot[1] / per;
  const bool more = ensemble_.center_bias(g, h, reg_, centering_->value[1] == 0.0f);
  centering_->value[1] += 1.0f;
  if (!more) centering_->value[0] = 1.0f;
  ensemble_.set_state(trees::Ensemble::kBatches, 0.0f);
}

int BoostedTreesModel::whole(const Spec& spec, const char* name, double min) {
  const double v = spec.num_or(name, min);
  if (!(v >= min) || v != std::floor(v) || v > 1e9)
    throw std::invalid_argument(
        std::string(name) + " must be a whole number >= " + std::to_string(static_cast<int>(min)));
  return static_cast<int>(v);
}

bool BoostedTreesModel::explain(const FeatureBatch& batch, int threads, double* out,
                                Explanation kind) const {
  const bool interactions = kind == Explanation::Interactions;
  const bool logistic = kind == Explanation::DirectionalLogistic;
  const bool directional = kind == Explanation::Directional || logistic;
  if (directional && ensemble_.classes() > 1)
    throw std::invalid_argument(
        "TensorFlow's directional feature contributions need one logit (TF's "
        "experimental_predict_with_explanations() refused logits_dimension > 1)");
  if (!directional && !ensemble_.has_covers())
    throw std::invalid_argument(
        "this model's trees have no covers (it was saved before they were recorded, at each "
        "split): its SHAP values can not be computed; type = \"dfc\" needs none, or train it "
        "anew");
  const trees::Ensemble& e = ensemble_;
  const int k = e.classes();
  int finished = 0, current = -1;
  e.walked_trees(finished, current);
  std::vector<int> walked;
  for (int t = 0; t < finished; ++t) walked.push_back(t);
  if (current >= 0) walked.push_back(current);
  const std::vector<trees::Feature>& feats = buckets_.features();
  const std::size_t columns = features_.size();
  const std::size_t side = columns + 1;
  const std::size_t width = interactions ? side * side : side;
  // each tree (per class) as TreeSHAP reads it: its nodes breadth first,
  // each split's children adjacent; heap[i]: node i's id in the tree
  const std::size_t nt = walked.size();
  std::vector<std::vector<trees::ShapNode>> shap(nt * static_cast<std::size_t>(k));
  std::vector<std::vector<int>> heap(nt);
  std::vector<int> depth(nt, 0);
  std::vector<double> baseline(static_cast<std::size_t>(k), 0.0);
  for (std::size_t i = 0; i < nt; ++i) {
    const int t = walked[i];
    std::vector<int>& ids = heap[i];
    std::vector<trees::ShapNode> nodes;
    ids.assign(1, 0);
    nodes.emplace_back();
    nodes[0].cover = 1.0;
    for (std::size_t at = 0; at < ids.size(); ++at) {
      const int id = ids[at];
      const int f = e.node_feature(t, id);
      if (f < 0) continue;
      const int l = 2 * id + 1;
      const double cl = e.node_cover(t, l), cr = e.node_cover(t, l + 1);
      const double share = cl + cr > 0.0 ? cl / (cl + cr) : 0.5;
      nodes[at].left = static_cast<int>(ids.size());
      nodes[at].group = feats[static_cast<std::size_t>(f)].col;
      const double parent = nodes[at].cover;
      ids.push_back(l);
      ids.push_back(l + 1);
      nodes.emplace_back();
      nodes.back().cover = parent * share;
      nodes.emplace_back();
      nodes.back().cover = parent * (1.0 - share);
    }
    for (int c = 0; c < k; ++c) {
      std::vector<trees::ShapNode>& s =
          shap[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(c)];
      s = nodes;
      for (std::size_t j = 0; j < s.size(); ++j) s[j].value = e.node_value(t, ids[j], c);
      if (!directional)
        baseline[static_cast<std::size_t>(c)] += trees::tree_expected_value(s.data());
    }
    depth[i] = trees::tree_depth(nodes.data());
  }
  const int rows = batch.rows;
  const int pieces = std::max(1, std::min(rows, std::max(1, threads) * 4));
  parallel_for(pieces, threads, [&](int p) {
    const int r0 = static_cast<int>(static_cast<std::int64_t>(rows) * p / pieces);
    const int r1 = static_cast<int>(static_cast<std::int64_t>(rows) * (p + 1) / pieces);
    std::vector<int> bins(feats.size());
    std::vector<unsigned char> left;
    std::vector<double> pairs(interactions ? columns * columns : 0), work;
    trees::ShapScratch scratch;
    const auto act = [logistic](double v) { return logistic ? 1.0 / (1.0 + std::exp(-v)) : v; };
    for (int r = r0; r < r1; ++r) {
      buckets_.fill(batch, r, bins.data());
      double* row = out + static_cast<std::size_t>(r) * static_cast<std::size_t>(k) * width;
      std::fill(row, row + static_cast<std::size_t>(k) * width, 0.0);
      for (int c = 0; c < k; ++c)
        row[static_cast<std::size_t>(c) * width + width - 1] =
            baseline[static_cast<std::size_t>(c)];
      // directional: the prediction along the row's path through the trees
      // in order (TF's logits path: tree 0's root, then each split's child
      // plus the trees before), each step's change to the split's column
      double past = 0.0, before = 0.0;
      if (directional && nt > 0) {
        const float root = shap[0][0].value;
        before = root;
        row[width - 1] = act(static_cast<float>(before));
      }
      for (std::size_t i = 0; i < nt; ++i) {
        const int t = walked[i];
        const std::vector<int>& ids = heap[i];
        left.resize(ids.size());
        for (std::size_t j = 0; j < ids.size(); ++j) {
          const int f = e.node_feature(t, ids[j]);
          left[j] = f >= 0 && bins[static_cast<std::size_t>(f)] <= e.node_threshold(t, ids[j]);
        }
        for (int c = 0; c < k; ++c) {
          const std::vector<trees::ShapNode>& s =
              shap[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(c)];
          double* logit = row + static_cast<std::size_t>(c) * width;
          if (directional) {
            // (in float, as TF's path: its values and sums are float32)
            std::size_t j = 0;
            float value = s[0].value;
            while (s[j].left >= 0) {
              const std::size_t next = static_cast<std::size_t>(s[j].left) + (left[j] ? 0 : 1);
              value = static_cast<float>(s[next].value);
              const float now = value + static_cast<float>(past);
              logit[static_cast<std::size_t>(s[j].group)] +=
                  act(now) - act(static_cast<float>(before));
              before = now;
              j = next;
            }
            if (i == 0 || j > 0) past = static_cast<float>(static_cast<float>(past) + value);
          } else if (interactions) {
            std::fill(pairs.begin(), pairs.end(), 0.0);
            trees::tree_shap_interactions(s.data(), left.data(), static_cast<int>(columns),
                                          pairs.data(), scratch, work, depth[i]);
            for (std::size_t a = 0; a < columns; ++a)
              for (std::size_t b = 0; b < columns; ++b)
                logit[a * side + b] += pairs[a * columns + b];
          } else {
            trees::tree_shap(s.data(), left.data(), logit, scratch, 0, -1, depth[i]);
          }
        }
      }
    }
  });
  return true;
}

Parameter& BoostedTreesModel::add_var(const std::string& name, std::vector<int> shape, double init,
                                      bool growable) {
  Parameter p = Parameter::single("boosted_trees/" + name, std::move(shape));
  p.init = Init::Constant;
  p.init_scale = init;
  p.trainable = false;
  p.growable = growable;
  return add(std::move(p));
}

}  // namespace cppestimators
