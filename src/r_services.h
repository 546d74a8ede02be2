// R-backed implementation of the engine's Services: console output (progress
// bars) through REprintf, to stderr, diagnostics through R's message() (so suppressMessages()
// works), interrupts through an R_ToplevelExec-wrapped R_CheckUserInterrupt.
#pragma once
#include <Rcpp.h>
#include <R_ext/Utils.h>

#include <cppestimators/services.h>

namespace cppestimators {

class RServices : public Services {
 public:
  // `pending`: set when an interrupt arrived while R hook code ran (the R
  // layer notes it and lets the hook finish); honoured between steps.
  explicit RServices(bool* pending = nullptr) : pending_(pending) {
    Rcpp::Environment base = Rcpp::Environment::base_env();
    Rcpp::Function interactive_fn = base["interactive"];
    interactive_ = Rcpp::as<bool>(interactive_fn());
    Rcpp::Function get_option = base["getOption"];
    SEXP w = get_option("width");
    width_ = Rf_isNull(w) ? 80 : Rcpp::as<int>(w);
    message_ = base["message"];
  }
  void console(const std::string& text) override {  // stderr: stdout belongs to the user
    REprintf("%s", text.c_str());
    R_FlushConsole();
  }
  void message(const std::string& text) override { message_(text); }
  bool interrupt_requested() override {
    if (pending_ != nullptr && *pending_) return true;
    const bool now = R_ToplevelExec(check_interrupt, nullptr) == FALSE;
    // noted for every session still running (the training around an
    // evaluation, and the work it does when it ends)
    if (now && pending_ != nullptr) *pending_ = true;
    return now;
  }
  bool interactive() const override { return interactive_; }
  int console_width() const override { return width_; }

 private:
  static void check_interrupt(void*) { R_CheckUserInterrupt(); }
  bool* pending_ = nullptr;
  bool interactive_ = false;
  int width_ = 80;
  Rcpp::Function message_ = Rcpp::Function("message");
};

}  // namespace cppestimators
