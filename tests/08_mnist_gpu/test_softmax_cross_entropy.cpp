// Lesson 08, step 08.1: SoftmaxCrossEntropy::forward and ::backward (the loss object train_mnist
// uses, on device buffers) against lesson 01's softmax_cross_entropy_forward / _backward in
// double. See layer_test_support.hpp for what every layer test does (NaN everywhere a pass
// writes, rows past the batch).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/rng.hpp"
#include "host_layers.hpp"
#include "layer_test_support.hpp"
#include "softmax_cross_entropy.hpp"

using course::test::random_vector;
using course::test::to_double;

namespace {

struct Case {
  const char* name;
  int classes, max_batch, batch;
};

const Case kCases[] = {
    {"MNIST's 10 classes; batch 16 of 16", 10, 16, 16},
    {"10 classes; batch 5 of 16 (an epoch's last, smaller batch: the mean is over 5)", 10, 16, 5},
    {"3 classes; batch 1 of 3", 3, 3, 1},
    {"17 classes; batch 7 of 9", 17, 9, 7},
    {"1 class (p = 1, loss 0, gradient 0); batch 2 of 2", 1, 2, 2},
};

// ---- tolerance, as lesson 04 tests the same functions -------------------------------------------
// Probabilities and losses computed in float from the same float logits: expf and logf are
// within 2 ulp, the row sum adds `classes` terms (each rounding by FLT_EPSILON relative to the
// sum), then one division: course::float_sum_atol_rtol(classes + 8) as atol and as rtol covers
// that. The gradient (p - onehot) / batch inherits p's error, divided by batch. A wrong
// normalisation, the wrong label or a mean over max_batch instead of batch is off by far more.
double tolerance(int classes) { return course::float_sum_atol_rtol(classes + 8).atol; }

std::vector<int> random_labels(int batch, int classes, uint64_t seed) {
  course::Rng rng(seed, 3);
  std::vector<int> labels(static_cast<size_t>(batch));
  for (int& l : labels) l = rng.uniform_int(classes);
  return labels;
}

void check_loss(const Case& c, uint64_t seed) {
  INFO(c.name);
  COURSE_INPUT_SEED(seed);
  const size_t classes = size_t(c.classes), n = size_t(c.batch) * classes;
  // Logits in [-3, 3): probabilities from about 0.002 to 0.9, not all alike.
  const std::vector<float> logits = random_vector(n, seed, -3.0f, 3.0f);
  const std::vector<int> labels = random_labels(c.batch, c.classes, seed + 1);

  // Lesson 01 in double: the probabilities, the MEAN loss and its gradient; each row's loss
  // -log p[label] from the definition, log(sum exp(z - max)) - (z[label] - max).
  const std::vector<double> z = to_double(logits);
  std::vector<double> p_ref(n), dlogits_ref(n), loss_ref(size_t(c.batch));
  const double mean_ref =
      host_layers::softmax_cross_entropy_forward(z.data(), labels.data(), p_ref.data(), c.batch, c.classes);
  host_layers::softmax_cross_entropy_backward(p_ref.data(), labels.data(), dlogits_ref.data(), c.batch, c.classes);
  for (int b = 0; b < c.batch; ++b) {
    const double* row = z.data() + size_t(b) * classes;
    const double m = *std::max_element(row, row + classes);
    double s = 0.0;
    for (size_t k = 0; k < classes; ++k) s += std::exp(row[k] - m);
    loss_ref[size_t(b)] = std::log(s) - (row[labels[size_t(b)]] - m);
  }

  mnist_gpu::SoftmaxCrossEntropy loss(c.classes, c.max_batch);
  REQUIRE(loss.classes() == c.classes);
  layer_test::PassLog log;
  loss.set_observer(&log);
  const course::DeviceBuffer<float> d_logits = layer_test::upload_batch(logits, classes, c.max_batch);
  const course::DeviceBuffer<int> d_labels = layer_test::upload_labels(labels, c.max_batch);
  const course::Shape matrix = course::test::matrix("b", c.batch, "k", c.classes);
  const course::Shape rows = {{"b", size_t(c.batch)}};
  const double tol = tolerance(c.classes);

  layer_test::poison(loss.probs(), size_t(c.max_batch) * classes);
  layer_test::poison(loss.row_loss(), size_t(c.max_batch));
  loss.forward(d_logits.data(), d_labels.data(), c.batch);
  const std::vector<float> probs = layer_test::download_batch(loss.probs(), classes, c.batch, c.max_batch, "probs()");
  const std::vector<float> row_loss = layer_test::download_batch(loss.row_loss(), 1, c.batch, c.max_batch,
                                                                 "row_loss()");
  REQUIRE_TENSOR_CLOSE(probs, p_ref, matrix, tol, tol);
  REQUIRE_TENSOR_CLOSE(row_loss, loss_ref, rows, tol, tol);  // one loss per example, not the mean
  const double mean = std::accumulate(row_loss.begin(), row_loss.end(), 0.0) / c.batch;
  CHECK(mean == Approx(mean_ref).epsilon(tol).margin(tol));  // their mean is lesson 01's loss

  layer_test::poison(loss.logits_grad(), size_t(c.max_batch) * classes);
  loss.backward(d_labels.data(), c.batch);
  const std::vector<float> dlogits = layer_test::download_batch(loss.logits_grad(), classes, c.batch, c.max_batch,
                                                                "logits_grad()");
  REQUIRE_TENSOR_CLOSE(dlogits, dlogits_ref, matrix, tol, tol);  // (p - onehot) / batch
  REQUIRE(log.passes == std::vector<std::string>{"loss forward", "loss backward"});
}

}  // namespace

TEST_CASE("softmax-cross-entropy: probabilities, row losses and gradient equal lesson 01's in double", "[08.1]") {
  uint64_t seed = 8901;
  for (const Case& c : kCases) check_loss(c, seed += 10);
}

TEST_CASE("softmax-cross-entropy: a batch outside 1..max_batch throws before any work, in both passes", "[08.1]") {
  const Case& c = kCases[1];
  mnist_gpu::SoftmaxCrossEntropy loss(c.classes, c.max_batch);
  const size_t classes = size_t(c.classes);
  const course::DeviceBuffer<float> d_logits = layer_test::upload_batch({}, classes, c.max_batch + 1);
  const course::DeviceBuffer<int> d_labels = layer_test::upload_labels({}, c.max_batch + 1);
  layer_test::poison(loss.probs(), size_t(c.max_batch) * classes);
  layer_test::poison(loss.row_loss(), size_t(c.max_batch));
  layer_test::poison(loss.logits_grad(), size_t(c.max_batch) * classes);
  for (int batch : {0, -1, c.max_batch + 1}) {
    CAPTURE(batch);
    layer_test::require_batch_rejected([&] { loss.forward(d_logits.data(), d_labels.data(), batch); }, c.max_batch,
                                       "forward");
    layer_test::require_batch_rejected([&] { loss.backward(d_labels.data(), batch); }, c.max_batch, "backward");
  }
  layer_test::download_batch(loss.probs(), classes, 0, c.max_batch, "probs()");  // nothing written
  layer_test::download_batch(loss.row_loss(), 1, 0, c.max_batch, "row_loss()");
  layer_test::download_batch(loss.logits_grad(), classes, 0, c.max_batch, "logits_grad()");
}
