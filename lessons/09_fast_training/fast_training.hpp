#pragma once
// Lesson 09: fast FP32 training. Measure where a training step's time goes, then attack the
// largest item first: the convolutions, as implicit GEMMs that read NCHW tensors directly.
//
// Device pointers everywhere except the cost model (host only). Every function runs on the
// default stream (or the one given) and returns without waiting for the GPU.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "host_layers.hpp"
#include "host_training.hpp"

namespace fast_training {

using host_layers::ConvShape;

// ---- 09.1 what a pass costs ----------------------------------------------------------------
// The work of one pass of one layer for a batch, in the units of a roofline:
//   flops  floating-point operations of the multiply-adds (2 per multiply-add) of conv and dense
//          passes; 0 for ReLU, max-pool and the loss, which are all about moving data
//   bytes  the least DRAM traffic the pass can get away with: every tensor it needs read once
//          and every tensor it produces written once (4 bytes a float or an int), nothing else
// A layer's backward pass computes what lesson 08's layers compute: dx (unless input_grad is
// false: the first layer's dx is nobody's input), and for conv and dense dW and dbias too.
struct PassCost {
  double flops = 0, bytes = 0;
};
PassCost layer_pass_cost(const host_training::LayerPlan& plan, int batch, bool backward, bool input_grad = true);
// Softmax-cross-entropy over batch x classes logits (lesson 04's kernels): forward reads the
// logits and labels and writes probabilities and row losses; backward reads probabilities and
// labels and writes the logits' gradient.
PassCost loss_pass_cost(int batch, int classes, bool backward);

// The GPU's ceilings and a pass's least time on them (the roofline) are the tables program's
// (programs/fast_training_tables/roofline.hpp).

// ---- 09.2-09.4 convolution as implicit GEMM ------------------------------------------------
// Lesson 07 built the im2col matrix col [C*kh*kw x N*OH*OW] in memory and multiplied. An implicit
// GEMM multiplies the same matrices but never builds col: each tile of it is gathered from x
// into shared memory, used, and forgotten (gemm_core.cuh). Same results as lessons 01, 05 and 07
// (up to float rounding), no workspace for the forward pass, one read of x instead of kh*kw.
//
// Layouts as lesson 01: x [N, C, H, W], W [O, C, kh, kw], bias [O], y and dy [N, O, OH, OW].
// Backward functions OVERWRITE their outputs. Bad shapes (a size < 1, no output pixels) throw
// course::Error before anything runs.

// 09.2: y = conv(x, W) + bias, the GEMM  Y[O x N*OH*OW] = W[O x C*kh*kw] * col(x), scattered
// back to NCHW in the epilogue.
void conv2d_forward_implicit(const ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                             cudaStream_t stream = nullptr);

// 09.3: dx for stride 1, as a FORWARD convolution of dy: with the kernel flipped in both spatial
// directions and its two channel axes swapped (W'[c][o][kh-1-i][kw-1-j] = W[o][c][i][j]) and
// padding kh-1-pad (kw-1-pad), conv(dy, W') = dx. workspace: conv_implicit_workspace_floats(s)
// floats (W' lives there). Stride > 1 throws course::Error (lesson 07 handles it).
void conv2d_backward_data_implicit(const ConvShape& s, const float* W, const float* dy, float* dx, float* workspace,
                                   cudaStream_t stream = nullptr);

// 09.4: dW and dbias, the GEMM  dW[O x C*kh*kw] = dY[O x N*OH*OW] * col(x)^T  with its long
// reduction (over N*OH*OW) split across blocks; dbias rides along as one more column of col
// whose entries are all 1. The slices are added in a fixed order: the same bits on every run.
// workspace: conv_implicit_workspace_floats(s) floats.
void conv2d_backward_weight_implicit(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias,
                                     float* workspace, cudaStream_t stream = nullptr);

// Floats of workspace the backward functions need (the largest of W' and the split-K slices).
size_t conv_implicit_workspace_floats(const ConvShape& s);

// ---- 09.5 ReLU folded into max-pool ----------------------------------------------------------
// Lesson 08 runs ReLU and then max-pool: two passes over the conv's output. Since
// max(relu(a), relu(b)) = relu(max(a, b)), one pass does both:
//   y[o] = max(0, the maximum of x over o's window)
//   argmax[o] = the flat index into x of the window's FIRST maximum (lesson 06's tie rule) when
//               that maximum is > 0, else -1: the ReLU's gradient is 0 there, no input gets dy[o]
// The backward needs only this argmax: it gives dx of the pair with the ReLU's mask already in
// it, without reading x again. Shapes as lesson 06 (bad ones throw course::Error).
void relu_maxpool_forward(const host_layers::PoolShape& s, const float* x, float* y, int* argmax,
                          cudaStream_t stream = nullptr);
// dx [N, C, H, W] of the pair, from dy [N, C, OH, OW] and the forward's argmax, for windows that
// do not overlap (stride == window, as model A's pools): an input lies in at most one window, so
//   dx[i] = dy[o]  where o is the window holding i and argmax[o] == i
//   dx[i] = 0      otherwise (argmax -1, another input of the window, or in no window at all)
// Every input is written. Lesson 06's maxpool_backward_argmax gives the same for any window and
// stride, at the price of searching every window that could hold i, in 64-bit arithmetic.
// Overlapping windows (stride != window) and more than 2^31 - 1 inputs throw course::Error.
void relu_maxpool_backward(const host_layers::PoolShape& s, const int* argmax, const float* dy, float* dx,
                           cudaStream_t stream = nullptr);

// ---- 09.6 softmax-cross-entropy, forward and backward in one kernel ------------------------------
// For every row b of logits [batch x classes] (one block per row), with m its maximum:
//   row_loss[b]    = log(sum_c exp(z[b][c] - m)) - (z[b][labels[b]] - m)
//   dlogits[b][c]  = (exp(z[b][c] - m) / sum - [c == labels[b]]) / batch
// The gradient needs nothing the forward pass does not already have in registers, so no
// probabilities are stored and read back. A label outside 0..classes-1 gives NaN for that row's
// loss and gradient (the other rows are unaffected). batch == 0 launches nothing; classes < 1 or
// batch < 0 throws course::Error.
void softmax_cross_entropy_fused(const float* logits, const int* labels, float* row_loss, float* dlogits, int batch,
                                 int classes, cudaStream_t stream = nullptr);

// ---- 09.7 the dense layer's three GEMMs, each with its neighbour in the epilogue ----------------
// Lesson 08 runs a dense layer as a bias broadcast, a GEMM that adds to it, and a separate ReLU;
// its backward as three launches with the ReLU's mask applied by yet another kernel. Here each
// GEMM finishes the job in its epilogue, where the value is still in a register:
//   forward        y [batch x out] = act(x [batch x in] * W^T + bias)     act: ReLU if relu
//   backward dx    dx [batch x in] = (dy * W) where mask > 0, else 0       mask [batch x in]: the
//                                    ReLU output this layer read (its positive entries are where
//                                    the ReLU passed the gradient), or null: no ReLU before
//   backward dW    dW [out x in] = dy^T * x, dbias [out] = sum over the batch of dy (a column of
//                                    ones, as 09.4), both overwritten
// W is lesson 01's [out x in]. A product with few output tiles and a long reduction (fc1's
// forward: 128 x 512 outputs summed over 3136) splits its reduction; the slices are added in a
// fixed order by a second kernel, which then applies the epilogue (the same bits every run).
// workspace: dense_fused_workspace_floats(batch, in, out) floats, shared by the three.
// Sizes < 1 throw course::Error. Given: a product whose output rows are short (out <= 16, as
// model A's fc2 with 10) runs on dense_small.cuh's kernels instead: a 64-wide tile would leave
// most of its columns idle.
void dense_forward_fused(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out,
                         bool relu, float* workspace, cudaStream_t stream = nullptr);
void dense_backward_data_fused(const float* W, const float* dy, const float* mask, float* dx, int batch, int in,
                               int out, float* workspace, cudaStream_t stream = nullptr);
void dense_backward_weight_fused(const float* x, const float* dy, float* dW, float* dbias, int batch, int in, int out,
                                 float* workspace, cudaStream_t stream = nullptr);
size_t dense_fused_workspace_floats(int batch, int in, int out);

// ---- the engine's products as a network calls them ------------------------------------------------
// The six products of 09.2-09.4 and 09.7, with the signatures above: this lesson's (FP32 fused
// multiply-adds, fp32_products()), or the same gathers with another math policy in the engine's
// stages (gemm_core.cuh), which a network is handed instead. The workspaces are the same for all.
struct GemmProducts {
  std::string name;  // "FP32", for the layers' and the networks' lines
  void (*conv_forward)(const ConvShape&, const float* x, const float* W, const float* bias, float* y,
                       cudaStream_t);
  void (*conv_backward_data)(const ConvShape&, const float* W, const float* dy, float* dx, float* workspace,
                             cudaStream_t);
  void (*conv_backward_weight)(const ConvShape&, const float* x, const float* dy, float* dW, float* dbias,
                               float* workspace, cudaStream_t);
  void (*dense_forward)(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out,
                        bool relu, float* workspace, cudaStream_t);
  void (*dense_backward_data)(const float* W, const float* dy, const float* mask, float* dx, int batch, int in,
                              int out, float* workspace, cudaStream_t);
  void (*dense_backward_weight)(const float* x, const float* dy, float* dW, float* dbias, int batch, int in, int out,
                                float* workspace, cudaStream_t);
  // What a trainer runs once before it trains on them (null: nothing): throws course::Error when
  // they are not what they should be (another math's products not written yet, say).
  void (*check)() = nullptr;
};
const GemmProducts& fp32_products();

// ---- 09.10 the tiled direct convolution: small images in shared memory ------------------------
// A 14 x 14 image with its padding is 18 x 18 floats per channel: a block can hold a chunk of
// channels of one image in shared memory, with the weights of 32 output channels, and compute
// every output pixel from there. Each thread keeps 4 output channels x 7 neighbouring outputs of
// one row in registers; a row of 7 + k - 1 inputs read once from shared memory feeds all
// 4 x 7 x k multiply-adds of a kernel row (the window slides over registers). No index
// arithmetic per multiply-add, no im2col, and while a chunk computes the next one is on its way
// from global memory. Stride 1, square 3x3 or 5x5 kernels, pad <= k - 1, images up to a few
// dozen pixels wide (conv_tiled_problem says what does not fit, for 09.10 and 09.11 alike; the
// functions throw course::Error with that text).
//
// The kernel reads the weights in its own order, written once per weight update by
// conv_tiled_weights (one launch, both layouts, each row padded with zeros to 4 floats):
//   forward   [C][k][k][O]  = W[o][c][i][j]
//   backward  [O][k][k][C]  = W[o][c][k-1-i][k-1-j]   (09.3's flipped kernel: dx = conv(dy, W'))
std::string conv_tiled_problem(const ConvShape& s);  // "" when the tiled kernel runs s, else why not
size_t conv_tiled_weights_size(const ConvShape& s);  // floats of both layouts
void conv_tiled_weights(const ConvShape& s, const float* W, float* tiled_weights, cudaStream_t stream = nullptr);
// 09.10: y = conv(x, W) + bias (bias may be null) from conv_tiled_weights' layouts of W. With
// `stats` (given, for a normalisation after the conv) each block also writes, for each of its output
// channels, the count, mean and squares around the mean of the y it computed (one image's band of
// rows), from its registers: [O][entries][3], conv_tiled_statistics_entries(s) entries a channel,
// image n's band b at n bands + b.
void conv2d_forward_tiled(const ConvShape& s, const float* x, const float* tiled_weights, const float* bias, float* y,
                          cudaStream_t stream = nullptr, float* stats = nullptr);
int conv_tiled_statistics_entries(const ConvShape& s);
// dx = conv(dy, W'), the same kernel on the backward layout (given).
void conv2d_backward_data_tiled(const ConvShape& s, const float* tiled_weights, const float* dy, float* dx,
                                cudaStream_t stream = nullptr);

// ---- 09.11 the tiled weight gradient -------------------------------------------------------
// 09.4's GEMM reads x and dy through gathers, its reduction (over every output pixel of every
// image) cut into slices. Here a block holds 32 output channels x 8 input channels of dW, and goes
// through a slice of the images a unit (one image, a band of rows) at a time, x and dy in shared
// memory; thread (c, i, o-group) keeps dW[4 channels][c][i][0 .. k-1] in registers: along a row of
// 7 outputs, 7 + k - 1 inputs and 7 float4 of dy feed 4 x 7 x k multiply-adds (the window slides
// the other way round: over dy). Each slice writes its sums; 09.4's slice sum adds them in a fixed
// order: the same bits on every run. dbias rides along (the sum of dy). Both overwritten.
// workspace: conv_tiled_dw_workspace_floats(s) floats. Shapes as 09.10 (conv_tiled_problem).
size_t conv_tiled_dw_workspace_floats(const ConvShape& s);
void conv2d_backward_weight_tiled(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias,
                                  float* workspace, cudaStream_t stream = nullptr);

// ---- 09.13 the thin first layer: conv, ReLU and max-pool in one kernel, dW from the argmax -----
// Model A's conv1 has one input channel: each output is 25 multiply-adds, too few for a GEMM's tile
// (09.2 runs it at a few TFLOP/s), and its 32 x 28 x 28 outputs per image are written, read back by
// 09.5's pool and thrown away. A block holds one image (padding included) and the weights of 8
// output channels in shared memory; a thread computes one POOLED output: the conv's window x window
// outputs under it, their first maximum and the ReLU, and writes only that and its argmax (an index
// into the conv's output, as relu_maxpool_forward writes it; the conv's output itself is never
// written). Backward, the pool sends each gradient to its window's winner only: dW and dbias are
// sums over the pooled outputs whose argmax is not -1, read straight from d_pooled and the argmax,
// a quarter of the conv's outputs and none of 09.5's backward pass. The first layer only: nobody
// needs its input gradient. Stride 1, C * k * k <= kThinMaxTaps (k 3 or 5, C 1-3), a pool whose
// windows do not overlap, the padded image of one example in 48 KiB of shared memory
// (thin_conv_problem says what does not fit; the functions throw course::Error with that text).
constexpr int kThinMaxTaps = 32;
std::string thin_conv_problem(const ConvShape& c, const host_layers::PoolShape& p);
// pooled = maxpool(relu(conv(x, W) + bias)) [batch x O x PH x PW]; argmax as relu_maxpool_forward's.
void thin_conv_relu_maxpool(const ConvShape& c, const host_layers::PoolShape& p, const float* x, const float* W,
                            const float* bias, float* pooled, int* argmax, cudaStream_t stream = nullptr);
// dW [O x C x k x k] and dbias [O] (both overwritten) from d_pooled = dL/d(pooled) and the argmax of
// the forward: each slice of the images sums into the workspace, then a fixed-order sum (the same
// bits on every run). workspace: thin_conv_dw_workspace_floats(c) floats.
size_t thin_conv_dw_workspace_floats(const ConvShape& c);
void thin_conv_backward_weight(const ConvShape& c, const host_layers::PoolShape& p, const float* x, const int* argmax,
                               const float* d_pooled, float* dW, float* dbias, float* workspace,
                               cudaStream_t stream = nullptr);

}  // namespace fast_training
