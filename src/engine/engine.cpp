// The engine as one translation unit of the R package: every source under
// src/engine/, included once, grouped by family. R's build compiles this
// file alone (src/Makevars lists engine/engine.o), so Eigen's and the
// engine's headers are parsed once per build, and the compiler sees the
// whole training step (the batcher, the feature block's rows, the model,
// the head) at once and inlines across families as it did when the engine
// was header-only: with one unit per family the linear model's small steps
// took 15-24% longer (bench/results.md, "Build"). tools/engine/
// CMakeLists.txt reads the lines below and compiles each source on its own,
// and fails when a source under src/engine/ is missing here or listed twice.
// A new source: one line in its family's group, kept sorted.

// data
#include "data/batch_transforms.cpp"
#include "data/batcher.cpp"
#include "data/chunk.cpp"
#include "data/column.cpp"
#include "data/csv_reader.cpp"
#include "data/dataset.cpp"
#include "data/example_parse.cpp"
#include "data/example_reader.cpp"
#include "data/pipeline.cpp"
#include "data/prefetch_stream.cpp"
#include "data/registry.cpp"
#include "data/row_stream.cpp"
#include "data/shuffle_stream.cpp"
#include "data/stream_feed.cpp"
#include "data/stream_sources.cpp"
#include "data/stream_transforms.cpp"

// distributed
#include "distributed/collective.cpp"

// features
#include "features/cell_ids.cpp"
#include "features/crossed.cpp"
#include "features/dense_block.cpp"
#include "features/feature_set.cpp"
#include "features/hash_bucket.cpp"
#include "features/identity.cpp"
#include "features/numeric.cpp"
#include "features/registry.cpp"
#include "features/values.cpp"
#include "features/vocabulary.cpp"
#include "features/wrappers.cpp"

// hooks
#include "hooks/checkpoint_saver.cpp"
#include "hooks/csv_logger.cpp"
#include "hooks/early_stopping.cpp"
#include "hooks/eval_records.cpp"
#include "hooks/global_step_waiter.cpp"
#include "hooks/history_saver.cpp"
#include "hooks/hook_env.cpp"
#include "hooks/in_memory_evaluator.cpp"
#include "hooks/logging_tensor.cpp"
#include "hooks/nan_tensor.cpp"
#include "hooks/progress_bar.cpp"
#include "hooks/reduce_lr_on_plateau.cpp"
#include "hooks/registry.cpp"
#include "hooks/step_counter.cpp"
#include "hooks/stop_at_step.cpp"
#include "hooks/summary_saver.cpp"
#include "hooks/timer.cpp"

// io
#include "io/atomic_file.cpp"
#include "io/checkpoint_format.cpp"
#include "io/checkpoint_index.cpp"
#include "io/checkpoint_manager.cpp"
#include "io/crc32c.cpp"
#include "io/event_file.cpp"
#include "io/event_proto.cpp"
#include "io/example_proto.cpp"
#include "io/little_endian.cpp"
#include "io/protobuf_wire.cpp"
#include "io/summary_writers.cpp"
#include "io/tfrecord.cpp"

// math
#include "math/gemm.cpp"
#include "math/logistic_step.cpp"

// model
#include "model/boosted_trees.cpp"
#include "model/combined_model.cpp"
#include "model/coordinate_descent.cpp"
#include "model/dnn_model.cpp"
#include "model/embedding_lookup.cpp"
#include "model/estimator.cpp"
#include "model/estimator_io.cpp"
#include "model/graph/graph.cpp"
#include "model/graph/graph_exec.cpp"
#include "model/graph_model.cpp"
#include "model/heads/auc.cpp"
#include "model/heads/binary.cpp"
#include "model/heads/head.cpp"
#include "model/heads/metric_accumulator.cpp"
#include "model/heads/multi_class.cpp"
#include "model/heads/multi_label.cpp"
#include "model/heads/pointwise.cpp"
#include "model/heads/registry.cpp"
#include "model/heads/regression.cpp"
#include "model/hist_boosted_trees.cpp"
#include "model/layers/activation.cpp"
#include "model/layers/input_layer.cpp"
#include "model/linear_model.cpp"
#include "model/mode.cpp"
#include "model/model.cpp"
#include "model/optimizers/adagrad.cpp"
#include "model/optimizers/adam.cpp"
#include "model/optimizers/ftrl.cpp"
#include "model/optimizers/learning_rate_schedule.cpp"
#include "model/optimizers/momentum.cpp"
#include "model/optimizers/optimizer.cpp"
#include "model/optimizers/registry.cpp"
#include "model/optimizers/rmsprop.cpp"
#include "model/optimizers/sgd.cpp"
#include "model/parameter.cpp"
#include "model/registry.cpp"
#include "model/sparse_grad.cpp"
#include "model/training_strategy.cpp"
#include "model/trees/constraints.cpp"
#include "model/trees/ensemble.cpp"
#include "model/trees/hist_bins.cpp"
#include "model/trees/hist_grower.cpp"
#include "model/trees/histograms.cpp"
#include "model/trees/quantile_sketch.cpp"
#include "model/trees/quantiles.cpp"
#include "model/trees/split.cpp"
#include "model/trees/tree_shap.cpp"

// session
#include "session/hook.cpp"
#include "session/monitored_loop.cpp"
#include "session/session.cpp"
#include "session/step_exchange.cpp"
#include "session/tensors.cpp"

// threads
#include "threads/pool.cpp"
