// Step 02.2: HostNetwork::forward_backward. The loss and probabilities are compared with a
// double forward pass built from lesson 01's double layers, and every checked gradient with
// a central finite difference of that double loss.
#include <algorithm>
#include <cmath>

#include "course_test.hpp"
#include "host_training.hpp"
#include "reference_network.hpp"

using namespace host_training;

namespace {

// Two convs (the second strided), pooling, three dense layers: 2 x 7 x 6 input, 4 classes.
ModelSpec two_convs() {
  ModelSpec m;
  m.name = "two_convs";
  m.in_channels = 2, m.height = 7, m.width = 6, m.classes = 4;
  m.layers = {conv_layer(4, 3, 1), relu_layer(),   maxpool_layer(2, 2), conv_layer(3, 3, 1, 2), relu_layer(),
              dense_layer(5),      relu_layer(),   dense_layer(4)};
  return m;
}

// Overlapping max-pool windows (3 x 3, stride 1) and ReLU after the pool: 1 x 5 x 5 input, 3 classes.
ModelSpec overlapping_pool() {
  ModelSpec m;
  m.name = "overlapping_pool";
  m.in_channels = 1, m.height = 5, m.width = 5, m.classes = 3;
  m.layers = {conv_layer(2, 2), maxpool_layer(3, 1), relu_layer(), dense_layer(3)};
  return m;
}

// Runs forward_backward and checks loss, probabilities and gradients. At most `max_checks`
// elements per parameter are finite-differenced (evenly spread), to keep the big model fast.
void check_training_pass(const ModelSpec& spec, int batch, uint64_t seed, size_t max_checks) {
  CAPTURE(spec.name, batch);
  COURSE_INPUT_SEED(seed);
  std::vector<Parameter> params = init_parameters(spec, seed);
  course::Rng rng(seed, 7);
  for (Parameter& p : params)  // non-zero biases, so that their gradients and the ReLU masks vary
    if (p.shape.size() == 1) rng.fill_uniform(p.value, -0.2f, 0.2f);
  HostNetwork net(spec, params);

  const size_t in_size = size_t(spec.in_channels) * spec.height * spec.width;
  auto make_labels = [&](int n) {
    std::vector<int> labels(static_cast<size_t>(n));
    for (int& l : labels) l = rng.uniform_int(spec.classes);
    return labels;
  };
  // A first pass on other data with another batch size: the pass under test must resize its
  // buffers and overwrite (not add to) the gradients.
  const std::vector<float> x_other = course::test::random_vector(size_t(batch + 2) * in_size, seed + 1, 0.0f, 1.0f);
  const std::vector<int> labels_other = make_labels(batch + 2);
  net.forward_backward(x_other.data(), labels_other.data(), batch + 2);

  const std::vector<float> x = course::test::random_vector(size_t(batch) * in_size, seed + 2, -1.0f, 1.0f);
  const std::vector<int> labels = make_labels(batch);
  for (Parameter& p : net.parameters()) p.grad = course::test::nan_vector(p.value.size());
  const float loss = net.forward_backward(x.data(), labels.data(), batch);

  std::vector<std::vector<double>> w = test02::to_double(params);
  const std::vector<double> xd = course::test::to_double(x);
  std::vector<double> probs_ref;
  const double loss_ref = test02::reference_loss(spec, w, xd, labels, batch, &probs_ref);
  // The loss sums a few hundred float products per logit: 1e-5 relative is ~100 float roundings.
  CHECK(double(loss) == Approx(loss_ref).epsilon(1e-5).margin(1e-6));
  // Same reason for the probabilities, which lie in [0, 1].
  REQUIRE(net.probabilities().size() == probs_ref.size());
  REQUIRE_ALL_CLOSE(net.probabilities(), probs_ref, 1e-6, 1e-5);

  for (size_t k = 0; k < params.size(); ++k) {
    const Parameter& p = net.parameters()[k];
    INFO("parameter " << p.name);
    REQUIRE(p.grad.size() == p.value.size());
    REQUIRE(course::first_nonfinite(p.grad.data(), p.grad.size()) == -1);  // every gradient written
    const size_t n = p.value.size(), checks = std::min(n, max_checks);
    std::vector<float> got;
    std::vector<double> numeric;
    for (size_t c = 0; c < checks; ++c) {
      const size_t i = c * n / checks;
      got.push_back(p.grad[i]);
      numeric.push_back(course::test::numeric_derivative(
          [&] { return test02::reference_loss(spec, w, xd, labels, batch); }, w[k], i, 1e-6));
    }
    // Central differences in double with eps 1e-6 are exact to ~1e-9 here; the gradients
    // themselves are float sums of up to ~2000 products (fc1 of the small CNN): measured errors
    // stay below 5e-7. 5e-6 + 1e-4 |ref| is a 10x margin over that, while any wrong term fails
    // (gradients are 1e-3 .. 1e-1 in size). Random inputs keep every ReLU and max-pool input far
    // from a kink (a tie or 0) compared with eps.
    REQUIRE_ALL_CLOSE(got, numeric, 5e-6, 1e-4);
  }
}

}  // namespace

TEST_CASE("forward_backward: two convs, strided conv, batch 3", "[02.2]") {
  check_training_pass(two_convs(), 3, 31, 1000);
}

TEST_CASE("forward_backward: overlapping pool windows, batch 1 and 4", "[02.2]") {
  const int batch = GENERATE(values({1, 4}));
  check_training_pass(overlapping_pool(), batch, 57, 1000);
}

TEST_CASE("forward_backward: the small CNN of the trainer, batch 2 (sampled gradients)", "[02.2]") {
  check_training_pass(small_cnn(), 2, 5, 24);
}
