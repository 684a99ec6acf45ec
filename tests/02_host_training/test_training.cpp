// A short training run on a small synthetic data set (no files needed): the whole loop of
// train() - shuffle, gather, forward_backward, optimizer step - must lower the loss a lot.
#include <algorithm>

#include "course_test.hpp"
#include "host_training.hpp"

using namespace host_training;

namespace {
// 4 classes of 1 x 12 x 12 images: class k has a bright 4 x 4 patch in quadrant k (its place
// jittered by a pixel), on noise. Learnable by a tiny CNN in a few epochs, not by chance.
course::Dataset quadrant_patches(int n, uint64_t seed) {
  course::Rng rng(seed, 3);
  course::Dataset ds;
  ds.images = course::HostTensor({n, 1, 12, 12});
  for (int i = 0; i < n; ++i) {
    const int label = rng.uniform_int(4);
    float* img = ds.images.data() + size_t(i) * 144;
    for (int p = 0; p < 144; ++p) img[p] = rng.uniform(0.0f, 0.4f);
    const int top = (label / 2) * 6 + rng.uniform_int(3), left = (label % 2) * 6 + rng.uniform_int(3);
    for (int y = top; y < top + 4; ++y)
      for (int x = left; x < left + 4; ++x) img[y * 12 + x] = rng.uniform(0.8f, 1.0f);
    ds.labels.push_back(label);
  }
  return ds;
}

ModelSpec tiny_cnn() {
  ModelSpec m;
  m.name = "tiny";
  m.in_channels = 1, m.height = 12, m.width = 12, m.classes = 4;
  m.layers = {conv_layer(4, 3, 1), relu_layer(), maxpool_layer(2, 2), dense_layer(4)};
  return m;
}
}  // namespace

TEST_CASE("a short training run lowers the loss and learns the task", "[training]") {
  const std::string kind = GENERATE(values<std::string>({"sgd", "adam"}));
  CAPTURE(kind);
  const course::Dataset train_set = quadrant_patches(240, 11), test_set = quadrant_patches(80, 12);
  const ModelSpec spec = tiny_cnn();
  HostNetwork net(spec, init_parameters(spec, 7));
  OptimizerConfig config;
  config.kind = framework::optimizer_kind(kind);
  config.lr = kind == "sgd" ? 0.05f : 0.01f;
  Optimizer optimizer(config, net.parameters());

  const Evaluation before = evaluate(net, test_set, 32);
  const int batch = 16, n = train_set.count();
  std::vector<float> x(size_t(batch) * 144);
  std::vector<int> labels(static_cast<size_t>(batch));
  for (int epoch = 0; epoch < 3; ++epoch) {
    const std::vector<int> order = epoch_order(n, 7, epoch);
    for (int first = 0; first < n; first += batch) {
      const int count = std::min(batch, n - first);
      gather_batch(train_set, order, first, count, x.data(), labels.data());
      const float loss = net.forward_backward(x.data(), labels.data(), count);
      REQUIRE(std::isfinite(loss));
      optimizer.step(net.parameters());
    }
  }
  const Evaluation after = evaluate(net, test_set, 32);
  INFO("test loss " << before.loss << " -> " << after.loss << ", accuracy " << before.accuracy << " -> "
                    << after.accuracy);
  CHECK(optimizer.steps() == 3 * 15);
  // Chance level is a loss of log 4 = 1.39 and accuracy 0.25; the patches are easy to tell apart.
  CHECK(after.loss < 0.5 * before.loss);
  CHECK(after.accuracy >= 0.9);
}
