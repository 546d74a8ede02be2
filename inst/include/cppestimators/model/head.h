// Compatibility header: the heads live in model/heads/ (one file each, with
// their metrics); include model/heads/registry.h or a single head instead.
#pragma once
#include "heads/registry.h"
