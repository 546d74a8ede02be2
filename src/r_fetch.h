// Named tensors as R values: what session_run_args() fetches and what
// context$session$run() evaluates (the engine's read_tensor(), converted).
#pragma once
#include <Rcpp.h>

#include <cppestimators/session/tensors.h>

#include <string>
#include <vector>

namespace cppestimators {

// A tensor value as an R vector (scalar, vector) or matrix (rank 2).
SEXP tensor_to_r(const TensorValue& t);
// The value of one named tensor; an R error names an unknown tensor.
SEXP fetch_tensor(const Session& s, const std::string& name);
// Checks that every name in a fetch structure is a tensor of the session
// (an R error names the first unknown one).
void check_fetch_names(const Session& s, SEXP fetches);
// Maps a fetch structure (handles, names, nested lists) to values of the
// same shape.
SEXP resolve_fetches(const Session& s, SEXP fetches);

// A fetch structure compiled for one session: what a hook's before_run()
// asks for, kept from step to step. A hook usually asks for the same
// tensors every step (the same handles from get_collection(), the same
// name constants), so prepare() compares the new structure with the
// compiled one (list lengths, names and tensor names, compared as R's
// cached strings) and compiles again only when they differ. resolve()
// builds fresh R values every step (the hook may keep them), reading each
// tensor into a buffer kept from the previous step.
class FetchPlan {
 public:
  // Compiles `fetches` unless it matches the plan; an R error names the
  // first unknown tensor (as check_fetch_names()).
  void prepare(const Session& s, SEXP fetches);
  // The values of the compiled fetches, in their shape (unprotected).
  SEXP resolve(const Session& s);

 private:
  enum class Kind { Null, Tensor, List, Other };
  struct Node {
    Kind kind = Kind::Null;
    R_xlen_t length = 0;      // List: number of children (the following subtrees)
    SEXP names = R_NilValue;  // List: its names (kept alive by keep_)
    SEXP key = R_NilValue;    // Tensor: the name as a cached R string (kept alive)
    std::string name;         // Tensor: the name
    int type = NILSXP;        // Other: the R type, reported by resolve()
    TensorValue value;        // Tensor: read into this buffer every step
  };
  bool matches(SEXP x, std::size_t& at) const;
  void compile(const Session& s, SEXP x);
  SEXP build(const Session& s, std::size_t& at);

  std::vector<Node> nodes_;  // the structure in preorder
  bool compiled_ = false;
  bool has_other_ = false;  // a value of another type, an error at resolve()
  Rcpp::List keep_;         // the names vectors and keys the nodes point to
};

}  // namespace cppestimators
