#pragma once
// Lesson 11: the CPU done right. One matrix product, made fast one idea at a time, then the
// layers of lesson 01 rebuilt on it, and the thin convolutions that a GEMM serves badly.
//
// Conventions (the same as lessons 01 and 07):
//   * Matrices are row-major and dense: element (r, c) of an R x C matrix is at r*C + c.
//   * C = op(A) * op(B), with op(A) M x K and op(B) K x N. op(X) is X as stored (Trans::no) or
//     its transpose (Trans::yes): A is stored M x K or K x M, B is stored K x N or N x K.
//   * Every function OVERWRITES its outputs (C, y, dx, dW, dbias): they may hold garbage before.
//   * K = 0 is allowed (C = 0); M = 0 or N = 0 do nothing. Negative sizes throw course::Error.
//   * Each element of C is summed in ONE fixed order, k = 0, 1, ..., K-1, whatever the step,
//     the block sizes or the number of threads. Results of 11.3 never depend on `threads`.
#include <cstddef>
#include <functional>
#include <vector>

#include "host_layers.hpp"

namespace fast_cpu {

using host_layers::ConvShape;

enum class Trans { no, yes };

// Given (gemm_checks.cpp): throws course::Error naming `function` when M, N or K is negative.
// Every GEMM below calls it first.
void check_gemm_sizes(const char* function, int M, int N, int K);

// ---- 11.1 loop order and cache blocking -----------------------------------------------------
// C [M x N] = op(A) * op(B): i-k-j loop order (the innermost loop runs along a row of C and a row
// of op(B)), K and N cut into blocks so that a block of op(B) stays in the cache while every row
// of C uses it.
void gemm_blocked(Trans ta, Trans tb, int M, int N, int K, const float* A, const float* B, float* C);

// ---- 11.2 register tiles the compiler vectorises ------------------------------------------------
// Rows [row_begin, row_end) of C = op(A) * op(B), the other rows untouched; a tile of
// kTileRows rows x a few SIMD vectors of columns of C is accumulated in local variables.
// row_begin must be a multiple of kTileRows (so that a row lands in the same tile, and is
// computed by the same instructions, however the rows are split: 11.3 relies on it);
// 0 <= row_begin <= row_end <= M. Anything else throws course::Error.
constexpr int kTileRows = 6;
void gemm_simd_rows(Trans ta, Trans tb, int M, int N, int K, const float* A, const float* B, float* C,
                    int row_begin, int row_end);
// The whole of C: rows [0, M).
inline void gemm_simd(Trans ta, Trans tb, int M, int N, int K, const float* A, const float* B, float* C) {
  gemm_simd_rows(ta, tb, M, N, K, A, B, C, 0, M);
}

// ---- 11.3 threads -------------------------------------------------------------------------------
// The threads come from a pool (run_on_pool, given in parallel.cpp): started once, they wait between
// calls, so handing one a range costs about a microsecond instead of the tens of microseconds of
// starting a std::thread. A thread still pays only with enough work: each range a core takes is data
// another core wrote, and the results go back to the core that reads them next. At batch 32
// splitting the small CNN's 4.5 MFLOP convolutions over two cores made the step slower on the 2-core
// machine of docs/results/11_fast_cpu.md. Smaller work runs on fewer threads, down to one.
constexpr double kMinFlopsPerThread = 8e6;

// Given (parallel.cpp): body(r) for every r in [0, ranges), on the calling thread and on up to
// ranges - 1 of the pool's waiting threads; returns when all are done. An exception in a body is
// rethrown in the caller after every range has finished. A call from inside a range, or while
// another thread's call has the pool, runs its ranges in turn on the calling thread. ranges <= 0:
// nothing; ranges = 1: body(0) on the caller, no thread involved.
void run_on_pool(int ranges, const std::function<void(int range)>& body);

// body(begin, end) for [0, count) cut into contiguous ranges whose sizes differ by one at most
// (range t of n: [t*count/n, (t+1)*count/n)), run with run_on_pool. As many ranges as `threads`,
// `count` and the work allow: at most one for every kMinFlopsPerThread of `flops`, at least one.
// threads < 1: course::Error (before any body runs); count <= 0: body never called. One range: no
// thread is involved. Which ranges a split makes depends on threads, count and flops only.
void parallel_ranges(int threads, int count, double flops, const std::function<void(int begin, int end)>& body);

// The same product split over up to `threads` threads (threads >= 1, else course::Error) by blocks
// of rows of C, each block computed with 11.2's gemm_simd_rows. threads = 1: no thread is started.
// C is bit for bit the same for every value of `threads`.
void gemm_threads(Trans ta, Trans tb, int M, int N, int K, const float* A, const float* B, float* C,
                  int threads);

// ---- 11.4 the layers on these GEMMs -------------------------------------------------------------
// All products through 11.3's gemm_threads, on at most `threads` threads together. input_grad = false skips dx
// (the first layer's input gradient, which nobody reads): dx is then not written and may be null.

// x [batch x in], W [out x in], bias [out] -> y [batch x out] = x W^T + bias.
void dense_forward(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out,
                   int threads);
// Given dy [batch x out]: dx [batch x in] = dy W, dW [out x in] = dy^T x, dbias [out] = sum over b of dy.
void dense_backward(const float* x, const float* W, const float* dy, float* dx, float* dW, float* dbias, int batch,
                    int in, int out, int threads, bool input_grad = true);

// Floats of scratch memory the two convolution functions need: col (C*kh*kw x N*OH*OW, lesson 07's
// layout) plus one O x N*OH*OW matrix. Contents on entry do not matter.
size_t conv_workspace_floats(const ConvShape& s);
// x [N, C, H, W], W [O, C, kh, kw], bias [O] -> y [N, O, OH, OW]: im2col, one GEMM, bias and layout.
void conv2d_forward(const ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                    float* workspace, int threads);
// Given dy [N, O, OH, OW]: dW [O, C, kh, kw], dbias [O] and (input_grad) dx [N, C, H, W] via col2im.
void conv2d_backward(const ConvShape& s, const float* x, const float* W, const float* dy, float* dx, float* dW,
                     float* dbias, float* workspace, int threads, bool input_grad = true);

// ---- 11.5 (forward) and 11.6 (backward): thin convolutions, computed directly -------------------
// A convolution with few taps per output (C*kh*kw: 9 for lesson 02's first layer) is a poor GEMM:
// im2col copies the image kh*kw times, and the products have K = 9 (forward) or N = 9 (dW), so
// 11.2's register tile is mostly empty. Computed directly, one output row is C*kh*kw vector
// multiply-adds of shifted input rows. Same layouts and contracts as 11.4's conv2d_forward and
// conv2d_backward, without a workspace. Work is split over `threads` (>= 1, else course::Error) by
// images (y, dx) and by output channels (dW, dbias): the results do not depend on `threads`.
// The network uses them where conv_is_thin (lesson 08's rule for its direct kernel).
constexpr int kThinConvMaxTaps = 64;
inline bool conv_is_thin(const ConvShape& s) { return s.in_channels * s.kernel_h * s.kernel_w < kThinConvMaxTaps; }
void conv2d_direct_forward(const ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                           int threads);
void conv2d_direct_backward(const ConvShape& s, const float* x, const float* W, const float* dy, float* dx,
                            float* dW, float* dbias, int threads, bool input_grad = true);

// ---- 11.7 the batch on every core ---------------------------------------------------------------
// At batch 32 the small CNN's products are too small to share (kMinFlopsPerThread): 11.3 leaves the
// second core idle. Cut the batch instead (data parallelism): each
// shard of examples runs through the whole network on one thread, with its own activations and
// weight gradients, and the shards' gradients are summed once at the end. A shard's activations stay
// in its core's cache; the cores meet once per step instead of once per layer.
//
// Cuts examples [0, batch) into `shards` contiguous shards, shard k = [k*batch/shards,
// (k+1)*batch/shards) (integer division: sizes within one of each other), and calls pass(k, begin,
// end) once per shard, the shards on up to `threads` threads of the pool (parallel_ranges: a shard is
// a whole network's pass, worth a thread). Returns the sum of the passes' results, added in shard
// order k = 0, 1, ... whatever ran where. batch >= 1, 1 <= shards <= batch and threads >= 1, else
// course::Error; an exception of a pass reaches the caller.
double run_shards(int batch, int shards, int threads, const std::function<double(int shard, int begin, int end)>& pass);
// Passes over arrays element by element (adding the shards' gradients, the optimizer's update) move
// memory with a flop or two an element: a thread pays for itself from this many elements on.
constexpr size_t kMinElementsPerThread = size_t(1) << 15;
// sum[i] = parts[0][i] + parts[1][i] + ... + parts[last][i], added in that order, for i < count; the
// elements split over up to `threads` threads, at most one for every kMinElementsPerThread elements.
// The same bits for every `threads`. parts empty or threads < 1: course::Error. sum may be parts[0],
// no other part.
void sum_in_order(const std::vector<const float*>& parts, size_t count, float* sum, int threads);

}  // namespace fast_cpu
