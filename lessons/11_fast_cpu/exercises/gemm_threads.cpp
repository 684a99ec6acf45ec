// Lesson 11, step 11.3: the product split over threads by blocks of rows of C. YOUR FILE.
// Uncomment the parameter names when you write the function.
#include <algorithm>
#include <string>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

void gemm_threads(Trans /*ta*/, Trans /*tb*/, int /*M*/, int /*N*/, int /*K*/, const float* /*A*/,
                  const float* /*B*/, float* /*C*/, int /*threads*/) {
  // TODO(11.3): check_gemm_sizes first; threads < 1 throws course::Error. C = op(A) * op(B) with
  // blocks of rows of C computed by 11.2's gemm_simd_rows on at most `threads` threads of the
  // given pool (parallel_ranges in fast_cpu.hpp: it keeps small work on fewer threads and passes
  // exceptions back). C must be bit for bit the same for every value of threads.
  course::todo("11.3", "gemm_threads (blocks of rows of C on the pool's threads)");
}

}  // namespace fast_cpu
