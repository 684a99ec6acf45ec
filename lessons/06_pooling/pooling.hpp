#pragma once
// Lesson 06: max-pooling on the GPU, forward and backward, three ways.
//
//   06.1 argmax     forward stores, for every output, the flat index into x of its window's
//                   first maximum; backward sends each dy to that index.
//   06.2 mask       forward stores a 0/1 byte per INPUT (1 only at the first maximum of its
//                   window); backward is dx = mask * dy(of the window holding that input).
//                   Only for non-overlapping windows (stride >= window): see below.
//   06.3 recompute  forward stores nothing; backward reads x again and, for every window,
//                   re-decides whether an input was its first maximum by comparing values.
//
// Shapes are lesson 01's host_layers::PoolShape: window x window squares moved by stride,
// no padding, out = (H - window) / stride + 1 (rows/columns past the last window are dropped:
// their gradient is 0). Layout NCHW, as everywhere in the course.
//
// Tie rule (the same as lesson 01): a window's maximum is its FIRST maximum in row-major
// window order (top row first, left to right). When several inputs hold the same largest
// value, only the first one receives the gradient, in every variant.
//
// All pointers are DEVICE pointers. Functions run on the default stream and return without
// waiting for the GPU. Backward functions OVERWRITE dx (every element is written; inputs that
// no window picked get 0). Bad shapes (window or stride < 1, a window larger than the image,
// more than 2^31 - 1 inputs, which an int index cannot address) throw course::Error.
//
// Every backward is a GATHER: one thread per input element sums the dy of the windows that
// chose it. Where windows overlap (stride < window) two outputs can pick the same input, so a
// scatter "dx[argmax[o]] += dy[o]" from one thread per output would race; the gather needs
// no atomics, writes every dx exactly once and adds in a fixed order (deterministic).
//
// Which one the GPU trainer uses: the argmax variant. It works for every window and stride, and it
// moves as few bytes as the mask variant (an int per output = one byte per input at 2x2/2)
// while the recompute variant reads x a second time. lesson06_pooling times all three side by
// side; docs/results/06_pooling.md holds the H100 numbers.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>  // cudaStream_t

#include "host_layers.hpp"

namespace pooling {

using host_layers::PoolShape;

// ---- 06.1 argmax ---------------------------------------------------------------------------
// x [N, C, H, W] -> y [N, C, OH, OW]; argmax [N, C, OH, OW] receives the flat index into x of
// each window's first maximum (exactly what host_layers::maxpool_forward writes).
// argmax may be nullptr: then only y is written (the forward pass of the recompute variant).
void maxpool_forward_argmax(const PoolShape& s, const float* x, float* y, int* argmax);
// dx [N, C, H, W]: dx[i] = sum of dy[o] over the outputs o with argmax[o] == i (0 if none).
// Launches on `stream` (the default stream unless given), so that a caller can capture it into a CUDA graph.
void maxpool_backward_argmax(const PoolShape& s, const int* argmax, const float* dy, float* dx,
                             cudaStream_t stream = nullptr);

// ---- 06.2 mask (non-overlapping windows only) --------------------------------------------------
// With stride < window one input can be the first maximum of one window and not of another
// that also contains it; a single bit per input cannot say which, so these two functions
// throw course::Error for stride < window (use argmax or recompute there).
// x -> y, and mask [N, C, H, W]: 1 where an input is the first maximum of its window, 0 at
// every other input (inputs outside every window included).
void maxpool_forward_mask(const PoolShape& s, const float* x, float* y, uint8_t* mask);
// dx[i] = mask[i] * dy[the window holding i], 0 for inputs outside every window.
void maxpool_backward_mask(const PoolShape& s, const uint8_t* mask, const float* dy, float* dx);

// ---- 06.3 recompute ----------------------------------------------------------------------------
// Forward: maxpool_forward(s, x, y) below (stores nothing).
// dx[i] = sum of dy[o] over the windows o that contain input i and whose first maximum is i,
// decided from x alone: i is window o's choice when every input before it in window order is
// STRICTLY smaller than x[i] and every input after it is <= x[i].
void maxpool_backward_recompute(const PoolShape& s, const float* x, const float* dy, float* dx);

// The forward pass that stores nothing (for the recompute variant).
inline void maxpool_forward(const PoolShape& s, const float* x, float* y) {
  maxpool_forward_argmax(s, x, y, nullptr);
}

// ---- shape checks (written for you, pool_shape_checks.cpp) ------------------------------------
// Throws course::Error naming `function` when s is not a valid pooling shape.
void check_shape(const PoolShape& s, const char* function);
// check_shape, plus stride >= window (the mask variant's restriction).
void check_mask_shape(const PoolShape& s, const char* function);
// Windows overlap when stride < window.
inline bool windows_overlap(const PoolShape& s) { return s.stride < s.window; }

}  // namespace pooling
