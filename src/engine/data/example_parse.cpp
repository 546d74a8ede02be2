#include <cppestimators/data/example_parse.h>

#include <limits>
#include <string_view>
#include <utility>

namespace cppestimators {

std::runtime_error example_error(const RecordPlace& at, const std::string& what) {
  return std::runtime_error(*at.path + ": " + what + " (record " + std::to_string(at.index) +
                            ", at offset " + std::to_string(at.offset) + ")");
}

ExampleParser::ExampleParser(std::vector<FeatureSpec> spec)
    : spec_(std::move(spec)), found_(spec_.size()) {
  for (const auto& s : spec_) {
    if (s.width < 1) throw std::invalid_argument("feature '" + s.key + "': width must be >= 1");
    if (s.has_default) {
      const std::size_t w = static_cast<std::size_t>(s.width);
      const bool ok = (s.kind == FeatureKind::Float && s.default_floats.size() == w) ||
                      (s.kind == FeatureKind::Int64 && s.default_ints.size() == w) ||
                      (s.kind == FeatureKind::Bytes && s.default_bytes.size() == w);
      if (!ok)
        throw std::invalid_argument("feature '" + s.key + "': the default needs " +
                                    std::to_string(w) + " values");
    }
  }
}

void ExampleParser::start(Chunk& out) const {
  if (out.columns.size() != spec_.size()) out.columns.assign(spec_.size(), ChunkColumn());
  for (std::size_t f = 0; f < spec_.size(); ++f) {
    ChunkColumn& c = out.columns[f];
    const FeatureSpec& s = spec_[f];
    if (c.key != s.key) c.key = s.key;
    c.type = s.kind == FeatureKind::Float   ? ColumnType::Double
             : s.kind == FeatureKind::Int64 ? ColumnType::Integer
                                            : ColumnType::String;
    c.width = s.var_len ? 1 : s.width;
    c.ragged = s.var_len;
  }
  out.clear();
}

void ExampleParser::parse(const unsigned char* p, std::size_t n, Chunk& out,
                          const RecordPlace& at) {
  using namespace event_detail;
  for (auto& f : found_) f = Span{};
  WireReader example(p, p + n);
  while (!example.done()) {
    int field, wire;
    if (!example.key(field, wire)) throw example_error(at, "malformed Example");
    if (field != 1 || wire != kLengthDelimited) {
      if (!example.skip(field, wire)) throw example_error(at, "malformed Example");
      continue;
    }
    WireReader features(nullptr, nullptr);
    if (!example.bytes(features)) throw example_error(at, "malformed Example");
    read_features(features, at);
  }
  for (std::size_t f = 0; f < spec_.size(); ++f) append(f, out.columns[f], at);
  ++out.n;
}

void ExampleParser::finish(Chunk& out) {
  const std::size_t n = static_cast<std::size_t>(out.n);
  for (std::size_t f = 0; f < spec_.size(); ++f) {
    ChunkColumn& c = out.columns[f];
    const std::size_t w = static_cast<std::size_t>(c.width);
    if (c.ragged || w == 1) continue;
    if (c.type == ColumnType::Double) {
      scratch_.doubles.resize(n * w);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < w; ++j) scratch_.doubles[i + j * n] = c.doubles[i * w + j];
      c.doubles.swap(scratch_.doubles);
    } else if (c.type == ColumnType::Integer) {
      scratch_.ints.resize(n * w);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < w; ++j) scratch_.ints[i + j * n] = c.ints[i * w + j];
      c.ints.swap(scratch_.ints);
    } else {
      scratch_.clear();
      for (std::size_t j = 0; j < w; ++j)
        for (std::size_t i = 0; i < n; ++i) {
          const std::int64_t k = static_cast<std::int64_t>(i * w + j);
          scratch_.push_text(c.text_at(k), c.present[static_cast<std::size_t>(k)] != 0);
        }
      c.text.swap(scratch_.text);
      c.offsets.swap(scratch_.offsets);
      c.present.swap(scratch_.present);
    }
  }
}

void ExampleParser::read_features(event_detail::WireReader& features, const RecordPlace& at) {
  using namespace event_detail;
  while (!features.done()) {
    int field, wire;
    if (!features.key(field, wire)) throw example_error(at, "malformed Features");
    if (field != 1 || wire != kLengthDelimited) {
      if (!features.skip(field, wire)) throw example_error(at, "malformed Features");
      continue;
    }
    WireReader entry(nullptr, nullptr);
    if (!features.bytes(entry)) throw example_error(at, "malformed Features");
    WireReader key(nullptr, nullptr), value(nullptr, nullptr);
    bool has_key = false, has_value = false;
    while (!entry.done()) {
      int f, w;
      if (!entry.key(f, w)) throw example_error(at, "malformed feature entry");
      if (f == 1 && w == kLengthDelimited) {
        if (!entry.bytes(key)) throw example_error(at, "malformed feature entry");
        has_key = true;
      } else if (f == 2 && w == kLengthDelimited) {
        if (!entry.bytes(value)) throw example_error(at, "malformed feature entry");
        has_value = true;
      } else if (!entry.skip(f, w)) {
        throw example_error(at, "malformed feature entry");
      }
    }
    std::string_view k;
    if (has_key) k = std::string_view(reinterpret_cast<const char*>(key.begin()), key.size());
    for (std::size_t s = 0; s < spec_.size(); ++s) {
      if (spec_[s].key != k) continue;
      found_[s].seen = true;
      found_[s].p = has_value ? value.begin() : nullptr;
      found_[s].end = has_value ? value.begin() + value.size() : nullptr;
      break;
    }
  }
}

int ExampleParser::feature_list(const Span& span, event_detail::WireReader& list,
                                const RecordPlace& at, const std::string& key) {
  using namespace event_detail;
  int kind = 0;
  WireReader feature(span.p, span.end);
  while (!feature.done()) {
    int f, w;
    if (!feature.key(f, w)) throw example_error(at, "malformed Feature '" + key + "'");
    if (f >= 1 && f <= 3 && w == kLengthDelimited) {
      if (!feature.bytes(list)) throw example_error(at, "malformed Feature '" + key + "'");
      kind = f;
    } else if (!feature.skip(f, w)) {
      throw example_error(at, "malformed Feature '" + key + "'");
    }
  }
  return kind;
}

int ExampleParser::to_int(std::int64_t v, const RecordPlace& at, const std::string& key) {
  if (v <= std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw example_error(at, "feature '" + key + "': the int64 value " + std::to_string(v) +
                                " is outside R's integers");
  return static_cast<int>(v);
}

std::int64_t ExampleParser::append_values(event_detail::WireReader list, FeatureKind kind,
                                          ChunkColumn& c, const RecordPlace& at,
                                          const std::string& key) {
  using namespace event_detail;
  std::int64_t count = 0;
  const auto bad = [&]() {
    return example_error(at,
                         "malformed " + std::string(feature_kind_name(kind)) + " '" + key + "'");
  };
  while (!list.done()) {
    int f, w;
    if (!list.key(f, w)) throw bad();
    if (f != 1) {
      if (!list.skip(f, w)) throw bad();
      continue;
    }
    if (kind == FeatureKind::Bytes) {
      WireReader s(nullptr, nullptr);
      if (w != kLengthDelimited || !list.bytes(s)) throw bad();
      c.push_text(std::string_view(reinterpret_cast<const char*>(s.begin()), s.size()), true);
      ++count;
    } else if (kind == FeatureKind::Float) {
      std::uint32_t u;
      if (w == kFixed32) {
        if (!list.fixed32(u)) throw bad();
        c.doubles.push_back(detail::float_from_bits(u));
        ++count;
      } else if (w == kLengthDelimited) {
        WireReader packed(nullptr, nullptr);
        if (!list.bytes(packed) || packed.size() % 4 != 0) throw bad();
        while (!packed.done()) {
          packed.fixed32(u);
          c.doubles.push_back(detail::float_from_bits(u));
          ++count;
        }
      } else {
        throw bad();
      }
    } else {
      std::uint64_t v;
      if (w == kVarint) {
        if (!list.varint(v)) throw bad();
        c.ints.push_back(to_int(static_cast<std::int64_t>(v), at, key));
        ++count;
      } else if (w == kLengthDelimited) {
        WireReader packed(nullptr, nullptr);
        if (!list.bytes(packed)) throw bad();
        while (!packed.done()) {
          if (!packed.varint(v)) throw bad();
          c.ints.push_back(to_int(static_cast<std::int64_t>(v), at, key));
          ++count;
        }
      } else {
        throw bad();
      }
    }
  }
  return count;
}

void ExampleParser::append(std::size_t f, ChunkColumn& c, const RecordPlace& at) {
  using namespace event_detail;
  const FeatureSpec& s = spec_[f];
  const Span& span = found_[f];
  std::int64_t count = 0;
  if (span.seen) {
    WireReader list(nullptr, nullptr);
    const int kind = feature_list(span, list, at, s.key);
    if (kind != 0 && kind != static_cast<int>(s.kind))
      throw example_error(at, "feature '" + s.key + "' is a " +
                                  feature_kind_name(static_cast<FeatureKind>(kind)) +
                                  ", the spec wants a " + feature_kind_name(s.kind));
    if (kind != 0) count = append_values(list, s.kind, c, at, s.key);
  }
  if (s.var_len) {
    c.row_splits.push_back(c.row_splits.back() + count);
    return;
  }
  if (count == s.width) return;
  if (count != 0)
    throw example_error(at, "feature '" + s.key + "' has " + std::to_string(count) +
                                " values, the spec wants " + std::to_string(s.width));
  if (!s.has_default)
    throw example_error(at, "feature '" + s.key + "' is required but missing (no default_value)");
  for (int j = 0; j < s.width; ++j) {
    const std::size_t k = static_cast<std::size_t>(j);
    if (s.kind == FeatureKind::Float) c.doubles.push_back(s.default_floats[k]);
    if (s.kind == FeatureKind::Int64) c.ints.push_back(to_int(s.default_ints[k], at, s.key));
    if (s.kind == FeatureKind::Bytes) c.push_text(s.default_bytes[k], true);
  }
}

}  // namespace cppestimators
