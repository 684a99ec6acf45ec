// Lesson 10: the Tensor Core convolutions inside lesson 09's fast network (TensorCoreConvs), and the
// network with its implicit-GEMM engine in TF32, against the same network in FP32 on the same batch:
// logits and every gradient.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "fast_network.hpp"
#include "tensor_core_convs.hpp"
#include "tf32_products.hpp"
#include "device_download.hpp"

using course::DeviceBuffer;
using host_training::Parameter;

namespace {

using course::test::download;

double largest(const std::vector<float>& v) {  // of the logits
  double m = 0;
  for (float x : v) m = std::max(m, double(std::fabs(x)));
  return m;
}

struct Batch {
  static constexpr int kSize = 24;
  DeviceBuffer<float> x{course::test::random_vector(size_t(kSize) * 28 * 28, 1091, 0.0f, 1.0f)};
  DeviceBuffer<int> labels{[] {
    std::vector<int> l(kSize);
    for (int b = 0; b < kSize; ++b) l[b] = (5 * b + 1) % 10;
    return l;
  }()};
};

// `net` after one forward_backward on the batch (its gradients poisoned first) against `ref`'s:
// logits element by element within `tol` of the largest logit (atol) + `tol` (rtol), each gradient
// tensor as a whole, ||got - ref|| <= tol ||ref|| (2-norms); and the logits must differ somewhere
// (else the other kernels did not run).
void compare_step(fast_training::FastNetwork& net, fast_training::FastNetwork& ref, const Batch& batch, double tol) {
  ref.forward_backward(batch.x.data(), batch.labels.data(), Batch::kSize);
  CUDA_CHECK(cudaMemset(net.parameters().grads(), 0xff, net.parameters().total() * sizeof(float)));
  net.forward_backward(batch.x.data(), batch.labels.data(), Batch::kSize);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> ref_logits = download(ref.logits(), size_t(Batch::kSize) * 10);
  const std::vector<float> logits = download(net.logits(), size_t(Batch::kSize) * 10);
  REQUIRE_ALL_CLOSE(logits, ref_logits, tol * largest(ref_logits), tol);
  REQUIRE(logits != ref_logits);
  const std::vector<Parameter> want = ref.parameters().download(), got = net.parameters().download();
  for (size_t t = 0; t < want.size(); ++t) {
    double diff = 0, norm = 0;
    for (size_t i = 0; i < want[t].grad.size(); ++i) {
      const double d = double(got[t].grad[i]) - want[t].grad[i];
      diff += d * d, norm += double(want[t].grad[i]) * want[t].grad[i];
    }
    const double relative = std::sqrt(diff / norm);
    CAPTURE(want[t].name, relative);
    REQUIRE(relative <= tol);  // NaN fails too
  }
}

}  // namespace

// BF16 keeps 8 significant bits: each product in a convolution is off by up to 2^-7 of |x||w|, and
// an output by up to 2^-7 sum |x||w|, a few times |y| here (inputs in [0, 1), Kaiming weights). The
// logits are compared element by element within 5 % of the largest logit (atol) + 5 % (rtol). The
// gradients are compared as whole tensors, ||got - ref|| <= 5 % of ||ref|| (2-norms): the BF16 error
// also flips a few max-pool decisions between near-equal inputs, and a flipped window moves single
// gradient entries by their own size (element bounds cannot hold there; the norm barely moves). A
// wrong layout, a missing bias or a wrong flip is off by the size of the values themselves. The
// network is the one train_mixed --precision bf16 trains: the dense layers and conv1's weight
// gradient in TF32 (whose error is 8 times smaller).
TEST_CASE("the fast network with Tensor Core convolutions matches its FP32 self within BF16's error", "[10-mixed]") {
  const host_training::ModelSpec spec = host_training::model_by_name("a");
  const std::vector<Parameter> init = host_training::init_parameters(spec, 1090);
  const Batch batch;
  fast_training::FastNetwork fp32(spec, init, Batch::kSize, nullptr, fast_training::ConvEngine::tiled);
  fast_training::FastNetwork mixed(spec, init, Batch::kSize, nullptr, fast_training::ConvEngine::tiled,
                                   std::make_shared<tensor_cores::TensorCoreConvs>(), &tensor_cores::tf32_products());
  REQUIRE(mixed.other_convs() == 2);             // conv1 by 10.5, conv2 by 10.6
  REQUIRE(mixed.other_weight_gradients() == 1);  // conv2's by 10.7
  compare_step(mixed, fp32, batch, 0.05);
}

// TF32 keeps 11 significant bits (u = 2^-11): 8 times BF16's precision, so 1 % where BF16 had 5 %.
TEST_CASE("the fast network with every product in TF32 matches its FP32 self within TF32's error", "[10-mixed]") {
  const host_training::ModelSpec spec = host_training::model_by_name("a");
  const std::vector<Parameter> init = host_training::init_parameters(spec, 1190);
  const Batch batch;
  fast_training::FastNetwork fp32(spec, init, Batch::kSize, nullptr, fast_training::ConvEngine::implicit_gemm);
  fast_training::FastNetwork tf32(spec, init, Batch::kSize, nullptr, fast_training::ConvEngine::implicit_gemm,
                                  nullptr, &tensor_cores::tf32_products());
  REQUIRE(&tf32.products() == &tensor_cores::tf32_products());
  compare_step(tf32, fp32, batch, 0.01);
}
