// The pieces of CSV text parsing that do not depend on the reader's state:
// splitting one record into fields (RFC 4180 quoting: a field that starts
// with '"' runs to the matching '"', with "" standing for one quote) and
// reading a field as a number or a logical. Numeric fields may carry
// leading and trailing blanks; text fields are taken as they are.
#pragma once
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstring>
#include <system_error>

namespace cppestimators {
namespace csv {

// One field of a record: [begin, end) without its enclosing quotes;
// `escaped` when it holds doubled quotes still to be undone.
struct Field {
  const char* begin = nullptr;
  const char* end = nullptr;
  bool quoted = false;
  bool escaped = false;
};

// Splits record [p, end) at `delim`, storing at most `max` fields and
// returning how many the record holds (counting those not stored).
inline int split_record(const char* p, const char* end, char delim, Field* fields, int max) {
  int count = 0;
  for (;;) {
    Field f;
    if (p < end && *p == '"') {
      f.quoted = true;
      const char* q = ++p;
      for (;;) {
        while (q < end && *q != '"') ++q;
        if (q + 1 < end && q[1] == '"') {
          f.escaped = true;
          q += 2;
          continue;
        }
        break;
      }
      f.begin = p;
      f.end = q < end ? q : end;
      p = q < end ? q + 1 : end;
      while (p < end && *p != delim) ++p;  // text after the closing quote is dropped
    } else {
      f.begin = p;
      while (p < end && *p != delim) ++p;
      f.end = p;
    }
    if (count < max) fields[count] = f;
    ++count;
    if (p >= end) return count;
    ++p;  // the delimiter; a record ending in one has a last, empty field
  }
}

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

inline void trim(const char*& a, const char*& b) {
  while (a < b && is_blank(*a)) ++a;
  while (b > a && is_blank(b[-1])) --b;
}

// Clinger's fast path: a decimal of at most 2^53 as its digits and a power
// of ten up to 1e22 (both exact doubles) is one correctly rounded multiply
// or divide. False when the text is not of that simple form.
inline bool parse_double_fast(const char* a, const char* b, double* out) {
  static const double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const bool neg = *a == '-';
  if (neg || *a == '+') ++a;
  std::uint64_t m = 0;
  int digits = 0, scale = 0;
  bool any = false;
  for (; a < b && static_cast<unsigned>(*a - '0') <= 9; ++a, any = true) {
    m = m * 10 + static_cast<unsigned>(*a - '0');
    digits += m != 0;
  }
  if (a < b && *a == '.') {
    for (++a; a < b && static_cast<unsigned>(*a - '0') <= 9; ++a, any = true) {
      m = m * 10 + static_cast<unsigned>(*a - '0');
      digits += m != 0;
      --scale;
    }
  }
  if (!any || digits > 19) return false;
  if (a < b && (*a == 'e' || *a == 'E')) {
    ++a;
    bool eneg = false;
    if (a < b && (*a == '-' || *a == '+')) eneg = *a++ == '-';
    if (a == b) return false;
    int e = 0;
    for (; a < b && static_cast<unsigned>(*a - '0') <= 9; ++a) {
      e = e * 10 + (*a - '0');
      if (e > 1000) return false;
    }
    scale += eneg ? -e : e;
  }
  if (a != b || m > (std::uint64_t{1} << 53) || scale < -22 || scale > 22) return false;
  double v = static_cast<double>(m);
  v = scale < 0 ? v / kPow10[-scale] : v * kPow10[scale];
  *out = neg ? -v : v;
  return true;
}

inline bool parse_double(const char* a, const char* b, double* out) {
  trim(a, b);
  if (a == b) return false;
  if (parse_double_fast(a, b, out)) return true;
  if (*a == '+') ++a;
  if (a == b) return false;
  const auto r = std::from_chars(a, b, *out);
  if (r.ptr != b) return false;
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars leaves *out alone: underflow to zero, overflow to infinity
    // as strtod and fread do.
    const char* m = a;
    if (*m == '-') ++m;
    bool big = false;
    while (m < b && (*m == '.' || *m == '0')) ++m;
    for (const char* e = m; e < b; ++e)
      if (*e == 'e' || *e == 'E') {
        big = e + 1 < b && e[1] != '-';
        break;
      }
    const double v = big ? 1.0 / 0.0 : 0.0;
    *out = *a == '-' ? -v : v;
    return true;
  }
  return r.ec == std::errc();
}

// A 32-bit integer; INT_MIN is refused (it stands for a missing value).
inline bool parse_int(const char* a, const char* b, int* out) {
  trim(a, b);
  bool neg = false;
  if (a < b && (*a == '-' || *a == '+')) neg = *a++ == '-';
  if (a == b || b - a > 10) return false;
  std::int64_t v = 0;
  for (; a < b; ++a) {
    const unsigned d = static_cast<unsigned>(*a - '0');
    if (d > 9) return false;
    v = v * 10 + d;
  }
  if (v > INT_MAX) return false;
  *out = static_cast<int>(neg ? -v : v);
  return true;
}

// TRUE/FALSE in R's and other common spellings, and 1/0.
inline bool parse_logical(const char* a, const char* b, int* out) {
  trim(a, b);
  const std::size_t n = static_cast<std::size_t>(b - a);
  auto is = [&](const char* s, std::size_t len) {
    if (n != len) return false;
    for (std::size_t i = 0; i < len; ++i)
      if (a[i] != s[i]) return false;
    return true;
  };
  if (is("TRUE", 4) || is("True", 4) || is("true", 4) || is("T", 1) || is("1", 1)) {
    *out = 1;
    return true;
  }
  if (is("FALSE", 5) || is("False", 5) || is("false", 5) || is("F", 1) || is("0", 1)) {
    *out = 0;
    return true;
  }
  return false;
}

// Counts the quotes and the newlines in [p, end) eight bytes at a time: in
// each word, a byte equal to the one sought becomes 0x80 and every other
// byte 0 (exactly, without carries between bytes); the flags add up in the
// word's byte lanes, emptied before any lane can pass 255. A byte-at-a-time
// loop made this pass, which only the parallel indexing of a block needs,
// slower than the indexing it prepares.
inline void count_quotes_newlines(const char* p, const char* end, std::int64_t* quotes,
                                  std::int64_t* newlines) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kLow7 = 0x7F7F7F7F7F7F7F7FULL;
  auto flags = [&](std::uint64_t w, std::uint64_t pattern) {
    const std::uint64_t v = w ^ pattern;                  // a matching byte is now 0
    return (~(((v & kLow7) + kLow7) | v) & ~kLow7) >> 7;  // 1 in each matching byte's lane
  };
  auto lanes_sum = [](std::uint64_t s) {
    s = (s & 0x00FF00FF00FF00FFULL) + ((s >> 8) & 0x00FF00FF00FF00FFULL);
    return static_cast<std::int64_t>((s * 0x0001000100010001ULL) >> 48);
  };
  std::int64_t q = 0, n = 0;
  while (end - p >= 8) {
    std::uint64_t sq = 0, sn = 0;
    for (int i = 0; i < 255 && end - p >= 8; ++i, p += 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      sq += flags(w, kOnes * '"');
      sn += flags(w, kOnes * '\n');
    }
    q += lanes_sum(sq);
    n += lanes_sum(sn);
  }
  for (; p < end; ++p) {
    q += *p == '"';
    n += *p == '\n';
  }
  *quotes = q;
  *newlines = n;
}

}  // namespace csv
}  // namespace cppestimators
