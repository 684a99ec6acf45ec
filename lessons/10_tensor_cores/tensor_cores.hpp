#pragma once
// Lesson 10: Tensor Cores and mixed precision. The same matrix product as lesson 04, on the units
// that multiply small matrices of narrow numbers in one instruction: first what those numbers are
// (10.1), then a GEMM that feeds them (10.2), one that keeps them fed (10.3), one that
// drives them with the instruction under WMMA (10.4), and one with Hopper's own copies and
// warpgroup instructions (10.8).
//
// Conventions: matrices are row-major and dense (element (r, c) of an R x C matrix at r*C + c);
// C [M x N] = A [M x K] * B [K x N]; every GEMM OVERWRITES C; M, N or K below 1 throw
// course::Error before anything runs. Device pointers for the GPU functions, which run on the
// stream given (default: the default stream) and return without waiting.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "course/device_info.hpp"

#include "host_layers.hpp"

namespace tensor_cores {

// ---- 10.1 number formats -------------------------------------------------------------------------
// A float (FP32) is 1 sign bit, 8 exponent bits and 23 mantissa bits. The Tensor Cores read
// narrower numbers:
//   BF16  1 + 8 + 7 bits: FP32's range, 8 significant bits (stored in 16 bits: FP32's top half)
//   TF32  1 + 8 + 10 bits: FP32's range, 11 significant bits (held in a 32-bit float whose low
//         13 mantissa bits are zero)
//   FP16  1 + 5 + 10 bits: 11 significant bits, but a range that ends at 65504
// Rounding a float to one of them, to nearest with ties to EVEN (the IEEE default, and what
// cuda_bf16.h's __float2bfloat16_rn does):
//   * a value between two representable ones goes to the nearer; exactly halfway, to the one whose
//     last kept bit is 0;
//   * a value that rounds past the largest finite one becomes +-Inf; +-Inf stay +-Inf; subnormal
//     inputs round by the same rule (the bits below the kept ones are dropped the same way);
//   * a NaN stays a NaN of the same sign (quiet: the top mantissa bit set), whatever its payload:
//     dropping low bits must never turn a NaN into an Inf.
// (The GPU's own float-to-TF32 instruction, cvt.rna.tf32.f32, rounds ties AWAY from zero: on a
// tie it can differ from round_to_tf32 by one unit in the last place.)
uint16_t float_to_bf16(float x);  // the 16 bits of the BF16 nearest to x
float bf16_to_float(uint16_t b);  // exact: b's bits on top, 16 zero bits below
float round_to_tf32(float x);     // the TF32 nearest to x, as a float
// Given: the 16 bits of the FP16 nearest to x, by the same rule (ties to even, NaN stays NaN), with
// FP16's smaller exponent: 65520 and beyond become Inf, values below 2^-14 subnormal multiples of
// 2^-24 or 0.
uint16_t float_to_fp16(float x);
// The same on the GPU, element by element: y[i] = float_to_bf16(x[i]) (y[i] = round_to_tf32(x[i]),
// y[i] = float_to_fp16(x[i])).
void to_bf16_gpu(const float* x, uint16_t* y, size_t n, cudaStream_t stream = nullptr);
void to_tf32_gpu(const float* x, float* y, size_t n, cudaStream_t stream = nullptr);
void to_fp16_gpu(const float* x, uint16_t* y, size_t n, cudaStream_t stream = nullptr);

// What a format keeps: for the program's table (given).
struct FormatInfo {
  std::string name;
  int bits = 0, exponent_bits = 0, mantissa_bits = 0;  // stored mantissa bits (without the leading 1)
  double largest = 0, smallest_normal = 0, epsilon = 0;  // epsilon: 1's distance to the next number
};
FormatInfo format_info(const std::string& name);  // "fp32", "tf32", "bf16" or "fp16"; others throw

// ---- 10.2 a GEMM on the Tensor Cores: WMMA ------------------------------------------------------
// C = A * B with the products on the Tensor Cores and their sums in FP32. Each warp holds 16 x 16
// tiles ("fragments") of A, B and C; one warp-wide instruction multiplies a 16 x k fragment of A by
// a k x 16 fragment of B and adds the result to a 16 x 16 fragment of C (k = 8 for TF32, 16 for
// BF16). Any M, N, K >= 1 (the tiles past the edges are zeros).
//   gemm_wmma_tf32: A, B floats; the Tensor Cores see them rounded to TF32 (the GPU's instruction,
//                   ties away from zero)
//   gemm_wmma_bf16: A, B the 16 bits of BF16 numbers (float_to_bf16's output)
// Need compute capability 8.0 or newer; anything else throws course::Error before any work.
void gemm_wmma_tf32(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream = nullptr);
void gemm_wmma_bf16(const uint16_t* A, const uint16_t* B, float* C, int M, int N, int K,
                    cudaStream_t stream = nullptr);
// "" when this machine's GPU 0 has TF32 and BF16 Tensor Cores, else why not (given).
std::string tensor_core_problem();

// ---- 10.3 keeping the Tensor Cores fed: a pipeline of asynchronous copies --------------------------
// The same products as 10.2 (same inputs, same rounding, same contract), by a block of 8 warps
// owning 128 x 128 of C, whose tiles of A and B arrive in shared memory by asynchronous copies
// (cp.async) kStages = 3 tiles ahead of the multiplies.
void gemm_pipelined_tf32(const float* A, const float* B, float* C, int M, int N, int K,
                         cudaStream_t stream = nullptr);
void gemm_pipelined_bf16(const uint16_t* A, const uint16_t* B, float* C, int M, int N, int K,
                         cudaStream_t stream = nullptr);

// ---- 10.4 under WMMA: mma.sync and ldmatrix ---------------------------------------------------------
// The BF16 product of 10.2 (same contract) by a block of 8 warps owning 128 x 256 of C, each warp
// 64 x 64 held as 4 x 8 m16 x n8 tiles in registers, multiplied by mma.sync.m16n8k16 with operands
// loaded by ldmatrix; the tiles arrive through 10.3's pipeline, 3 stages of 64 values of k.
void gemm_mma_bf16(const uint16_t* A, const uint16_t* B, float* C, int M, int N, int K, cudaStream_t stream = nullptr);

// ---- 10.5 convolution on the Tensor Cores ----------------------------------------------------------
// Lesson 09's implicit GEMM (rows: output pixels (n, oh, ow); columns: output channels; k: the
// window (c, i, j)) with its tiles rounded to BF16 on their way into shared memory (to nearest,
// ties to even) and multiplied by 10.4's mma.sync, sums in FP32. FP32 tensors in and out, lesson
// 01's layouts (x [N][C][H][W], W [O][C][kh][kw], y [N][O][OH][OW]); every output overwritten.
//   conv2d_forward_mma:       y = conv(x, W) + bias (bias may be null), any stride and padding
//   conv2d_backward_data_mma: dx = the input gradient of that convolution for dy (09.3's flipped
//                             convolution): stride 1, square kernels, pad <= kernel - 1
// K = C kh kw need not be a multiple of 16 or 32: the tiles past K are zeros (conv1: 25 -> 32).
// Bad shapes, and GPUs without BF16 Tensor Cores, throw course::Error before any work.
void conv2d_forward_mma(const host_layers::ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                        cudaStream_t stream = nullptr);
void conv2d_backward_data_mma(const host_layers::ConvShape& s, const float* W, const float* dy, float* dx,
                              cudaStream_t stream = nullptr);

// ---- 10.6 the image in shared memory, channels last ------------------------------------------------
// The same two convolutions (same contract, same bound) by a block that holds one image, padded, in
// shared memory as BF16 with its channels innermost, and every tap's weights: out = the sum over the
// taps (i, j) of [pixels x C] x [C x O] products, 16 channels per mma.sync. An image of more than 256
// output pixels is cut into bands of whole rows, a block a band. Runs stride 1, square kernels, pad
// <= kernel - 1, C and O multiples of 16 and at most 64, output rows of at most 256 pixels (model A's
// conv2 forward and input gradient); conv_mma_tiled_problem says why not otherwise ("" when it runs,
// both passes), and the functions throw course::Error with that text.
// The weights go in BF16 in the kernel's own layouts, both written by conv_mma_tiled_weights (one
// launch, once per weight update): conv_mma_tiled_weights_size(s) 16-bit values.
std::string conv_mma_tiled_problem(const host_layers::ConvShape& s);
size_t conv_mma_tiled_weights_size(const host_layers::ConvShape& s);
void conv_mma_tiled_weights(const host_layers::ConvShape& s, const float* W, uint16_t* tiled_weights,
                            cudaStream_t stream = nullptr);
// `parts` (10.9): each image's output channels split over that many blocks (1: one block an image; O
// must be a multiple of 8 parts); the outputs are the same bits for every `parts`.
// stats (may be null): also, for a normalisation after the conv, each block's count, mean and squares
// around that mean of every output channel's values it wrote, as [O][entries][3] with entries =
// conv_mma_tiled_statistics_entries(s) (one an image's band of rows: image n, band b at n bands + b).
void conv2d_forward_mma_tiled(const host_layers::ConvShape& s, const float* x, const uint16_t* tiled_weights,
                              const float* bias, float* y, cudaStream_t stream = nullptr, int parts = 1,
                              float* stats = nullptr);
int conv_mma_tiled_statistics_entries(const host_layers::ConvShape& s);
void conv2d_backward_data_mma_tiled(const host_layers::ConvShape& s, const uint16_t* tiled_weights, const float* dy,
                                    float* dx, cudaStream_t stream = nullptr, int parts = 1);

// ---- 10.7 the weight gradient on the Tensor Cores ---------------------------------------------------
// dW[o][c][i][j] = sum over n, p of dy[n][o][p] x[n][c][p moved by (i, j)] and dbias[o] = sum over
// n, p of dy[n][o][p] (dbias may be null: not computed), both overwritten: per tap a GEMM of dy and
// the shifted image over the pixels, BF16 products and FP32 sums, on 10.6's image in shared memory;
// each block sums `images_per_block` images (10.9; 2 unless told; with bands, each block the rows of
// one piece of them) into a slice of `workspace`, and the slices are added in a fixed order (the same
// bits every run). Runs stride 1, square kernels up to 7 x 7, pad <= kernel - 1, C and O
// multiples of 16 with O <= 128, and at most 256 output pixels an image unless (C / 16) (O / 16) k < 8
// leaves warps free to cut it into bands (model A's conv2; 28 x 28 at 16 channels, 3 x 3);
// conv_mma_weight_problem says why not otherwise, and the function throws course::Error with it.
std::string conv_mma_weight_problem(const host_layers::ConvShape& s);
size_t conv_mma_weight_workspace_floats(const host_layers::ConvShape& s, int images_per_block = 2);
void conv2d_backward_weight_mma(const host_layers::ConvShape& s, const float* x, const float* dy, float* dW,
                                float* dbias, float* workspace, cudaStream_t stream = nullptr,
                                int images_per_block = 2);

// ---- 10.8 Hopper: the copy engine, mbarriers and wgmma ---------------------------------------------
// The same products (same contract: C overwritten, sums in FP32) by a block of 3 warpgroups owning
// 128 x 256 of C: one producer thread has the tensor memory accelerator (TMA) copy each stage's
// tiles (4 stages of 128 bytes of k) into shared memory, and 2 consumer warpgroups multiply them
// with wgmma, asynchronously, straight from shared memory. Tails of M, N and K need no code (the
// copies fill zeros past the edges), but every row must be a whole number of 16-byte units (the
// copy engine's rule): K a multiple of 8 (BF16) or 4 (TF32), and for BF16 N a multiple of 8.
//   gemm_wgmma_bf16: BF16 inputs as in 10.2
//   gemm_wgmma_tf32: FP32 inputs: B is first written transposed and rounded to TF32 into
//                    `workspace` (gemm_wgmma_tf32_workspace_floats(N, K) floats), as wgmma reads
//                    TF32 operands only with k contiguous; A's values are read as TF32 by the
//                    Tensor Cores, which drop the low 13 bits (toward zero)
// Runs on compute capability 9.0 only (H100, H200: the code is built for sm_90a). gemm_wgmma_problem
// says why not otherwise ("" when it runs; element_bytes: 2 for BF16, 4 for TF32); the functions
// throw course::Error with that text, before any work.
std::string gemm_wgmma_problem(int M, int N, int K, int element_bytes);
size_t gemm_wgmma_tf32_workspace_floats(int N, int K);
void gemm_wgmma_bf16(const uint16_t* A, const uint16_t* B, float* C, int M, int N, int K, cudaStream_t stream = nullptr);
void gemm_wgmma_tf32(const float* A, const float* B, float* C, int M, int N, int K, float* workspace,
                     cudaStream_t stream = nullptr);

// ---- 10.9 one wave: as many blocks as the SMs hold -------------------------------------------------
// A kernel's blocks run in waves: each SM holds as many blocks at once as its threads, registers and
// shared memory allow, and a grid larger than that runs in several rounds. 10.6 launches one block an
// image (128 blocks with 158 KiB of shared memory each: one block, 8 warps, on each SM), 10.7 one block
// per tap row and 2 images (320 blocks: two rounds on 132 SMs, the second a fifth full).
//
// What one SM offers: course::SmLimits (common/include/course/device_info.hpp: every field says
// what it counts), read for the current GPU by course::sm_limits().
using course::SmLimits;
using course::sm_limits;
// What one block of a kernel asks for.
struct BlockNeeds {
  int threads;                 // a multiple of 32
  int registers_per_thread;    // what the compiler gave the kernel (cudaFuncAttributes::numRegs)
  size_t shared_bytes;         // static and dynamic shared memory together
};

// YOURS (exercises/one_wave.cpp): how many such blocks one SM holds at once: the smallest of what its
// threads allow, what its registers allow (whole warps, each warp's registers rounded up to the unit,
// fitted into one partition's share of the register file), what its shared memory allows (each
// block's bytes plus the reserved part, rounded up to the unit) and max_blocks; every division rounds
// down, and 0 means one block does not fit. Throws course::Error on a block whose threads are not a
// positive multiple of 32, or with negative registers.
int blocks_per_sm(const SmLimits& sm, const BlockNeeds& block);

// Given, from blocks_per_sm and the kernels' own needs on the current GPU:
//   conv_mma_tiled_parts: the fewest parts (1, 2, 4, ..: O / 8 divisible by them) whose grid (N bands
//     parts blocks) gives every SM a block while it still runs in one wave (each part stages the
//     whole image again, so a split beyond that only adds work); 1 when no split does. `backward_data`:
//     the input gradient's pass (its O is the layer's input channels); `stats`: the forward pass that
//     also writes the statistics (its kernel's own registers).
//   conv_mma_weight_images_per_block: the fewest images a block whose grid (N / images groups x
//     pieces x sets) runs in one wave.
int conv_mma_tiled_parts(const host_layers::ConvShape& s, bool backward_data, bool stats = false);
int conv_mma_weight_images_per_block(const host_layers::ConvShape& s);

}  // namespace tensor_cores
