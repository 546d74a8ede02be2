// The engine's only window on the outside world. The engine never includes R:
// the Rcpp glue supplies an implementation backed by R's console, message()
// and interrupt checks; the C++ unit tests supply a plain one.
#pragma once
#include <chrono>
#include <exception>
#include <string>

namespace cppestimators {

// Thrown by engine code that waits (e.g. the global-step waiter) when the
// user interrupts; the loop turns it into an orderly stop.
struct Interrupted : std::exception {
  const char* what() const noexcept override { return "interrupted by the user"; }
};

class Services {
 public:
  virtual ~Services() = default;
  // Text for the console (progress bars). No newline is added.
  virtual void console(const std::string& text) = 0;
  // A diagnostic line (R: message()). No trailing newline expected.
  virtual void message(const std::string& text) = 0;
  // TRUE when the user asked to interrupt (Ctrl-C); checked once per step.
  virtual bool interrupt_requested() = 0;
  // Whether output may be redrawn in place.
  virtual bool interactive() const = 0;
  // Console width for progress bars.
  virtual int console_width() const = 0;
  // Monotonic seconds.
  virtual double now() const {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
  }
};

// Quiet services: collect nothing, never interrupt. Used by engine tests and
// by nested runs that must not print.
class NullServices : public Services {
 public:
  void console(const std::string&) override {}
  void message(const std::string&) override {}
  bool interrupt_requested() override { return false; }
  bool interactive() const override { return false; }
  int console_width() const override { return 80; }
};

}  // namespace cppestimators
