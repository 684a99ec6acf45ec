// Lesson 12, step 12.2 on the GPU: the dropout kernel gives the contract's bits (the CPU's), at
// sizes below one block, odd ones and past one grid; bad rates refused before any launch.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "beyond_mnist.hpp"
#include "beyond_mnist_references.hpp"
#include "course_test.hpp"
#include "dropout_mask.hpp"
#include "guarded_buffers.hpp"

using namespace beyond_mnist_test;
using beyond_mnist::dropout_key;
using course::DeviceBuffer;
using course::test::download_checked;
using course::test::gpu_sizes;
using course::test::guarded;
using course::test::poisoned;
using course::test::random_vector;
using course::test::still_poisoned;

TEST_CASE("dropout kernels give the contract's bits, forward and backward, at every size", "[12.2]") {
  for (float rate : {0.0f, 0.1f, 0.5f, 0.8f})
    for (size_t n : gpu_sizes()) {
      const uint64_t seed = 1241 + n;
      const uint64_t key = dropout_key(seed, 3, 11);
      CAPTURE(rate, n);
      COURSE_INPUT_SEED(seed);
      const std::vector<float> x = random_vector(n, seed), dy = random_vector(n, seed + 1);
      DeviceBuffer<float> d_x = guarded(x), d_y = poisoned(n), d_dy = guarded(dy), d_dx = poisoned(n);
      DeviceBuffer<uint64_t> d_key(std::vector<uint64_t>{key});
      beyond_mnist::dropout_forward_gpu(d_x.data(), d_y.data(), n, rate, d_key.data());
      beyond_mnist::dropout_backward_gpu(d_dy.data(), d_dx.data(), n, rate, d_key.data());
      require_same_bits("exercises/dropout.cu", "y", download_checked(d_y, n), dropout_expected(x, rate, key));
      require_same_bits("exercises/dropout.cu", "dx", download_checked(d_dx, n), dropout_expected(dy, rate, key));
      if (rate == 0.0f) require_same_bits("exercises/dropout.cu", "y (rate 0: the identity)", download_checked(d_y, n), x);
    }
}

TEST_CASE("dropout kernels read the key when they run, from device memory", "[12.2]") {
  // What a CUDA graph relies on: launches already enqueued see the key written before they run.
  const size_t n = 1000;
  const uint64_t first = dropout_key(77, 1, 0), second = dropout_key(77, 1, 1);
  const std::vector<float> x = random_vector(n, 1277);
  DeviceBuffer<float> d_x = guarded(x), d_y1 = poisoned(n), d_y2 = poisoned(n);
  DeviceBuffer<uint64_t> d_key(std::vector<uint64_t>{first});
  beyond_mnist::dropout_forward_gpu(d_x.data(), d_y1.data(), n, 0.5f, d_key.data());
  const uint64_t next = second;
  CUDA_CHECK(cudaMemcpy(d_key.data(), &next, sizeof next, cudaMemcpyHostToDevice));
  beyond_mnist::dropout_backward_gpu(d_x.data(), d_y2.data(), n, 0.5f, d_key.data());
  require_same_bits("exercises/dropout.cu", "y (first key)", download_checked(d_y1, n), dropout_expected(x, 0.5f, first));
  require_same_bits("exercises/dropout.cu", "dx (second key)", download_checked(d_y2, n),
                    dropout_expected(x, 0.5f, second));
}

TEST_CASE("dropout launchers refuse a rate outside [0, 1) before any launch; n == 0 launches nothing", "[12.2]") {
  const size_t n = 17;
  DeviceBuffer<float> d_x = guarded(random_vector(n, 1291)), d_y = poisoned(n);
  DeviceBuffer<uint64_t> d_key(std::vector<uint64_t>{5});
  for (float rate : {-0.1f, 1.0f, 1.5f, std::numeric_limits<float>::quiet_NaN()}) {
    CAPTURE(rate);
    const std::string forward =
        error_of([&] { beyond_mnist::dropout_forward_gpu(d_x.data(), d_y.data(), n, rate, d_key.data()); });
    const std::string backward =
        error_of([&] { beyond_mnist::dropout_backward_gpu(d_x.data(), d_y.data(), n, rate, d_key.data()); });
    INFO("messages: '" << forward << "' and '" << backward << "'");
    REQUIRE(forward.find("dropout_forward_gpu") != std::string::npos);
    REQUIRE(backward.find("dropout_backward_gpu") != std::string::npos);
    REQUIRE(still_poisoned(d_y, n));
  }
  REQUIRE_NOTHROW(beyond_mnist::dropout_forward_gpu(nullptr, nullptr, 0, 0.5f, d_key.data()));
  REQUIRE_NOTHROW(beyond_mnist::dropout_backward_gpu(nullptr, nullptr, 0, 0.5f, d_key.data()));
  CUDA_CHECK(cudaDeviceSynchronize());
}
