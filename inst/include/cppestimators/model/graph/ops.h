// Every op of the graph (graph.h), named once. The enum Op, the names the
// R side sends (R/tf_ops.R), the checks of a node's inputs, which ops pass
// gradients, and the dispatch of the element-wise ops to their functors
// (math/elementwise.h) are all generated from these lists.
//
//   CPPESTIMATORS_GRAPH_OPS(OP, UNARY, BINARY):
//     OP(Enum, "name", arity, differentiable): arity is the number of
//       inputs (-1: one or more); their kernels are graph_exec.cpp's
//     UNARY(Enum, "name", Functor, differentiable): one input, applied
//       element by element by elementwise::Functor
//     BINARY(Enum, "name", Functor, differentiable): two inputs with numpy
//       broadcasting, elementwise::Functor
//
// A new element-wise op is its functor in math/elementwise.h and its line
// here (and its R function in R/tf_ops.R's table).
#pragma once

#define CPPESTIMATORS_GRAPH_OPS(OP, UNARY, BINARY)           \
  OP(Input, "input", 0, false)                               \
  OP(Labels, "labels", 0, false)                             \
  OP(Constant, "constant", 0, false)                         \
  OP(Variable, "variable", 0, false)                         \
  UNARY(Relu, "relu", Relu, true)                            \
  UNARY(Relu6, "relu6", Relu6, true)                         \
  UNARY(Elu, "elu", Elu, true)                               \
  UNARY(Selu, "selu", Selu, true)                            \
  UNARY(Sigmoid, "sigmoid", Sigmoid, true)                   \
  UNARY(Tanh, "tanh", Tanh, true)                            \
  UNARY(Softplus, "softplus", Softplus, true)                \
  UNARY(Softsign, "softsign", Softsign, true)                \
  UNARY(Exp, "exp", Exp, true)                               \
  UNARY(Log, "log", Log, true)                               \
  UNARY(Neg, "neg", Neg, true)                               \
  UNARY(Square, "square", Square, true)                      \
  UNARY(Sqrt, "sqrt", Sqrt, true)                            \
  UNARY(Abs, "abs", Abs, true)                               \
  UNARY(Identity, "identity", Identity, true)                \
  UNARY(StopGradient, "stop_gradient", StopGradient, false)  \
  UNARY(Sign, "sign", Sign, false)                           \
  UNARY(LeakyRelu, "leaky_relu", LeakyRelu, true)            \
  UNARY(Swish, "swish", Swish, true)                         \
  BINARY(Add, "add", Add, true)                              \
  BINARY(Sub, "sub", Sub, true)                              \
  BINARY(Mul, "mul", Mul, true)                              \
  BINARY(Div, "div", Div, true)                              \
  BINARY(Maximum, "maximum", Maximum, true)                  \
  BINARY(Minimum, "minimum", Minimum, true)                  \
  BINARY(Pow, "pow", Pow, true)                              \
  BINARY(Equal, "equal", Equal, false)                       \
  BINARY(NotEqual, "not_equal", NotEqual, false)             \
  BINARY(Greater, "greater", Greater, false)                 \
  BINARY(GreaterEqual, "greater_equal", GreaterEqual, false) \
  BINARY(Less, "less", Less, false)                          \
  BINARY(LessEqual, "less_equal", LessEqual, false)          \
  OP(MatMul, "matmul", 2, true)                              \
  OP(Softmax, "softmax", 1, true)                            \
  OP(LogSoftmax, "log_softmax", 1, true)                     \
  OP(ReduceSum, "reduce_sum", 1, true)                       \
  OP(ReduceMean, "reduce_mean", 1, true)                     \
  OP(ReduceMax, "reduce_max", 1, true)                       \
  OP(ReduceMin, "reduce_min", 1, true)                       \
  OP(Reshape, "reshape", 1, true)                            \
  OP(Cast, "cast", 1, true)                                  \
  OP(Concat, "concat", -1, true)                             \
  OP(ArgMax, "argmax", 1, false)                             \
  OP(ArgMin, "argmin", 1, false)                             \
  OP(OneHot, "one_hot", 1, false)                            \
  OP(Dropout, "dropout", 1, true)                            \
  OP(SigmoidXent, "sigmoid_xent", 2, true)                   \
  OP(LogPoissonLoss, "log_poisson_loss", 2, true)            \
  OP(SoftmaxXent, "softmax_xent", 2, true)                   \
  OP(SparseSoftmaxXent, "sparse_softmax_xent", 2, true)
