#pragma once
// Lesson 05: direct 2-D convolution on the GPU, forward and backward.
//
//   05.1 forward              one thread per output element y[n][o][oh][ow]
//   05.2 backward_input       a GATHER: one thread per input element dx[n][c][h][w] sums the
//                             outputs whose windows contain it; no atomics, deterministic
//   05.3 backward_weight_atomic
//                             one thread per (image n, gradient entry): sums that image's
//                             products, then atomicAdd()s them into dW / dbias
//   05.4 backward_weight      race-free and deterministic: one thread per (chunk of output
//                             rows, gradient entry) writes a partial sum to a workspace, then a
//                             second kernel adds the chunks up in a fixed order
//
// Shapes are lesson 01's host_layers::ConvShape: any batch, channels, kernel_h x kernel_w
// (square or not), one stride and one zero padding for both axes; out = (H + 2*pad - k)/stride + 1.
// Layout NCHW, weights [O, C, kh, kw], as everywhere in the course. The results equal
// host_layers::conv2d_forward / conv2d_backward (lesson 01) up to float rounding.
//
// All pointers are DEVICE pointers. Every function runs on the default stream and returns
// without waiting for the GPU. Backward functions OVERWRITE their outputs (dx, dW, dbias): every
// element is written, nothing is accumulated onto what was there. A bad shape (a size < 1, a
// negative pad, a kernel larger than the padded image) throws course::Error.
//
// The GPU trainer uses conv2d_forward, conv2d_backward_input and the race-free
// conv2d_backward_weight (with a workspace of conv2d_backward_weight_workspace(s) floats,
// allocated once per layer).
#include <cstddef>

#include "host_layers.hpp"

namespace conv_direct {

using host_layers::ConvShape;

// ---- 05.1 forward ------------------------------------------------------------------------
// x [N, C, H, W], W [O, C, kh, kw], bias [O] -> y [N, O, OH, OW].
void conv2d_forward(const ConvShape& s, const float* x, const float* W, const float* bias, float* y);

// ---- 05.2 backward, input gradient ---------------------------------------------------------
// Given dy [N, O, OH, OW]: dx [N, C, H, W] (x itself is not needed: y is linear in x).
void conv2d_backward_input(const ConvShape& s, const float* W, const float* dy, float* dx);

// ---- 05.3 backward, weight and bias gradients with atomics ---------------------------------
// dW [O, C, kh, kw] = sum over n, oh, ow of dy * x (the input under that tap), dbias [O] = sum of dy.
// Zeroes dW and dbias itself, then adds into them with atomicAdd: correct, but the order of the
// additions changes from run to run, so the last bits may too.
void conv2d_backward_weight_atomic(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias);

// ---- 05.4 backward, weight and bias gradients, race-free and deterministic -----------------
// Same results as 05.3, and the same bits on every run: no atomics, a fixed order of additions.
// workspace: at least conv2d_backward_weight_workspace(s) floats of device memory; its contents
// on entry do not matter (it holds the partial sums).
void conv2d_backward_weight(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias,
                            float* workspace);
// Floats of scratch memory conv2d_backward_weight needs: chunks * gradient_entries(s).
size_t conv2d_backward_weight_workspace(const ConvShape& s);

// ---- helpers (written for you, conv_shapes.cpp) ----------------------------------------------
// The gradient entries 05.3 and 05.4 compute: every dW element, then every dbias element.
// Entry j < weight_size() is dW[j]; entry weight_size() + o is dbias[o].
inline size_t gradient_entries(const ConvShape& s) { return s.weight_size() + size_t(s.out_channels); }

// How 05.4 splits the reduction. The N*OH output rows (n, oh) are cut into `chunks` runs of
// `rows_per_chunk` consecutive rows (the last run may be shorter); chunk k covers rows
// [k*rows_per_chunk, min((k+1)*rows_per_chunk, N*OH)). It depends on the shape alone (not on
// the GPU), so the result is the same bits on every GPU that runs the same code.
struct WeightGradSplit {
  int chunks = 1;
  int rows_per_chunk = 1;
};
WeightGradSplit weight_grad_split(const ConvShape& s);

// Throws course::Error naming `function` when s is not a valid convolution shape.
void check_shape(const ConvShape& s, const char* function);

}  // namespace conv_direct
