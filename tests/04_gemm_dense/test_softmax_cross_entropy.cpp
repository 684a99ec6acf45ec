// Step 04.8: softmax + cross-entropy on the GPU against lesson 01's host version in double
// (host_layers_ref). Lesson 01's tests check its gradient against finite differences.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "gemm_dense.hpp"
#include "gemm_test_support.hpp"
#include "host_layers.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using course::test::to_double;

namespace {

// Tolerance for probabilities and losses computed in float from the same float logits:
// expf and logf are within 2 ulp, the row sum adds `classes` terms (each rounding by eps
// relative to the sum, at most classes * eps in all), then one division. 4 (classes + 8) eps,
// used as atol and rtol (course::float_sum_atol_rtol of classes + 8 terms), covers that; a wrong
// normalisation or index is off by far more.
double softmax_tolerance(int classes) { return course::float_sum_atol_rtol(classes + 8).atol; }

std::vector<int> random_labels(int batch, int classes, uint64_t seed) {
  course::Rng rng(seed);
  std::vector<int> labels(static_cast<size_t>(batch));
  for (int& l : labels) l = rng.uniform_int(classes);
  return labels;
}

// scale multiplies the logits: 1e4 makes exp overflow without the max subtraction.
void check_softmax(int batch, int classes, float scale, uint64_t seed) {
  INFO("batch = " << batch << ", classes = " << classes << ", logit scale = " << scale);
  COURSE_INPUT_SEED(seed);
  const size_t n = size_t(batch) * classes;
  std::vector<float> logits = random_vector(n, seed, -1.0f, 1.0f);
  for (float& z : logits) z *= scale;
  const std::vector<int> labels = random_labels(batch, classes, seed + 1);

  // Lesson 01 in double: probabilities, mean loss, and the gradient.
  const std::vector<double> logits_d = to_double(logits);
  std::vector<double> p_ref(n), dlogits_ref(n);
  const double mean_loss_ref = host_layers::softmax_cross_entropy_forward(logits_d.data(), labels.data(),
                                                                          p_ref.data(), batch, classes);
  host_layers::softmax_cross_entropy_backward(p_ref.data(), labels.data(), dlogits_ref.data(), batch, classes);
  // Per-row loss -log p[label], in double from the definition: log(sum exp(z - max)) - (z_label - max).
  std::vector<double> loss_ref(static_cast<size_t>(batch));
  for (int b = 0; b < batch; ++b) {
    const double* z = &logits_d[size_t(b) * classes];
    double m = z[0], s = 0.0;
    for (int c = 1; c < classes; ++c) m = std::max(m, z[c]);
    for (int c = 0; c < classes; ++c) s += std::exp(z[c] - m);
    loss_ref[size_t(b)] = std::log(s) - (z[labels[size_t(b)]] - m);
  }

  DeviceBuffer<float> d_logits = gemm_test::upload_guarded(logits);
  DeviceBuffer<int> d_labels(labels);
  DeviceBuffer<float> d_probs(n + gemm_test::kGuard), d_loss(size_t(batch) + gemm_test::kGuard),
      d_dlogits(n + gemm_test::kGuard);
  for (auto* b : {&d_probs, &d_loss, &d_dlogits}) b->poison();

  gemm_dense::softmax_cross_entropy_forward(d_logits.data(), d_labels.data(), d_probs.data(), d_loss.data(), batch,
                                            classes);
  const std::vector<float> probs = gemm_test::download_checked(d_probs, n);
  const std::vector<float> loss = gemm_test::download_checked(d_loss, size_t(batch));
  const double tol = softmax_tolerance(classes);
  {
    INFO("probabilities");
    REQUIRE_ALL_CLOSE(probs, p_ref, tol, tol);
  }
  {
    INFO("row losses");
    REQUIRE_ALL_CLOSE(loss, loss_ref, tol, tol);
    const double mean = std::accumulate(loss.begin(), loss.end(), 0.0) / batch;
    CHECK(mean == Approx(mean_loss_ref).epsilon(tol).margin(tol));  // lesson 01's mean loss
  }

  // Backward from the GPU's own probabilities (what the trainer does); its inputs differ from
  // p_ref by the tolerance above, and the gradient is (p - onehot) / batch.
  gemm_dense::softmax_cross_entropy_backward(d_probs.data(), d_labels.data(), d_dlogits.data(), batch, classes);
  const std::vector<float> dlogits = gemm_test::download_checked(d_dlogits, n);
  {
    INFO("gradient");
    REQUIRE_ALL_CLOSE(dlogits, dlogits_ref, tol, tol);
  }
}

}  // namespace

TEST_CASE("softmax-CE forward and backward match lesson 01 in double", "[04.8]") {
  // classes: 1 (p = 1, loss 0), odd, MNIST's 10, fewer and more than a warp, more than the
  // 256 threads of the largest row block (threads loop over the row).
  for (int classes : {1, 3, 10, 17, 33, 257, 1000})
    for (int batch : {1, 3, 64}) check_softmax(batch, classes, 3.0f, 4700 + uint64_t(batch) * 1009 + classes);
}

TEST_CASE("softmax-CE is numerically stable: logits of size 1e4", "[04.8]") {
  // exp(1e4) overflows float (max ~3.4e38 = exp(88.7)): without subtracting the row maximum
  // the probabilities would be Inf/Inf = NaN. The loss reaches ~1e4 and stays finite.
  for (int classes : {3, 10, 1000}) check_softmax(5, classes, 1e4f, 4800 + uint64_t(classes));
}

TEST_CASE("softmax-CE: a hand-computed row", "[04.8]") {
  // logits [log 1, log 2, log 5] + 100, label 2: p = [1, 2, 5] / 8, loss = -log(5/8).
  // Gradient (batch 1): p - onehot = [1/8, 2/8, -3/8].
  const std::vector<float> logits = {100.0f, float(std::log(2.0) + 100), float(std::log(5.0) + 100)};
  DeviceBuffer<float> d_logits(logits), d_probs(3), d_loss(1), d_grad(3);
  DeviceBuffer<int> d_labels(std::vector<int>{2});
  for (auto* b : {&d_probs, &d_loss, &d_grad}) b->poison();
  gemm_dense::softmax_cross_entropy_forward(d_logits.data(), d_labels.data(), d_probs.data(), d_loss.data(), 1, 3);
  gemm_dense::softmax_cross_entropy_backward(d_probs.data(), d_labels.data(), d_grad.data(), 1, 3);
  // The float logits near 100 carry a rounding of up to 2^-24 * 100 ~ 6e-6; p and the loss
  // inherit it. 2e-5 covers that.
  REQUIRE_ALL_CLOSE(d_probs.to_host(), (std::vector<double>{1.0 / 8, 2.0 / 8, 5.0 / 8}), 2e-5, 0.0);
  REQUIRE_ALL_CLOSE(d_loss.to_host(), (std::vector<double>{-std::log(5.0 / 8)}), 2e-5, 0.0);
  REQUIRE_ALL_CLOSE(d_grad.to_host(), (std::vector<double>{1.0 / 8, 2.0 / 8, -3.0 / 8}), 2e-5, 0.0);
}

TEST_CASE("softmax-CE: a label outside 0..classes-1 gives NaN for that row only", "[04.8]") {
  const int batch = 3, classes = 4;
  const std::vector<float> logits = random_vector(size_t(batch) * classes, 4901);
  DeviceBuffer<float> d_logits(logits), d_probs(12), d_loss(3), d_grad(12);
  DeviceBuffer<int> d_labels(std::vector<int>{1, classes, -1});  // row 0 valid, rows 1 and 2 not
  for (auto* b : {&d_probs, &d_loss, &d_grad}) b->poison();
  gemm_dense::softmax_cross_entropy_forward(d_logits.data(), d_labels.data(), d_probs.data(), d_loss.data(), batch,
                                            classes);
  gemm_dense::softmax_cross_entropy_backward(d_probs.data(), d_labels.data(), d_grad.data(), batch, classes);
  const std::vector<float> loss = d_loss.to_host(), grad = d_grad.to_host();
  CHECK(std::isfinite(loss[0]));
  CHECK(std::isnan(loss[1]));
  CHECK(std::isnan(loss[2]));
  for (int c = 0; c < classes; ++c) {
    CHECK(std::isfinite(grad[size_t(c)]));
    CHECK(std::isnan(grad[size_t(classes + c)]));
    CHECK(std::isnan(grad[size_t(2 * classes + c)]));
  }
}

TEST_CASE("softmax-CE: batch 0 launches nothing; bad sizes throw", "[04.8]") {
  REQUIRE_NOTHROW(gemm_dense::softmax_cross_entropy_forward(nullptr, nullptr, nullptr, nullptr, 0, 10));
  REQUIRE_NOTHROW(gemm_dense::softmax_cross_entropy_backward(nullptr, nullptr, nullptr, 0, 10));
  REQUIRE_THROWS_AS(gemm_dense::softmax_cross_entropy_forward(nullptr, nullptr, nullptr, nullptr, 2, 0), course::Error);
  REQUIRE_THROWS_AS(gemm_dense::softmax_cross_entropy_backward(nullptr, nullptr, nullptr, -1, 3), course::Error);
}
