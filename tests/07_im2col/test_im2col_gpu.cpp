// Lesson 07, step 07.2: im2col_gpu and col2im_gpu against the CPU versions.
#include <cmath>
#include <cstdint>
#include <vector>

#include "conv_cases.hpp"  // tests/support: the shapes every conv lesson tests
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "im2col.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using course::test::to_double;
using host_layers::ConvShape;
using course::test::conv_cases;
using course::test::describe;

namespace {

std::vector<float> gpu_im2col(const ConvShape& s, const std::vector<float>& x) {
  DeviceBuffer<float> d_x(x), d_col(im2col::col_size(s));
  d_col.poison();  // every element the kernel forgets stays NaN
  im2col::im2col_gpu(s, d_x.data(), d_col.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_col.to_host();
}

std::vector<float> gpu_col2im(const ConvShape& s, const std::vector<float>& col) {
  DeviceBuffer<float> d_col(col), d_x(s.input_size());
  d_x.poison();
  im2col::col2im_gpu(s, d_col.data(), d_x.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_x.to_host();
}

// The CPU reference is written out here from the definition in im2col.hpp rather than
// taken from step 07.1: that is the learner's code too (this program links the lesson's
// library, and im2col_ref cannot be linked beside it), and a mistake in 07.1 must not
// fail 07.2.
std::vector<double> reference_im2col(const ConvShape& s, const std::vector<float>& x);
std::vector<double> reference_col2im(const ConvShape& s, const std::vector<float>& col);

// col[r][q] = x[n][c][oh*stride - pad + i][ow*stride - pad + j], or 0 outside the image.
std::vector<double> reference_im2col(const ConvShape& s, const std::vector<float>& x) {
  const int OH = s.out_h(), OW = s.out_w();
  const size_t P = im2col::col_cols(s);
  std::vector<double> col(im2col::col_size(s));
  for (int c = 0; c < s.in_channels; ++c)
    for (int i = 0; i < s.kernel_h; ++i)
      for (int j = 0; j < s.kernel_w; ++j)
        for (int n = 0; n < s.batch; ++n)
          for (int oh = 0; oh < OH; ++oh)
            for (int ow = 0; ow < OW; ++ow) {
              const int h = oh * s.stride - s.pad + i, w = ow * s.stride - s.pad + j;
              const size_t r = (size_t(c) * s.kernel_h + i) * s.kernel_w + j;
              const size_t q = (size_t(n) * OH + oh) * OW + ow;
              const bool inside = h >= 0 && h < s.height && w >= 0 && w < s.width;
              col[r * P + q] = inside ? x[((size_t(n) * s.in_channels + c) * s.height + h) * s.width + w] : 0.0;
            }
  return col;
}

// The transpose of reference_im2col: scatter every col entry back to its pixel.
std::vector<double> reference_col2im(const ConvShape& s, const std::vector<float>& col) {
  const int OH = s.out_h(), OW = s.out_w();
  const size_t P = im2col::col_cols(s);
  std::vector<double> x(s.input_size(), 0.0);
  for (int c = 0; c < s.in_channels; ++c)
    for (int i = 0; i < s.kernel_h; ++i)
      for (int j = 0; j < s.kernel_w; ++j)
        for (int n = 0; n < s.batch; ++n)
          for (int oh = 0; oh < OH; ++oh)
            for (int ow = 0; ow < OW; ++ow) {
              const int h = oh * s.stride - s.pad + i, w = ow * s.stride - s.pad + j;
              if (h < 0 || h >= s.height || w < 0 || w >= s.width) continue;
              const size_t r = (size_t(c) * s.kernel_h + i) * s.kernel_w + j;
              const size_t q = (size_t(n) * OH + oh) * OW + ow;
              x[((size_t(n) * s.in_channels + c) * s.height + h) * s.width + w] += col[r * P + q];
            }
  return x;
}

}  // namespace

TEST_CASE("im2col_gpu equals the definition on every test shape", "[07.2]") {
  const uint64_t seed = 721;
  COURSE_INPUT_SEED(seed);
  for (const auto& c : conv_cases()) {
    INFO(c.name << ": " << describe(c.s));
    const auto x = random_vector(c.s.input_size(), seed);
    // A copy with zeros for padding: exact.
    REQUIRE_ALL_CLOSE(gpu_im2col(c.s, x), reference_im2col(c.s, x), 0.0, 0.0);
  }
}

TEST_CASE("im2col_gpu: a larger layer (grid-stride loop, more blocks than one launch row)", "[07.2]") {
  const uint64_t seed = 722;
  COURSE_INPUT_SEED(seed);
  const ConvShape s{3, 16, 56, 56, 8, 3, 3, 1, 1};  // K*P = 144 * 9408: over a million elements
  const auto x = random_vector(s.input_size(), seed);
  REQUIRE_ALL_CLOSE(gpu_im2col(s, x), reference_im2col(s, x), 0.0, 0.0);
}

TEST_CASE("col2im_gpu equals the scatter-add definition on every test shape", "[07.2]") {
  const uint64_t seed = 723;
  COURSE_INPUT_SEED(seed);
  for (const auto& c : conv_cases()) {
    INFO(c.name << ": " << describe(c.s));
    const auto col = random_vector(im2col::col_size(c.s), seed);
    // Each pixel is a float sum of at most kh*kw values in [-1, 1] (reference in double).
    REQUIRE_ALL_CLOSE(gpu_col2im(c.s, col), reference_col2im(c.s, col),
                      course::float_sum_atol(double(c.s.kernel_h) * c.s.kernel_w), 1e-6);
  }
}

TEST_CASE("col2im_gpu: ones count the windows covering each pixel", "[07.2]") {
  const ConvShape s{2, 1, 5, 5, 1, 3, 3, 2, 0};  // overlap on row/column 2; two images
  const std::vector<float> ones(im2col::col_size(s), 1.0f);
  std::vector<double> expected;
  for (int n = 0; n < 2; ++n)
    for (double v : {1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 2, 2, 4, 2, 2, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1}) expected.push_back(v);
  // Small integer sums: exact in float.
  REQUIRE_ALL_CLOSE(gpu_col2im(s, ones), expected, 0.0, 0.0);
}

// <im2col(x), c> = <x, col2im(c)> with both sides from the GPU, summed in double.
TEST_CASE("col2im_gpu is the adjoint of im2col_gpu", "[07.2]") {
  const uint64_t seed = 724;
  COURSE_INPUT_SEED(seed);
  for (const auto& c : conv_cases()) {
    INFO(c.name << ": " << describe(c.s));
    const auto x = random_vector(c.s.input_size(), seed);
    const auto cm = random_vector(im2col::col_size(c.s), seed + 1);
    const auto col = gpu_im2col(c.s, x);
    const auto back = gpu_col2im(c.s, cm);
    double lhs = 0, rhs = 0, scale = 0;
    for (size_t i = 0; i < col.size(); ++i) {
      lhs += double(col[i]) * cm[i];
      scale += std::fabs(double(col[i]) * cm[i]);
    }
    for (size_t i = 0; i < back.size(); ++i) rhs += double(x[i]) * back[i];
    CAPTURE(lhs, rhs, scale);
    REQUIRE(std::isfinite(rhs));
    // col is exact; each back[i] carries float rounding of a sum of <= kh*kw terms, so
    // rhs is off by at most about eps_float * kh*kw * scale; 1e-6 * kh*kw * scale covers it.
    REQUIRE(std::fabs(lhs - rhs) <= 1e-6 * c.s.kernel_h * c.s.kernel_w * scale);
  }
}

TEST_CASE("col2im_gpu is deterministic (a gather, no atomics)", "[07.2]") {
  const uint64_t seed = 725;
  COURSE_INPUT_SEED(seed);
  const ConvShape s{3, 3, 17, 17, 1, 5, 5, 1, 2};
  const auto col = random_vector(im2col::col_size(s), seed);
  const auto first = gpu_col2im(s, col);
  const auto second = gpu_col2im(s, col);
  REQUIRE(course::first_nonfinite(first.data(), first.size()) == -1);
  REQUIRE(first == second);  // bitwise: the same sums in the same order
}
