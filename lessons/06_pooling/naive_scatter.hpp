#pragma once
// Lesson 06, read-only: the max-pool backward written as a SCATTER, the way array code says
// "dx = zeros; dx[argmax] += dy". lesson06_pooling times them beside the three variants to
// show what a scatter costs. Same arguments and result as maxpool_backward_argmax (device
// pointers); where windows overlap, the sums may differ from it in the last bit because the
// additions happen in another order.
#include "pooling.hpp"

namespace pooling {

// Zero dx (cudaMemsetAsync), then one thread per output: atomicAdd(&dx[argmax[o]], dy[o]).
// The atomic is what makes it correct when two overlapping windows pick the same input.
void maxpool_backward_scatter_atomic(const PoolShape& s, const int* argmax, const float* dy, float* dx);

// Zero dx, then ONE KERNEL LAUNCH PER WINDOW OFFSET (kh, kw): each launch passes over all
// outputs and adds dy[o] to dx[argmax[o]] for the outputs whose maximum sits at that offset.
// That is the host-driven loop of array code ("for kh, kw in window: dx[..., kh::stride,
// kw::stride] += ..."): window*window launches, each reading all of argmax and dy.
// Within one launch two outputs never pick the same input (their corners differ), so a plain
// += is race-free; the launches run one after another on the stream.
void maxpool_backward_scatter_host_loop(const PoolShape& s, const int* argmax, const float* dy, float* dx);

}  // namespace pooling
