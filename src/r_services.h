// R-backed implementation of the engine's Services: console output (progress
// bars) through REprintf, to stderr, diagnostics through R's message() (so suppressMessages()
// works), interrupts through R_CheckUserInterrupt under R's unwind protection.
#pragma once
#include <Rcpp.h>
#include <R_ext/Utils.h>

#include <csetjmp>

#include <cppestimators/services.h>

namespace cppestimators {

class RServices : public Services {
 public:
  // `pending`: set when an interrupt arrived while R hook code ran (the R
  // layer notes it and lets the hook finish); honoured between steps.
  explicit RServices(bool* pending = nullptr) : pending_(pending), token_(R_MakeUnwindCont()) {
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
  // R_CheckUserInterrupt() runs with R's handlers in place: an interrupt
  // reaches the R layer's handler, which notes it (`*pending_`) and resumes.
  // A jump out of it (an R error raised there, such as setTimeLimit()'s
  // "reached elapsed time limit", or an interrupt no handler resumed) is
  // held: the loop stops at the step boundary as for an interrupt, its
  // hooks end, and the session resumes the jump when it returns
  // (resume_jump()), so R sees its own error or interrupt.
  bool interrupt_requested() override {
    if (pending_ != nullptr && *pending_) return true;
    if (jumped_) return true;
    JumpBack back;
    if (setjmp(back.buf)) {
      jumped_ = true;
      // noted for every session still running (the training around an
      // evaluation, and the work it does when it ends)
      if (pending_ != nullptr) *pending_ = true;
      return true;
    }
    R_UnwindProtect(check_interrupt, nullptr, jump_back, &back, token_);
    return pending_ != nullptr && *pending_;
  }
  // Whether a jump out of R_CheckUserInterrupt() is held.
  bool jumped() const { return jumped_; }
  // Resumes the held jump (through Rcpp, at the R boundary).
  [[noreturn]] void resume_jump() {
    jumped_ = false;
    R_PreserveObject(token_);  // released by Rcpp when it resumes the jump
    throw Rcpp::LongjumpException(token_);
  }
  bool interactive() const override { return interactive_; }
  int console_width() const override { return width_; }

 private:
  struct JumpBack {
    std::jmp_buf buf;
  };
  static SEXP check_interrupt(void*) {
    R_CheckUserInterrupt();
    return R_NilValue;
  }
  static void jump_back(void* data, Rboolean jump) {
    if (jump) std::longjmp(static_cast<JumpBack*>(data)->buf, 1);
  }
  bool* pending_ = nullptr;
  Rcpp::RObject token_;  // the continuation of a held jump (protected while the services live)
  bool jumped_ = false;
  bool interactive_ = false;
  int width_ = 80;
  Rcpp::Function message_ = Rcpp::Function("message");
};

}  // namespace cppestimators
