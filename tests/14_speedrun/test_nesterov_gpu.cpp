// Lesson 14, step 14.4 on the GPU: nesterov_update_gpu against PyTorch's formulas in double over 3
// steps, in place, at sizes below one block, odd ones and past one grid of the launcher.
// Tolerances: speedrun_references.hpp (the kernel computes in float as the CPU does; nvcc may fuse a
// multiply and an add into one FMA, one rounding fewer, which only helps).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "guarded_buffers.hpp"
#include "speedrun.hpp"
#include "speedrun_references.hpp"

using namespace speedrun_test;
using course::DeviceBuffer;
using course::test::download_checked;
using course::test::gpu_sizes;
using course::test::guarded;
using course::test::poisoned;
using course::test::random_vector;
using course::test::still_poisoned;

namespace {

void check_steps(size_t n, const Hyper& h, uint64_t seed, int steps, cudaStream_t stream = nullptr) {
  const std::vector<float> w0 = random_vector(n, seed);
  NesterovRef ref(w0);
  DeviceBuffer<float> d_w = guarded(w0), d_velocity = guarded(std::vector<float>(n, 0.0f)),
                      d_lr(std::vector<float>{h.lr});  // the rate lives in device memory
  for (int t = 1; t <= steps; ++t) {
    CAPTURE(t);
    const std::vector<float> grad = nesterov_gradient(n, seed + 10 * t);
    DeviceBuffer<float> d_grad = guarded(grad);
    CUDA_CHECK(cudaDeviceSynchronize());  // the copies done before a non-blocking stream starts
    speedrun::nesterov_update_gpu(d_w.data(), d_grad.data(), d_velocity.data(), n, d_lr.data(), h.momentum,
                                  h.weight_decay, stream);
    ref.step(grad, h);
    REQUIRE_NAMED_CLOSE("exercises/nesterov.cu: velocity", download_checked(d_velocity, n), ref.velocity,
                        ::course::Shape{}, kVelocityAtol, kVelocityRtol);
    REQUIRE_NAMED_CLOSE("exercises/nesterov.cu: w", download_checked(d_w, n), ref.w, ::course::Shape{}, kWeightAtol,
                        kWeightRtol);
    REQUIRE(first_bit_difference(download_checked(d_grad, n), grad) < 0);  // grad is only read
  }
}

}  // namespace

TEST_CASE("nesterov_update_gpu equals PyTorch's formulas in double over 3 steps at every size", "[14.4]") {
  const Hyper speedrun_values{0.1f, 0.9f, 5e-4f}, no_decay{0.3f, 0.5f, 0.0f}, plain_sgd{0.2f, 0.0f, 0.01f};
  for (size_t n : gpu_sizes()) {
    const uint64_t seed = 1601 + n;
    CAPTURE(n);
    COURSE_INPUT_SEED(seed);
    check_steps(n, speedrun_values, seed, 3);
    check_steps(n, no_decay, seed, 3);
  }
  check_steps(4099, plain_sgd, 1631, 3);
}

TEST_CASE("nesterov_update_gpu runs on its stream; n == 0 launches nothing; bad values are refused", "[14.4]") {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  check_steps(1000, Hyper{0.1f, 0.9f, 5e-4f}, 1641, 2, stream);
  REQUIRE_NOTHROW(speedrun::nesterov_update_gpu(nullptr, nullptr, nullptr, 0, nullptr, 0.9f, 0.0f, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));

  const float nan = std::numeric_limits<float>::quiet_NaN();
  // The rate is in device memory (the launcher cannot read it): a missing one (lr 0 below: null) is
  // refused, and bad momentum and weight decay.
  const Hyper bad[] = {{0.0f, 0.9f, 0.0f}, {0.1f, 1.0f, 0.0f}, {0.1f, nan, 0.0f}, {0.1f, 0.9f, -1.0f},
                       {0.1f, 0.9f, nan}};
  const size_t n = 17;
  DeviceBuffer<float> d_w = poisoned(n), d_velocity = poisoned(n), d_grad = guarded(random_vector(n, 1642)),
                      d_lr(std::vector<float>{0.1f});
  for (const Hyper& h : bad) {
    CAPTURE(h.lr, h.momentum, h.weight_decay);
    const std::string message = error_of([&] {
      speedrun::nesterov_update_gpu(d_w.data(), d_grad.data(), d_velocity.data(), n,
                                    h.lr > 0.0f ? d_lr.data() : nullptr, h.momentum, h.weight_decay);
    });
    INFO("message: '" << message << "'");
    REQUIRE(message.find("nesterov_update_gpu: ") == 0);
    REQUIRE(still_poisoned(d_w, n));
    REQUIRE(still_poisoned(d_velocity, n));
  }
  CUDA_CHECK(cudaGetLastError());
}
