// Lesson 12, step 12.3 on the GPU: adadelta_update_gpu against PyTorch's formulas in double over 3
// steps, in place, at sizes below one block, odd ones and past one grid of the launcher.
// Tolerances: beyond_mnist_references.hpp (the kernel computes in float as the CPU does; nvcc may
// fuse a multiply and an add into one FMA, one rounding fewer, which only helps; sqrtf and '/' are
// rounded correctly under nvcc's default flags).
#include <cstdint>
#include <limits>
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
using course::test::still_poisoned;

namespace {

void check_steps(size_t n, const Hyper& h, uint64_t seed, int steps) {
  const std::vector<float> w0 = random_vector(n, seed);
  AdadeltaRef ref(w0);
  DeviceBuffer<float> d_w = guarded(w0), d_sq = guarded(std::vector<float>(n, 0.0f)),
                      d_acc = guarded(std::vector<float>(n, 0.0f)), d_lr(std::vector<float>{h.lr});
  for (int t = 1; t <= steps; ++t) {
    CAPTURE(t);
    const std::vector<float> grad = adadelta_gradient(n, seed + 10 * t);
    DeviceBuffer<float> d_grad = guarded(grad);
    beyond_mnist::adadelta_update_gpu(d_w.data(), d_grad.data(), d_sq.data(), d_acc.data(), n, d_lr.data(), h.rho,
                                      h.eps, h.weight_decay);
    ref.step(grad, h);
    REQUIRE_NAMED_CLOSE("exercises/adadelta.cu: square_avg", download_checked(d_sq, n), ref.square_avg,
                        ::course::Shape{}, kStateAtol, kStateRtol);
    REQUIRE_NAMED_CLOSE("exercises/adadelta.cu: delta_avg", download_checked(d_acc, n), ref.delta_avg,
                        ::course::Shape{}, kStateAtol, kStateRtol);
    REQUIRE_NAMED_CLOSE("exercises/adadelta.cu: w", download_checked(d_w, n), ref.w, ::course::Shape{}, kWeightAtol,
                        kWeightRtol);
    REQUIRE(first_bit_difference(download_checked(d_grad, n), grad) < 0);  // grad is only read
  }
}

}  // namespace

TEST_CASE("adadelta_update_gpu equals PyTorch's formulas in double over 3 steps at every size", "[12.3]") {
  const Hyper no_decay{1.0f, 0.9f, 1e-6f, 0.0f}, decay{0.5f, 0.95f, 1e-6f, 0.01f}, large_eps{0.1f, 0.5f, 0.25f, 0.01f};
  for (size_t n : gpu_sizes()) {
    const uint64_t seed = 1301 + n;
    CAPTURE(n);
    COURSE_INPUT_SEED(seed);
    check_steps(n, no_decay, seed, 3);
    check_steps(n, decay, seed, 3);
  }
  check_steps(4099, large_eps, 1331, 3);
}

TEST_CASE("adadelta_update_gpu refuses bad hyper-parameters before any launch; n == 0 launches nothing", "[12.3]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // The rate is in device memory (the launcher cannot read it): a missing one (lr 0 below: null) is
  // refused, and bad rho and eps.
  const Hyper bad[] = {{0.0f, 0.9f, 1e-6f, 0.0f}, {1.0f, -0.1f, 1e-6f, 0.0f}, {1.0f, 1.1f, 1e-6f, 0.0f},
                       {1.0f, nan, 1e-6f, 0.0f}, {1.0f, 0.9f, 0.0f, 0.0f}, {1.0f, 0.9f, nan, 0.0f}};
  const size_t n = 17;
  DeviceBuffer<float> d_w = poisoned(n), d_sq = poisoned(n), d_acc = poisoned(n),
                      d_grad = guarded(random_vector(n, 1341)), d_lr(std::vector<float>{1.0f});
  for (const Hyper& h : bad) {
    CAPTURE(h.lr, h.rho, h.eps);
    const std::string message = error_of([&] {
      beyond_mnist::adadelta_update_gpu(d_w.data(), d_grad.data(), d_sq.data(), d_acc.data(), n,
                                        h.lr > 0.0f ? d_lr.data() : nullptr, h.rho, h.eps, h.weight_decay);
    });
    INFO("message: '" << message << "'");
    REQUIRE(message.find("adadelta_update_gpu") != std::string::npos);
    REQUIRE(still_poisoned(d_w, n));
    REQUIRE(still_poisoned(d_sq, n));
    REQUIRE(still_poisoned(d_acc, n));
  }
  REQUIRE_NOTHROW(beyond_mnist::adadelta_update_gpu(nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0.9f, 1e-6f, 0.0f));
  CUDA_CHECK(cudaDeviceSynchronize());
}
