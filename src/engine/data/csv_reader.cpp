#include <cppestimators/data/csv_reader.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <cppestimators/data/chunk.h>
#include <cppestimators/data/column.h>
#include <cppestimators/data/csv_parse.h>
#include <cppestimators/parallel.h>

namespace cppestimators {

// csv_parse.h's functions, here with the loops that call them per field.
namespace csv {

int split_record(const char* p, const char* end, char delim, Field* fields, int max) {
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

bool is_blank(char c) { return c == ' ' || c == '\t'; }

void trim(const char*& a, const char*& b) {
  while (a < b && is_blank(*a)) ++a;
  while (b > a && is_blank(b[-1])) --b;
}

bool parse_double_fast(const char* a, const char* b, double* out) {
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

bool parse_double(const char* a, const char* b, double* out) {
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

bool parse_int(const char* a, const char* b, int* out) {
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

bool parse_logical(const char* a, const char* b, int* out) {
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

void count_quotes_newlines(const char* p, const char* end, std::int64_t* quotes,
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

namespace {

ColumnType column_type(CsvType t) {
  switch (t) {
    case CsvType::Integer:
      return ColumnType::Integer;
    case CsvType::Logical:
      return ColumnType::Logical;
    case CsvType::String:
      return ColumnType::String;
    default:
      return ColumnType::Double;
  }
}

template <class Out>
void unescape(const csv::Field& f, Out* out) {
  if (!f.escaped) {
    out->insert(out->end(), f.begin, f.end);
    return;
  }
  for (const char* c = f.begin; c < f.end; ++c) {
    out->push_back(*c);
    if (*c == '"' && c + 1 < f.end && c[1] == '"') ++c;
  }
}

}  // namespace

CsvReader::CsvReader(std::vector<std::string> files, CsvOptions options)
    : files_(std::move(files)), opt_(std::move(options)) {
  if (opt_.columns.empty()) throw std::invalid_argument("a CSV reader needs at least one column");
  if (opt_.delim == '"' || opt_.delim == '\n' || opt_.delim == '\r')
    throw std::invalid_argument("the delimiter cannot be a quote or a line break");
  if (opt_.block_size < 4096) opt_.block_size = 4096;
  if (opt_.threads < 1) opt_.threads = 1;
  names_known_ = true;
  for (const auto& c : opt_.columns)
    if (c.name.empty()) names_known_ = false;
  if (!names_known_ && !opt_.header)
    throw std::invalid_argument("column names must be given when the files have no header");
  fields_.resize(static_cast<std::size_t>(opt_.threads));
  for (auto& f : fields_) f.resize(opt_.columns.size() + 1);
  for (const auto& s : opt_.na) na_longest_ = std::max(na_longest_, s.size());
}

CsvReader::~CsvReader() { close(); }

bool CsvReader::next(Chunk& chunk, std::int64_t max_rows) {
  if (max_rows < 1) throw std::invalid_argument("a chunk must hold at least one row");
  std::int64_t rows = 0;
  bool shaped = false;
  while (rows < max_rows) {
    if (rec_next_ == recs_.size() && !fill()) break;
    if (!shaped) {
      shape(chunk);
      shaped = true;
    }
    const std::int64_t k = std::min<std::int64_t>(
        max_rows - rows, static_cast<std::int64_t>(recs_.size() - rec_next_));
    parse(chunk, rows, rec_next_, k);
    rec_next_ += static_cast<std::size_t>(k);
    rows += k;
    chunk.n = rows;
  }
  if (!shaped) {
    if (names_known_) shape(chunk);
    chunk.n = 0;
  }
  return rows > 0;
}

void CsvReader::rewind() {
  close();
  next_file_ = 0;
  recs_.clear();
  rec_next_ = 0;
}

void CsvReader::close() {
  if (fp_) std::fclose(fp_);
  fp_ = nullptr;
}

std::string CsvReader::where(std::int64_t line) const {
  return files_[file_] + ":" + std::to_string(line) + ": ";
}

bool CsvReader::is_na(const char* a, const char* b) const {
  const std::size_t n = static_cast<std::size_t>(b - a);
  if (n > na_longest_) return false;  // most fields: one comparison
  for (const auto& s : opt_.na)
    if (s.size() == n && (n == 0 || std::memcmp(s.data(), a, n) == 0)) return true;
  return false;
}

void CsvReader::shape(Chunk& chunk) {
  std::size_t kept = 0;
  for (const auto& c : opt_.columns) kept += c.type != CsvType::Skip;
  bool same = chunk.columns.size() == kept;
  for (std::size_t j = 0, k = 0; same && j < opt_.columns.size(); ++j) {
    const auto& c = opt_.columns[j];
    if (c.type == CsvType::Skip) continue;
    same = chunk.columns[k].key == c.name && chunk.columns[k].type == column_type(c.type);
    ++k;
  }
  if (!same) {
    chunk.columns.clear();
    chunk.columns.resize(kept);
    for (std::size_t j = 0, k = 0; j < opt_.columns.size(); ++j) {
      if (opt_.columns[j].type == CsvType::Skip) continue;
      chunk.columns[k].key = opt_.columns[j].name;
      chunk.columns[k].type = column_type(opt_.columns[j].type);
      ++k;
    }
  }
  chunk.clear();
}

bool CsvReader::fill() {
  for (;;) {
    if (!fp_) {
      if (next_file_ >= files_.size()) return false;
      file_ = next_file_++;
      open();
    }
    // Keep the unindexed tail, read a block after it, index it.
    recs_.clear();
    rec_next_ = 0;
    if (scan_pos_ > 0) {
      std::memmove(buf_.data(), buf_.data() + scan_pos_,
                   static_cast<std::size_t>(len_ - scan_pos_));
      len_ -= scan_pos_;
      scan_pos_ = 0;
    }
    if (!eof_) {
      const std::size_t need = static_cast<std::size_t>(len_) + opt_.block_size;
      if (buf_.size() < need) buf_.resize(need);
      const std::size_t got = std::fread(buf_.data() + len_, 1, opt_.block_size, fp_);
      if (got < opt_.block_size) {
        if (std::ferror(fp_))
          throw std::runtime_error(files_[file_] + ": cannot read: " + std::strerror(errno));
        eof_ = true;
      }
      len_ += static_cast<std::int64_t>(got);
    }
    if (file_start_) {  // a UTF-8 byte order mark is not part of the text
      file_start_ = false;
      if (len_ >= 3 && std::memcmp(buf_.data(), "\xEF\xBB\xBF", 3) == 0) scan_pos_ = 3;
    }
    scan();
    drop_leading();
    if (rec_next_ < recs_.size()) return true;
    if (eof_ && scan_pos_ >= len_) close();  // on to the next file
  }
}

void CsvReader::open() {
  fp_ = std::fopen(files_[file_].c_str(), "rb");
  if (!fp_) throw std::runtime_error(files_[file_] + ": cannot open: " + std::strerror(errno));
  len_ = scan_pos_ = 0;
  eof_ = false;
  file_start_ = true;
  line_ = 1;
  skip_left_ = opt_.skip;
  header_left_ = opt_.header;
}

void CsvReader::scan() {
  const std::int64_t bytes = len_ - scan_pos_;
  const std::int64_t at_least =
      std::min<std::int64_t>(std::int64_t{1} << 20, static_cast<std::int64_t>(opt_.block_size / 2));
  const int threads = bytes >= at_least ? opt_.threads : 1;
  if (threads == 1) {
    const ScanEnd r = scan_from(scan_pos_, len_, line_, &recs_);
    finish_scan(r);
    return;
  }
  const std::size_t nt = static_cast<std::size_t>(threads);
  if (pieces_.size() < nt) pieces_.resize(nt);
  for (int t = 0; t < threads; ++t) {
    Piece& pc = pieces_[static_cast<std::size_t>(t)];
    pc.begin = scan_pos_ + bytes * t / threads;
    pc.end = scan_pos_ + bytes * (t + 1) / threads;
    pc.recs.clear();
  }
  const char* base = buf_.data();
  parallel_for(threads, threads, [&](int t) {
    Piece& pc = pieces_[static_cast<std::size_t>(t)];
    csv::count_quotes_newlines(base + pc.begin, base + pc.end, &pc.quotes, &pc.newlines);
  });
  std::int64_t quotes = 0, line = line_;
  for (int t = 0; t < threads; ++t) {
    Piece& pc = pieces_[static_cast<std::size_t>(t)];
    pc.in_quotes = quotes % 2 == 1;
    pc.line = line;
    quotes += pc.quotes;
    line += pc.newlines;
  }
  parallel_for(threads, threads, [&](int t) {
    Piece& pc = pieces_[static_cast<std::size_t>(t)];
    std::int64_t p = pc.begin, ln = pc.line;
    // To the first record that starts in this piece (maybe at its start).
    if (t > 0 && !(base[p - 1] == '\n' && !pc.in_quotes)) {
      bool in_quotes = pc.in_quotes;
      for (; p < pc.end; ++p) {
        const char c = base[p];
        if (c == '"') in_quotes = !in_quotes;
        if (c == '\n') {
          ++ln;
          if (!in_quotes) break;
        }
      }
      ++p;
    }
    pc.result =
        p < pc.end ? scan_from(p, pc.end, ln, &pc.recs) : ScanEnd{pc.end, ln, ScanEnd::Done};
  });
  recs_.clear();
  for (int t = 0; t < threads; ++t) {
    const Piece& pc = pieces_[static_cast<std::size_t>(t)];
    recs_.insert(recs_.end(), pc.recs.begin(), pc.recs.end());
    if (pc.result.status != ScanEnd::Done || t == threads - 1) {
      finish_scan(pc.result);
      return;
    }
  }
}

void CsvReader::finish_scan(const ScanEnd& r) {
  if (r.status == ScanEnd::Unclosed)
    throw std::runtime_error(where(r.line) +
                             "a quoted field is not closed before the end of the file");
  scan_pos_ = r.pos;
  line_ = r.line;
}

CsvReader::ScanEnd CsvReader::scan_from(std::int64_t from, std::int64_t starts_end,
                                        std::int64_t line, std::vector<Record>* out) const {
  const char* base = buf_.data();
  const char* end = base + len_;
  const char* p = base + from;
  const char* last = base + starts_end;
  while (p < last) {
    const char* nl =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* lim = nl ? nl : end;
    std::int64_t lines = 1;
    if (std::memchr(p, '"', static_cast<std::size_t>(lim - p))) {
      bool in_quotes = false;
      const char* c = p;
      for (; c < end; ++c) {
        if (*c == '"')
          in_quotes = !in_quotes;
        else if (*c == '\n') {
          if (!in_quotes) break;
          ++lines;
        }
      }
      nl = c < end ? c : nullptr;
      if (!nl && eof_ && in_quotes) return ScanEnd{p - base, line, ScanEnd::Unclosed};
    }
    if (!nl && !eof_) return ScanEnd{p - base, line, ScanEnd::Incomplete};
    const char* e = nl ? nl : end;
    const char* stop = e;
    if (stop > p && stop[-1] == '\r') --stop;
    if (stop > p) out->push_back(Record{p - base, stop - base, line});
    line += lines;
    p = nl ? nl + 1 : end;
  }
  return ScanEnd{p - base, line, ScanEnd::Done};
}

void CsvReader::drop_leading() {
  while (rec_next_ < recs_.size() && (skip_left_ > 0 || header_left_)) {
    if (skip_left_ > 0) {
      --skip_left_;
    } else {
      header_left_ = false;
      if (!names_known_) read_names(recs_[rec_next_]);
    }
    ++rec_next_;
  }
}

void CsvReader::read_names(const Record& r) {
  std::vector<csv::Field>& f = fields_[0];
  const int ncol = static_cast<int>(opt_.columns.size());
  const int got =
      csv::split_record(buf_.data() + r.begin, buf_.data() + r.end, opt_.delim, f.data(), ncol);
  if (got != ncol)
    throw std::runtime_error(where(r.line) + "the header has " + std::to_string(got) +
                             " fields, the record spec " + std::to_string(ncol) + " columns");
  for (int j = 0; j < ncol; ++j) {
    std::string s;
    unescape(f[static_cast<std::size_t>(j)], &s);
    if (opt_.columns[static_cast<std::size_t>(j)].name.empty())
      opt_.columns[static_cast<std::size_t>(j)].name = s;
  }
  names_known_ = true;
}

void CsvReader::parse(Chunk& chunk, std::int64_t row0, std::size_t first, std::int64_t k) {
  const std::size_t rows = static_cast<std::size_t>(row0 + k);
  for (auto& c : chunk.columns) {
    if (c.type == ColumnType::Double) c.doubles.resize(rows);
    if (c.type == ColumnType::Integer || c.type == ColumnType::Logical) c.ints.resize(rows);
  }
  const int threads = k >= 4096 ? std::min<int>(opt_.threads, static_cast<int>(k / 2048)) : 1;
  // pieces of at least 1024 records, several per thread, taken by the
  // threads as they finish one (a core shared with the training loop or
  // another process slows one thread, not the chunk)
  const int pieces =
      threads > 1 ? std::max(threads, std::min<int>(threads * 4, static_cast<int>(k / 1024))) : 1;
  if (parts_.size() < static_cast<std::size_t>(pieces))
    parts_.resize(static_cast<std::size_t>(pieces));
  if (failures_.size() < static_cast<std::size_t>(pieces))
    failures_.resize(static_cast<std::size_t>(pieces));
  std::size_t nstr = 0;
  for (const auto& c : chunk.columns) nstr += c.type == ColumnType::String;
  for (int t = 0; t < pieces; ++t) {
    auto& part = parts_[static_cast<std::size_t>(t)];
    if (part.size() < nstr) part.resize(nstr);
    for (auto& s : part) {
      s.text.clear();
      s.lengths.clear();
      s.present.clear();
    }
    failures_[static_cast<std::size_t>(t)].record = -1;
  }
  parallel_for_dynamic(pieces, threads, [&](int t) {
    const std::int64_t a = k * t / pieces, b = k * (t + 1) / pieces;
    parse_range(chunk, row0, first, a, b, fields_[static_cast<std::size_t>(thread_index())].data(),
                parts_[static_cast<std::size_t>(t)], failures_[static_cast<std::size_t>(t)]);
  });
  const Failure* worst = nullptr;
  for (int t = 0; t < pieces; ++t) {
    const Failure& f = failures_[static_cast<std::size_t>(t)];
    if (f.record >= 0 && (!worst || f.record < worst->record)) worst = &f;
  }
  if (worst) throw std::runtime_error(worst->message);
  if (nstr > 0) join_strings(chunk, pieces, threads);
}

void CsvReader::join_strings(Chunk& chunk, int pieces, int threads) {
  const std::size_t nt = static_cast<std::size_t>(pieces);
  std::size_t s = 0;
  for (auto& c : chunk.columns) {
    if (c.type != ColumnType::String) continue;
    std::size_t text = c.text.size(), values = c.present.size();
    for (std::size_t t = 0; t < nt; ++t) {
      const StringPart& part = parts_[t][s];
      text += part.text.size();
      values += part.present.size();
    }
    c.text.resize(text);
    c.present.resize(values);
    c.offsets.resize(values + 1);
    ++s;
  }
  parallel_for_dynamic(pieces, threads, [&](int t) {
    const std::size_t ti = static_cast<std::size_t>(t);
    std::size_t k = 0;
    for (auto& c : chunk.columns) {
      if (c.type != ColumnType::String) continue;
      const StringPart& part = parts_[ti][k];
      // This thread's part starts where the parts after it, taken from
      // the grown column's end, leave off.
      std::size_t text = c.text.size(), values = c.present.size();
      for (std::size_t u = nt; u-- > ti;) {
        text -= parts_[u][k].text.size();
        values -= parts_[u][k].present.size();
      }
      if (!part.text.empty()) std::memcpy(c.text.data() + text, part.text.data(), part.text.size());
      if (!part.present.empty())
        std::memcpy(c.present.data() + values, part.present.data(), part.present.size());
      std::int64_t at = static_cast<std::int64_t>(text);
      std::int64_t* off = c.offsets.data() + values + 1;
      for (std::int64_t len : part.lengths) *off++ = at += len;
      ++k;
    }
  });
}

void CsvReader::parse_range(Chunk& chunk, std::int64_t row0, std::size_t first, std::int64_t a,
                            std::int64_t b, csv::Field* f, std::vector<StringPart>& part,
                            Failure& failure) {
  const int ncol = static_cast<int>(opt_.columns.size());
  const char* base = buf_.data();
  for (std::int64_t r = a; r < b; ++r) {
    const Record& rec = recs_[first + static_cast<std::size_t>(r)];
    const int got = csv::split_record(base + rec.begin, base + rec.end, opt_.delim, f, ncol);
    if (got != ncol) {
      failure.record = r;
      failure.message = where(rec.line) + "expected " + std::to_string(ncol) + " fields, found " +
                        std::to_string(got);
      return;
    }
    const std::size_t row = static_cast<std::size_t>(row0 + r);
    std::size_t out = 0, s = 0;
    for (int j = 0; j < ncol; ++j) {
      const CsvColumnSpec& spec = opt_.columns[static_cast<std::size_t>(j)];
      if (spec.type == CsvType::Skip) continue;
      ChunkColumn& col = chunk.columns[out++];
      const csv::Field& fj = f[j];
      // A string field is missing only unquoted and as it is ("NA" in
      // quotes is text, as R's write.csv() writes it); a number without
      // its blanks, quoted or not.
      bool empty;
      if (spec.type == CsvType::String) {
        empty = !fj.quoted && is_na(fj.begin, fj.end);
      } else {
        const char *a = fj.begin, *e = fj.end;
        csv::trim(a, e);
        empty = is_na(a, e);
      }
      if (empty && !spec.has_default) {
        failure.record = r;
        failure.message = where(rec.line) + "column '" + spec.name + "' is missing (" +
                          (fj.begin == fj.end ? std::string("an empty field")
                                              : "'" + std::string(fj.begin, fj.end) + "'") +
                          ") and has no default: give the column a default in the record "
                          "spec's `defaults`, or fill in the missing values in the file";
        return;
      }
      bool ok = true;
      switch (spec.type) {
        case CsvType::Double:
          if (empty)
            col.doubles[row] = spec.double_default;
          else
            ok = csv::parse_double(fj.begin, fj.end, &col.doubles[row]);
          break;
        case CsvType::Integer:
          if (empty)
            col.ints[row] = spec.int_default;
          else
            ok = csv::parse_int(fj.begin, fj.end, &col.ints[row]);
          break;
        case CsvType::Logical:
          if (empty)
            col.ints[row] = spec.int_default;
          else
            ok = csv::parse_logical(fj.begin, fj.end, &col.ints[row]);
          break;
        case CsvType::String: {
          StringPart& sp = part[s++];
          const std::size_t before = sp.text.size();
          if (empty) {
            sp.text.insert(sp.text.end(), spec.string_default.begin(), spec.string_default.end());
            sp.present.push_back(spec.string_default_missing ? 0 : 1);
          } else {
            unescape(fj, &sp.text);
            sp.present.push_back(1);
          }
          sp.lengths.push_back(static_cast<std::int64_t>(sp.text.size() - before));
          break;
        }
        default:
          break;
      }
      if (!ok) {
        static const char* kinds[] = {"a double", "an integer", "a logical"};
        failure.record = r;
        failure.message = where(rec.line) + "column '" + spec.name + "': cannot read '" +
                          std::string(fj.begin, fj.end) + "' as " +
                          kinds[static_cast<int>(spec.type)];
        return;
      }
    }
  }
}

}  // namespace cppestimators
