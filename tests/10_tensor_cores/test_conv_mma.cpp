// Lesson 10, steps 10.5-10.7: the convolutions on the Tensor Cores against lesson 01's loops in double,
// within a bound derived from BF16 (below), on model A's shapes and odd ones; outputs poisoned
// (NaN) before every call.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "band_statistics.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "conv_bound.hpp"
#include "exact_checks.hpp"
#include "host_layers.hpp"
#include "tensor_cores.hpp"

using namespace conv_bound;

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
// pad = kernel - 1 (the input gradient's flipped convolution has no padding then). Then images of
// more than 256 output pixels, in bands: 28 x 28 (four bands of 7 rows), 29 x 20 with a 5 x 5 kernel
// (bands of 10, 10 and 9 rows: the last shorter), and 20 x 17 with pad = kernel - 1 (22 x 19 out:
// two bands of 11; its input gradient's bands hold 20 rows in 2 of 10).
std::vector<ConvShape> tiled_shapes() {
  return {shape(2, 32, 14, 14, 64, 5, 2, 1), shape(3, 16, 9, 7, 16, 3, 1, 1), shape(2, 48, 5, 6, 32, 3, 0, 1),
          shape(1, 64, 16, 16, 32, 1, 0, 1), shape(2, 16, 13, 11, 48, 3, 2, 1), shape(3, 16, 28, 28, 16, 3, 1, 1),
          shape(2, 32, 29, 20, 16, 5, 2, 1), shape(2, 16, 20, 17, 32, 3, 2, 1)};
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
  const ConvShape long_row = shape(1, 16, 2, 258, 16, 3, 1, 1);  // an output row of 258 pixels
  const ConvShape wide = shape(2, 16, 8, 8, 80, 3, 1, 1);      // 80 output channels
  const ConvShape strided = shape(2, 16, 9, 9, 16, 3, 1, 2);
  CHECK(tensor_cores::conv_mma_tiled_problem(long_row) == "an output row of more than 256 pixels");
  for (const ConvShape& s : {conv1, long_row, wide, strided}) {
    CAPTURE(s.in_channels, s.height, s.out_channels, s.stride);
    REQUIRE_FALSE(tensor_cores::conv_mma_tiled_problem(s).empty());
    REQUIRE_THROWS_AS(tensor_cores::conv2d_forward_mma_tiled(s, nullptr, nullptr, nullptr, nullptr), course::Error);
    REQUIRE_THROWS_AS(tensor_cores::conv2d_backward_data_mma_tiled(s, nullptr, nullptr, nullptr), course::Error);
  }
}

// The statistics the forward pass writes for a normalisation after it (given code around 10.6): for
// every channel, image and band, the count, the mean and the squares around the mean of the y it
// wrote, against those of the downloaded y in double; in one band and in bands (10, 10 and 9 rows;
// 4 of 7), in 1 and 2 parts; the statistics poisoned first, y the same bits as without them.
TEST_CASE("conv2d_forward_mma_tiled's statistics are each band's count, mean and squares of its y", "[10.6]") {
  struct Case {
    ConvShape s;
    int band_rows;
  };
  uint64_t seed = 1090;
  for (const Case& c : {Case{shape(3, 16, 9, 7, 16, 3, 1, 1), 9}, Case{shape(2, 32, 29, 20, 16, 5, 2, 1), 10},
                        Case{shape(3, 16, 28, 28, 32, 3, 1, 1), 7}}) {
    const ConvShape& s = c.s;
    const int OH = s.out_h(), OW = s.out_w(), O = s.out_channels, bands = (OH + c.band_rows - 1) / c.band_rows;
    CAPTURE(s.height, s.width, s.out_channels);
    REQUIRE(tensor_cores::conv_mma_tiled_statistics_entries(s) == s.batch * bands);
    COURSE_INPUT_SEED(seed += 10);
    const std::vector<float> x = course::test::random_vector(s.input_size(), seed, -1.0f, 1.0f);
    const std::vector<float> W = course::test::random_vector(s.weight_size(), seed + 1, -0.5f, 0.5f);
    const std::vector<float> bias = course::test::random_vector(size_t(O), seed + 2, -2.0f, 3.0f);  // means far from 0
    DeviceBuffer<float> d_x(x), d_W(W), d_bias(bias), d_y(s.output_size()), plain(s.output_size());
    DeviceBuffer<uint16_t> w16(tensor_cores::conv_mma_tiled_weights_size(s));
    tensor_cores::conv_mma_tiled_weights(s, d_W.data(), w16.data());
    tensor_cores::conv2d_forward_mma_tiled(s, d_x.data(), w16.data(), d_bias.data(), plain.data());
    const size_t entries = size_t(s.batch) * bands;
    DeviceBuffer<float> stats(3 * size_t(O) * entries);
    for (int parts : {1, 2}) {
      CAPTURE(parts);
      CUDA_CHECK(cudaMemset(d_y.data(), 0xff, s.output_size() * sizeof(float)));
      CUDA_CHECK(cudaMemset(stats.data(), 0xff, stats.size() * sizeof(float)));
      tensor_cores::conv2d_forward_mma_tiled(s, d_x.data(), w16.data(), d_bias.data(), d_y.data(), nullptr, parts,
                                             stats.data());
      CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<float> y = download(d_y.data(), s.output_size());
      REQUIRE(course::test::first_bit_difference(y, download(plain.data(), s.output_size())) == -1);
      const course::test::BandStatisticsCheck check =
          course::test::check_band_statistics(y, download(stats.data(), stats.size()), s.batch, O, OH, OW, c.band_rows);
      INFO(check.bad << " entries wrong; the first: " << check.first);
      REQUIRE(check.bad == 0);
    }
  }
}

// 10.7 ----------------------------------------------------------------------------------------------
// |dW - dW_exact| <= (2u + u^2 + 2 K 2^-24) sum |dy||x| with K = N OH OW (the sum over every image's
// pixels; the slices add in FP32 too), and dbias (FP32 sums of FP32 values) within 2 K 2^-24 sum |dy|.
// Shapes: conv2 with 5 images (an odd last group), 16 channels in and 16 out with odd sizes, 48 in
// and 32 out with no padding, a 1 x 1 kernel on 256 pixels, and a 7 x 7 kernel; 64 in and 64 out (16
// tiles x 3 rows: six blocks of 8 warps); bands of rows at 16 channels: 28 x 28 (2 pieces of 14 rows,
// each 2 bands of 7), 13 x 11 (one piece: rows 7 and 6), a 1 x 1 kernel on 30 x 9 (8 bands, the last
// of 2 rows); pieces with a shorter last one: 40 x 30 (pieces of 14, 14 and 12 rows, bands of 7 and
// 5), 36 x 20 with no padding (34 x 18 out: 2 pieces of 17 rows, each reading 19 input rows, the
// second up to the image's last row), a 1 x 1 kernel on 64 x 40 (2 pieces of 8 bands).
TEST_CASE("conv2d_backward_weight_mma equals lesson 01's weight gradient within BF16's bound", "[10.7]") {
  uint64_t seed = 1100;
  for (const ConvShape& s : {shape(5, 32, 14, 14, 64, 5, 2, 1), shape(3, 16, 9, 7, 16, 3, 1, 1),
                             shape(2, 48, 5, 6, 32, 3, 0, 1), shape(1, 64, 16, 16, 32, 1, 0, 1),
                             shape(2, 16, 11, 10, 16, 7, 3, 1), shape(3, 64, 7, 7, 64, 3, 1, 1),
                             shape(2, 16, 28, 28, 16, 3, 1, 1), shape(3, 16, 13, 11, 16, 3, 1, 1),
                             shape(2, 16, 30, 9, 16, 1, 0, 1), shape(2, 16, 40, 30, 16, 3, 1, 1),
                             shape(2, 16, 36, 20, 16, 3, 0, 1), shape(1, 16, 64, 40, 16, 1, 0, 1)}) {
    REQUIRE(tensor_cores::conv_mma_weight_problem(s).empty());
    DeviceBuffer<float> work(tensor_cores::conv_mma_weight_workspace_floats(s));
    CUDA_CHECK(cudaMemset(work.data(), 0xff, work.size() * sizeof(float)));
    // dbias: FP32 sums of FP32 values, no BF16 (u_bias = 0).
    weight_case(s, seed += 10, [&](const ConvShape& s, const float* x, const float* dy, float* dW, float* db) {
      tensor_cores::conv2d_backward_weight_mma(s, x, dy, dW, db, work.data());
    }, "conv2d_backward_weight_mma", kBf16, 0.0);
  }
}

TEST_CASE("conv_mma_weight_problem names what 10.7 does not run; conv2d_backward_weight_mma refuses it", "[10.7]") {
  // 1 input channel; 28 x 28 with no warp free for bands (16 channels, 5 x 5); 144 output channels; stride 2.
  for (const ConvShape& s : {shape(2, 1, 28, 28, 32, 5, 2, 1), shape(2, 16, 28, 28, 16, 5, 2, 1),
                             shape(2, 16, 8, 8, 144, 3, 1, 1), shape(2, 16, 9, 9, 16, 3, 1, 2)}) {
    CAPTURE(s.in_channels, s.height, s.out_channels, s.stride);
    REQUIRE_FALSE(tensor_cores::conv_mma_weight_problem(s).empty());
    REQUIRE_THROWS_AS(tensor_cores::conv2d_backward_weight_mma(s, nullptr, nullptr, nullptr, nullptr, nullptr),
                      course::Error);
  }
}
