// Lesson 03, step 03.2: sgd_momentum_update (in place) against a CPU loop in double.
// The reference is the formula of torch.optim.SGD and of lesson 02's
// host_training::sgd_momentum_step, written out here as a plain loop:
//   v = momentum * v + (g + weight_decay * w);   w = w - lr * v
// An in-place output cannot be poisoned: the expected result is computed from the inputs,
// and lr, momentum and the gradients are non-zero, so a kernel that leaves w or v unchanged
// (the stub) fails.
#include <cstdint>
#include <vector>

#include "first_kernels.hpp"
#include "kernel_test_support.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using first_kernels_test::download_checked;
using first_kernels_test::guarded_copy;
using first_kernels_test::test_sizes;

namespace {

constexpr float kGuardValue = -777.25f;  // in the guard zones after w and v: must stay

struct Hyper {
  float lr, momentum, weight_decay;
};

// Every value below is at most about 1.2 in magnitude, where one float ulp is 1.2e-7. The GPU
// rounds 2 to 4 times per output, and nvcc may fuse a*b + c into one FMA (one rounding
// instead of two), so the result lies within a few ulps of the double reference: 1e-6
// (about 8 ulps) absolute, plus 1e-6 relative.
constexpr double kAtol = 1e-6, kRtol = 1e-6;

void check_sgd(size_t n, const Hyper& h, uint64_t seed, bool zero_velocity) {
  const std::vector<float> w0 = random_vector(n, seed, -1.0f, 1.0f);
  const std::vector<float> g = random_vector(n, seed + 1, -0.5f, 0.5f);
  // A velocity from earlier steps, or 0 before the first step (then v = g + wd*w, as PyTorch).
  const std::vector<float> v0 = zero_velocity ? std::vector<float>(n, 0.0f) : random_vector(n, seed + 2, -0.3f, 0.3f);

  std::vector<double> w_ref(n), v_ref(n);
  for (size_t i = 0; i < n; ++i) {
    v_ref[i] = double(h.momentum) * v0[i] + (double(g[i]) + double(h.weight_decay) * w0[i]);
    w_ref[i] = double(w0[i]) - double(h.lr) * v_ref[i];
  }

  DeviceBuffer<float> d_w = guarded_copy(w0, kGuardValue), d_v = guarded_copy(v0, kGuardValue);
  DeviceBuffer<float> d_g(g), d_lr(std::vector<float>{h.lr});  // the rate lives in device memory
  first_kernels::sgd_momentum_update(d_w.data(), d_g.data(), d_v.data(), n, d_lr.data(), h.momentum, h.weight_decay);
  const std::vector<float> w = download_checked(d_w, n, kGuardValue);
  const std::vector<float> v = download_checked(d_v, n, kGuardValue);
  {
    INFO("velocity");
    REQUIRE_ALL_CLOSE(v, v_ref, kAtol, kRtol);
  }
  {
    INFO("weights");
    REQUIRE_ALL_CLOSE(w, w_ref, kAtol, kRtol);
  }
  REQUIRE(d_g.to_host() == g);  // the gradient is read, never written
}

}  // namespace

TEST_CASE("sgd_momentum_update matches the CPU formula at every size", "[03.2]") {
  const Hyper h{0.05f, 0.9f, 0.01f};
  for (size_t n : test_sizes()) {
    const uint64_t seed = 361 + n;
    CAPTURE(n, h.lr, h.momentum, h.weight_decay);
    COURSE_INPUT_SEED(seed);
    check_sgd(n, h, seed, /*zero_velocity=*/false);
  }
}

TEST_CASE("sgd_momentum_update: first step, plain SGD, and no weight decay", "[03.2]") {
  const size_t n = 1000;
  struct Case {
    const char* name;
    Hyper h;
    bool zero_velocity;
  };
  const Case cases[] = {
      {"first step (velocity 0): v = g + wd*w", {0.1f, 0.9f, 0.01f}, true},
      {"plain SGD (momentum 0): w -= lr*(g + wd*w)", {0.1f, 0.0f, 0.01f}, false},
      {"no weight decay", {0.03f, 0.95f, 0.0f}, false},
  };
  for (const Case& c : cases) {
    const uint64_t seed = 371;
    INFO(c.name);
    COURSE_INPUT_SEED(seed);
    check_sgd(n, c.h, seed, c.zero_velocity);
  }
}

TEST_CASE("sgd_momentum_update with n == 0 launches nothing and reports no error", "[03.2]") {
  REQUIRE_NOTHROW(first_kernels::sgd_momentum_update(nullptr, nullptr, nullptr, 0, nullptr, 0.9f, 0.0f));
  CUDA_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("sgd_momentum_update reads the rate when it runs: a captured launch replayed after the rate changed",
          "[03.2]") {
  const size_t n = 777;
  const std::vector<float> w0 = random_vector(n, 381, -1.0f, 1.0f), g = random_vector(n, 382, -0.5f, 0.5f);
  DeviceBuffer<float> d_w(w0), d_g(g), d_v(std::vector<float>(n, 0.0f)), d_lr(std::vector<float>{0.5f});
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  first_kernels::sgd_momentum_update(d_w.data(), d_g.data(), d_v.data(), n, d_lr.data(), 0.0f, 0.0f, stream);
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  d_lr.upload(std::vector<float>{0.125f});  // after the capture: the replay must use this rate
  CUDA_CHECK(cudaDeviceSynchronize());       // the copy has landed before the stream runs
  CUDA_CHECK(cudaGraphLaunch(exec, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> w_ref(n);
  for (size_t i = 0; i < n; ++i) w_ref[i] = double(w0[i]) - 0.125 * double(g[i]);  // momentum 0: v = g
  const std::vector<float> w = d_w.to_host();
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
  REQUIRE_ALL_CLOSE(w, w_ref, kAtol, kRtol);
}
