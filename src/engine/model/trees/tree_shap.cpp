#include <cppestimators/model/trees/tree_shap.h>

#include <algorithm>

namespace cppestimators {
namespace trees {
namespace shap_detail {

// 1 / k for the small whole numbers the path's weights are scaled by
// (products instead of divisions: the divisions were most of the time).
struct Reciprocals {
  static constexpr int kSize = 130;
  double inv[kSize];
  Reciprocals() {
    inv[0] = 0.0;
    for (int k = 1; k < kSize; ++k) inv[k] = 1.0 / k;
  }
  double operator()(int k) const { return k < kSize ? inv[k] : 1.0 / k; }
};
const Reciprocals& reciprocal() {
  static const Reciprocals r;
  return r;
}

// The path's weights after adding the element (group, zero_fraction,
// one_fraction) at position `depth`: for each count of present groups on
// the path, the share of the permutations that reach it.
void extend(ShapPathElement* path, int depth, double zero_fraction, double one_fraction,
            int group) {
  path[depth] = {group, zero_fraction, one_fraction, depth == 0 ? 1.0 : 0.0};
  const double inv_n = reciprocal()(depth + 1);
  for (int i = depth - 1; i >= 0; --i) {
    path[i + 1].weight += one_fraction * path[i].weight * (i + 1) * inv_n;
    path[i].weight = zero_fraction * path[i].weight * (depth - i) * inv_n;
  }
}

// The inverse of extend() for the element at `at` (which then leaves the
// path, the later ones moving up by one).
void unwind(ShapPathElement* path, int depth, int at) {
  const Reciprocals& r = reciprocal();
  const double one = path[at].one_fraction, zero = path[at].zero_fraction;
  const double n = depth + 1, inv_n = r(depth + 1);
  const double inv_one = one != 0.0 ? 1.0 / one : 0.0, inv_zero = zero != 0.0 ? 1.0 / zero : 0.0;
  double next = path[depth].weight;
  for (int i = depth - 1; i >= 0; --i) {
    if (one != 0.0) {
      const double before = path[i].weight;
      path[i].weight = next * n * r(i + 1) * inv_one;
      next = before - path[i].weight * zero * (depth - i) * inv_n;
    } else if (zero != 0.0) {
      path[i].weight = path[i].weight * n * inv_zero * r(depth - i);
    }
  }
  for (int i = at; i < depth; ++i) {
    path[i].group = path[i + 1].group;
    path[i].zero_fraction = path[i + 1].zero_fraction;
    path[i].one_fraction = path[i + 1].one_fraction;
  }
}

// The sum of the weights the path would have without the element at `at`
// (unwind() without changing the path).
double unwound_sum(const ShapPathElement* path, int depth, int at) {
  const Reciprocals& r = reciprocal();
  const double one = path[at].one_fraction, zero = path[at].zero_fraction;
  const double n = depth + 1, inv_n = r(depth + 1);
  double next = path[depth].weight, total = 0.0;
  if (one != 0.0) {
    const double scale = n / one;
    for (int i = depth - 1; i >= 0; --i) {
      const double share = next * scale * r(i + 1);
      total += share;
      next = path[i].weight - share * zero * (depth - i) * inv_n;
    }
  } else if (zero != 0.0) {
    const double scale = n / zero;
    for (int i = depth - 1; i >= 0; --i) total += path[i].weight * scale * r(depth - i);
  }
  return total;
}

struct Walk {
  const ShapNode* nodes;
  const unsigned char* goes_left;
  double* phi;
  // conditioning on one group (interaction values): +1 present, -1 absent,
  // 0 none
  int condition = 0, condition_group = -1;
};

// Node `node`, reached with the parent's path (`depth` + 1 elements at
// `parent`); this node's path is written after it. `fraction`: the share of
// the conditioning's paths that reach the node.
void recurse(const Walk& w, int node, ShapPathElement* parent, int depth, double zero_fraction,
             double one_fraction, int group, double fraction) {
  if (fraction == 0.0) return;
  ShapPathElement* path = parent + depth + 1;
  std::copy(parent, parent + depth + 1, path);
  // the conditioning group takes no place on the path
  if (w.condition == 0 || group != w.condition_group)
    extend(path, depth, zero_fraction, one_fraction, group);
  const ShapNode& n = w.nodes[node];
  if (n.left < 0) {
    for (int i = 1; i <= depth; ++i) {
      const double share = unwound_sum(path, depth, i);
      w.phi[path[i].group] +=
          share * (path[i].one_fraction - path[i].zero_fraction) * n.value * fraction;
    }
    return;
  }
  const int hot = w.goes_left[node] ? n.left : n.left + 1;
  const int cold = hot == n.left ? n.left + 1 : n.left;
  const double hot_zero = n.cover > 0.0 ? w.nodes[hot].cover / n.cover : 0.0;
  const double cold_zero = n.cover > 0.0 ? w.nodes[cold].cover / n.cover : 0.0;
  // a group already split on above: its element leaves the path, and its
  // fractions carry into this split's
  double in_zero = 1.0, in_one = 1.0;
  int at = 1;
  while (at <= depth && path[at].group != n.group) ++at;
  if (at <= depth) {
    in_zero = path[at].zero_fraction;
    in_one = path[at].one_fraction;
    unwind(path, depth, at);
    --depth;
  }
  double hot_fraction = fraction, cold_fraction = fraction;
  if (w.condition != 0 && n.group == w.condition_group) {
    if (w.condition > 0) {  // present: the row's branch only
      cold_fraction = 0.0;
    } else {  // absent: both branches, by their covers
      hot_fraction *= hot_zero;
      cold_fraction *= cold_zero;
    }
    --depth;  // (the group was not added to the path)
  }
  recurse(w, hot, path, depth + 1, hot_zero * in_zero, in_one, n.group, hot_fraction);
  recurse(w, cold, path, depth + 1, cold_zero * in_zero, 0.0, n.group, cold_fraction);
}

double set_value(const ShapNode* nodes, const unsigned char* goes_left, const unsigned char* in_set,
                 int node) {
  const ShapNode& n = nodes[node];
  if (n.left < 0) return n.value;
  if (in_set[n.group])
    return set_value(nodes, goes_left, in_set, goes_left[node] ? n.left : n.left + 1);
  const ShapNode &l = nodes[n.left], &r = nodes[n.left + 1];
  if (!(n.cover > 0.0)) return 0.0;
  return (l.cover * set_value(nodes, goes_left, in_set, n.left) +
          r.cover * set_value(nodes, goes_left, in_set, n.left + 1)) /
         n.cover;
}

// The node's expected value: its leaves' values weighted by their covers.
double cover_mean(const ShapNode* nodes, int node) {
  const ShapNode& n = nodes[node];
  if (n.left < 0) return n.value;
  if (!(n.cover > 0.0)) return 0.0;
  return (nodes[n.left].cover * cover_mean(nodes, n.left) +
          nodes[n.left + 1].cover * cover_mean(nodes, n.left + 1)) /
         n.cover;
}

// Marks the groups the subtree at `node` splits on.
void mark_groups(const ShapNode* nodes, int node, unsigned char* used) {
  const ShapNode& n = nodes[node];
  if (n.left < 0) return;
  used[n.group] = 1;
  mark_groups(nodes, n.left, used);
  mark_groups(nodes, n.left + 1, used);
}

int depth_below(const ShapNode* nodes, int node) {
  const ShapNode& n = nodes[node];
  if (n.left < 0) return 0;
  return 1 + std::max(depth_below(nodes, n.left), depth_below(nodes, n.left + 1));
}

}  // namespace shap_detail

void ShapScratch::reserve(int depth) {
  const std::size_t d = static_cast<std::size_t>(std::max(0, depth));
  const std::size_t need = (d + 2) * (d + 3) / 2;
  if (path.size() < need) path.resize(need);
}

int tree_depth(const ShapNode* nodes) { return shap_detail::depth_below(nodes, 0); }

double tree_expected_value(const ShapNode* nodes) { return shap_detail::cover_mean(nodes, 0); }

void tree_shap(const ShapNode* nodes, const unsigned char* goes_left, double* phi,
               ShapScratch& scratch, int condition, int condition_group, int depth) {
  if (nodes[0].left < 0) return;  // a single leaf: its value is the expected value
  scratch.reserve(depth >= 0 ? depth : tree_depth(nodes));
  const shap_detail::Walk w{nodes, goes_left, phi, condition, condition_group};
  // the root's (empty) path starts before the buffer's first element
  ShapPathElement* base = scratch.path.data();
  base[0] = {-1, 1.0, 1.0, 1.0};
  shap_detail::recurse(w, 0, base, 0, 1.0, 1.0, -1, 1.0);
}

double tree_set_value(const ShapNode* nodes, const unsigned char* goes_left,
                      const unsigned char* in_set) {
  return shap_detail::set_value(nodes, goes_left, in_set, 0);
}

void tree_shap_interactions(const ShapNode* nodes, const unsigned char* goes_left, int groups,
                            double* out, ShapScratch& scratch, std::vector<double>& work,
                            int depth) {
  const std::size_t g = static_cast<std::size_t>(groups);
  work.assign(3 * g, 0.0);
  double* phi = work.data();
  double* on = phi + g;
  double* off = on + g;
  if (depth < 0) depth = tree_depth(nodes);
  tree_shap(nodes, goes_left, phi, scratch, 0, -1, depth);
  // the groups the tree splits on (the others interact with nothing here)
  std::vector<unsigned char>& used = scratch.used;
  used.assign(g, 0);
  shap_detail::mark_groups(nodes, 0, used.data());
  for (std::size_t i = 0; i < g; ++i) {
    if (!used[i]) {
      out[i * g + i] += phi[i];
      continue;
    }
    std::fill(on, on + 2 * g, 0.0);
    tree_shap(nodes, goes_left, on, scratch, 1, static_cast<int>(i), depth);
    tree_shap(nodes, goes_left, off, scratch, -1, static_cast<int>(i), depth);
    double others = 0.0;
    for (std::size_t j = 0; j < g; ++j) {
      if (j == i) continue;
      const double v = (on[j] - off[j]) / 2.0;
      out[i * g + j] += v;
      others += v;
    }
    out[i * g + i] += phi[i] - others;
  }
}

}  // namespace trees
}  // namespace cppestimators
