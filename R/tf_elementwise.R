# The element-wise unary functions of `tf` (R/tf_module.R), one row each:
# its module and member name, its tensor argument, the engine's op (the
# table of src/engine's model/graph/ops.h, whose functors in
# math/elementwise.h compute it), TensorFlow's op name (the tensors it
# makes are named after it) and whether it takes float tensors only. The
# modules of `tf` and its help page list these rows; a new element-wise op
# is a row here, its line in ops.h and its functor.
# (This file is collated before R/tf_module.R, which builds `tf` from it.)
tf_elementwise_ops <- utils::read.table(header = TRUE, stringsAsFactors = FALSE, text = "
  module member        arg       op            tf_name      floats
  nn     relu          features  relu          Relu         TRUE
  nn     relu6         features  relu6         Relu6        TRUE
  nn     elu           features  elu           Elu          TRUE
  nn     selu          features  selu          Selu         TRUE
  nn     sigmoid       x         sigmoid       Sigmoid      TRUE
  nn     tanh          x         tanh          Tanh         TRUE
  nn     softplus      features  softplus      Softplus     TRUE
  nn     softsign      features  softsign      Softsign     TRUE
  nn     swish         features  swish         swish        TRUE
  tf     sigmoid       x         sigmoid       Sigmoid      TRUE
  tf     tanh          x         tanh          Tanh         TRUE
  tf     exp           x         exp           Exp          TRUE
  tf     log           x         log           Log          TRUE
  tf     sqrt          x         sqrt          Sqrt         TRUE
  tf     square        x         square        Square       FALSE
  tf     abs           x         abs           Abs          FALSE
  tf     negative      x         neg           Neg          FALSE
  tf     sign          x         sign          Sign         FALSE
  tf     identity      input     identity      Identity     FALSE
  tf     stop_gradient input     stop_gradient StopGradient FALSE
")

# One row's function: f(<arg>, name = NULL), a node of the row's op.
tf_elementwise_fn <- function(row) {
  f <- function(x, name = NULL) NULL
  names(formals(f))[1L] <- row$arg
  body(f) <- substitute(tf_unary(ARG, OP, BASE, name, float = FLOATS),
                        list(ARG = as.name(row$arg), OP = row$op, BASE = row$tf_name, FLOATS = row$floats))
  environment(f) <- topenv()
  f
}

# The functions of each module, by member name: tf_elementwise$nn$relu.
tf_elementwise <- lapply(split(tf_elementwise_ops, tf_elementwise_ops$module), function(rows) {
  stats::setNames(lapply(seq_len(nrow(rows)), function(i) tf_elementwise_fn(rows[i, ])), rows$member)
})
