#pragma once
// Lesson 01: the layers of a CNN as plain loops on the host, forward and backward.
// Every later lesson checks its GPU code against these functions (built from
// solutions/), so they favour clarity over speed.
//
// Conventions used by the whole course:
//   * Images and feature maps are NCHW: element (n, c, h, w) is at ((n*C + c)*H + h)*W + w.
//   * Dense weights are [out x in] (PyTorch's layout): y[b][o] = sum_i x[b][i] * W[o][i] + bias[o].
//   * Conv weights are [out_channels x in_channels x kernel_h x kernel_w].
//   * Backward functions OVERWRITE their gradient outputs (they do not accumulate).
//   * Every function is a template instantiated for float (training) and double
//     (finite-difference gradient checks).
#include <algorithm>
#include <cstddef>
#include <string>

namespace host_layers {

// A 2-D convolution's sizes. Output size: (H + 2*pad - kernel) / stride + 1.
struct ConvShape {
  int batch = 1, in_channels = 1, height = 1, width = 1;
  int out_channels = 1, kernel_h = 1, kernel_w = 1;
  int stride = 1, pad = 0;
  // 0 when the kernel is larger than the padded image (C++ division rounds -1/3 up to 0, not down).
  int out_h() const { return height + 2 * pad < kernel_h ? 0 : (height + 2 * pad - kernel_h) / stride + 1; }
  int out_w() const { return width + 2 * pad < kernel_w ? 0 : (width + 2 * pad - kernel_w) / stride + 1; }
  size_t input_size() const { return size_t(batch) * in_channels * height * width; }
  size_t weight_size() const { return size_t(out_channels) * in_channels * kernel_h * kernel_w; }
  size_t output_size() const { return size_t(batch) * out_channels * out_h() * out_w(); }
};

// Why a convolution of this shape cannot run, or "" when it can: every size >= 1, the stride too,
// the padding >= 0, at least one output pixel, every tensor (and the batch's planes) below 2^31
// elements (what int indices can address). What every convolution launcher checks first.
inline std::string conv_shape_problem(const ConvShape& s) {
  if (s.batch < 1 || s.in_channels < 1 || s.height < 1 || s.width < 1 || s.out_channels < 1 || s.kernel_h < 1 ||
      s.kernel_w < 1 || s.stride < 1 || s.pad < 0)
    return "every size and the stride must be >= 1 and the padding >= 0";
  if (s.out_h() < 1 || s.out_w() < 1) return "the kernel is larger than the padded image: no output pixels";
  const double limit = 2147483647.0, planes = 2.0 * s.batch * std::max(s.height * double(s.width), s.out_h() * double(s.out_w()));
  if (double(s.input_size()) >= limit || double(s.output_size()) >= limit || double(s.weight_size()) >= limit ||
      planes >= limit)
    return "a tensor has 2^31 elements or more";
  return "";
}

// Max-pooling's sizes: a window x window square moved by stride, no padding.
// Output size: (H - window) / stride + 1.
struct PoolShape {
  int batch = 1, channels = 1, height = 1, width = 1;
  int window = 2, stride = 2;
  int out_h() const { return height < window ? 0 : (height - window) / stride + 1; }
  int out_w() const { return width < window ? 0 : (width - window) / stride + 1; }
  size_t input_size() const { return size_t(batch) * channels * height * width; }
  size_t output_size() const { return size_t(batch) * channels * out_h() * out_w(); }
};

// ---- 01.1 dense (fully connected) --------------------------------------------
// x [batch x in], W [out x in], bias [out] -> y [batch x out]
template <typename T>
void dense_forward(const T* x, const T* W, const T* bias, T* y, int batch, int in, int out);
// Given dy = dL/dy [batch x out]: dx [batch x in], dW [out x in], dbias [out].
template <typename T>
void dense_backward(const T* x, const T* W, const T* dy, T* dx, T* dW, T* dbias, int batch, int in,
                    int out);

// ---- 01.1 ReLU -----------------------------------------------------------------
// y = max(x, 0), elementwise over n values.
template <typename T>
void relu_forward(const T* x, T* y, size_t n);
// dx = dy where x > 0, else 0 (the gradient at exactly 0 is taken as 0).
template <typename T>
void relu_backward(const T* x, const T* dy, T* dx, size_t n);

// ---- 01.2 conv2d forward ---------------------------------------------------------
// x [N, C, H, W], W [O, C, kh, kw], bias [O] -> y [N, O, out_h, out_w].
// Zero padding: input positions outside the image count as 0.
template <typename T>
void conv2d_forward(const ConvShape& s, const T* x, const T* W, const T* bias, T* y);

// ---- 01.3 conv2d backward --------------------------------------------------------
// Given dy [N, O, out_h, out_w]: dx [N, C, H, W], dW [O, C, kh, kw], dbias [O].
template <typename T>
void conv2d_backward(const ConvShape& s, const T* x, const T* W, const T* dy, T* dx, T* dW, T* dbias);

// ---- 01.4 max-pool -----------------------------------------------------------------
// y [N, C, out_h, out_w] = max over each window. argmax (may be nullptr) receives, for
// every output, the flat index into x of the maximum. Ties: the FIRST maximum in
// row-major window order (top row first, left to right) wins.
template <typename T>
void maxpool_forward(const PoolShape& s, const T* x, T* y, int* argmax);
// dx [N, C, H, W]: each dy goes to the input its forward pass picked (argmax);
// where windows overlap (stride < window) contributions add up.
template <typename T>
void maxpool_backward(const PoolShape& s, const int* argmax, const T* dy, T* dx);

// ---- 01.5 softmax + cross-entropy ----------------------------------------------------
// logits [batch x classes], labels [batch] in 0..classes-1. Writes the softmax
// probabilities [batch x classes] and returns the MEAN loss over the batch,
// -(1/batch) * sum_b log p[b][label_b]. Numerically stable: subtract each row's max
// before exp, so large logits do not overflow.
template <typename T>
T softmax_cross_entropy_forward(const T* logits, const int* labels, T* probs, int batch, int classes);
// dlogits = (probs - onehot(labels)) / batch: the gradient of the mean loss.
template <typename T>
void softmax_cross_entropy_backward(const T* probs, const int* labels, T* dlogits, int batch, int classes);

}  // namespace host_layers
