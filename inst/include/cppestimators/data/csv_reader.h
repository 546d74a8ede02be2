// A streaming reader of delimited text files: several files read in order
// (each with its own skipped lines and header) in large blocks, yielding
// Chunks of up to N rows. Each block is indexed into records in one pass
// that follows quotes (so a quoted field may hold delimiters and newlines),
// then ranges of records are parsed in parallel straight into the chunk's
// columns. A missing field (one of the `na` strings: for a numeric or
// logical column the field without its blanks, quoted or not; for a string
// column only an unquoted field) takes the column's default; a column
// without one makes a missing field an error. Errors name the file and line.
//
// Buffers (the block, the record index, the per-thread text) grow to the
// largest block and chunk once and are reused: a steady stream allocates
// nothing, apart from a record longer than a block growing the block.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "chunk.h"
#include "csv_parse.h"

namespace cppestimators {

enum class CsvType { Double, Integer, Logical, String, Skip };

struct CsvColumnSpec {
  std::string name;  // "" to take it from the first file's header
  CsvType type = CsvType::Double;
  bool has_default = true;  // false: a missing field is an error
  double double_default = 0;
  int int_default = 0;  // Integer and Logical (kNaInteger: missing)
  std::string string_default;
  bool string_default_missing = false;
};

struct CsvOptions {
  char delim = ',';
  bool header = true;     // each file's first record (after `skip`) names the columns
  std::int64_t skip = 0;  // records skipped at the top of each file
  // The texts that stand for a missing value (R's record spec passes
  // c("", "NA") unless told otherwise); none: no field is missing.
  std::vector<std::string> na{""};
  std::vector<CsvColumnSpec> columns;
  int threads = 1;
  std::size_t block_size = std::size_t{8} << 20;
};

class CsvReader {
 public:
  CsvReader(std::vector<std::string> files, CsvOptions options);
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  const std::vector<CsvColumnSpec>& columns() const { return opt_.columns; }

  // Fills `chunk` with the next rows (up to max_rows); false at the end of
  // the last file, with chunk.n == 0.
  bool next(Chunk& chunk, std::int64_t max_rows);

  // Back to the start of the first file.
  void rewind();

 private:
  struct Record {
    std::int64_t begin, end, line;
  };
  struct StringPart {
    std::vector<char> text;
    std::vector<std::int64_t> lengths;
    std::vector<unsigned char> present;
  };
  struct Failure {
    std::int64_t record = -1;
    std::string message;
  };
  struct ScanEnd {
    std::int64_t pos, line;
    enum Status { Done, Incomplete, Unclosed } status;
  };
  struct Piece {
    std::int64_t begin = 0, end = 0, quotes = 0, newlines = 0, line = 0;
    bool in_quotes = false;
    ScanEnd result{0, 0, ScanEnd::Done};
    std::vector<Record> recs;
  };

  void close();

  std::string where(std::int64_t line) const;

  // Whether [a, b) is one of the `na` strings.
  bool is_na(const char* a, const char* b) const;

  // Chunk columns in the order of the spec, skipped columns left out.
  void shape(Chunk& chunk);

  // Makes records available; false when every file has been read.
  bool fill();

  void open();

  // Indexes the complete records of buf_[scan_pos_, len_) (and, at the end
  // of the file, a last record without a newline). Blank lines are skipped.
  // A large block is indexed by all threads: a first pass counts each
  // piece's quotes and newlines, so that each thread knows whether its piece
  // starts inside a quoted field and on which line; each then indexes the
  // records that start in its piece.
  void scan();

  void finish_scan(const ScanEnd& r);

  // Indexes the records starting in buf_[from, starts_end) (each read to its
  // end, which may lie past starts_end); returns where the next record
  // starts (or the incomplete one at the end of the buffer) and its line.
  ScanEnd scan_from(std::int64_t from, std::int64_t starts_end, std::int64_t line,
                    std::vector<Record>* out) const;

  // Skipped records and the header at the top of a file.
  void drop_leading();

  void read_names(const Record& r);

  // Parses records [first, first + k) of the index into chunk rows
  // [row0, row0 + k).
  void parse(Chunk& chunk, std::int64_t row0, std::size_t first, std::int64_t k);

  // Strings: the threads' parts back to back, each thread copying its own
  // part to where the parts before it end (a serial copy held 2 threads
  // back). The columns grow first, within the capacity of earlier chunks.
  void join_strings(Chunk& chunk, int pieces, int threads);

  void parse_range(Chunk& chunk, std::int64_t row0, std::size_t first, std::int64_t a,
                   std::int64_t b, csv::Field* f, std::vector<StringPart>& part, Failure& failure);

  std::vector<std::string> files_;
  CsvOptions opt_;
  bool names_known_ = false;
  std::size_t na_longest_ = 0;  // the longest `na` string

  std::size_t file_ = 0;       // the file being read
  std::size_t next_file_ = 0;  // the file to open next
  std::FILE* fp_ = nullptr;
  bool eof_ = false;
  bool file_start_ = false;  // nothing read from the file yet
  std::vector<char> buf_;
  std::int64_t len_ = 0, scan_pos_ = 0, line_ = 1;
  std::int64_t skip_left_ = 0;
  bool header_left_ = false;
  std::vector<Record> recs_;
  std::size_t rec_next_ = 0;

  std::vector<std::vector<csv::Field>> fields_;  // per thread
  std::vector<std::vector<StringPart>> parts_;   // per thread, per string column
  std::vector<Failure> failures_;                // per thread
  std::vector<Piece> pieces_;                    // per thread, indexing a block
};

}  // namespace cppestimators
