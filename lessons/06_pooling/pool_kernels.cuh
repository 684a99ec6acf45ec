#pragma once
// Helpers shared by the lesson's kernels (included by .cu files only; read-only).
#include <algorithm>
#include <cstdint>

namespace pooling {

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over `work` items. The cap (4096 blocks of 256 threads, about
// four times what an H100 keeps resident) is enough to fill the GPU; larger tensors are covered
// by the loop, so the kernels must not assume one item per thread.
inline int blocks_for(int64_t work) {
  return static_cast<int>(std::min<int64_t>((work + kThreads - 1) / kThreads, 4096));
}

// The windows along one axis (rows or columns) that contain coordinate `pos`.
// Window k covers [k*stride, k*stride + window - 1], so it contains pos when
//     k*stride <= pos <= k*stride + window - 1
// i.e. ceil((pos - window + 1) / stride) <= k <= floor(pos / stride), clipped to [0, count - 1].
// first > last when no window contains pos (a dropped last row, or a gap when stride > window).
struct WindowSpan {
  int first, last;
};
__host__ __device__ inline WindowSpan windows_containing(int pos, int window, int stride, int count) {
  const int first = pos < window ? 0 : (pos - window) / stride + 1;
  const int last = pos / stride < count - 1 ? pos / stride : count - 1;
  return {first, last};
}

}  // namespace pooling
