// Lesson 11, step 11.4: dense and convolution layers on 11.3's GEMM. YOUR FILE.
// Layouts are lesson 01's; the column matrix is lesson 07's (im2col.hpp).
// Uncomment the parameter names when you write a function.
#include <algorithm>

#include "course/error.hpp"
#include "fast_cpu.hpp"
#include "im2col.hpp"

namespace fast_cpu {

void dense_forward(const float* /*x*/, const float* /*W*/, const float* /*bias*/, float* /*y*/, int /*batch*/,
                   int /*in*/, int /*out*/, int /*threads*/) {
  // TODO(11.4): y [batch x out] = x W^T + bias, the product with gemm_threads(..., threads).
  course::todo("11.4", "dense_forward (one GEMM and the bias)");
}

void dense_backward(const float* /*x*/, const float* /*W*/, const float* /*dy*/, float* /*dx*/, float* /*dW*/,
                    float* /*dbias*/, int /*batch*/, int /*in*/, int /*out*/, int /*threads*/,
                    bool /*input_grad*/) {
  // TODO(11.4): dW = dy^T x and dbias = the sum of dy's rows, overwritten; dx = dy W only when
  // input_grad (otherwise dx is not touched, and may be null). Products with gemm_threads.
  course::todo("11.4", "dense_backward (two GEMMs, dx only when input_grad)");
}

size_t conv_workspace_floats(const ConvShape& s) {
  return im2col::col_size(s) + size_t(s.out_channels) * im2col::col_cols(s);
}

void conv2d_forward(const ConvShape& /*s*/, const float* /*x*/, const float* /*W*/, const float* /*bias*/,
                    float* /*y*/, float* /*workspace*/, int /*threads*/) {
  // TODO(11.4): y [N, O, OH, OW] = lesson 01's conv2d_forward, as im2col::im2col_cpu into the
  // workspace, one gemm_threads with W [O x C*kh*kw], then bias and the NCHW layout.
  course::todo("11.4", "conv2d_forward (im2col + GEMM)");
}

void conv2d_backward(const ConvShape& /*s*/, const float* /*x*/, const float* /*W*/, const float* /*dy*/,
                     float* /*dx*/, float* /*dW*/, float* /*dbias*/, float* /*workspace*/, int /*threads*/,
                     bool /*input_grad*/) {
  // TODO(11.4): dW, dbias (overwritten) and, only when input_grad, dx via im2col::col2im_cpu:
  // lesson 01's conv2d_backward, with the products done by gemm_threads. dx untouched (may be null)
  // when input_grad is false.
  course::todo("11.4", "conv2d_backward (GEMMs + col2im, dx only when input_grad)");
}

}  // namespace fast_cpu
