// A small, portable, seeded random source (SplitMix64). std::shuffle and the
// standard distributions are implementation-defined, so the engine draws its
// own numbers: the same seed gives the same batches on every platform.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace cppestimators {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) : state_(seed) {}
  // The draws are inline: the training loops, initializers and shuffles
  // call them per row or per value.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform integer in [0, bound), without bias: Lemire's multiply-and-shift
  // with rejection, which divides only in the rare rejection case.
  std::uint64_t below(std::uint64_t bound) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
    std::uint64_t low = static_cast<std::uint64_t>(m);
    if (low < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * bound;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
  // Uniform double in [0, 1).
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
  // Standard normal (Box-Muller; one draw per call, for simplicity).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  // Normal with mean 0 and standard deviation sd, redrawn beyond 2 sd (TF's
  // truncated_normal initializer).
  double truncated_normal(double sd) {
    double z;
    do {
      z = normal();
    } while (std::fabs(z) > 2.0);
    return z * sd;
  }
  // Fisher-Yates shuffle in place.
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) {
      std::size_t j = static_cast<std::size_t>(below(i));
      std::swap(v[i - 1], v[j]);
    }
  }

 private:
  std::uint64_t state_;
};

}  // namespace cppestimators
