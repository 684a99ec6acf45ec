// Lesson 10, step 10.10: lesson 09's implicit-GEMM engine with your Tf32Math in its stages (inputs
// rounded to TF32, products on the Tensor Cores): the dense layer's three products and the three
// implicit-GEMM convolutions against lesson 01 in double within TF32's bound (u = 2^-11,
// gemm_check.hpp and conv_bound.hpp say why), outputs and workspaces poisoned. (The fast network
// in TF32 against its FP32 self: test_mixed_network.cpp.)
#include <cstdint>
#include <vector>

#include "conv_bound.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "fast_training.hpp"
#include "gemm_check.hpp"
#include "tf32_products.hpp"

using course::DeviceBuffer;
using gemm_check::Size;

namespace {

constexpr double kTf32 = 0x1p-11;

// The dense layer's shapes: odd sizes against any 64 x 64 tile, fc1's forward (a split reduction of
// 3136), fc1 at a partial batch. Only products with more than 16 outputs run on the engine.
struct DenseCase {
  int batch, in, out;
};
std::vector<DenseCase> dense_cases() { return {{3, 17, 33}, {65, 129, 17}, {128, 3136, 512}, {96, 3136, 512}, {5, 1000, 130}}; }

std::vector<float> transposed(const std::vector<float>& m, int rows, int cols) {
  std::vector<float> t(m.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t[size_t(c) * rows + r] = m[size_t(r) * cols + c];
  return t;
}

std::vector<float> download(const DeviceBuffer<float>& d) { return d.to_host(); }

}  // namespace

// Each product as a plain GEMM C = A B of the layer's FP32 tensors (bias 0, no ReLU, no mask: the
// epilogues are lesson 09's, tested there): y = x W^T, dx = dy W, [dW | dbias] = dy^T [x | 1].
TEST_CASE("the dense layer's products in TF32 equal A*B within TF32's bound", "[10.10]") {
  const fast_training::GemmProducts& tf32 = tensor_cores::tf32_products();
  uint64_t seed = 1500;
  for (const DenseCase c : dense_cases()) {
    CAPTURE(c.batch, c.in, c.out);
    COURSE_INPUT_SEED(seed);
    const std::vector<float> x = course::test::random_vector(size_t(c.batch) * c.in, ++seed, -1.0f, 1.0f);
    const std::vector<float> W = course::test::random_vector(size_t(c.out) * c.in, ++seed, -0.5f, 0.5f);
    const std::vector<float> dy = course::test::random_vector(size_t(c.batch) * c.out, ++seed, -1.0f, 1.0f);
    const std::vector<float> zeros(size_t(c.out), 0.0f), ones(size_t(c.batch), 1.0f);
    DeviceBuffer<float> d_x(x), d_W(W), d_dy(dy), d_b(zeros), d_y(size_t(c.batch) * c.out),
        d_dx(size_t(c.batch) * c.in), d_dW(size_t(c.out) * c.in), d_db(size_t(c.out)),
        work(fast_training::dense_fused_workspace_floats(c.batch, c.in, c.out));
    for (DeviceBuffer<float>* b : {&d_y, &d_dx, &d_dW, &d_db, &work}) b->poison();
    tf32.dense_forward(d_x.data(), d_W.data(), d_b.data(), d_y.data(), c.batch, c.in, c.out, false, work.data(),
                       nullptr);
    tf32.dense_backward_data(d_W.data(), d_dy.data(), nullptr, d_dx.data(), c.batch, c.in, c.out, work.data(),
                             nullptr);
    tf32.dense_backward_weight(d_x.data(), d_dy.data(), d_dW.data(), d_db.data(), c.batch, c.in, c.out, work.data(),
                               nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> dyT = transposed(dy, c.batch, c.out);
    gemm_check::check_gemm(download(d_y), x, transposed(W, c.out, c.in), Size{c.batch, c.out, c.in}, kTf32, kTf32);
    gemm_check::check_gemm(download(d_dx), dy, W, Size{c.batch, c.in, c.out}, kTf32, kTf32);
    gemm_check::check_gemm(download(d_dW), dyT, x, Size{c.out, c.in, c.batch}, kTf32, kTf32);
    gemm_check::check_gemm(download(d_db), dyT, ones, Size{c.out, 1, c.batch}, kTf32, 0.0);  // 1 is exact in TF32
  }
}

// Model A's conv1 and conv2 and odd shapes (stride 2, 17 and 70 output channels, a 1 x 1 image).
TEST_CASE("the implicit-GEMM convolutions in TF32 equal lesson 01's within TF32's bound", "[10.10]") {
  using conv_bound::ConvShape;
  using conv_bound::shape;
  const fast_training::GemmProducts& tf32 = tensor_cores::tf32_products();
  uint64_t seed = 1600;
  for (const ConvShape& s : {shape(3, 1, 28, 28, 32, 5, 2, 1), shape(2, 32, 14, 14, 64, 5, 2, 1),
                             shape(3, 3, 13, 11, 17, 3, 1, 2), shape(1, 5, 7, 9, 70, 3, 0, 1),
                             shape(5, 2, 1, 1, 3, 1, 0, 1)}) {
    DeviceBuffer<float> work(fast_training::conv_implicit_workspace_floats(s));
    work.poison();
    conv_bound::forward_case(s, seed += 10, [&](const ConvShape& s, const float* x, const float* W, const float* b,
                                                float* y) {
      tf32.conv_forward(s, x, W, b, y, nullptr);
    }, "conv2d_forward_implicit (TF32)", kTf32);
    conv_bound::weight_case(s, seed += 10, [&](const ConvShape& s, const float* x, const float* dy, float* dW,
                                               float* db) {
      tf32.conv_backward_weight(s, x, dy, dW, db, work.data(), nullptr);
    }, "conv2d_backward_weight_implicit (TF32)", kTf32, kTf32);  // dbias: dy in TF32 times an exact 1
    if (s.stride != 1) continue;  // the input gradient as a convolution needs stride 1
    conv_bound::backward_case(s, seed += 10, [&](const ConvShape& s, const float* W, const float* dy, float* dx) {
      tf32.conv_backward_data(s, W, dy, dx, work.data(), nullptr);
    }, "conv2d_backward_data_implicit (TF32)", kTf32);
  }
}
