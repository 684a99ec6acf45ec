// Lesson 11, step 11.4: dense and convolution layers on 11.3's GEMM.
#include <algorithm>

#include "fast_cpu.hpp"
#include "im2col.hpp"

namespace fast_cpu {

void dense_forward(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out,
                   int threads) {
  // y [batch x out] = x [batch x in] * W^T: W is stored out x in, op(W) = its transpose.
  gemm_threads(Trans::no, Trans::yes, batch, out, in, x, W, y, threads);
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < out; ++o) y[size_t(b) * out + o] += bias[o];
}

void dense_backward(const float* x, const float* W, const float* dy, float* dx, float* dW, float* dbias, int batch,
                    int in, int out, int threads, bool input_grad) {
  auto weight_grads = [&](int gemm_threads_) {
    // dW [out x in] = dy^T [out x batch] * x [batch x in]: dy is stored batch x out.
    gemm_threads(Trans::yes, Trans::no, out, in, batch, dy, x, dW, gemm_threads_);
    std::fill(dbias, dbias + out, 0.0f);
    for (int b = 0; b < batch; ++b)
      for (int o = 0; o < out; ++o) dbias[o] += dy[size_t(b) * out + o];
  };
  // dx [batch x in] = dy [batch x out] * W [out x in]; the first layer's dx is nobody's input.
  auto input_grads = [&](int gemm_threads_) { gemm_threads(Trans::no, Trans::no, batch, in, out, dy, W, dx, gemm_threads_); };
  const double flops_each = 2.0 * batch * in * out;
  if (input_grad && threads >= 2 && flops_each < 2 * kMinFlopsPerThread) {
    // Each product alone is too small for two threads (gemm_threads would keep it on one), but the
    // two do not depend on each other: side by side, one thread each, when together they are worth
    // it (parallel_ranges decides, as for any split). Each product is computed the same way whatever
    // its thread count: the bits do not change.
    parallel_ranges(threads, 2, 2 * flops_each, [&](int first, int end) {
      for (int p = first; p < end; ++p) p == 0 ? weight_grads(1) : input_grads(1);
    });
    return;
  }
  weight_grads(threads);
  if (input_grad) input_grads(threads);
}

size_t conv_workspace_floats(const ConvShape& s) {
  return im2col::col_size(s) + size_t(s.out_channels) * im2col::col_cols(s);
}

void conv2d_forward(const ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                    float* workspace, int threads) {
  const int K = int(im2col::col_rows(s)), P = int(im2col::col_cols(s)), O = s.out_channels;
  const size_t plane = size_t(s.out_h()) * s.out_w();
  float* col = workspace;                        // K x P
  float* product = workspace + im2col::col_size(s);  // O x P
  im2col::im2col_cpu(s, x, col);
  gemm_threads(Trans::no, Trans::no, O, P, K, W, col, product, threads);
  // Column q = n*plane + p of the product is output position p of image n: y is [N, O, OH, OW].
  for (int n = 0; n < s.batch; ++n)
    for (int o = 0; o < O; ++o) {
      const float* from = product + size_t(o) * P + size_t(n) * plane;
      float* to = y + (size_t(n) * O + o) * plane;
      for (size_t p = 0; p < plane; ++p) to[p] = from[p] + bias[o];
    }
}

void conv2d_backward(const ConvShape& s, const float* x, const float* W, const float* dy, float* dx, float* dW,
                     float* dbias, float* workspace, int threads, bool input_grad) {
  const int K = int(im2col::col_rows(s)), P = int(im2col::col_cols(s)), O = s.out_channels;
  const size_t plane = size_t(s.out_h()) * s.out_w();
  float* col = workspace;                        // K x P: im2col(x), later dcol
  float* dY = workspace + im2col::col_size(s);   // O x P: dy with the images side by side
  for (int n = 0; n < s.batch; ++n)
    for (int o = 0; o < O; ++o)
      std::copy(dy + (size_t(n) * O + o) * plane, dy + (size_t(n) * O + o + 1) * plane,
                dY + size_t(o) * P + size_t(n) * plane);
  im2col::im2col_cpu(s, x, col);
  // dW [O x K] = dY [O x P] * col^T; dbias[o] = the sum of row o of dY.
  gemm_threads(Trans::no, Trans::yes, O, K, P, dY, col, dW, threads);
  for (int o = 0; o < O; ++o) {
    float sum = 0.0f;
    for (int q = 0; q < P; ++q) sum += dY[size_t(o) * P + q];
    dbias[o] = sum;
  }
  if (!input_grad) return;
  // dcol [K x P] = W^T [K x O] * dY [O x P], into col's space (col is not needed any more);
  // col2im adds every column back to the pixels it came from.
  gemm_threads(Trans::yes, Trans::no, K, P, O, W, dY, col, threads);
  im2col::col2im_cpu(s, col, dx);
}

}  // namespace fast_cpu
