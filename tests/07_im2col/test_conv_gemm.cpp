// Lesson 07, steps 07.3 and 07.4: convolution forward and backward as im2col + GEMM on the
// GPU, against lesson 01's loops in double, plus finite differences of the GPU gradients.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "conv_cases.hpp"  // tests/support: the shapes every conv lesson tests
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "host_layers.hpp"
#include "im2col.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using course::test::to_double;
using host_layers::ConvShape;
using course::test::conv_cases;
using course::test::describe;
using course::float_sum_atol;

namespace {

// Runs conv2d_forward_gemm with y and the workspace poisoned (NaN) before the call.
std::vector<float> gpu_forward(const ConvShape& s, const std::vector<float>& x, const std::vector<float>& W,
                               const std::vector<float>& bias) {
  DeviceBuffer<float> d_x(x), d_W(W), d_b(bias), d_y(s.output_size());
  DeviceBuffer<float> work(im2col::conv_gemm_workspace_floats(s));  // exactly the size it asks for
  d_y.poison();
  work.poison();
  im2col::conv2d_forward_gemm(s, d_x.data(), d_W.data(), d_b.data(), d_y.data(), work.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_y.to_host();
}

struct Grads {
  std::vector<float> dx, dW, dbias;
};

// Runs conv2d_backward_gemm with every output and the workspace poisoned before the call.
Grads gpu_backward(const ConvShape& s, const std::vector<float>& x, const std::vector<float>& W,
                   const std::vector<float>& dy) {
  DeviceBuffer<float> d_x(x), d_W(W), d_dy(dy);
  DeviceBuffer<float> d_dx(s.input_size()), d_dW(s.weight_size()), d_db(s.out_channels);
  DeviceBuffer<float> work(im2col::conv_gemm_workspace_floats(s));
  d_dx.poison();
  d_dW.poison();
  d_db.poison();
  work.poison();
  im2col::conv2d_backward_gemm(s, d_x.data(), d_W.data(), d_dy.data(), d_dx.data(), d_dW.data(), d_db.data(),
                               work.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return {d_dx.to_host(), d_dW.to_host(), d_db.to_host()};
}

// A shape whose kernel does not fit its padded image has no output (out_h or out_w is 0).
// conv2d_forward_gemm and conv2d_backward_gemm must refuse it with a course::Error before
// anything runs; a CUDA error from launching an empty grid is not that refusal. The pointers
// are null: a function that checks first never touches them, and with P = N*OH*OW = 0 a
// function that does not check reads no memory either, it only launches empty grids.
template <typename Call>
void require_shape_refused(Call&& call) {
  std::string error;
  bool cuda_error = false, not_written = false;
  try {
    call();
  } catch (const course::CudaError& e) {
    cuda_error = true;
    error = e.what();
  } catch (const course::NotImplemented& e) {
    not_written = true;  // the step's TODO is no shape check
    error = e.what();
  } catch (const course::Error& e) {
    error = e.what();
  }
  INFO("error: '" << error << "'");
  CHECK_FALSE(not_written);
  CHECK_FALSE(cuda_error);
  CHECK_FALSE(error.empty());
  CHECK(cudaGetLastError() == cudaSuccess);  // nothing was launched
}

std::vector<ConvShape> kernel_larger_than_padded_image() {
  // {batch, in_channels, height, width, out_channels, kernel_h, kernel_w, stride, pad}
  return {
      {1, 1, 3, 3, 1, 4, 4, 1, 0},  // 4x4 kernel on a 3x3 image: 0x0 output
      {2, 3, 8, 3, 4, 3, 4, 1, 0},  // fits in height (6 rows out), not in width (0 columns)
      {1, 2, 3, 3, 2, 6, 6, 1, 1},  // padded to 5x5, still smaller than the 6x6 kernel
  };
}

}  // namespace

TEST_CASE("conv2d_forward_gemm equals host_layers::conv2d_forward", "[07.3]") {
  const uint64_t seed = 731;
  COURSE_INPUT_SEED(seed);
  for (const auto& c : conv_cases()) {
    const ConvShape& s = c.s;
    INFO(c.name << ": " << describe(s));
    const auto x = random_vector(s.input_size(), seed);
    const auto W = random_vector(s.weight_size(), seed + 1);
    const auto bias = random_vector(s.out_channels, seed + 2);
    std::vector<double> ref(s.output_size());
    host_layers::conv2d_forward(s, to_double(x).data(), to_double(W).data(), to_double(bias).data(), ref.data());
    // Each output is a float sum of C*kh*kw products (plus the bias) of values in [-1, 1].
    REQUIRE_NAMED_CLOSE("y", gpu_forward(s, x, W, bias), ref, course::test::output_shape(s),
                        float_sum_atol(course::test::forward_terms(s)), 1e-5);
  }
}

TEST_CASE("conv2d_forward_gemm: a larger layer and a repeated call give the same result", "[07.3]") {
  const uint64_t seed = 732;
  COURSE_INPUT_SEED(seed);
  const ConvShape s{2, 16, 30, 30, 33, 3, 3, 1, 1};  // O = 33, P = 1800: no tile divides them
  const auto x = random_vector(s.input_size(), seed);
  const auto W = random_vector(s.weight_size(), seed + 1);
  const auto bias = random_vector(s.out_channels, seed + 2);
  std::vector<double> ref(s.output_size());
  host_layers::conv2d_forward(s, to_double(x).data(), to_double(W).data(), to_double(bias).data(), ref.data());
  const auto first = gpu_forward(s, x, W, bias);
  REQUIRE_NAMED_CLOSE("y", first, ref, course::test::output_shape(s), float_sum_atol(course::test::forward_terms(s)),
                      1e-5);  // as above
  REQUIRE(first == gpu_forward(s, x, W, bias));  // no atomics anywhere: bitwise repeatable
}

TEST_CASE("conv2d_backward_gemm equals host_layers::conv2d_backward", "[07.4]") {
  const uint64_t seed = 741;
  COURSE_INPUT_SEED(seed);
  for (const auto& c : conv_cases()) {
    const ConvShape& s = c.s;
    INFO(c.name << ": " << describe(s));
    const auto x = random_vector(s.input_size(), seed);
    const auto W = random_vector(s.weight_size(), seed + 1);
    const auto dy = random_vector(s.output_size(), seed + 2);
    std::vector<double> dx(s.input_size()), dW(s.weight_size()), db(s.out_channels);
    host_layers::conv2d_backward(s, to_double(x).data(), to_double(W).data(), to_double(dy).data(), dx.data(),
                                 dW.data(), db.data());
    const Grads g = gpu_backward(s, x, W, dy);
    // dx: each pixel sums O*kh*kw products dy*W (the GEMM over O, then col2im over kh*kw).
    {
      INFO("dx");
      REQUIRE_TENSOR_CLOSE(g.dx, dx, course::test::input_shape(s), float_sum_atol(course::test::dx_terms(s)), 1e-5);
    }
    // dW and dbias: sums over all N*OH*OW output positions.
    {
      INFO("dW");
      REQUIRE_TENSOR_CLOSE(g.dW, dW, course::test::weight_shape(s), float_sum_atol(course::test::dw_terms(s)), 1e-5);
    }
    {
      INFO("dbias");
      REQUIRE_TENSOR_CLOSE(g.dbias, db, course::test::bias_shape(s), float_sum_atol(course::test::dw_terms(s)), 1e-5);
    }
  }
}

TEST_CASE("conv2d_backward_gemm: a repeated call gives bitwise the same gradients", "[07.4]") {
  const uint64_t seed = 742;
  COURSE_INPUT_SEED(seed);
  const ConvShape s{3, 3, 17, 17, 5, 5, 5, 1, 2};
  const auto x = random_vector(s.input_size(), seed);
  const auto W = random_vector(s.weight_size(), seed + 1);
  const auto dy = random_vector(s.output_size(), seed + 2);
  const Grads a = gpu_backward(s, x, W, dy);
  const Grads b = gpu_backward(s, x, W, dy);
  REQUIRE(course::first_nonfinite(a.dx.data(), a.dx.size()) == -1);
  REQUIRE(course::first_nonfinite(a.dW.data(), a.dW.size()) == -1);
  REQUIRE(course::first_nonfinite(a.dbias.data(), a.dbias.size()) == -1);
  REQUIRE(a.dx == b.dx);
  REQUIRE(a.dW == b.dW);
  REQUIRE(a.dbias == b.dbias);
}

// Finite differences: L = sum(r * y) with y = conv(x, W, b) computed in double by lesson 01,
// so dL/dy = r. The GPU gradients for dy = r must match the central differences of L.
TEST_CASE("conv2d_backward_gemm: GPU gradients match finite differences of L = sum(r*y)", "[07.4]") {
  const uint64_t seed = 743;
  COURSE_INPUT_SEED(seed);
  const std::vector<ConvShape> shapes = {
      {2, 2, 5, 6, 3, 3, 3, 2, 1},  // stride 2, pad 1
      {1, 3, 7, 7, 2, 5, 5, 1, 2},  // 5x5, pad 2, heavy overlap
      {3, 1, 4, 5, 2, 1, 1, 1, 0},  // 1x1
  };
  for (const ConvShape& s : shapes) {
    INFO(describe(s));
    const auto xf = random_vector(s.input_size(), seed);
    const auto Wf = random_vector(s.weight_size(), seed + 1);
    const auto bf = random_vector(s.out_channels, seed + 2);
    const auto rf = random_vector(s.output_size(), seed + 3);
    const Grads g = gpu_backward(s, xf, Wf, rf);
    auto x = to_double(xf), W = to_double(Wf), b = to_double(bf);
    const auto r = to_double(rf);
    std::vector<double> y(s.output_size());
    auto loss = [&] {
      host_layers::conv2d_forward(s, x.data(), W.data(), b.data(), y.data());
      double L = 0;
      for (size_t i = 0; i < y.size(); ++i) L += r[i] * y[i];
      return L;
    };
    // L is linear in each parameter, so the central difference is exact up to double
    // rounding (~1e-16 * |L| / eps = 1e-10); the GPU side carries float sums (see above).
    course::Rng pick(seed, 7);
    for (int t = 0; t < 6; ++t) {
      const size_t i = static_cast<size_t>(pick.uniform_int(static_cast<int>(x.size())));
      const double fd = course::test::numeric_derivative(loss, x, i);
      CAPTURE(i, fd, g.dx[i]);
      REQUIRE(std::fabs(g.dx[i] - fd) <= float_sum_atol(course::test::dx_terms(s)) + 1e-5 * std::fabs(fd));
    }
    for (int t = 0; t < 6; ++t) {
      const size_t i = static_cast<size_t>(pick.uniform_int(static_cast<int>(W.size())));
      const double fd = course::test::numeric_derivative(loss, W, i);
      CAPTURE(i, fd, g.dW[i]);
      REQUIRE(std::fabs(g.dW[i] - fd) <= float_sum_atol(course::test::dw_terms(s)) + 1e-5 * std::fabs(fd));
    }
    for (size_t i = 0; i < b.size(); ++i) {
      const double fd = course::test::numeric_derivative(loss, b, i);
      CAPTURE(i, fd, g.dbias[i]);
      REQUIRE(std::fabs(g.dbias[i] - fd) <= float_sum_atol(course::test::dw_terms(s)) + 1e-5 * std::fabs(fd));
    }
  }
}

TEST_CASE("conv2d_forward_gemm refuses a kernel larger than the padded image with course::Error", "[07.3]") {
  for (const ConvShape& s : kernel_larger_than_padded_image()) {
    INFO(describe(s));
    REQUIRE(s.out_h() * s.out_w() == 0);  // the shapes do have an empty output
    require_shape_refused([&] { im2col::conv2d_forward_gemm(s, nullptr, nullptr, nullptr, nullptr, nullptr); });
  }
}

TEST_CASE("conv2d_backward_gemm refuses a kernel larger than the padded image with course::Error", "[07.4]") {
  for (const ConvShape& s : kernel_larger_than_padded_image()) {
    INFO(describe(s));
    REQUIRE(s.out_h() * s.out_w() == 0);
    require_shape_refused(
        [&] { im2col::conv2d_backward_gemm(s, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr); });
  }
}
