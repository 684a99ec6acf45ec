#pragma once
// Lesson 09 (given, read-only): block-wide maximum and sum for kernels that give one row to a
// block (09.6), and warp-wide ones for kernels that give a row to a warp. Every thread of the
// block must call them, with blockDim.x a multiple of 32 (at most 1024); every thread gets the
// result. Each warp reduces with shuffles, then the first warp
// reduces the warps' results, read from shared memory.
#include <cuda_runtime.h>

#include <cmath>

namespace fast_training {

namespace reduce_detail {
template <typename Op>
__device__ float warp_reduce(float v, Op op) {
  for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;  // every lane holds the warp's result
}
struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Sum {
  __device__ float operator()(float a, float b) const { return a + b; }
};
template <typename Op>
__device__ float block_reduce(float value, Op op, float identity) {
  __shared__ float warp_results[32];
  __shared__ float result;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  value = warp_reduce(value, op);
  if (lane == 0) warp_results[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const float v = warp_reduce(lane < warps ? warp_results[lane] : identity, op);
    if (lane == 0) result = v;
  }
  __syncthreads();
  const float out = result;
  __syncthreads();  // a second call overwrites warp_results and result only after everyone has read
  return out;
}
}  // namespace reduce_detail

// The largest `value` over the 32 lanes of a warp, and the sum; every lane gets the result. All 32
// lanes must call them together.
__device__ inline float warp_max(float value) { return reduce_detail::warp_reduce(value, reduce_detail::Max{}); }
__device__ inline float warp_sum(float value) { return reduce_detail::warp_reduce(value, reduce_detail::Sum{}); }

// The largest `value` of the block (NaN only if every value is NaN: fmaxf skips NaN).
__device__ inline float block_max(float value) {
  return reduce_detail::block_reduce(value, reduce_detail::Max{}, -INFINITY);
}
// The sum of `value` over the block.
__device__ inline float block_sum(float value) { return reduce_detail::block_reduce(value, reduce_detail::Sum{}, 0.0f); }

}  // namespace fast_training
