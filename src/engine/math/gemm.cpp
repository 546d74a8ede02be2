#include <cppestimators/math/gemm_impl.h>
