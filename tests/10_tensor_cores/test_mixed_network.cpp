// Lesson 10: the Tensor Core convolutions inside lesson 09's fast network (TensorCoreConvs), against
// the same network in FP32 on the same batch: logits, row losses and every gradient.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "fast_network.hpp"
#include "tensor_core_convs.hpp"

using course::DeviceBuffer;
using host_training::Parameter;

namespace {

std::vector<float> download(const float* device, size_t n) {
  std::vector<float> host(n);
  CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

double largest(const std::vector<float>& v) {  // of the logits
  double m = 0;
  for (float x : v) m = std::max(m, double(std::fabs(x)));
  return m;
}

}  // namespace

// BF16 keeps 8 significant bits: each product in a convolution is off by up to 2^-7 of |x||w|, and
// an output by up to 2^-7 sum |x||w|, a few times |y| here (inputs in [0, 1), Kaiming weights). The
// logits are compared element by element within 5 % of the largest logit (atol) + 5 % (rtol). The
// gradients are compared as whole tensors, ||got - ref|| <= 5 % of ||ref|| (2-norms): the BF16 error
// also flips a few max-pool decisions between near-equal inputs, and a flipped window moves single
// gradient entries by their own size (element bounds cannot hold there; the norm barely moves). A
// wrong layout, a missing bias or a wrong flip is off by the size of the values themselves. And the
// logits must differ from FP32 somewhere: otherwise the Tensor Core path did not run.
TEST_CASE("the fast network with Tensor Core convolutions matches its FP32 self within BF16's error", "[10-mixed]") {
  const host_training::ModelSpec spec = host_training::model_by_name("a");
  const int batch = 24;
  const std::vector<Parameter> init = host_training::init_parameters(spec, 1090);
  DeviceBuffer<float> x(course::test::random_vector(size_t(batch) * 28 * 28, 1091, 0.0f, 1.0f));
  std::vector<int> labels(batch);
  for (int b = 0; b < batch; ++b) labels[b] = (5 * b + 1) % 10;
  DeviceBuffer<int> d_labels(labels);

  fast_training::FastNetwork fp32(spec, init, batch, nullptr, fast_training::ConvEngine::tiled);
  fp32.forward_backward(x.data(), d_labels.data(), batch);
  fast_training::FastNetwork mixed(spec, init, batch, nullptr, fast_training::ConvEngine::tiled,
                                   std::make_shared<tensor_cores::TensorCoreConvs>());
  REQUIRE(mixed.other_convs() == 2);             // conv1 by 10.5, conv2 by 10.6
  REQUIRE(mixed.other_weight_gradients() == 1);  // conv2's by 10.7
  CUDA_CHECK(cudaMemset(mixed.parameters().grads(), 0xff, mixed.parameters().total() * sizeof(float)));
  mixed.forward_backward(x.data(), d_labels.data(), batch);
  CUDA_CHECK(cudaDeviceSynchronize());

  const std::vector<float> ref_logits = download(fp32.logits(), size_t(batch) * 10);
  const std::vector<float> logits = download(mixed.logits(), size_t(batch) * 10);
  REQUIRE_ALL_CLOSE(logits, ref_logits, 0.05 * largest(ref_logits), 0.05);
  REQUIRE(logits != ref_logits);
  const std::vector<Parameter> ref = fp32.parameters().download(), got = mixed.parameters().download();
  for (size_t t = 0; t < ref.size(); ++t) {
    double diff = 0, norm = 0;
    for (size_t i = 0; i < ref[t].grad.size(); ++i) {
      const double d = double(got[t].grad[i]) - ref[t].grad[i];
      diff += d * d, norm += double(ref[t].grad[i]) * ref[t].grad[i];
    }
    const double relative = std::sqrt(diff / norm);
    CAPTURE(ref[t].name, relative);
    REQUIRE(relative <= 0.05);  // NaN fails too
  }
}
