// Lesson 12, step 12.1 on the CPU: sigmoid and tanh against their formulas in double, the
// backward passes against finite differences, and inputs far outside the usual range.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "beyond_mnist.hpp"
#include "beyond_mnist_references.hpp"
#include "course_test.hpp"

using namespace beyond_mnist_test;
using course::test::nan_vector;
using course::test::random_vector;

namespace {

struct HostActivation {
  const ActivationRef& ref;
  void (*forward)(const float* x, float* y, size_t n);
  void (*backward)(const float* y, const float* dy, float* dx, size_t n);
};
const HostActivation kActivations[] = {{kSigmoid, beyond_mnist::sigmoid_forward, beyond_mnist::sigmoid_backward},
                                       {kTanh, beyond_mnist::tanh_forward, beyond_mnist::tanh_backward}};

std::string output_name(const HostActivation& a, const char* pass, const char* out) {
  return std::string("exercises/activations.cpp: ") + a.ref.name + "_" + pass + "'s " + out;
}

}  // namespace

TEST_CASE("sigmoid_forward and tanh_forward equal the formulas in double at odd sizes", "[12.1]") {
  for (const HostActivation& a : kActivations)
    for (size_t n : test_sizes()) {
      const uint64_t seed = 1201 + n;
      CAPTURE(a.ref.name, n);
      COURSE_INPUT_SEED(seed);
      const std::vector<float> x = random_vector(n, seed, -8.0f, 8.0f);  // both tails and the middle
      std::vector<float> y = nan_vector(n);  // an element never written stays NaN and fails
      a.forward(x.data(), y.data(), n);
      REQUIRE_NAMED_CLOSE(output_name(a, "forward", "y"), y, forward_ref(a.ref, x), ::course::Shape{},
                          kActivationAtol, kActivationRtol);
    }
}

TEST_CASE("sigmoid_backward and tanh_backward equal dy * f'(x), written with the output y", "[12.1]") {
  for (const HostActivation& a : kActivations)
    for (size_t n : test_sizes()) {
      const uint64_t seed = 1211 + n;
      CAPTURE(a.ref.name, n);
      COURSE_INPUT_SEED(seed);
      const std::vector<float> x = random_vector(n, seed, -8.0f, 8.0f);
      const std::vector<float> y = to_float(forward_ref(a.ref, x));  // what a correct forward gives
      const std::vector<float> dy = random_vector(n, seed + 1);
      std::vector<float> dx = nan_vector(n);
      a.backward(y.data(), dy.data(), dx.data(), n);
      REQUIRE_NAMED_CLOSE(output_name(a, "backward", "dx"), dx, backward_ref(a.ref, y, dy), ::course::Shape{},
                          kActivationAtol, kActivationRtol);
    }
}

// dL/dx for L = sum_i dy[i] * f(x[i]), by central differences in double (eps 1e-6). Their error:
// eps^2 |f'''| / 6 < 1e-12 from the curvature, |L| * 1e-16 / eps < 1e-8 from rounding. The float
// dx differs from the exact derivative by the rounding of y (2^-24 relative) and of the backward
// formula: below 1e-7. Threshold 1e-6 + 1e-5 |dx|: ten times those, a thousand times below a
// wrong slope (at least 1e-2 somewhere in [-4, 4]).
TEST_CASE("sigmoid_backward and tanh_backward match finite differences of sum(dy * f(x)) in double", "[12.1]") {
  for (const HostActivation& a : kActivations)
    for (size_t n : {size_t(17), size_t(33)}) {
      const uint64_t seed = 1221 + n;
      CAPTURE(a.ref.name, n);
      COURSE_INPUT_SEED(seed);
      const std::vector<float> x = random_vector(n, seed, -4.0f, 4.0f);
      const std::vector<float> dy = random_vector(n, seed + 1);
      const std::vector<float> y = to_float(forward_ref(a.ref, x));
      std::vector<float> dx = nan_vector(n);
      a.backward(y.data(), dy.data(), dx.data(), n);

      std::vector<double> xd = course::to_double(x);
      const std::vector<double> dyd = course::to_double(dy);
      auto loss = [&] {
        double sum = 0;
        for (size_t i = 0; i < n; ++i) sum += dyd[i] * a.ref.f(xd[i]);
        return sum;
      };
      std::vector<double> numeric(n);
      for (size_t i = 0; i < n; ++i) numeric[i] = course::test::numeric_derivative(loss, xd, i);
      REQUIRE_NAMED_CLOSE(output_name(a, "backward", "dx (against finite differences)"), dx, numeric,
                          ::course::Shape{}, 1e-6, 1e-5);
    }
}

TEST_CASE("sigmoid and tanh stay finite and in range for x up to +-3.4e38; exact at 0 and +-1000", "[12.1]") {
  const std::vector<float> x = extreme_inputs();
  const size_t n = x.size();
  for (const HostActivation& a : kActivations) {
    CAPTURE(a.ref.name);
    std::vector<float> y = nan_vector(n);
    a.forward(x.data(), y.data(), n);
    require_in_range(output_name(a, "forward", "y"), a.ref, x, y);
    REQUIRE_NAMED_CLOSE(output_name(a, "forward", "y"), y, forward_ref(a.ref, x), ::course::Shape{}, kActivationAtol,
                        kActivationRtol);

    // The backward pass at these outputs: finite, and 0 where the activation is flat.
    const std::vector<float> dy = random_vector(n, 1231);
    std::vector<float> dx = nan_vector(n);
    a.backward(y.data(), dy.data(), dx.data(), n);
    REQUIRE_NAMED_CLOSE(output_name(a, "backward", "dx"), dx, backward_ref(a.ref, y, dy), ::course::Shape{},
                        kActivationAtol, kActivationRtol);
  }
}
