// Lesson 11, step 11.2: a register tile of C that g++ -O3 turns into SIMD instructions. YOUR FILE.
// Same product as 11.1 (fast_cpu.hpp), for rows [row_begin, row_end) of C only.
// Uncomment the parameter names when you write the function.
#include <algorithm>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

void gemm_simd_rows(Trans /*ta*/, Trans /*tb*/, int /*M*/, int /*N*/, int /*K*/, const float* /*A*/,
                    const float* /*B*/, float* /*C*/, int /*row_begin*/, int /*row_end*/) {
  // TODO(11.2): check_gemm_sizes first; throw course::Error unless 0 <= row_begin <= row_end <= M and
  // row_begin % kTileRows == 0. Overwrite rows [row_begin, row_end) of C with op(A) * op(B), each
  // element summed over k = 0, 1, ..., K-1 in order; leave every other row of C as it was.
  // Accumulate kTileRows rows x a few SIMD vectors of columns in a local array, written so that the
  // compiler vectorises it (no -ffast-math).
  course::todo("11.2", "gemm_simd_rows (a register tile of C, vectorised by the compiler)");
}

}  // namespace fast_cpu
