// The cppestimators engine: pure C++17 + Eigen, no R headers.
//   data/      typed views of the caller's columns, batching, shuffling
//   features/  one transform per kind of feature column -> FeatureBatch
//   model/     Model interface and models, heads/, optimizers/, Estimator
//   session/   Session (one run = one step), tensor registry, the loop
//   hooks/     Hook interface, one header per built-in hook, their registry
//   io/        checkpoints, event files, codecs
#pragma once
#include "services.h"
#include "spec.h"
#include "data/rng.h"
#include "data/batcher.h"
#include "data/dataset.h"
#include "features/feature_set.h"
#include "model/estimator.h"
#include "session/session.h"
#include "session/hook.h"
#include "hooks/registry.h"
#include "session/monitored_loop.h"
#include "hooks/progress_bar.h"
#include "hooks/history_saver.h"
#include "hooks/stop_at_step.h"
