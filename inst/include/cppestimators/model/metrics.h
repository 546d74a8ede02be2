// Compatibility header: each head owns its metrics (model/heads/); the
// shared accumulator and MetricList are in model/heads/metric_accumulator.h.
#pragma once
#include "heads/metric_accumulator.h"
