#include "gemm_impl.h"
