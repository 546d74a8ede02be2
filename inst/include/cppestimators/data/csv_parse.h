// The pieces of CSV text parsing that do not depend on the reader's state:
// splitting one record into fields (RFC 4180 quoting: a field that starts
// with '"' runs to the matching '"', with "" standing for one quote) and
// reading a field as a number or a logical. Numeric fields may carry
// leading and trailing blanks; text fields are taken as they are.
//
// Defined in src/engine/data/csv_reader.cpp, with the reader's loops that
// call them per field and per byte (so that they inline there).
#pragma once
#include <cstdint>

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
int split_record(const char* p, const char* end, char delim, Field* fields, int max);

bool is_blank(char c);

void trim(const char*& a, const char*& b);

// Clinger's fast path: a decimal of at most 2^53 as its digits and a power
// of ten up to 1e22 (both exact doubles) is one correctly rounded multiply
// or divide. False when the text is not of that simple form.
bool parse_double_fast(const char* a, const char* b, double* out);

bool parse_double(const char* a, const char* b, double* out);

// A 32-bit integer; INT_MIN is refused (it stands for a missing value).
bool parse_int(const char* a, const char* b, int* out);

// TRUE/FALSE in R's and other common spellings, and 1/0.
bool parse_logical(const char* a, const char* b, int* out);

// Counts the quotes and the newlines in [p, end) eight bytes at a time: in
// each word, a byte equal to the one sought becomes 0x80 and every other
// byte 0 (exactly, without carries between bytes); the flags add up in the
// word's byte lanes, emptied before any lane can pass 255. A byte-at-a-time
// loop made this pass, which only the parallel indexing of a block needs,
// slower than the indexing it prepares.
void count_quotes_newlines(const char* p, const char* end, std::int64_t* quotes,
                           std::int64_t* newlines);

}  // namespace csv
}  // namespace cppestimators
