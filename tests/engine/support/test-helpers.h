// Builders shared by the engine's Catch tests: specs as the R layer makes
// them, and datasets over plain C++ vectors.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <cppestimators/data/dataset.h>
#include <cppestimators/features/feature_batch.h>
#include <cppestimators/features/transform.h>
#include <cppestimators/io/checkpoint.h>
#include <cppestimators/model/estimator.h>
#include <cppestimators/services.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {
namespace testing {

inline Spec column(const std::string& kind, const std::string& name) {
  Spec s;
  s.kind = kind;
  s.strs["name"] = {name};
  return s;
}
inline Spec numeric(const std::string& key, int width = 1) {
  Spec s = column("numeric", key);
  s.strs["key"] = {key};
  s.nums["width"] = {static_cast<double>(width)};
  return s;
}

// An optimizer spec with TF 1.x defaults (as R's optimizer_*() fill them).
inline Spec optimizer(const std::string& name, double lr) {
  Spec s;
  s.kind = name;
  s.nums = {{"learning_rate", {lr}},
            {"initial_accumulator_value", {0.1}},
            {"learning_rate_power", {-0.5}},
            {"l1_regularization_strength", {0.0}},
            {"l2_regularization_strength", {0.0}},
            {"l2_shrinkage_regularization_strength", {0.0}},
            {"beta1", {0.9}},
            {"beta2", {0.999}},
            {"decay", {0.9}},
            {"momentum", {0.0}}};
  s.nums["epsilon"] = {name == "Adam" ? 1e-8 : 1e-10};
  return s;
}

inline EstimatorSpec linear(std::vector<Spec> columns, const std::string& opt = "SGD",
                            double lr = 0.01, const std::string& head = "regression",
                            int head_n = 1) {
  EstimatorSpec e;
  e.model.kind = "linear";
  e.model.lists["feature_columns"] = std::move(columns);
  e.head.kind = head;
  e.head_n = head_n;
  e.optimizers.push_back(optimizer(opt, lr));
  return e;
}

inline bool read_std_string(const void* v, std::int64_t i, std::string_view* out) {
  const auto& vec = *static_cast<const std::vector<std::string>*>(v);
  if (vec[static_cast<std::size_t>(i)] == "<NA>") return false;
  *out = vec[static_cast<std::size_t>(i)];
  return true;
}

inline ColumnView doubles(const std::string& key, const std::vector<double>& x, int width = 1) {
  ColumnView c;
  c.key = key;
  c.type = ColumnType::Double;
  c.n = static_cast<std::int64_t>(x.size()) / width;
  c.width = width;
  c.doubles = x.data();
  return c;
}
inline ColumnView ints(const std::string& key, const std::vector<int>& x) {
  ColumnView c;
  c.key = key;
  c.type = ColumnType::Integer;
  c.n = static_cast<std::int64_t>(x.size());
  c.ints = x.data();
  return c;
}
// "<NA>" marks a missing value.
inline ColumnView strings(const std::string& key, const std::vector<std::string>& x) {
  ColumnView c;
  c.key = key;
  c.type = ColumnType::String;
  c.n = static_cast<std::int64_t>(x.size());
  c.strings = &x;
  c.read_string = &read_std_string;
  return c;
}

// The ids of every row of one column over rows 0..n-1, pruned as models see them.
inline std::vector<std::vector<std::int64_t>> ids_of(const Spec& spec, const Dataset& data) {
  auto t = make_transform(spec);
  auto bound = t->bind_ids(data);
  SparseIds ids;
  ids.reserve(static_cast<int>(data.n), bound->max_ids_per_row());
  std::vector<int> rows(static_cast<std::size_t>(data.n));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int>(i);
  bound->gather(rows.data(), static_cast<int>(rows.size()), ids);
  ids.prune();
  std::vector<std::vector<std::int64_t>> out(rows.size());
  for (int r = 0; r < ids.rows(); ++r)
    for (int k = ids.begin(r); k < ids.end(r); ++k)
      out[static_cast<std::size_t>(r)].push_back(ids.id(k));
  return out;
}

// ---- files: temporary directories, whole-file reads and writes, errors ----

// A fresh directory under the system temp directory, removed on destruction.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static std::atomic<unsigned> counter{0};
    std::random_device rd;
    path = std::filesystem::temp_directory_path() /
           ("cppest-test-" + std::to_string(rd()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// The message of the std::exception thrown by f(), or "" if it does not throw.
template <class F>
inline std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Sorted file names in `dir`.
inline std::vector<std::string> listing(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline bool has_temp_files(const std::filesystem::path& dir) {
  for (const auto& name : listing(dir)) {
    if (contains(name, ".tmp")) return true;
  }
  return false;
}

// ---- checkpoints ----

inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

inline bool same_checkpoint(const cppestimators::CheckpointData& a,
                            const cppestimators::CheckpointData& b) {
  if (a.global_step != b.global_step || a.tensors.size() != b.tensors.size()) return false;
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    const cppestimators::TensorRecord &x = a.tensors[i], &y = b.tensors[i];
    if (x.name != y.name || x.shape != y.shape || !same_bits(x.data, y.data)) return false;
  }
  return true;
}

inline cppestimators::CheckpointData sample_checkpoint(std::int64_t step = 1234) {
  cppestimators::CheckpointData c;
  c.global_step = step;
  c.tensors.push_back({"global_step_scale", {}, {2.5f}});                 // rank 0
  c.tensors.push_back({"linear/bias", {3}, {-1.0f, 0.0f, -0.0f}});        // rank 1
  c.tensors.push_back({"linear/w\xc3\xbc", {2, 3}, {1, 2, 3, 4, 5, 6}});  // rank 2, UTF-8
  c.tensors.push_back({"empty", {0}, {}});                                // no elements
  c.tensors.push_back({"empty2d", {4, 0}, {}});
  c.tensors.push_back(
      {"special",
       {3},
       {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
        std::numeric_limits<float>::denorm_min()}});
  return c;
}

inline cppestimators::CheckpointData step_checkpoint(std::int64_t step) {
  cppestimators::CheckpointData c;
  c.global_step = step;
  c.tensors.push_back({"w", {2}, {static_cast<float>(step), -static_cast<float>(step)}});
  return c;
}

inline std::string decode_error(const std::string& bytes) {
  return error_of([&] { cppestimators::decode_checkpoint(bytes, "some/file.ckpt"); });
}

// Recomputes the trailer of a (modified) encoding so that only the structure is wrong.
inline std::string refresh_trailer(std::string bytes) {
  const std::size_t payload = bytes.size() - 12;
  bytes.resize(payload);
  const std::uint32_t crc = cppestimators::crc32c(bytes.data(), payload);
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>((std::uint64_t(payload) >> (8 * i)) & 0xFF));
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
  return bytes;
}

// ---- sessions and services ----

// Services that keep what the engine says: console text and messages, with
// a clock that only moves when told to.
class CapturingServices : public Services {
 public:
  void console(const std::string& text) override { console_text += text; }
  void message(const std::string& text) override { messages.push_back(text); }
  bool interrupt_requested() override { return false; }
  bool interactive() const override { return is_interactive; }
  int console_width() const override { return width; }
  double now() const override { return clock; }
  std::string console_text;
  std::vector<std::string> messages;
  bool is_interactive = false;
  int width = 80;
  double clock = 0.0;
};

// y = 2x + 1 on x = 1..n, for a linear regressor on the column "x".
struct LineData {
  std::vector<double> x, y;
  Dataset data;
  explicit LineData(int n = 6) {
    for (int i = 1; i <= n; ++i) {
      x.push_back(i);
      y.push_back(2.0 * i + 1.0);
    }
    data.n = n;
    data.features.push_back(doubles("x", x));
    data.labels = y.data();
  }
};

inline SessionOptions batches_of(int rows, std::int64_t epochs, Mode mode = Mode::Train) {
  SessionOptions o;
  o.mode = mode;
  o.batch_size = rows;
  o.num_epochs = epochs;
  return o;
}

}  // namespace testing
}  // namespace cppestimators
