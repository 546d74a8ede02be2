// The engine's model family as one translation unit of the R package: every
// source under src/engine/model/, included once. R's build compiles this file
// (src/Makevars lists engine/model.o), so the headers these sources share
// are parsed once per family instead of once per file; tools/engine/
// CMakeLists.txt reads the lines below and compiles each source on its own,
// and fails when a source under src/engine/model/ is missing here.
// A new source of the family: one line below, kept sorted.

#include "model/boosted_trees.cpp"
#include "model/combined_model.cpp"
#include "model/dnn_model.cpp"
#include "model/embedding_lookup.cpp"
#include "model/estimator.cpp"
#include "model/estimator_io.cpp"
#include "model/heads/auc.cpp"
#include "model/heads/binary.cpp"
#include "model/heads/head.cpp"
#include "model/heads/metric_accumulator.cpp"
#include "model/heads/multi_class.cpp"
#include "model/heads/registry.cpp"
#include "model/heads/regression.cpp"
#include "model/layers/activation.cpp"
#include "model/linear_model.cpp"
#include "model/mode.cpp"
#include "model/model.cpp"
#include "model/optimizers/adagrad.cpp"
#include "model/optimizers/adam.cpp"
#include "model/optimizers/ftrl.cpp"
#include "model/optimizers/learning_rate_schedule.cpp"
#include "model/optimizers/optimizer.cpp"
#include "model/optimizers/registry.cpp"
#include "model/optimizers/rmsprop.cpp"
#include "model/optimizers/sgd.cpp"
#include "model/parameter.cpp"
#include "model/registry.cpp"
#include "model/sparse_grad.cpp"
#include "model/training_strategy.cpp"
#include "model/trees/ensemble.cpp"
#include "model/trees/histograms.cpp"
#include "model/trees/quantile_sketch.cpp"
#include "model/trees/quantiles.cpp"
#include "model/trees/split.cpp"
