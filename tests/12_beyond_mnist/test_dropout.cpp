// Lesson 12, step 12.2 on the CPU: dropout's mask is dropout_keeps's, kept values are scaled by
// one float multiply (compared bit for bit), and bad rates are refused before anything is written.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "beyond_mnist.hpp"
#include "beyond_mnist_references.hpp"
#include "course_test.hpp"
#include "dropout_mask.hpp"

using namespace beyond_mnist_test;
using beyond_mnist::dropout_key;
using course::test::nan_vector;
using course::test::random_vector;

namespace {

// Elements kept by one call: y is nonzero exactly there (x is never 0 in these tests).
std::vector<bool> kept(const std::vector<float>& y) {
  std::vector<bool> k(y.size());
  for (size_t i = 0; i < y.size(); ++i) k[i] = y[i] != 0.0f;
  return k;
}

// With p the probability of the event, a count over n independent elements is binomial: mean
// n p, standard deviation sqrt(n p (1 - p)). A correct mask is outside 6 deviations with
// probability 2e-9, whatever the key; a mask of the wrong rate (or, for two keys, the same
// mask twice) is hundreds of deviations away at these n.
void require_binomial(const char* what, size_t count, size_t n, double p) {
  const double mean = double(n) * p, bound = 6.0 * std::sqrt(double(n) * p * (1.0 - p)) + 1.0;
  INFO(what << ": " << count << " of " << n << ", expected " << mean << " +- " << bound);
  REQUIRE(std::fabs(double(count) - mean) <= bound);
}

}  // namespace

TEST_CASE("dropout_forward keeps dropout_keeps's elements, times dropout_scale, bit for bit", "[12.2]") {
  for (float rate : {0.1f, 0.5f, 0.8f})
    for (size_t n : test_sizes()) {
      const uint64_t seed = 1241 + n;
      const uint64_t key = dropout_key(seed, 2, 7);
      CAPTURE(rate, n);
      COURSE_INPUT_SEED(seed);
      const std::vector<float> x = random_vector(n, seed);
      std::vector<float> y = nan_vector(n);
      beyond_mnist::dropout_forward(x.data(), y.data(), n, rate, key);
      require_same_bits("exercises/dropout.cpp", "dropout_forward's y", y, dropout_expected(x, rate, key));
    }
}

TEST_CASE("dropout_backward uses the forward pass's mask: dx = dy * scale where x was kept", "[12.2]") {
  for (float rate : {0.3f, 0.75f})
    for (size_t n : test_sizes()) {
      const uint64_t seed = 1251 + n;
      const uint64_t key = dropout_key(seed, 0, 1);
      CAPTURE(rate, n);
      COURSE_INPUT_SEED(seed);
      const std::vector<float> x = random_vector(n, seed, 0.5f, 1.5f), dy = random_vector(n, seed + 1, 0.5f, 1.5f);
      std::vector<float> y = nan_vector(n), dx = nan_vector(n);
      beyond_mnist::dropout_forward(x.data(), y.data(), n, rate, key);
      beyond_mnist::dropout_backward(dy.data(), dx.data(), n, rate, key);
      require_same_bits("exercises/dropout.cpp", "dropout_backward's dx", dx, dropout_expected(dy, rate, key));
      REQUIRE(kept(dx) == kept(y));
    }
}

TEST_CASE("dropout keeps a fraction 1 - rate of a large input", "[12.2]") {
  const size_t n = size_t(1) << 20;
  const uint64_t seed = 1261;
  const std::vector<float> x = random_vector(n, seed, 0.5f, 1.5f);
  for (float rate : {0.2f, 0.5f, 0.9f}) {
    CAPTURE(rate);
    COURSE_INPUT_SEED(seed);
    std::vector<float> y = nan_vector(n);
    beyond_mnist::dropout_forward(x.data(), y.data(), n, rate, dropout_key(seed, 0, 0));
    const std::vector<bool> k = kept(y);
    require_binomial("elements kept", size_t(std::count(k.begin(), k.end(), true)), n, 1.0 - rate);
  }
}

TEST_CASE("dropout: other layers, steps and seeds give independent masks", "[12.2]") {
  // Two independent masks of rate 1/2 disagree at half of the elements.
  const size_t n = size_t(1) << 16;
  const float rate = 0.5f;
  const uint64_t seed = 1271;
  const std::vector<float> x = random_vector(n, seed, 0.5f, 1.5f);
  const uint64_t keys[] = {dropout_key(seed, 0, 0), dropout_key(seed, 1, 0), dropout_key(seed, 0, 1),
                           dropout_key(seed + 1, 0, 0)};
  std::vector<std::vector<bool>> masks;
  for (uint64_t key : keys) {
    std::vector<float> y = nan_vector(n);
    beyond_mnist::dropout_forward(x.data(), y.data(), n, rate, key);
    masks.push_back(kept(y));
  }
  for (size_t a = 0; a < masks.size(); ++a)
    for (size_t b = a + 1; b < masks.size(); ++b) {
      CAPTURE(a, b);
      size_t differ = 0;
      for (size_t i = 0; i < n; ++i) differ += masks[a][i] != masks[b][i] ? 1 : 0;
      require_binomial("elements where two masks differ", differ, n, 0.5);
    }
}

TEST_CASE("dropout with rate 0 is the identity, bit for bit", "[12.2]") {
  const size_t n = 4099;
  const uint64_t seed = 1281;
  const std::vector<float> x = random_vector(n, seed), dy = random_vector(n, seed + 1);
  std::vector<float> y = nan_vector(n), dx = nan_vector(n);
  beyond_mnist::dropout_forward(x.data(), y.data(), n, 0.0f, dropout_key(seed, 0, 0));
  beyond_mnist::dropout_backward(dy.data(), dx.data(), n, 0.0f, dropout_key(seed, 0, 0));
  require_same_bits("exercises/dropout.cpp", "dropout_forward's y (rate 0)", y, x);
  require_same_bits("exercises/dropout.cpp", "dropout_backward's dx (rate 0)", dx, dy);
}

TEST_CASE("dropout refuses a rate outside [0, 1) with course::Error, before writing anything", "[12.2]") {
  const size_t n = 17;
  const std::vector<float> x = random_vector(n, 1291);
  for (float rate : {-0.1f, 1.0f, 1.5f, std::numeric_limits<float>::quiet_NaN()}) {
    CAPTURE(rate);
    std::vector<float> y(n);
    std::memset(y.data(), 0xFF, n * sizeof(float));  // must keep these bytes
    const std::vector<float> poison = y;
    const std::string forward = error_of([&] { beyond_mnist::dropout_forward(x.data(), y.data(), n, rate, 5); });
    const std::string backward = error_of([&] { beyond_mnist::dropout_backward(x.data(), y.data(), n, rate, 5); });
    INFO("messages: '" << forward << "' and '" << backward << "'");
    REQUIRE(forward.find("dropout_forward") != std::string::npos);
    REQUIRE(forward.find("rate") != std::string::npos);
    REQUIRE(backward.find("dropout_backward") != std::string::npos);
    REQUIRE(backward.find("rate") != std::string::npos);
    require_same_bits("exercises/dropout.cpp", "the output after a refused call", y, poison);
  }
}
