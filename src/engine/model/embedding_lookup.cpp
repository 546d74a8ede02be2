#include <cppestimators/model/embedding_lookup.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace cppestimators {

EmbeddingLookup::EmbeddingLookup(const EmbeddingParams& p, Parameter* table)
    : p_(p), table_(table) {}

void EmbeddingLookup::reserve(Scratch& s, const SparseIds& ids) const {
  s.coef.assign(ids.capacity(), 0.0f);
  s.grad.reserve(ids.capacity(), static_cast<std::size_t>(p_.dimension));
}

void EmbeddingLookup::forward(const SparseIds& ids, Scratch& s, float* out) const {
  const int d = p_.dimension;
  const float* table = table_->value.data();
  for (int r = 0; r < ids.rows(); ++r) {
    float* o = out + static_cast<std::size_t>(r) * d;
    std::fill(o, o + d, 0.0f);
    const int b = ids.begin(r), e = ids.end(r);
    if (b == e) continue;
    float norm = 1.0f;
    if (p_.combiner != "sum") {
      float sw = 0.0f;
      for (int k = b; k < e; ++k)
        sw += p_.combiner == "mean" ? ids.weight(k) : ids.weight(k) * ids.weight(k);
      norm = p_.combiner == "mean" ? 1.0f / sw : 1.0f / std::sqrt(sw);
    }
    for (int k = b; k < e; ++k) {
      const float* row = table + static_cast<std::size_t>(ids.id(k)) * d;
      float c = ids.weight(k) * norm;
      if (p_.max_norm > 0.0) {
        float sq = 0.0f;
        for (int j = 0; j < d; ++j) sq += row[j] * row[j];
        const float n2 = std::sqrt(sq);
        if (n2 > p_.max_norm) c *= static_cast<float>(p_.max_norm) / n2;
      }
      s.coef[static_cast<std::size_t>(k)] = c;
      for (int j = 0; j < d; ++j) o[j] += c * row[j];
    }
  }
}

void EmbeddingLookup::backward(const SparseIds& ids, Scratch& s, const float* dout,
                               Gradient& g) const {
  s.grad.begin();
  for (int r = 0; r < ids.rows(); ++r)
    for (int k = ids.begin(r); k < ids.end(r); ++k)
      s.grad.add(ids.id(k), r, s.coef[static_cast<std::size_t>(k)]);
  s.grad.finish(dout, *table_, g);
}

}  // namespace cppestimators
