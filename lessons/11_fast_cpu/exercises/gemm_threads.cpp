// Lesson 11, step 11.3: work cut into ranges for the pool's threads (as many as the work is worth),
// and the product split over them by blocks of rows of C. YOUR FILE.
// Uncomment the parameter names when you write the function.
#include <algorithm>
#include <functional>
#include <string>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

void parallel_ranges(int /*threads*/, int /*count*/, double /*flops*/,
                     const std::function<void(int begin, int end)>& /*body*/) {
  // TODO(11.3): threads < 1 throws course::Error; count <= 0 does nothing. Decide how many ranges
  // (fast_cpu.hpp: threads, count and flops / kMinFlopsPerThread), cut [0, count) into contiguous
  // ranges of sizes within one, and run body on each through the given run_on_pool.
  course::todo("11.3", "parallel_ranges (how many threads the work is worth, and the ranges they get)");
}

void gemm_threads(Trans /*ta*/, Trans /*tb*/, int /*M*/, int /*N*/, int /*K*/, const float* /*A*/,
                  const float* /*B*/, float* /*C*/, int /*threads*/) {
  // TODO(11.3): check_gemm_sizes first; threads < 1 throws course::Error. C = op(A) * op(B) with
  // blocks of rows of C computed by 11.2's gemm_simd_rows on at most `threads` threads, through
  // your parallel_ranges above. C must be bit for bit the same for every value of threads.
  course::todo("11.3", "gemm_threads (blocks of rows of C on the pool's threads)");
}

}  // namespace fast_cpu
