// Running a graph (graph.h): every node's values and gradients in a Tape,
// one buffer per node sized once for the largest batch; a step allocates
// nothing. Values are T (float or double) whatever the node's dtype:
// integers and booleans are held as exact whole numbers.
//
// forward_node() computes node i from its inputs (the caller fills the
// inputs, labels, variables and frontier reads); backward_node() adds node
// i's gradient into its inputs' gradients, for the inputs `into` marks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../../data/rng.h"
#include "../../math/gemm.h"
#include "graph.h"

namespace cppestimators {
namespace graph {

template <class T>
struct Tape {
  std::vector<std::vector<T>> val, grad;
  std::vector<std::vector<unsigned char>> mask;  // dropout: kept values
  std::vector<std::vector<std::int64_t>> pick;   // reduce_max/min: the values tied for it
  int capacity = 0;                              // rows the buffers hold

  // Buffers for the nodes `values` marks (gradients for `grads`), `rows`
  // rows; grows only.
  void reserve(const Graph& g, const std::vector<char>& values, const std::vector<char>& grads,
               int rows);
};

struct ExecEnv {
  gemm::Kernel kernel = gemm::Kernel::Portable;
  Rng* rng = nullptr;
  int threads = 1;  // a large matrix product splits its rows over them
};

template <class T>
void forward_node(const Graph& g, std::size_t i, Tape<T>& t, int rows, ExecEnv& env);

template <class T>
void backward_node(const Graph& g, std::size_t i, Tape<T>& t, int rows,
                   const std::vector<char>& into, const ExecEnv& env);

}  // namespace graph
}  // namespace cppestimators
