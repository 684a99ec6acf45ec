// Step 02.4: evaluate on a tiny data set whose results are worked out by hand.
#include <cmath>

#include "course_test.hpp"
#include "host_training.hpp"

using namespace host_training;

namespace {
// A network whose logits ARE its input: one dense layer 10 -> 10 with W = identity, bias 0.
HostNetwork identity_network() {
  ModelSpec spec;
  spec.name = "identity";
  spec.in_channels = 10, spec.height = 1, spec.width = 1, spec.classes = 10;
  spec.layers = {dense_layer(10)};
  std::vector<Parameter> params = init_parameters(spec, 1);
  std::fill(params[0].value.begin(), params[0].value.end(), 0.0f);
  for (int k = 0; k < 10; ++k) params[0].value[size_t(k) * 10 + k] = 1.0f;
  return HostNetwork(spec, params);
}

// Five examples (logits = the 10 values; all 0 except one 2):
//   0: 2 at class 3, label 3 -> predicted 3, loss log(e^2 + 9) - 2 = 0.7966138
//   1: 2 at class 7, label 1 -> predicted 7, loss log(e^2 + 9) - 0 = 2.7966138
//   2: 2 at class 0, label 0 -> predicted 0, loss 0.7966138
//   3: all 0,        label 5 -> predicted 0 (a tie: the first wins), loss log(10) = 2.3025851
//   4: 2 at class 9, label 9 -> predicted 9, loss 0.7966138
// mean loss = (3 * 0.7966138 + 2.7966138 + 2.3025851) / 5 = 1.4978081; accuracy 3/5.
course::Dataset hand_made() {
  course::Dataset ds;
  ds.images = course::HostTensor({5, 10, 1, 1});
  const int hot[5] = {3, 7, 0, -1, 9};
  for (int i = 0; i < 5; ++i)
    if (hot[i] >= 0) ds.images[size_t(i) * 10 + size_t(hot[i])] = 2.0f;
  ds.labels = {3, 1, 0, 5, 9};
  return ds;
}
}  // namespace

TEST_CASE("evaluate: loss, accuracy, confusion and predictions by hand, any batch size", "[02.4]") {
  HostNetwork net = identity_network();
  const course::Dataset ds = hand_made();
  const int batch = GENERATE(values({1, 2, 3, 5, 8}));  // 2 and 3 leave a smaller last batch
  CAPTURE(batch);
  const Evaluation e = evaluate(net, ds, batch);
  // float softmax of values <= 2: 1e-6 relative.
  CHECK(e.loss == Approx(1.4978080594).epsilon(1e-6));
  CHECK(e.accuracy == Approx(0.6).epsilon(1e-12));
  REQUIRE(e.predictions == (std::vector<int>{3, 7, 0, 0, 9}));
  std::vector<int> confusion(100, 0);
  confusion[3 * 10 + 3] = 1, confusion[1 * 10 + 7] = 1, confusion[0 * 10 + 0] = 1, confusion[5 * 10 + 0] = 1,
  confusion[9 * 10 + 9] = 1;
  REQUIRE(e.confusion == confusion);
}

TEST_CASE("evaluate: all correct gives accuracy 1 and a diagonal confusion matrix", "[02.4]") {
  HostNetwork net = identity_network();
  course::Dataset ds;
  ds.images = course::HostTensor({17, 10, 1, 1});
  for (int i = 0; i < 17; ++i) {
    ds.images[size_t(i) * 10 + size_t(i % 10)] = 1.0f + 0.1f * float(i);
    ds.labels.push_back(i % 10);
  }
  const Evaluation e = evaluate(net, ds, 4);
  CHECK(e.accuracy == Approx(1.0));
  // Example i: logit a = 1 + 0.1 i at its label, 0 elsewhere: loss log(e^a + 9) - a.
  double expected = 0.0;
  for (int i = 0; i < 17; ++i) {
    const double a = double(1.0f + 0.1f * float(i));
    expected += (std::log(std::exp(a) + 9.0) - a) / 17.0;
  }
  CHECK(e.loss == Approx(expected).epsilon(1e-6));  // float softmax: 1e-6 relative
  int diagonal = 0, total = 0;
  for (int r = 0; r < 10; ++r)
    for (int c = 0; c < 10; ++c) {
      total += e.confusion[size_t(r) * 10 + c];
      if (r == c) diagonal += e.confusion[size_t(r) * 10 + c];
    }
  CHECK(total == 17);
  CHECK(diagonal == 17);
}
