// Lesson 08, step 08.2: adam_update against lesson 02's host_training::adam_step, over 3 steps,
// in place, at sizes that are not multiples of the block and past one grid of the launcher.
#include <cstdint>
#include <vector>

#include "first_kernels.hpp"
#include "mnist_gpu.hpp"
#include "mnist_gpu_test_support.hpp"

using course::DeviceBuffer;
using course::test::random_vector;

namespace {

// Both sides compute in float with the same operations; nvcc may fuse a*b + c into one FMA
// (one rounding instead of two) where g++ does not. w, m and v are at most ~1 here (one ulp
// 1.2e-7), each step rounds a handful of times, and 3 steps compound it: within ~10 ulps, so
// 1e-6 absolute + 1e-5 relative. A wrong formula (a missing bias correction: a factor 10 at
// t = 1; beta1 and beta2 swapped; sqrt of the wrong thing) is off by 1e-4 or far more.
constexpr double kAtol = 1e-6, kRtol = 1e-5;

struct Hyper {
  float lr, beta1, beta2, eps, weight_decay;
};

// Host reference: lesson 02's adam_step; weight decay folded into the gradient first, as
// lesson 02's Optimizer (and PyTorch's Adam) do.
void host_adam(std::vector<float>& w, const std::vector<float>& g, std::vector<float>& m, std::vector<float>& v,
               const Hyper& h, int t) {
  std::vector<float> grad(g);
  for (size_t i = 0; i < grad.size(); ++i) grad[i] = g[i] + h.weight_decay * w[i];
  host_training::adam_step(w.data(), grad.data(), m.data(), v.data(), w.size(), h.lr, h.beta1, h.beta2, h.eps, t);
}

// In-place buffers cannot be poisoned; a guard zone after each one (0xFF bytes) must survive.
DeviceBuffer<float> with_guard(const std::vector<float>& values) {
  DeviceBuffer<float> buf = mnist_gpu_test::poisoned<float>(values.size());
  if (!values.empty()) CUDA_CHECK(cudaMemcpy(buf.data(), values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice));
  return buf;
}

void check_adam(size_t n, const Hyper& h, uint64_t seed) {
  std::vector<float> w = random_vector(n, seed, -1.0f, 1.0f);
  std::vector<float> m(n, 0.0f), v(n, 0.0f);  // Adam's state starts at 0
  DeviceBuffer<float> d_w = with_guard(w), d_m = with_guard(m), d_v = with_guard(v);
  DeviceBuffer<float> d_lr(std::vector<float>{h.lr});  // the rate lives in device memory
  for (int t = 1; t <= 3; ++t) {
    CAPTURE(t);
    // A new, non-uniform gradient every step; some large, some tiny.
    const std::vector<float> g = random_vector(n, seed + 10 * t, -0.5f, 0.5f);
    DeviceBuffer<float> d_g(g);
    host_adam(w, g, m, v, h, t);
    mnist_gpu::adam_update(d_w.data(), d_g.data(), d_m.data(), d_v.data(), n, d_lr.data(), h.beta1, h.beta2, h.eps,
                           h.weight_decay, t);
    const std::vector<float> got_m = mnist_gpu_test::download_checked(d_m, n);
    const std::vector<float> got_v = mnist_gpu_test::download_checked(d_v, n);
    const std::vector<float> got_w = mnist_gpu_test::download_checked(d_w, n);
    {
      INFO("m (first moment)");
      REQUIRE_ALL_CLOSE(got_m, m, kAtol, kRtol);
    }
    {
      INFO("v (second moment)");
      REQUIRE_ALL_CLOSE(got_v, v, kAtol, kRtol);
    }
    {
      INFO("weights");
      REQUIRE_ALL_CLOSE(got_w, w, kAtol, kRtol);
    }
    REQUIRE(d_g.to_host() == g);  // the gradient is read, never written
  }
}

}  // namespace

TEST_CASE("adam_update matches lesson 02's adam_step over 3 steps at every size", "[08.2]") {
  const Hyper h{0.01f, 0.9f, 0.999f, 1e-8f, 0.0f};
  // 1, 3, 17, 1000: below one block and odd; 2^20 + 7 and 3 grids + 5: the grid-stride loop.
  const size_t past_grid = 3 * first_kernels::kGridCapacity + 5;
  for (size_t n : {size_t(1), size_t(3), size_t(17), size_t(1000), (size_t(1) << 20) + 7, past_grid}) {
    const uint64_t seed = 801 + n;
    CAPTURE(n);
    COURSE_INPUT_SEED(seed);
    check_adam(n, h, seed);
  }
}

TEST_CASE("adam_update with weight decay and other betas", "[08.2]") {
  const Hyper h{0.003f, 0.8f, 0.99f, 1e-6f, 0.05f};
  const uint64_t seed = 811;
  COURSE_INPUT_SEED(seed);
  check_adam(4099, h, seed);
}

TEST_CASE("adam_update rejects t < 1 and launches nothing for n == 0", "[08.2]") {
  REQUIRE_THROWS_AS(mnist_gpu::adam_update(nullptr, nullptr, nullptr, nullptr, 4, nullptr, 0.9f, 0.999f, 1e-8f, 0.0f, 0),
                    course::Error);
  REQUIRE_NOTHROW(mnist_gpu::adam_update(nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0.9f, 0.999f, 1e-8f, 0.0f, 1));
  CUDA_CHECK(cudaDeviceSynchronize());
}
