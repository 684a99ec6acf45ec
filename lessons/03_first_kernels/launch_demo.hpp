#pragma once
// A tiny kernel whose launch configuration the caller chooses, so lesson 03's program can
// show what a bad configuration does (nothing runs) and what CUDA_CHECK_LAUNCH reports.
#include <cstddef>

namespace lesson03 {

// Writes `value` into y[0..n) with ceil(n / threads_per_block) blocks of threads_per_block
// threads. With check == true the launch is checked (CUDA_CHECK_LAUNCH: throws
// course::CudaError); with check == false a failed launch is silently left pending.
void fill_with_block_size(float* y, size_t n, float value, int threads_per_block, bool check);

}  // namespace lesson03
