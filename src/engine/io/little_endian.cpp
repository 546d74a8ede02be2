#include <cppestimators/io/little_endian.h>

namespace cppestimators {
namespace detail {

TruncatedInput::TruncatedInput(const std::string& field)
    : std::runtime_error(field + " overruns the input"), field_(field) {}

LittleEndianReader::LittleEndianReader(const char* data, std::size_t size, std::size_t pos)
    : data_(data), size_(size), pos_(pos) {}

}  // namespace detail
}  // namespace cppestimators
