// Lesson 10, steps 10.5-10.7: the convolutions on the Tensor Cores against lesson 01's loops in double,
// within a bound derived from BF16 (below), on model A's shapes and odd ones; outputs poisoned
// (NaN) before every call.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "host_layers.hpp"
#include "tensor_cores.hpp"

using course::DeviceBuffer;
using host_layers::ConvShape;

namespace {

ConvShape shape(int n, int c, int h, int w, int o, int k, int pad, int stride) {
  ConvShape s;
  s.batch = n, s.in_channels = c, s.height = h, s.width = w, s.out_channels = o, s.kernel_h = s.kernel_w = k;
  s.pad = pad, s.stride = stride;
  return s;
}

std::vector<double> widen(const std::vector<float>& v, bool absolute) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = absolute ? std::fabs(double(v[i])) : double(v[i]);
  return out;
}

std::vector<float> download(const float* device, size_t n) {
  std::vector<float> host(n);
  CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// |y - y_exact| <= (2u + u^2 + 2 K 2^-24) * sum_k |x_k| |w_k| + 2^-23 |bias|, with y_exact lesson 01's
// convolution of the FP32 inputs in double, u = 2^-8 (BF16 keeps 8 significant bits): each product of
// two rounded inputs is off by at most (2u + u^2) |x||w|, K products summed in FP32 by about
// K 2^-24 of their magnitudes (twice that for the Tensor Cores' own sums), the bias added once more.
// Zeros from the padding and from K's padding to whole stages add nothing.
void check(const std::vector<float>& got, const std::vector<double>& exact, const std::vector<double>& scale,
           const std::vector<double>& bias_scale, int K, const std::string& what) {
  const double u = 0x1p-8, factor = 2 * u + u * u + 2.0 * K * 0x1p-24;
  size_t bad = 0, worst = 0;
  double worst_ratio = 0;
  for (size_t e = 0; e < got.size(); ++e) {
    const double bound = factor * scale[e] + 0x1p-23 * bias_scale[e] + 1e-30;
    const double err = std::fabs(double(got[e]) - exact[e]);
    if (!(err <= bound)) ++bad;
    const double ratio = std::isnan(err) ? 1e30 : err / bound;
    if (ratio > worst_ratio) worst_ratio = ratio, worst = e;
  }
  INFO(what << ": " << bad << " of " << got.size() << " outputs beyond the bound; the worst [" << worst << "] = "
            << got[worst] << " (exact " << exact[worst] << ") at " << worst_ratio << " x the bound");
  REQUIRE(bad == 0);
}

using ForwardRun = std::function<void(const ConvShape&, const float* x, const float* W, const float* bias, float* y)>;
using BackwardRun = std::function<void(const ConvShape&, const float* W, const float* dy, float* dx)>;

// One forward case: random inputs, y poisoned, `run`, then the bound against lesson 01 in double.
void forward_case(const ConvShape& s, uint64_t seed, const ForwardRun& run, const char* what) {
  CAPTURE(s.batch, s.in_channels, s.height, s.width, s.out_channels, s.kernel_h, s.pad, s.stride, seed);
  const std::vector<float> x = course::test::random_vector(s.input_size(), seed, -1.0f, 1.0f);
  const std::vector<float> W = course::test::random_vector(s.weight_size(), seed + 1, -0.5f, 0.5f);
  const std::vector<float> bias = course::test::random_vector(size_t(s.out_channels), seed + 2, -0.3f, 0.3f);
  DeviceBuffer<float> d_x(x), d_W(W), d_bias(bias), d_y(s.output_size());
  CUDA_CHECK(cudaMemset(d_y.data(), 0xff, s.output_size() * sizeof(float)));
  run(s, d_x.data(), d_W.data(), d_bias.data(), d_y.data());
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<double> exact(s.output_size()), scale(s.output_size()), bias_scale(s.output_size());
  const std::vector<double> zeros(size_t(s.out_channels), 0.0);
  host_layers::conv2d_forward<double>(s, widen(x, false).data(), widen(W, false).data(), widen(bias, false).data(),
                                      exact.data());
  host_layers::conv2d_forward<double>(s, widen(x, true).data(), widen(W, true).data(), zeros.data(), scale.data());
  const std::vector<double> abs_bias = widen(bias, true);
  const size_t plane = size_t(s.out_h()) * s.out_w();
  for (size_t e = 0; e < bias_scale.size(); ++e) bias_scale[e] = abs_bias[e / plane % s.out_channels];
  check(download(d_y.data(), s.output_size()), exact, scale, bias_scale, s.in_channels * s.kernel_h * s.kernel_w, what);
}

// One input-gradient case: dx poisoned, `run`, the bound against lesson 01's backward in double
// (x only feeds dW, which is not looked at).
void backward_case(const ConvShape& s, uint64_t seed, const BackwardRun& run, const char* what) {
  CAPTURE(s.batch, s.in_channels, s.height, s.width, s.out_channels, s.kernel_h, s.pad, seed);
  const std::vector<float> W = course::test::random_vector(s.weight_size(), seed, -0.5f, 0.5f);
  const std::vector<float> dy = course::test::random_vector(s.output_size(), seed + 1, -1.0f, 1.0f);
  DeviceBuffer<float> d_W(W), d_dy(dy), d_dx(s.input_size());
  CUDA_CHECK(cudaMemset(d_dx.data(), 0xff, s.input_size() * sizeof(float)));
  run(s, d_W.data(), d_dy.data(), d_dx.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> x(s.input_size(), 0.0), exact(s.input_size()), scale(s.input_size()), dW(s.weight_size()),
      dbias(size_t(s.out_channels));
  host_layers::conv2d_backward<double>(s, x.data(), widen(W, false).data(), widen(dy, false).data(), exact.data(),
                                       dW.data(), dbias.data());
  host_layers::conv2d_backward<double>(s, x.data(), widen(W, true).data(), widen(dy, true).data(), scale.data(),
                                       dW.data(), dbias.data());
  check(download(d_dx.data(), s.input_size()), exact, scale, std::vector<double>(s.input_size(), 0.0),
        s.out_channels * s.kernel_h * s.kernel_w, what);
}

}  // namespace

// 10.5 ----------------------------------------------------------------------------------------------
// conv1 (one input channel: K = 25, padded to a stage of 32), conv2, odd sizes with stride 2 and
// 17 output channels (a 32-wide tile, half empty), 70 output channels (two tiles of 64), 1 x 1.
TEST_CASE("conv2d_forward_mma equals lesson 01's convolution within BF16's bound", "[10.5]") {
  uint64_t seed = 1050;
  for (const ConvShape& s : {shape(3, 1, 28, 28, 32, 5, 2, 1), shape(2, 32, 14, 14, 64, 5, 2, 1),
                             shape(3, 3, 13, 11, 17, 3, 1, 2), shape(1, 5, 7, 9, 70, 3, 0, 1),
                             shape(5, 2, 1, 1, 3, 1, 0, 1)})
    forward_case(s, seed += 10, [](const ConvShape& s, const float* x, const float* W, const float* b, float* y) {
      tensor_cores::conv2d_forward_mma(s, x, W, b, y);
    }, "conv2d_forward_mma");
}

// The input gradient as 09.3's flipped convolution on the same kernel: conv2, conv1's shape, odd
// sizes, and pad = kernel - 1 (the flipped convolution has no padding then).
TEST_CASE("conv2d_backward_data_mma equals lesson 01's input gradient within BF16's bound", "[10.5]") {
  uint64_t seed = 1060;
  for (const ConvShape& s : {shape(2, 32, 14, 14, 64, 5, 2, 1), shape(2, 1, 28, 28, 32, 5, 2, 1),
                             shape(3, 3, 13, 11, 17, 3, 1, 1), shape(2, 70, 6, 5, 9, 3, 2, 1)})
    backward_case(s, seed += 10, [](const ConvShape& s, const float* W, const float* dy, float* dx) {
      tensor_cores::conv2d_backward_data_mma(s, W, dy, dx);
    }, "conv2d_backward_data_mma");
}

TEST_CASE("Tensor Core convolutions refuse bad shapes before any work", "[10.5]") {
  ConvShape bad = shape(0, 1, 5, 5, 2, 3, 1, 1);
  REQUIRE_THROWS_AS(tensor_cores::conv2d_forward_mma(bad, nullptr, nullptr, nullptr, nullptr), course::Error);
  const ConvShape strided = shape(1, 2, 9, 9, 3, 3, 1, 2);
  REQUIRE_THROWS_AS(tensor_cores::conv2d_backward_data_mma(strided, nullptr, nullptr, nullptr), course::Error);
  const ConvShape wide_pad = shape(1, 2, 9, 9, 3, 3, 3, 1);  // pad 3 > kernel - 1
  REQUIRE_THROWS_AS(tensor_cores::conv2d_backward_data_mma(wide_pad, nullptr, nullptr, nullptr), course::Error);
  ConvShape oblong = shape(1, 2, 9, 9, 3, 3, 1, 1);
  oblong.kernel_w = 5;
  REQUIRE_THROWS_AS(tensor_cores::conv2d_backward_data_mma(oblong, nullptr, nullptr, nullptr), course::Error);
}

// 10.6 ----------------------------------------------------------------------------------------------
// Shapes the image-in-shared-memory kernel runs (both passes): conv2; 16 channels in, 16 out, odd
// sizes; 48 in with 32 out, no padding; 64 in, a 1 x 1 kernel on exactly 256 pixels; 16 in, 48 out,
// pad = kernel - 1 (the input gradient's flipped convolution has no padding then).
std::vector<ConvShape> tiled_shapes() {
  return {shape(2, 32, 14, 14, 64, 5, 2, 1), shape(3, 16, 9, 7, 16, 3, 1, 1), shape(2, 48, 5, 6, 32, 3, 0, 1),
          shape(1, 64, 16, 16, 32, 1, 0, 1), shape(2, 16, 13, 11, 48, 3, 2, 1)};
}

// The kernel's own weight layouts, written by the given conv_mma_tiled_weights from W.
std::function<const uint16_t*(const ConvShape&, const float* W)> tiled_weights(DeviceBuffer<uint16_t>& buffer) {
  return [&buffer](const ConvShape& s, const float* W) {
    buffer = DeviceBuffer<uint16_t>(tensor_cores::conv_mma_tiled_weights_size(s));
    tensor_cores::conv_mma_tiled_weights(s, W, buffer.data());
    return buffer.data();
  };
}

TEST_CASE("conv2d_forward_mma_tiled equals lesson 01's convolution within BF16's bound", "[10.6]") {
  uint64_t seed = 1070;
  DeviceBuffer<uint16_t> buffer(1);
  const auto weights = tiled_weights(buffer);
  for (const ConvShape& s : tiled_shapes()) {
    REQUIRE(tensor_cores::conv_mma_tiled_problem(s).empty());
    forward_case(s, seed += 10, [&](const ConvShape& s, const float* x, const float* W, const float* b, float* y) {
      tensor_cores::conv2d_forward_mma_tiled(s, x, weights(s, W), b, y);
    }, "conv2d_forward_mma_tiled");
  }
}

TEST_CASE("conv2d_backward_data_mma_tiled equals lesson 01's input gradient within BF16's bound", "[10.6]") {
  uint64_t seed = 1080;
  DeviceBuffer<uint16_t> buffer(1);
  const auto weights = tiled_weights(buffer);
  for (const ConvShape& s : tiled_shapes())
    backward_case(s, seed += 10, [&](const ConvShape& s, const float* W, const float* dy, float* dx) {
      tensor_cores::conv2d_backward_data_mma_tiled(s, weights(s, W), dy, dx);
    }, "conv2d_backward_data_mma_tiled");
}

TEST_CASE("conv_mma_tiled_problem names what the tiled kernel does not run; the functions refuse it", "[10.6]") {
  const ConvShape conv1 = shape(2, 1, 28, 28, 32, 5, 2, 1);    // one input channel
  const ConvShape large = shape(2, 16, 28, 28, 16, 5, 2, 1);   // 784 pixels an image
  const ConvShape wide = shape(2, 16, 8, 8, 80, 3, 1, 1);      // 80 output channels
  const ConvShape strided = shape(2, 16, 9, 9, 16, 3, 1, 2);
  for (const ConvShape& s : {conv1, large, wide, strided}) {
    CAPTURE(s.in_channels, s.height, s.out_channels, s.stride);
    REQUIRE_FALSE(tensor_cores::conv_mma_tiled_problem(s).empty());
    REQUIRE_THROWS_AS(tensor_cores::conv2d_forward_mma_tiled(s, nullptr, nullptr, nullptr, nullptr), course::Error);
    REQUIRE_THROWS_AS(tensor_cores::conv2d_backward_data_mma_tiled(s, nullptr, nullptr, nullptr), course::Error);
  }
}

// 10.7 ----------------------------------------------------------------------------------------------
// |dW - dW_exact| <= (2u + u^2 + 2 K 2^-24) sum |dy||x| with K = N OH OW (the sum over every image's
// pixels; the slices add in FP32 too), and dbias (FP32 sums of FP32 values) within 2 K 2^-24 sum |dy|.
// Shapes: conv2 with 5 images (an odd last group), 16 channels in and 16 out with odd sizes, 48 in
// and 32 out with no padding, a 1 x 1 kernel on 256 pixels, and a 7 x 7 kernel.
TEST_CASE("conv2d_backward_weight_mma equals lesson 01's weight gradient within BF16's bound", "[10.7]") {
  uint64_t seed = 1100;
  for (const ConvShape& s : {shape(5, 32, 14, 14, 64, 5, 2, 1), shape(3, 16, 9, 7, 16, 3, 1, 1),
                             shape(2, 48, 5, 6, 32, 3, 0, 1), shape(1, 64, 16, 16, 32, 1, 0, 1),
                             shape(2, 16, 11, 10, 16, 7, 3, 1)}) {
    CAPTURE(s.batch, s.in_channels, s.height, s.width, s.out_channels, s.kernel_h, s.pad, seed += 10);
    REQUIRE(tensor_cores::conv_mma_weight_problem(s).empty());
    const std::vector<float> x = course::test::random_vector(s.input_size(), seed, -1.0f, 1.0f);
    const std::vector<float> dy = course::test::random_vector(s.output_size(), seed + 1, -1.0f, 1.0f);
    DeviceBuffer<float> d_x(x), d_dy(dy), d_dW(s.weight_size()), d_db(size_t(s.out_channels));
    DeviceBuffer<float> work(tensor_cores::conv_mma_weight_workspace_floats(s));
    CUDA_CHECK(cudaMemset(d_dW.data(), 0xff, s.weight_size() * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_db.data(), 0xff, size_t(s.out_channels) * sizeof(float)));
    CUDA_CHECK(cudaMemset(work.data(), 0xff, work.size() * sizeof(float)));
    tensor_cores::conv2d_backward_weight_mma(s, d_x.data(), d_dy.data(), d_dW.data(), d_db.data(), work.data());
    CUDA_CHECK(cudaDeviceSynchronize());

    const std::vector<double> zero_w(s.weight_size(), 0.0);
    std::vector<double> dx(s.input_size()), dW(s.weight_size()), db(size_t(s.out_channels)), dW_scale(s.weight_size()),
        db_scale(size_t(s.out_channels));
    host_layers::conv2d_backward<double>(s, widen(x, false).data(), zero_w.data(), widen(dy, false).data(), dx.data(),
                                         dW.data(), db.data());
    host_layers::conv2d_backward<double>(s, widen(x, true).data(), zero_w.data(), widen(dy, true).data(), dx.data(),
                                         dW_scale.data(), db_scale.data());
    const int K = s.batch * s.out_h() * s.out_w();
    check(download(d_dW.data(), s.weight_size()), dW, dW_scale, std::vector<double>(s.weight_size(), 0.0), K,
          "conv2d_backward_weight_mma dW");
    // dbias: FP32 sums of FP32 values, no BF16 (u = 0 in the bound: check's factor minus its 2u + u^2).
    const std::vector<float> got_db = download(d_db.data(), size_t(s.out_channels));
    for (int o = 0; o < s.out_channels; ++o) {
      CAPTURE(o, got_db[o], db[o]);
      REQUIRE(std::fabs(got_db[o] - db[o]) <= 2.0 * K * 0x1p-24 * db_scale[o] + 1e-30);
    }
  }
}

TEST_CASE("conv_mma_weight_problem names what 10.7 does not run; conv2d_backward_weight_mma refuses it", "[10.7]") {
  for (const ConvShape& s : {shape(2, 1, 28, 28, 32, 5, 2, 1), shape(2, 16, 28, 28, 16, 5, 2, 1),
                             shape(2, 64, 8, 8, 64, 3, 1, 1), shape(2, 16, 9, 9, 16, 3, 1, 2)}) {
    CAPTURE(s.in_channels, s.height, s.out_channels, s.stride);
    REQUIRE_FALSE(tensor_cores::conv_mma_weight_problem(s).empty());
    REQUIRE_THROWS_AS(tensor_cores::conv2d_backward_weight_mma(s, nullptr, nullptr, nullptr, nullptr, nullptr),
                      course::Error);
  }
}
