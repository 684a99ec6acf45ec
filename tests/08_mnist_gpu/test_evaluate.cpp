// Lesson 08, step 08.4: predict_and_count against a host loop (the first maximum wins ties, as
// lesson 01 and std::max_element), and accumulate_loss against a host sum in double, with the
// NaN/Inf flag.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "mnist_gpu.hpp"
#include "mnist_gpu_test_support.hpp"

using course::DeviceBuffer;

namespace {

// Logits rounded to multiples of 0.25 in [-1, 1]: only 9 distinct values, so most rows hold
// ties for their maximum and the tie rule is exercised.
std::vector<float> tied_logits(size_t n, uint64_t seed) {
  std::vector<float> v = course::test::random_vector(n, seed, -1.0f, 1.0f);
  for (float& x : v) x = std::round(x * 4.0f) / 4.0f;
  return v;
}

std::vector<int> random_labels(int n, int classes, uint64_t seed) {
  course::Rng rng(seed, 5);
  std::vector<int> labels(static_cast<size_t>(n));
  for (int& l : labels) l = rng.uniform_int(classes);
  return labels;
}

}  // namespace

TEST_CASE("predict_and_count: first maximum per row and the number right, accumulated", "[08.4]") {
  // 1000 rows: four blocks of 256 threads, the last one partial.
  for (int batch : {1, 3, 17, 300, 1000}) {
    for (int classes : {1, 3, 10, 33}) {
      const uint64_t seed = 841 + uint64_t(batch) * 100 + classes;
      CAPTURE(batch, classes);
      COURSE_INPUT_SEED(seed);
      const std::vector<float> logits = tied_logits(size_t(batch) * classes, seed);
      const std::vector<int> labels = random_labels(batch, classes, seed);
      std::vector<int> expected(static_cast<size_t>(batch));
      int hits = 0;
      size_t tied_rows = 0;
      for (int b = 0; b < batch; ++b) {
        const float* z = logits.data() + size_t(b) * classes;
        const float* top = std::max_element(z, z + classes);  // the first largest
        expected[size_t(b)] = int(top - z);
        hits += expected[size_t(b)] == labels[size_t(b)];
        tied_rows += std::count(z, z + classes, *top) > 1;
      }
      if (classes >= 10 && batch >= 17) REQUIRE(tied_rows > 0);  // the data does test ties

      DeviceBuffer<float> d_logits(logits);
      DeviceBuffer<int> d_labels(labels);
      DeviceBuffer<int> predictions = mnist_gpu_test::poisoned<int>(size_t(batch));
      const int start = 5;  // *correct accumulates: it must end at start + hits
      DeviceBuffer<int> correct(std::vector<int>{start});
      mnist_gpu::predict_and_count(d_logits.data(), d_labels.data(), batch, classes, predictions.data(),
                                   correct.data());
      REQUIRE(mnist_gpu_test::download_checked(predictions, size_t(batch)) == expected);
      REQUIRE(correct.to_host()[0] == start + hits);
      // A second call on the same batch adds the same count again.
      mnist_gpu::predict_and_count(d_logits.data(), d_labels.data(), batch, classes, predictions.data(),
                                   correct.data());
      REQUIRE(correct.to_host()[0] == start + 2 * hits);
    }
  }
}

TEST_CASE("accumulate_loss adds every row in double and keeps the flag at -1 for finite losses", "[08.4]") {
  DeviceBuffer<double> loss_sum(std::vector<double>{0.0});
  DeviceBuffer<int> bad_step(std::vector<int>{-1});
  double expected = 0.0;
  int step = 0;
  // 257 and 1000: more rows than the 256 threads of the one block.
  for (int batch : {1, 3, 17, 256, 257, 1000}) {
    const uint64_t seed = 861 + batch;
    CAPTURE(batch);
    COURSE_INPUT_SEED(seed);
    const std::vector<float> row_loss = course::test::random_vector(size_t(batch), seed, 0.0f, 5.0f);
    for (float l : row_loss) expected += double(l);
    DeviceBuffer<float> d_rows(row_loss);
    mnist_gpu::accumulate_loss(d_rows.data(), batch, ++step, loss_sum.data(), bad_step.data());
    // Sums of up to ~2000 floats in double, in another order: relative error ~1e-15; 1e-12 is
    // far above that and far below any lost or doubled row (>= 1e-4 of the total here).
    const std::vector<double> got = loss_sum.to_host();
    const std::vector<double> want{expected};
    REQUIRE_ALL_CLOSE(got, want, 1e-12, 1e-12);
    REQUIRE(bad_step.to_host()[0] == -1);
  }
}

TEST_CASE("accumulate_loss records the FIRST step whose loss is NaN or Inf", "[08.4]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* name;
    int first_bad;                // the step expected in the flag
    std::vector<int> bad_steps;   // steps with a non-finite row
    float bad_value;
  };
  const Case cases[] = {{"NaN at step 3, again at 5", 3, {3, 5}, nan},
                        {"Inf at step 2", 2, {2}, inf},
                        {"-Inf at step 6 (the last)", 6, {6}, -inf}};
  for (const Case& c : cases) {
    INFO(c.name);
    DeviceBuffer<double> loss_sum(std::vector<double>{0.0});
    DeviceBuffer<int> bad_step(std::vector<int>{-1});
    for (int step = 1; step <= 6; ++step) {
      const int batch = 300;
      const uint64_t seed = 871 + step;
      CAPTURE(step);
      COURSE_INPUT_SEED(seed);
      std::vector<float> rows = course::test::random_vector(size_t(batch), seed, 0.0f, 3.0f);
      if (std::find(c.bad_steps.begin(), c.bad_steps.end(), step) != c.bad_steps.end()) rows[size_t(17 * step)] = c.bad_value;
      DeviceBuffer<float> d_rows(rows);
      mnist_gpu::accumulate_loss(d_rows.data(), batch, step, loss_sum.data(), bad_step.data());
      const int flag = bad_step.to_host()[0];
      REQUIRE(flag == (step >= c.first_bad ? c.first_bad : -1));
    }
    REQUIRE_FALSE(std::isfinite(loss_sum.to_host()[0]));
  }
}
