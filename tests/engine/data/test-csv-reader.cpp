// Engine unit tests: the streaming CSV reader (data/csv_reader.h) and its
// field parsing (data/csv_parse.h).
#include <testthat.h>

#include <algorithm>
#include <chrono>
#include <charconv>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <cppestimators/data/csv_reader.h>

using namespace cppestimators;

namespace {

std::string write_temp(const std::string& text) {
  static int counter = 0;
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("cppestimators-csv-test-" +
       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "-" +
       std::to_string(++counter) + ".csv");
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

CsvColumnSpec column(CsvType type, std::string name = "") {
  CsvColumnSpec c;
  c.type = type;
  c.name = std::move(name);
  return c;
}

// Reads every row (chunks of `rows`) as text, one line per row.
std::vector<std::string> read_all(CsvReader& r, std::int64_t rows) {
  std::vector<std::string> out;
  Chunk ch;
  while (r.next(ch, rows)) {
    for (std::int64_t i = 0; i < ch.n; ++i) {
      std::string line;
      for (const auto& c : ch.columns) {
        if (!line.empty()) line += "|";
        const std::size_t k = static_cast<std::size_t>(i);
        if (c.type == ColumnType::Double) line += std::to_string(c.doubles[k]);
        if (c.type == ColumnType::Integer || c.type == ColumnType::Logical)
          line += std::to_string(c.ints[k]);
        if (c.type == ColumnType::String) line += c.present[k] ? std::string(c.text_at(i)) : "NA";
      }
      out.push_back(line);
    }
  }
  return out;
}

std::string error_of(CsvReader& r) {
  Chunk ch;
  try {
    while (r.next(ch, 100)) {
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

context("CSV field parsing") {
  test_that("split_record follows RFC 4180 quoting") {
    const std::string rec = "a,\"b,c\",\"d\"\"e\",,\"\"";
    csv::Field f[8];
    const int n = csv::split_record(rec.data(), rec.data() + rec.size(), ',', f, 8);
    expect_true(n == 5);
    expect_true(std::string(f[0].begin, f[0].end) == "a");
    expect_true((std::string(f[1].begin, f[1].end) == "b,c" && f[1].quoted && !f[1].escaped));
    expect_true((std::string(f[2].begin, f[2].end) == "d\"\"e" && f[2].escaped));
    expect_true((f[3].begin == f[3].end && !f[3].quoted));
    expect_true((f[4].begin == f[4].end && f[4].quoted));
    expect_true(csv::split_record(rec.data(), rec.data() + rec.size(), ',', f, 2) == 5);
  }
  test_that("the fast path of parse_double rounds as from_chars does") {
    unsigned seed = 11;
    auto rnd = [&seed]() { return (seed = seed * 1664525u + 1013904223u); };
    const char* formats[] = {"%.15g", "%.17g", "%.6f", "%.3e", "%.10g", "%.0f"};
    int same = 0, total = 0;
    char text[64];
    for (int k = 0; k < 60000; ++k) {
      const double mag = std::pow(10.0, static_cast<int>(rnd() % 40) - 20);
      const double x = (static_cast<double>(rnd()) / 4294967296.0 - 0.5) * mag;
      const int len = std::snprintf(text, sizeof text, formats[k % 6], x);
      double fast = 0, exact = 0;
      const bool ok = csv::parse_double(text, text + len, &fast);
      const char* a = text[0] == '+' ? text + 1 : text;
      std::from_chars(a, text + len, exact);
      ++total;
      same += ok && std::memcmp(&fast, &exact, sizeof fast) == 0;
    }
    expect_true(same == total);
  }
  test_that("count_quotes_newlines counts as a byte-at-a-time loop does") {
    unsigned seed = 11;
    auto rnd = [&seed]() { return (seed = seed * 1103515245u + 12345u) >> 16; };
    const char pick[] = {'"', '\n', ',', 'a', '\x80', '\xff', '\x7f', '\x22', '\x0a', '\x8a'};
    bool same = true;
    for (int k = 0; k < 500; ++k) {
      std::string text(rnd() % 5000, ' ');
      for (char& c : text) c = pick[rnd() % sizeof pick];
      const std::size_t from = text.empty() ? 0 : rnd() % std::min<std::size_t>(text.size(), 9);
      std::int64_t q = -1, n = -1;
      csv::count_quotes_newlines(text.data() + from, text.data() + text.size(), &q, &n);
      same = same && q == std::count(text.begin() + static_cast<long>(from), text.end(), '"') &&
             n == std::count(text.begin() + static_cast<long>(from), text.end(), '\n');
    }
    const std::string quotes(1 << 16, '"');  // every byte lane at its fullest
    std::int64_t q = 0, n = 0;
    csv::count_quotes_newlines(quotes.data(), quotes.data() + quotes.size(), &q, &n);
    expect_true(same);
    expect_true(q == std::int64_t{1} << 16);
    expect_true(n == 0);
  }
  test_that("numbers, integers and logicals") {
    auto dbl = [](const std::string& s, double* v) {
      return csv::parse_double(s.data(), s.data() + s.size(), v);
    };
    double v = 0;
    expect_true((dbl(" +1.5e3 ", &v) && v == 1500));
    expect_true((dbl("-0.25", &v) && v == -0.25));
    expect_true((dbl("1e-400", &v) && v == 0));
    expect_true((dbl("1e400", &v) && std::isinf(v) && v > 0));
    expect_false(dbl("1.5x", &v));
    expect_false(dbl("", &v));
    int i = 0;
    auto integer = [&](const std::string& s) {
      return csv::parse_int(s.data(), s.data() + s.size(), &i);
    };
    expect_true((integer("-2147483647") && i == -2147483647));
    expect_true((integer(" 42") && i == 42));
    expect_false(integer("2147483648"));
    expect_false(integer("-2147483648"));
    expect_false(integer("4.0"));
    auto logical = [&](const std::string& s) {
      return csv::parse_logical(s.data(), s.data() + s.size(), &i);
    };
    expect_true((logical("TRUE") && i == 1));
    expect_true(logical("f") == false);
    expect_true((logical("F") && i == 0));
  }
}

context("CsvReader") {
  test_that("several files, headers, quotes across blocks, CRLF and no final newline") {
    std::string big = "n,s\r\n";
    for (int k = 0; k < 2000; ++k)
      big += std::to_string(k) + ",\"row " + std::to_string(k) + "\nwith \"\"q\"\"\"\r\n";
    const std::string a = write_temp(big);
    const std::string b = write_temp("n,s\n-1,last");
    CsvOptions opt;
    opt.columns = {column(CsvType::Integer), column(CsvType::String)};
    opt.block_size = 4096;
    opt.threads = 2;
    CsvReader r({a, b}, opt);
    for (std::int64_t rows : {1, 333, 5000}) {
      auto out = read_all(r, rows);
      expect_true(out.size() == 2001u);
      expect_true(out[7] == "7|row 7\nwith \"q\"");
      expect_true(out.back() == "-1|last");
      expect_true(r.columns()[1].name == "s");
      r.rewind();
    }
    std::remove(a.c_str());
    std::remove(b.c_str());
  }
  test_that("blocks indexed by several threads give the records of one") {
    std::string text = "a,b,c\n";
    unsigned seed = 7;
    auto rnd = [&seed]() { return (seed = seed * 1103515245u + 12345u) >> 16; };
    for (int k = 0; k < 3000; ++k) {
      text += std::to_string(k) + ",";
      switch (rnd() % 5) {
        case 0:
          text += "\"x,\ny\"";
          break;
        case 1:
          text += "\"\"\"q\"\"\"";
          break;
        case 2:
          text += "\"\n\n\"";
          break;
        case 3:
          break;
        default:
          text += "plain";
      }
      text += rnd() % 2 ? ",1\n" : ",2\r\n";
      if (rnd() % 50 == 0) text += "\n";
    }
    text += "3000,\"bad\n\",x\n";  // line numbers after all of that
    const std::string f = write_temp(text);
    CsvOptions opt;
    opt.columns = {column(CsvType::Integer), column(CsvType::String), column(CsvType::String)};
    opt.columns[1].string_default = "-";
    CsvReader serial({f}, opt);
    std::vector<std::string> want;
    {
      Chunk ch;
      while (serial.next(ch, 2999))
        want.push_back(ch.columns[1].text.data()
                           ? std::string(ch.columns[1].text.begin(), ch.columns[1].text.end())
                           : "");
    }
    opt.columns[2].type = CsvType::Integer;
    CsvReader strict({f}, opt);
    const std::string err = error_of(strict);
    for (std::size_t block : {4096u, 5000u, 7919u, 65536u}) {
      opt.columns[2].type = CsvType::String;
      opt.threads = 2;
      opt.block_size = block;
      CsvReader r({f}, opt);
      std::vector<std::string> got;
      Chunk ch;
      while (r.next(ch, 2999))
        got.push_back(std::string(ch.columns[1].text.begin(), ch.columns[1].text.end()));
      expect_true(got == want);
      opt.columns[2].type = CsvType::Integer;
      CsvReader r2({f}, opt);
      expect_true(error_of(r2) == err);
    }
    const std::size_t last = text.rfind("3000,");
    const long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(last), '\n');
    expect_true(err ==
                f + ":" + std::to_string(line) + ": column 'c': cannot read 'x' as an integer");
    std::remove(f.c_str());
  }
  test_that("defaults fill empty fields; errors name the file and line") {
    const std::string f = write_temp("x,y,z\n1,,\n,2,c\n");
    CsvOptions opt;
    opt.columns = {column(CsvType::Double), column(CsvType::Integer), column(CsvType::String)};
    opt.columns[0].double_default = 9;
    opt.columns[1].int_default = kNaInteger;
    opt.columns[2].string_default_missing = true;
    {
      CsvReader r({f}, opt);
      auto out = read_all(r, 10);
      expect_true(out.size() == 2u);
      expect_true(out[0] == "1.000000|" + std::to_string(kNaInteger) + "|NA");
      expect_true(out[1] == "9.000000|2|c");
    }
    opt.columns[0].has_default = false;
    CsvReader r({f}, opt);
    expect_true(error_of(r) == f + ":3: column 'x' is missing (an empty field) and has no default: "
                                   "give the column a default in the record spec's `defaults`, or "
                                   "fill in the missing values in the file");
    const std::string g = write_temp("x\n1\n2\n\"3\nx\n");
    CsvOptions one;
    one.columns = {column(CsvType::Double)};
    CsvReader unclosed({g}, one);
    expect_true(error_of(unclosed) ==
                g + ":4: a quoted field is not closed before the end of the file");
    std::remove(f.c_str());
    std::remove(g.c_str());
  }
  test_that("the `na` strings are missing: numbers without blanks, strings unquoted") {
    const std::string f = write_temp("x,s\n NA ,NA\n?,\"NA\"\n3,?\n4,\n");
    CsvOptions opt;
    opt.columns = {column(CsvType::Double), column(CsvType::String)};
    opt.columns[0].double_default = -1;
    opt.columns[1].string_default_missing = true;
    opt.na = {"NA", "?"};
    {
      CsvReader r({f}, opt);
      Chunk ch;
      expect_true((r.next(ch, 10) && ch.n == 4));
      expect_true((ch.columns[0].doubles == std::vector<double>{-1, -1, 3, 4}));
      // "NA" in quotes is text; "" is not an `na` string here
      expect_true((ch.columns[1].present == std::vector<unsigned char>{0, 1, 0, 1}));
      expect_true(ch.columns[1].text_at(1) == "NA");
      expect_true(ch.columns[1].text_at(3).empty());
    }
    opt.columns[0].has_default = false;
    CsvReader r({f}, opt);
    expect_true(error_of(r).rfind(f + ":2: column 'x' is missing (' NA ') and has no default", 0) ==
                0);
    std::remove(f.c_str());
  }
  test_that("chunks parsed by two threads hold the strings of one") {
    std::string text = "a,b,c\n";
    for (int k = 0; k < 30000; ++k)
      text += std::to_string(k) + "," +
              (k % 5 == 0   ? ""
               : k % 7 == 0 ? "\"\""
                            : "s" + std::to_string(k)) +
              "," + (k % 3 ? "\"t,\"\"" + std::to_string(k % 11) + "\"" : "") + "\n";
    const std::string f = write_temp(text);
    CsvOptions opt;
    opt.columns = {column(CsvType::Integer), column(CsvType::String), column(CsvType::String)};
    opt.columns[1].string_default_missing = true;
    opt.columns[2].string_default = "none";
    opt.block_size = 1 << 20;  // the whole file: both threads scan and parse
    std::vector<Chunk> got[2];
    for (int threads : {1, 2}) {
      opt.threads = threads;
      CsvReader r({f}, opt);
      Chunk ch;
      while (r.next(ch, 8192)) got[threads - 1].push_back(ch);
    }
    bool same = got[0].size() == got[1].size() && got[0].size() == 4;
    for (std::size_t i = 0; same && i < got[0].size(); ++i)
      for (std::size_t j = 0; j < 3; ++j) {
        const ChunkColumn &a = got[0][i].columns[j], &b = got[1][i].columns[j];
        same = same && a.ints == b.ints && a.text == b.text && a.offsets == b.offsets &&
               a.present == b.present;
      }
    expect_true(same);
    expect_true(got[1][0].columns[1].present[0] == 0);
    expect_true(got[1][0].columns[2].text_at(0) == "none");
    expect_true(got[1][0].columns[2].text_at(1) == "t,\"1");
    std::remove(f.c_str());
  }
  test_that("a steady stream allocates no new buffers") {
    std::string text = "a,b\n";
    for (int k = 0; k < 50000; ++k) text += std::to_string(k) + ",w" + std::to_string(k % 7) + "\n";
    const std::string f = write_temp(text);
    CsvOptions opt;
    opt.columns = {column(CsvType::Double), column(CsvType::String)};
    opt.block_size = 1 << 16;
    for (int threads : {1, 2}) {  // 5000 rows: parsed by both threads
      opt.threads = threads;
      CsvReader r({f}, opt);
      Chunk ch;
      r.next(ch, 5000);
      r.next(ch, 5000);
      const double* d = ch.columns[0].doubles.data();
      const char* t = ch.columns[1].text.data();
      const std::int64_t* o = ch.columns[1].offsets.data();
      bool same = true;
      while (r.next(ch, 5000))
        same = same && ch.columns[0].doubles.data() == d && ch.columns[1].text.data() == t &&
               ch.columns[1].offsets.data() == o;
      expect_true(same);
    }
    std::remove(f.c_str());
  }
}
