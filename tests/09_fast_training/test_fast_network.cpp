// Lesson 09, step 09.8: the fast network against lesson 08's GpuNetwork, from the same parameters
// on the same batch: logits, each example's loss and every gradient.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "fast_network.hpp"
#include "network.hpp"
#include "device_download.hpp"

using course::DeviceBuffer;
using host_training::Parameter;

namespace {

struct NetCase {
  const char* model;
  int height, width, batch, max_batch;
};

// The small CNN at MNIST's size, and model A on odd 15x15 images (both pools drop a row), with a
// batch below max_batch.
std::vector<NetCase> net_cases() { return {{"small", 28, 28, 9, 16}, {"a", 15, 15, 7, 8}, {"a", 28, 28, 4, 4}}; }

host_training::ModelSpec spec_of(const NetCase& c) {
  host_training::ModelSpec spec = host_training::model_by_name(c.model);
  spec.height = c.height, spec.width = c.width;
  return spec;
}

using course::test::download;

}  // namespace

// Both networks compute in float and sum in other orders, so values differ by rounding (a few
// ulps of the largest sums: about 1e-6 relative). A max-pool decision between two inputs closer
// than that could also differ; with these seeds none is (a mistake in the chaining is off by far
// more: a gradient sent to the wrong layer, a missing bias, a missing mask).
//   logits and row losses:  atol 1e-4 + rtol 1e-4
//   gradients:              atol 1e-4 * the tensor's largest entry + rtol 1e-3
TEST_CASE("FastNetwork's logits, losses and gradients equal lesson 08's GpuNetwork's", "[09.8]") {
  uint64_t seed = 1500;
  for (const NetCase& c : net_cases()) {
    const host_training::ModelSpec spec = spec_of(c);
    CAPTURE(c.model, c.height, c.batch);
    ++seed;
    COURSE_INPUT_SEED(seed);
    const std::vector<Parameter> init = host_training::init_parameters(spec, seed);
    // MNIST-like inputs in [0, 1) and labels of every class.
    const size_t per_example = size_t(spec.in_channels) * spec.height * spec.width;
    const std::vector<float> x = course::test::random_vector(size_t(c.batch) * per_example, seed + 1, 0.0f, 1.0f);
    std::vector<int> labels(c.batch);
    for (int b = 0; b < c.batch; ++b) labels[b] = int((seed + 3 * b) % spec.classes);
    DeviceBuffer<float> d_x(x);
    DeviceBuffer<int> d_labels(labels);

    mnist_gpu::GpuNetwork reference(spec, init, c.max_batch, mnist_gpu::ConvAlgorithm::im2col);
    reference.forward_backward(d_x.data(), d_labels.data(), c.batch);
    const std::vector<float> ref_logits = download(reference.logits(), size_t(c.batch) * spec.classes);
    const std::vector<float> ref_loss = download(reference.loss().row_loss(), size_t(c.batch));
    const std::vector<Parameter> ref_grads = reference.parameters().download();

    fast_training::FastNetwork net(spec, init, c.max_batch);
    // Stale gradients full of NaN: forward_backward must overwrite every one.
    CUDA_CHECK(cudaMemset(net.parameters().grads(), 0xff, net.parameters().total() * sizeof(float)));
    net.forward_backward(d_x.data(), d_labels.data(), c.batch);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> logits = download(net.logits(), size_t(c.batch) * spec.classes);
    const std::vector<float> loss = download(net.row_loss(), size_t(c.batch));
    REQUIRE_TENSOR_CLOSE(logits, ref_logits, course::test::matrix("b", c.batch, "c", spec.classes), 1e-4, 1e-4);
    REQUIRE_TENSOR_CLOSE(loss, ref_loss, course::test::matrix("b", c.batch, "-", 1), 1e-4, 1e-4);
    const std::vector<Parameter> grads = net.parameters().download();
    REQUIRE(grads.size() == ref_grads.size());
    for (size_t t = 0; t < grads.size(); ++t) {
      CAPTURE(grads[t].name);
      double largest = 0;
      for (float g : ref_grads[t].grad) largest = std::max(largest, double(std::fabs(g)));
      REQUIRE_ALL_CLOSE(grads[t].grad, ref_grads[t].grad, 1e-4 * largest, 1e-3);
    }
  }
}

TEST_CASE("FastNetwork: a batch outside 1..max_batch throws; an unsupported model is refused", "[09.8]") {
  const host_training::ModelSpec spec = host_training::model_by_name("small");
  fast_training::FastNetwork net(spec, host_training::init_parameters(spec, 1), 4);
  REQUIRE_THROWS_AS(net.forward(nullptr, 0), course::Error);
  REQUIRE_THROWS_AS(net.forward_backward(nullptr, nullptr, 5), course::Error);
  host_training::ModelSpec odd = spec;
  odd.layers = {host_training::conv_layer(4, 3, 1), host_training::maxpool_layer(2, 2),
                host_training::dense_layer(10)};  // no ReLU between conv and pool
  REQUIRE_THROWS_AS(fast_training::FastNetwork(odd, host_training::init_parameters(odd, 1), 4), course::Error);
}

// Lesson 13 overlaps the all-reduce of each layer's gradients with the rest of the backward pass,
// so the network must say when each layer's dW and dbias are written: the given helpers
// (conv_backward_weight, dense_backward_weight) call the hook; a pass that launches 09.7's kernels
// directly leaves it silent. Each report copies the layer's gradients on the network's stream
// right then: every copy must already hold the final values (the stream runs in order).
TEST_CASE("FastNetwork reports each layer's gradients once, in backward order, once they are written", "[09.8]") {
  const host_training::ModelSpec spec = spec_of({"a", 15, 15, 5, 8});
  const std::vector<Parameter> init = host_training::init_parameters(spec, 1601);
  const size_t per_example = size_t(spec.in_channels) * spec.height * spec.width;
  DeviceBuffer<float> d_x(course::test::random_vector(5 * per_example, 1602, 0.0f, 1.0f));
  DeviceBuffer<int> d_labels(std::vector<int>{3, 1, 4, 1, 5});
  fast_training::FastNetwork net(spec, init, 8);
  framework::ParameterStore& p = net.parameters();
  CUDA_CHECK(cudaMemset(p.grads(), 0xff, p.total() * sizeof(float)));
  DeviceBuffer<float> snapshot(p.total());
  CUDA_CHECK(cudaMemset(snapshot.data(), 0xff, p.total() * sizeof(float)));
  std::vector<size_t> reported;
  net.set_gradient_hook([&](size_t weight) {
    reported.push_back(weight);
    const size_t first = p.offset(weight), end = p.offset(weight + 1) + p.size(weight + 1);
    CUDA_CHECK(cudaMemcpyAsync(snapshot.data() + first, p.grads() + first, (end - first) * sizeof(float),
                               cudaMemcpyDeviceToDevice, net.stream()));
  });
  net.forward_backward(d_x.data(), d_labels.data(), 5);
  CUDA_CHECK(cudaDeviceSynchronize());
  // Model A: conv1, conv2, fc1, fc2 are the tensors 0, 2, 4, 6 (each weight followed by its bias).
  REQUIRE(reported == std::vector<size_t>{6, 4, 2, 0});
  const std::vector<Parameter> grads = p.download();
  for (size_t t = 0; t < p.tensors(); ++t) {
    CAPTURE(p.name(t));
    std::vector<float> copy(p.size(t));
    CUDA_CHECK(cudaMemcpy(copy.data(), snapshot.data() + p.offset(t), copy.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    REQUIRE_ALL_CLOSE(copy, grads[t].grad, 0.0, 0.0);  // the same bits: nothing wrote them later
  }
}
