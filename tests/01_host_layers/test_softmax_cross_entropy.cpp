// Step 01.5: softmax + cross-entropy, forward (mean loss) and backward.
// Approx(...).epsilon(0).margin(m): the margin alone decides (Approx would otherwise also
// accept a relative error of 1e-5).
#include <cmath>

#include "host_layers.hpp"
#include "layer_test_support.hpp"
#include "reference_layers.hpp"

namespace {

using l01::Vec;

// batch 2, 3 classes.
//   row 0: logits [0, 0, 0], label 0           -> p = [1/3, 1/3, 1/3], loss_0 = -log(1/3) = log 3
//   row 1: logits [log 1, log 2, log 5], label 2 -> p = [1, 2, 5] / 8,   loss_1 = -log(5/8) = log 1.6
//   mean loss = (log 3 + log 1.6) / 2 = log(4.8) / 2
// Adding the same constant to a row changes nothing, so row 1 gets +100 in a second run.
template <typename T>
void check_softmax_hand_case(T shift, double prob_tol, double loss_tol) {
  const std::vector<T> logits = {0, 0, 0, T(std::log(1.0) + shift), T(std::log(2.0) + shift),
                                 T(std::log(5.0) + shift)};
  const std::vector<int> labels = {0, 2};
  std::vector<T> probs(6, std::numeric_limits<T>::quiet_NaN());
  const T loss = host_layers::softmax_cross_entropy_forward(logits.data(), labels.data(), probs.data(), 2, 3);
  const std::vector<double> p_hand = {1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 8, 2.0 / 8, 5.0 / 8};
  REQUIRE_ALL_CLOSE(probs, p_hand, prob_tol, 0.0);
  REQUIRE(std::isfinite(double(loss)));
  CHECK(double(loss) == Approx(std::log(4.8) / 2).epsilon(0).margin(loss_tol));
}

}  // namespace

TEST_CASE("softmax-CE: hand-computed loss and probabilities", "[01.5]") {
  // double: only rounding of log/exp, ~1e-16. float: the logits carry a rounding of
  // 2^-24 * |logit| (+100 makes that ~6e-6), and p and the loss inherit it.
  check_softmax_hand_case<double>(0.0, 1e-14, 1e-14);
  check_softmax_hand_case<double>(100.0, 1e-12, 1e-12);
  check_softmax_hand_case<float>(0.0f, 1e-6, 1e-6);
  check_softmax_hand_case<float>(100.0f, 2e-5, 2e-5);
}

TEST_CASE("softmax-CE: hand-computed gradient", "[01.5]") {
  // dlogits = (p - onehot(label)) / batch with the probabilities of the hand case above:
  //   row 0: ([1/3, 1/3, 1/3] - [1, 0, 0]) / 2 = [-1/3, 1/6, 1/6]
  //   row 1: ([1/8, 2/8, 5/8] - [0, 0, 1]) / 2 = [1/16, 1/8, -3/16]
  const Vec probs = {1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 8, 2.0 / 8, 5.0 / 8};
  const std::vector<int> labels = {0, 2};
  Vec dlogits = l01::nan_doubles(6);
  host_layers::softmax_cross_entropy_backward(probs.data(), labels.data(), dlogits.data(), 2, 3);
  const Vec hand = {-1.0 / 3, 1.0 / 6, 1.0 / 6, 1.0 / 16, 1.0 / 8, -3.0 / 16};
  REQUIRE_ALL_CLOSE(dlogits, hand, 1e-16, 0.0);  // one subtraction and one halving: exact up to an ulp
}

TEST_CASE("softmax-CE: logits of +-1000 give a finite loss and exact probabilities", "[01.5]") {
  // Without subtracting the row maximum, exp(1000) overflows to Inf and the loss becomes NaN.
  // row 0: [1000, -1000, 0], label 0 -> p = [1, 0, 0] (exp(-1000) underflows to 0), loss 0
  // row 1: [1000, -1000, 0], label 1 -> same p,                             loss 1000 - (-1000) = 2000
  const std::vector<int> labels = {0, 1};
  const Vec p_hand = {1, 0, 0, 1, 0, 0};
  {
    const std::vector<float> logits = {1000, -1000, 0, 1000, -1000, 0};
    std::vector<float> probs = course::test::nan_vector(6);
    const float loss = host_layers::softmax_cross_entropy_forward(logits.data(), labels.data(), probs.data(), 2, 3);
    REQUIRE(std::isfinite(loss));
    CHECK(loss == Approx(1000.0).epsilon(0).margin(1e-3));  // (0 + 2000) / 2; float holds 1000 exactly
    REQUIRE_ALL_CLOSE(probs, p_hand, 1e-30, 0.0);  // e^-1000 is 0 in float
  }
  {
    const Vec logits = {1000, -1000, 0, 1000, -1000, 0};
    Vec probs = l01::nan_doubles(6);
    const double loss = host_layers::softmax_cross_entropy_forward(logits.data(), labels.data(), probs.data(), 2, 3);
    REQUIRE(std::isfinite(loss));
    CHECK(loss == Approx(1000.0).epsilon(0).margin(1e-9));
    REQUIRE_ALL_CLOSE(probs, p_hand, 1e-300, 0.0);  // e^-1000 ~ 5e-435 is 0 in double too
    Vec dlogits = l01::nan_doubles(6);
    host_layers::softmax_cross_entropy_backward(probs.data(), labels.data(), dlogits.data(), 2, 3);
    const Vec grad_hand = {0, 0, 0, 0.5, -0.5, 0};  // (p - onehot) / 2
    REQUIRE_ALL_CLOSE(dlogits, grad_hand, 1e-300, 0.0);
  }
}

TEST_CASE("softmax-CE: random logits in float match the reference", "[01.5]") {
  struct Size {
    int batch, classes;
  };
  const Size sizes[] = {{1, 1}, {3, 10}, {17, 5}, {64, 10}, {2, 33}};
  uint64_t seed = 900;
  for (const Size& d : sizes) {
    CAPTURE(d.batch, d.classes);
    COURSE_INPUT_SEED(seed);
    const size_t n = size_t(d.batch) * d.classes;
    const Vec logits = l01::random_doubles(n, seed++, -10.0f, 10.0f);
    course::Rng rng(seed++);
    std::vector<int> labels(size_t(d.batch));
    for (int& l : labels) l = rng.uniform_int(d.classes);
    Vec p_ref(n);
    const double loss_ref = ref::softmax_cross_entropy(logits, labels, d.batch, d.classes, &p_ref);

    const auto zf = l01::to_float(logits);
    std::vector<float> probs = course::test::nan_vector(n);
    const float loss =
        host_layers::softmax_cross_entropy_forward(zf.data(), labels.data(), probs.data(), d.batch, d.classes);
    // z - max is rounded to ~FLT_EPSILON * 20 (|z| <= 10), exp and the division add a few ulps and
    // the sum of up to 33 terms adds up to 33 * FLT_EPSILON relative: ~7e-6 relative in p.
    REQUIRE_ALL_CLOSE(probs, p_ref, 1e-7, 2e-5);
    // loss_b = log S - (z - max): absolute error ~FLT_EPSILON * (|log S| + 20) ~ 3e-6.
    CHECK(double(loss) == Approx(loss_ref).epsilon(0).margin(1e-5));

    // Backward from the reference probabilities: (p - onehot) / batch, one rounding each.
    const auto pf = l01::to_float(p_ref);
    std::vector<float> dlogits = course::test::nan_vector(n);
    host_layers::softmax_cross_entropy_backward(pf.data(), labels.data(), dlogits.data(), d.batch, d.classes);
    Vec grad_ref(n);
    for (size_t i = 0; i < n; ++i)
      grad_ref[i] = (p_ref[i] - (int(i % d.classes) == labels[i / d.classes] ? 1.0 : 0.0)) / d.batch;
    REQUIRE_ALL_CLOSE(dlogits, grad_ref, 1e-7, 1e-6);
  }
}

TEST_CASE("softmax-CE: gradient matches finite differences of the mean loss in double", "[01.5]") {
  struct Size {
    int batch, classes;
  };
  const Size sizes[] = {{1, 2}, {3, 10}, {5, 7}};
  uint64_t seed = 950;
  for (const Size& d : sizes) {
    CAPTURE(d.batch, d.classes);
    COURSE_INPUT_SEED(seed);
    const size_t n = size_t(d.batch) * d.classes;
    Vec logits = l01::random_doubles(n, seed++, -5.0f, 5.0f);
    course::Rng rng(seed++);
    std::vector<int> labels(size_t(d.batch));
    for (int& l : labels) l = rng.uniform_int(d.classes);
    auto loss = [&] { return ref::softmax_cross_entropy(logits, labels, d.batch, d.classes); };

    // The exercise's own chain: forward writes probs, backward turns them into dlogits.
    Vec probs = l01::nan_doubles(n), dlogits = l01::nan_doubles(n);
    const double L = host_layers::softmax_cross_entropy_forward(logits.data(), labels.data(), probs.data(),
                                                                d.batch, d.classes);
    CHECK(L == Approx(loss()).epsilon(0).margin(1e-12));  // double vs long double reference
    host_layers::softmax_cross_entropy_backward(probs.data(), labels.data(), dlogits.data(), d.batch, d.classes);
    l01::require_gradient_matches("logits", logits, dlogits, loss);
  }
}
