#include <cppestimators/io/checkpoint_index.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include <cppestimators/io/atomic_file.h>

namespace cppestimators {

namespace {

std::string index_path(const std::string& dir) {
  return (std::filesystem::path(dir) / "checkpoint").string();
}

// Quotes a string for protobuf text format (C escapes; UTF-8 is kept as is).
std::string text_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// A small parser for the CheckpointState text proto.
class IndexParser {
 public:
  IndexParser(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  CheckpointState parse() {
    CheckpointState st;
    bool have_model = false;
    for (skip_space(); i_ < s_.size(); skip_space()) {
      const auto field_line = line_;
      const std::string field = identifier();
      skip_space();
      if (i_ >= s_.size() || s_[i_] != ':') {
        line_ = field_line;  // report the line the field started on
        bad("expected ':' after '" + field + "'");
      }
      ++i_;
      skip_space();
      if (field == "model_checkpoint_path") {
        if (have_model) bad("model_checkpoint_path given twice");
        have_model = true;
        st.model_checkpoint_path = string_value();
      } else if (field == "all_model_checkpoint_paths") {
        st.all_model_checkpoint_paths.push_back(string_value());
      } else if (field == "all_model_checkpoint_timestamps" ||
                 field == "last_preserved_timestamp") {
        number_value();  // written by TensorFlow 2; not used here
      } else {
        bad("unknown field '" + field + "'");
      }
      skip_space();
      if (i_ < s_.size() && (s_[i_] == ',' || s_[i_] == ';')) ++i_;  // optional separators
    }
    if (!have_model) bad("missing model_checkpoint_path");
    return st;
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    throw std::runtime_error(file_ + ": malformed checkpoint index (line " + std::to_string(line_) +
                             ": " + what + ")");
  }
  // Skips whitespace (including CR) and '#' comments.
  void skip_space() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }
  static bool is_ident(char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
  }
  std::string identifier() {
    const std::size_t start = i_;
    while (i_ < s_.size() && is_ident(s_[i_], i_ == start)) ++i_;
    if (i_ == start) bad("expected a field name");
    return s_.substr(start, i_ - start);
  }
  void number_value() {
    const std::size_t start = i_;
    while (i_ < s_.size() &&
           (is_ident(s_[i_], false) || s_[i_] == '.' || s_[i_] == '+' || s_[i_] == '-')) {
      ++i_;
    }
    if (i_ == start) bad("expected a number");
  }
  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  // One or more adjacent quoted strings (concatenated), with C escapes.
  std::string string_value() {
    if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) bad("expected a quoted string");
    std::string out;
    while (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'')) {
      const char quote = s_[i_++];
      for (;;) {
        if (i_ >= s_.size() || s_[i_] == '\n') bad("unterminated string");
        const char c = s_[i_++];
        if (c == quote) break;
        if (c != '\\') {
          out += c;
          continue;
        }
        if (i_ >= s_.size()) bad("unterminated string");
        const char e = s_[i_++];
        switch (e) {
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'a':
            out += '\a';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'v':
            out += '\v';
            break;
          case '\\':
          case '\'':
          case '"':
          case '?':
            out += e;
            break;
          case 'x': {
            int v = 0, k = 0;
            for (; k < 2 && i_ < s_.size() && hex_digit(s_[i_]) >= 0; ++k) {
              v = v * 16 + hex_digit(s_[i_++]);
            }
            if (k == 0) bad("bad \\x escape");
            out += static_cast<char>(v);
            break;
          }
          default:
            if (e >= '0' && e <= '7') {
              int v = e - '0';
              for (int k = 1; k < 3 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7'; ++k) {
                v = v * 8 + (s_[i_++] - '0');
              }
              if (v > 255) bad("bad octal escape");
              out += static_cast<char>(v);
            } else {
              bad(std::string("unknown escape \\") + e);
            }
        }
      }
      skip_space();
    }
    return out;
  }

  const std::string& s_;
  const std::string& file_;
  std::size_t i_ = 0;
  int line_ = 1;
};

}  // namespace

namespace detail {

std::string prefix_file(const std::string& dir, const std::string& prefix) {
  return (std::filesystem::path(dir) / (prefix + ".ckpt")).string();
}

}  // namespace detail

bool read_checkpoint_state(const std::string& dir, CheckpointState* out) {
  if (!out) throw std::invalid_argument("read_checkpoint_state: `out` is null");
  const std::string file = index_path(dir);
  std::string text;
  int err = 0;
  const detail::ReadResult r = detail::read_whole_file(file, &text, &err);
  if (r == detail::ReadResult::cannot_open) {
    if (err == ENOENT || err == ENOTDIR) return false;
    throw std::runtime_error(file + ": cannot open checkpoint index: " + detail::errno_string(err));
  }
  if (r == detail::ReadResult::read_error) {
    throw std::runtime_error(file + ": read error: " + detail::errno_string(err));
  }
  *out = IndexParser(text, file).parse();
  return true;
}

void write_checkpoint_state(const std::string& dir, const CheckpointState& st) {
  std::string text = "model_checkpoint_path: " + text_quote(st.model_checkpoint_path) + "\n";
  for (const std::string& p : st.all_model_checkpoint_paths) {
    text += "all_model_checkpoint_paths: " + text_quote(p) + "\n";
  }
  write_file_atomic(index_path(dir), text);
}

std::string latest_checkpoint(const std::string& dir) {
  namespace fs = std::filesystem;
  CheckpointState st;
  if (!read_checkpoint_state(dir, &st)) return "";
  std::error_code ec;
  if (!st.model_checkpoint_path.empty()) {
    const std::string f = detail::prefix_file(dir, st.model_checkpoint_path);
    if (fs::is_regular_file(f, ec)) return f;
  }
  const auto& all = st.all_model_checkpoint_paths;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const std::string f = detail::prefix_file(dir, *it);
    if (fs::is_regular_file(f, ec)) return f;
  }
  return "";
}

}  // namespace cppestimators
