// Lesson 08, step 08.3: gather_batch against lesson 02's host_training::gather_batch, over a
// whole random epoch order (the last batch partial), for several example sizes.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "first_kernels.hpp"
#include "mnist_gpu.hpp"
#include "mnist_gpu_test_support.hpp"

using course::DeviceBuffer;

namespace {

// A data set of n examples of per_example random values (shape n x 1 x 1 x per_example).
course::Dataset random_dataset(int n, int per_example, uint64_t seed) {
  course::Dataset d;
  d.images = course::HostTensor({n, 1, 1, per_example});
  course::Rng rng(seed, 3);
  rng.fill_uniform(d.images.vec(), -2.0f, 2.0f);
  d.labels.resize(size_t(n));
  for (int& l : d.labels) l = rng.uniform_int(10);
  return d;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("gather_batch copies every batch of a random order exactly", "[08.3]") {
  // per_example 1 and 3: odd and tiny; 784: an MNIST digit. n = 53 with batch 16: three full
  // batches and a last one of 5.
  for (int per_example : {1, 3, 784}) {
    const int n = 53, batch = 16;
    const uint64_t seed = 821 + per_example;
    CAPTURE(per_example, n, batch);
    COURSE_INPUT_SEED(seed);
    const course::Dataset data = random_dataset(n, per_example, seed);
    const std::vector<int> order = host_training::epoch_order(n, seed, 2);
    DeviceBuffer<float> d_images(data.images.vec());
    DeviceBuffer<int> d_labels(data.labels), d_order(order);
    for (int first = 0; first < n; first += batch) {
      const int count = std::min(batch, n - first);
      CAPTURE(first, count);
      std::vector<float> x_ref(size_t(count) * per_example);
      std::vector<int> labels_ref(static_cast<size_t>(count));
      host_training::gather_batch(data, order, first, count, x_ref.data(), labels_ref.data());

      DeviceBuffer<float> x = mnist_gpu_test::poisoned<float>(x_ref.size());
      DeviceBuffer<int> labels = mnist_gpu_test::poisoned<int>(labels_ref.size());
      mnist_gpu::gather_batch(d_images.data(), d_labels.data(), n, per_example, d_order.data(), first, count, x.data(),
                              labels.data());
      // A copy: the very same bits, no tolerance.
      REQUIRE(same_bits(mnist_gpu_test::download_checked(x, x_ref.size()), x_ref));
      REQUIRE(mnist_gpu_test::download_checked(labels, labels_ref.size()) == labels_ref);
    }
  }
}

TEST_CASE("gather_batch poisons an example whose index is out of range", "[08.3]") {
  const int n = 7, per_example = 5;
  const uint64_t seed = 831;
  COURSE_INPUT_SEED(seed);
  const course::Dataset data = random_dataset(n, per_example, seed);
  // Positions 1 and 4 hold bad indices (-1 and n); the others are valid.
  const std::vector<int> order = {3, -1, 0, 6, n, 2, 5};
  DeviceBuffer<float> d_images(data.images.vec());
  DeviceBuffer<int> d_labels(data.labels), d_order(order);
  DeviceBuffer<float> x = mnist_gpu_test::poisoned<float>(size_t(n) * per_example);
  DeviceBuffer<int> labels = mnist_gpu_test::poisoned<int>(size_t(n));
  mnist_gpu::gather_batch(d_images.data(), d_labels.data(), n, per_example, d_order.data(), 0, n, x.data(),
                          labels.data());
  const std::vector<float> got = mnist_gpu_test::download_checked(x, size_t(n) * per_example);
  const std::vector<int> got_labels = mnist_gpu_test::download_checked(labels, size_t(n));
  for (int j = 0; j < n; ++j) {
    CAPTURE(j, order[size_t(j)]);
    const bool valid = order[size_t(j)] >= 0 && order[size_t(j)] < n;
    REQUIRE(got_labels[size_t(j)] == (valid ? data.labels[size_t(order[size_t(j)])] : -1));
    for (int e = 0; e < per_example; ++e) {
      const float v = got[size_t(j) * per_example + e];
      if (valid)
        REQUIRE(v == data.images[size_t(order[size_t(j)]) * per_example + e]);
      else
        REQUIRE(std::isnan(v));
    }
  }
}

TEST_CASE("gather_batch rejects a range outside the order and copies nothing for count 0", "[08.3]") {
  REQUIRE_THROWS_AS(mnist_gpu::gather_batch(nullptr, nullptr, 10, 4, nullptr, 8, 3, nullptr, nullptr), course::Error);
  REQUIRE_THROWS_AS(mnist_gpu::gather_batch(nullptr, nullptr, 10, 4, nullptr, -1, 2, nullptr, nullptr), course::Error);
  REQUIRE_THROWS_AS(mnist_gpu::gather_batch(nullptr, nullptr, 10, 0, nullptr, 0, 2, nullptr, nullptr), course::Error);
  REQUIRE_NOTHROW(mnist_gpu::gather_batch(nullptr, nullptr, 10, 4, nullptr, 10, 0, nullptr, nullptr));
  CUDA_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("gather_batch: a batch of more floats than one grid has threads (grid-stride loop)", "[08.3]") {
  // 400 MNIST-sized examples: 313,600 floats, more than the kGridCapacity = 262,144 threads the
  // launcher starts at most. A kernel without its grid-stride loop leaves the last ones poisoned.
  const int n = 400, per_example = 784, first = 0, count = n;
  REQUIRE(size_t(count) * per_example > first_kernels::kGridCapacity);
  const uint64_t seed = 881;
  COURSE_INPUT_SEED(seed);
  const course::Dataset data = random_dataset(n, per_example, seed);
  const std::vector<int> order = host_training::epoch_order(n, seed, 0);
  std::vector<float> x_ref(size_t(count) * per_example);
  std::vector<int> labels_ref(static_cast<size_t>(count));
  host_training::gather_batch(data, order, first, count, x_ref.data(), labels_ref.data());
  DeviceBuffer<float> d_images(data.images.vec());
  DeviceBuffer<int> d_labels(data.labels), d_order(order);
  DeviceBuffer<float> x = mnist_gpu_test::poisoned<float>(x_ref.size());
  DeviceBuffer<int> labels = mnist_gpu_test::poisoned<int>(labels_ref.size());
  mnist_gpu::gather_batch(d_images.data(), d_labels.data(), n, per_example, d_order.data(), first, count, x.data(),
                          labels.data());
  REQUIRE(same_bits(mnist_gpu_test::download_checked(x, x_ref.size()), x_ref));  // a copy: the same bits
  REQUIRE(mnist_gpu_test::download_checked(labels, labels_ref.size()) == labels_ref);
}
