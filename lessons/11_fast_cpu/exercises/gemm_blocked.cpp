// Lesson 11, step 11.1: the i-k-j loop order and cache blocking. YOUR FILE.
// C [M x N] = op(A) * op(B) (fast_cpu.hpp): op(A)(i, k) is A[i*K + k] (Trans::no) or A[k*M + i]
// (Trans::yes); op(B)(k, j) is B[k*N + j] (Trans::no) or B[j*K + k] (Trans::yes).
// Uncomment the parameter names when you write the function.
#include <algorithm>
#include <vector>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

void gemm_blocked(Trans /*ta*/, Trans /*tb*/, int /*M*/, int /*N*/, int /*K*/, const float* /*A*/,
                  const float* /*B*/, float* /*C*/) {
  // TODO(11.1): check_gemm_sizes first. Then overwrite every element of C with
  // sum over k = 0, 1, ..., K-1 (in this order) of op(A)(i, k) * op(B)(k, j); K = 0 gives 0.
  // The innermost loop must run along a row of C (i-k-j order); cut K and N into blocks (constexpr
  // sizes, with the reason for each) so that a block of op(B) stays in the cache while every row uses it.
  course::todo("11.1", "gemm_blocked (i-k-j loops, blocks of K and N)");
}

}  // namespace fast_cpu
