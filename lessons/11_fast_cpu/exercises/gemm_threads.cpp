// Lesson 11, step 11.3: the product split over threads by blocks of rows of C. YOUR FILE.
// Uncomment the parameter names when you write the function.
#include <algorithm>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

void gemm_threads(Trans /*ta*/, Trans /*tb*/, int /*M*/, int /*N*/, int /*K*/, const float* /*A*/,
                  const float* /*B*/, float* /*C*/, int /*threads*/) {
  // TODO(11.3): check_gemm_sizes first; threads < 1 throws course::Error. C = op(A) * op(B) with
  // blocks of rows of C computed by 11.2's gemm_simd_rows on at most `threads` threads (threads = 1:
  // start none; a small product gets fewer: at least kMinFlopsPerThread flops per thread). C must
  // be bit for bit the same for every value of threads; an exception thrown in a thread is
  // rethrown to the caller.
  course::todo("11.3", "gemm_threads (blocks of rows of C on std::threads)");
}

}  // namespace fast_cpu
