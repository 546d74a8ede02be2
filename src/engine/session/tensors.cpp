#include <cppestimators/session/tensors.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <cppestimators/model/estimator.h>
#include <cppestimators/session/session.h>

namespace cppestimators {

namespace {
void set_scalar(TensorValue& out, double v, bool integer = false) {
  out.shape.clear();
  out.data.assign(1, v);
  out.integer = integer;
}
// rows x cols row-major floats; a vector when cols == 1 and !matrix.
void set_rows(TensorValue& out, const float* p, int rows, int cols, bool matrix) {
  if (cols == 1 && !matrix)
    out.shape.assign(1, rows);
  else
    out.shape = {rows, cols};
  out.data.assign(p, p + static_cast<std::size_t>(rows) * cols);
  out.integer = false;
}

// One named tensor of a session: whether it exists there, and how to read it.
struct TensorEntry {
  const char* name;
  bool (*available)(const Session&);
  void (*read)(const Session&, TensorValue&);
};

bool always(const Session&) { return true; }
bool has_labels(const Session& s) { return s.mode() != Mode::Predict; }
// Each part's rate of a model with two optimizers (wide and deep).
template <const char* group>
bool has_group_rate(const Session& s) {
  double v;
  return s.estimator().groups().size() > 1 && s.estimator().group_learning_rate(group, v);
}
template <const char* group>
void read_group_rate(const Session& s, TensorValue& out) {
  double v = 0;
  s.estimator().group_learning_rate(group, v);
  set_scalar(out, v);
}
constexpr char kLinear[] = "linear", kDnn[] = "dnn";

// The rows of this process's batch, whose logits and labels it holds; a
// socket cluster's chief holds none (its workers read the batches).
int batch_rows(const Session& s, const char* tensor) {
  if (s.observer())
    throw std::invalid_argument(std::string("`") + tensor +
                                "` is not available on a socket cluster's chief: the workers read "
                                "the batches (fetch `loss`, `losses` or `global_step`)");
  return s.local_rows();
}

// The registry: every fixed tensor name in one table (the estimator's
// variables are looked up by name after it).
const std::vector<TensorEntry>& tensor_registry() {
  static const std::vector<TensorEntry> entries = {
      {"loss", always, [](const Session& s, TensorValue& out) { set_scalar(out, s.loss()); }},
      {"per_example_loss", always,
       [](const Session& s, TensorValue& out) {
         if (!s.has_per_example_losses())
           throw std::invalid_argument(
               "`per_example_loss` of a step across processes reaches the chief only when an R "
               "hook or hook_logging_tensor() is attached to train()");
         set_rows(out, s.per_example_losses(), s.rows(), s.head().per_example_dim(), false);
       }},
      {"average_loss", always,
       [](const Session& s, TensorValue& out) { set_scalar(out, s.average_loss()); }},
      {"global_step", always,
       [](const Session& s, TensorValue& out) {
         set_scalar(out, static_cast<double>(s.global_step()), true);
       }},
      {"learning_rate", always,
       [](const Session& s, TensorValue& out) { set_scalar(out, s.learning_rate()); }},
      {"linear/learning_rate", has_group_rate<kLinear>, read_group_rate<kLinear>},
      {"dnn/learning_rate", has_group_rate<kDnn>, read_group_rate<kDnn>},
      {"logits", always,
       [](const Session& s, TensorValue& out) {
         set_rows(out, s.logits(), batch_rows(s, "logits"), s.head().logits_dim(), false);
       }},
      {"predictions", always,
       [](const Session& s, TensorValue& out) {
         const Head& head = s.head();
         const std::string key = head.default_prediction_key();
         const int w = head.key_width(key), rows = batch_rows(s, "predictions");
         out.data.resize(static_cast<std::size_t>(rows) * w);
         head.predict(key, s.logits(), rows, out.data.data());
         if (w == 1)
           out.shape.assign(1, rows);
         else
           out.shape = {rows, w};
         out.integer = false;
       }},
      {"labels", has_labels,
       [](const Session& s, TensorValue& out) {
         set_rows(out, s.labels(), batch_rows(s, "labels"), s.head().label_dim(), false);
       }},
  };
  return entries;
}
}  // namespace

std::string known_tensor_names() {
  std::string out;
  // (the per-part rates of two-optimizer models are left out: few have them)
  for (const auto& e : tensor_registry())
    if (std::string_view(e.name).find('/') == std::string_view::npos)
      out += std::string(e.name) + ", ";
  return out + "and the estimator's variables";
}

bool read_tensor(const Session& s, const std::string& full_name, TensorValue& out) {
  const std::string_view name = tensor_base_view(full_name);
  for (const auto& e : tensor_registry()) {
    if (name != e.name) continue;
    if (!e.available(s)) return false;
    e.read(s, out);
    return true;
  }
  if (const VariableRef* v = s.estimator().find_variable(name)) {
    out.shape = v->shape;
    out.data.assign(v->data, v->data + v->size);
    out.integer = false;
    return true;
  }
  return false;
}

bool tensor_exists(const Session& s, const std::string& full_name) {
  const std::string_view name = tensor_base_view(full_name);
  for (const auto& e : tensor_registry())
    if (name == e.name) return e.available(s);
  return s.estimator().find_variable(name) != nullptr;
}

namespace detail {
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace detail

std::string unknown_tensor_hint(const Session& s, std::string_view name, std::size_t max_shown) {
  std::string nearest;
  std::size_t best = std::string::npos;
  const auto consider = [&](std::string_view candidate) {
    const std::size_t d = detail::edit_distance(name, candidate);
    if (d < best) {
      best = d;
      nearest = std::string(candidate);
    }
  };
  for (const auto& e : tensor_registry()) {
    if (name == e.name) return "";  // known, but without a value in this session
    if (e.available(s)) consider(e.name);
  }
  const auto& vars = s.estimator().variables();
  std::string listed;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    consider(vars[i].name);
    if (i < max_shown) listed += (i ? ", " : "") + vars[i].name;
  }
  if (vars.size() > max_shown) listed += ", ... (" + std::to_string(vars.size()) + " in all)";
  std::string out = nearest.empty() ? "" : "; did you mean '" + nearest + "'?";
  if (!listed.empty())
    out += (out.empty() ? "; " : " ") + std::string("The estimator's variables are ") + listed;
  return out;
}

void require_tensor(const Session& s, const std::string& name, const char* hook) {
  if (!tensor_exists(s, name))
    throw std::invalid_argument(
        std::string(hook) + "(): '" + name + "' is not a tensor of this session; known names are " +
        known_tensor_names() + unknown_tensor_hint(s, tensor_base_view(name)));
}

std::string format_number(double v, bool integer) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (integer) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  const float f = static_cast<float>(v);
  for (int prec = 1; prec <= 9; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  std::string s(buf);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string format_tensor(const TensorValue& t) {
  if (t.shape.empty()) return format_number(t.data.empty() ? NAN : t.data[0], t.integer);
  std::string s = "[";
  for (std::size_t i = 0; i < t.data.size(); ++i) {
    if (i) s += ' ';
    s += format_number(t.data[i], t.integer);
  }
  return s + "]";
}

BatchLosses batch_losses(const Session& s) {
  if (!s.distributed()) return local_batch_losses(s);
  const RoundHead& r = s.round();
  return BatchLosses{r.pe_weight > 0 ? r.pe_total / r.pe_weight : 0.0, r.pe_total, r.pe_weight};
}

BatchLosses local_batch_losses(const Session& s) {
  // a custom estimator's losses are its model_fn's one loss (TF's losses
  // collection holds that tensor)
  if (s.head().scalar_loss()) return BatchLosses{s.loss(), s.loss(), 1.0};
  const int d = s.head().per_example_dim(), m = s.local_rows() * d;
  const float* pe = s.local_per_example_losses();
  const float* w = s.weights();
  double sum = 0.0, weights = m;
  if (w == nullptr) {
    for (int i = 0; i < m; ++i) sum += pe[i];
  } else {
    weights = 0.0;
    for (int i = 0; i < m; ++i) {
      sum += static_cast<double>(w[i / d]) * pe[i];
      weights += w[i / d];
    }
  }
  return BatchLosses{weights > 0 ? sum / weights : 0.0, sum, weights};
}

}  // namespace cppestimators
