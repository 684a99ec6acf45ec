// Lesson 12, step 12.1 on the GPU: the four kernels against the formulas in double, at sizes
// below one block, odd ones and past one grid of the launcher.
//
// Tolerance (kActivationAtol, kActivationRtol, as on the CPU): CUDA's expf and tanhf are within
// 2 ulps of the exact value (the CUDA C++ Programming Guide's table of maximum ulp errors), and
// '/' is rounded correctly under nvcc's default -prec-div=true, so a kernel is within about 4
// ulps of the double value, well inside rtol 1e-6 (about 8 ulps). Fast approximations (the
// hardware tanh, 2^-11 relative) are not.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "beyond_mnist.hpp"
#include "beyond_mnist_references.hpp"
#include "course_test.hpp"
#include "guarded_buffers.hpp"

using namespace beyond_mnist_test;
using course::DeviceBuffer;
using course::test::download_checked;
using course::test::gpu_sizes;
using course::test::guarded;
using course::test::poisoned;
using course::test::random_vector;

namespace {

struct GpuActivation {
  const ActivationRef& ref;
  void (*forward)(const float* x, float* y, size_t n, cudaStream_t stream);
  void (*backward)(const float* y, const float* dy, float* dx, size_t n, cudaStream_t stream);
};
const GpuActivation kActivations[] = {
    {kSigmoid, beyond_mnist::sigmoid_forward_gpu, beyond_mnist::sigmoid_backward_gpu},
    {kTanh, beyond_mnist::tanh_forward_gpu, beyond_mnist::tanh_backward_gpu}};

std::string output_name(const GpuActivation& a, const char* pass, const char* out) {
  return std::string("exercises/activations.cu: ") + a.ref.name + "_" + pass + "_kernel's " + out;
}

// One forward and one backward pass on the GPU, each compared with the double formulas.
void check_passes(const GpuActivation& a, const std::vector<float>& x, const std::vector<float>& dy,
                  cudaStream_t stream = nullptr) {
  const size_t n = x.size();
  DeviceBuffer<float> d_x = guarded(x), d_y = poisoned(n);
  CUDA_CHECK(cudaDeviceSynchronize());  // the copies and fills done before a non-blocking stream starts
  a.forward(d_x.data(), d_y.data(), n, stream);
  const std::vector<float> y = download_checked(d_y, n);
  REQUIRE_NAMED_CLOSE(output_name(a, "forward", "y"), y, forward_ref(a.ref, x), ::course::Shape{}, kActivationAtol,
                      kActivationRtol);
  // The backward pass on a correct forward's output (the double value, rounded to float).
  const std::vector<float> y_exact = to_float(forward_ref(a.ref, x));
  DeviceBuffer<float> d_y_exact = guarded(y_exact), d_dy = guarded(dy), d_dx = poisoned(n);
  CUDA_CHECK(cudaDeviceSynchronize());
  a.backward(d_y_exact.data(), d_dy.data(), d_dx.data(), n, stream);
  const std::vector<float> dx = download_checked(d_dx, n);
  REQUIRE_NAMED_CLOSE(output_name(a, "backward", "dx"), dx, backward_ref(a.ref, y_exact, dy), ::course::Shape{},
                      kActivationAtol, kActivationRtol);
}

}  // namespace

TEST_CASE("sigmoid and tanh kernels equal the formulas in double at every size, past one grid", "[12.1]") {
  for (const GpuActivation& a : kActivations)
    for (size_t n : gpu_sizes()) {
      const uint64_t seed = 1201 + n;
      CAPTURE(a.ref.name, n);
      COURSE_INPUT_SEED(seed);
      check_passes(a, random_vector(n, seed, -8.0f, 8.0f), random_vector(n, seed + 1));
    }
}

TEST_CASE("sigmoid and tanh kernels stay finite and in range for x up to +-3.4e38", "[12.1]") {
  const std::vector<float> x = extreme_inputs();
  const size_t n = x.size();
  for (const GpuActivation& a : kActivations) {
    CAPTURE(a.ref.name);
    check_passes(a, x, random_vector(n, 1231));
    DeviceBuffer<float> d_x = guarded(x), d_y = poisoned(n);
    a.forward(d_x.data(), d_y.data(), n, nullptr);
    const std::vector<float> y = download_checked(d_y, n);
    require_in_range(output_name(a, "forward", "y"), a.ref, x, y);
  }
}

TEST_CASE("sigmoid and tanh kernels run on the stream they are given; n == 0 launches nothing", "[12.1]") {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const GpuActivation& a : kActivations) {
    CAPTURE(a.ref.name);
    check_passes(a, random_vector(1000, 1241, -8.0f, 8.0f), random_vector(1000, 1242), stream);
    REQUIRE_NOTHROW(a.forward(nullptr, nullptr, 0, stream));
    REQUIRE_NOTHROW(a.backward(nullptr, nullptr, nullptr, 0, stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaGetLastError());
}
