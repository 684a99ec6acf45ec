#include "tiny_net.hpp"

#include <cmath>

#include "course/rng.hpp"

namespace lesson01 {

using namespace host_layers;

TinyNet::TinyNet(int batch, int height, int width, uint64_t seed) {
  conv_.batch = batch, conv_.in_channels = 1, conv_.height = height, conv_.width = width;
  conv_.out_channels = kChannels, conv_.kernel_h = kKernel, conv_.kernel_w = kKernel;
  conv_.stride = 1, conv_.pad = 0;
  pool_.batch = batch, pool_.channels = kChannels, pool_.height = conv_.out_h(), pool_.width = conv_.out_w();
  pool_.window = kPool, pool_.stride = kPool;
  features_ = kChannels * pool_.out_h() * pool_.out_w();

  // Normal weights with variance 2 / fan_in (He) for the ReLU layer, 1 / fan_in for the
  // last one: the logits start small, so the loss starts near log(10).
  course::Rng rng(seed);
  auto normal = [&](std::vector<double>& v, size_t n, double stddev) {
    v.resize(n);
    for (double& x : v) x = rng.normal(0.0, stddev);
  };
  normal(conv_w_, conv_.weight_size(), std::sqrt(2.0 / (kKernel * kKernel)));
  normal(conv_b_, kChannels, 0.1);
  normal(dense_w_, size_t(kClasses) * features_, std::sqrt(1.0 / features_));
  normal(dense_b_, kClasses, 0.1);
  grad_conv_w_.resize(conv_w_.size());
  grad_conv_b_.resize(conv_b_.size());
  grad_dense_w_.resize(dense_w_.size());
  grad_dense_b_.resize(dense_b_.size());

  conv_out_.resize(conv_.output_size());
  relu_out_.resize(conv_.output_size());
  pool_out_.resize(pool_.output_size());
  argmax_.resize(pool_.output_size());
  logits_.resize(size_t(batch) * kClasses);
  probs_.resize(logits_.size());
}

double TinyNet::forward(const std::vector<double>& images, const std::vector<int>& labels) {
  conv2d_forward(conv_, images.data(), conv_w_.data(), conv_b_.data(), conv_out_.data());
  relu_forward(conv_out_.data(), relu_out_.data(), conv_out_.size());
  maxpool_forward(pool_, relu_out_.data(), pool_out_.data(), argmax_.data());
  // pool_out_ is [N, C, h, w]; each image's C*h*w values are contiguous: a [N x features] matrix.
  dense_forward(pool_out_.data(), dense_w_.data(), dense_b_.data(), logits_.data(), conv_.batch, features_,
                kClasses);
  return softmax_cross_entropy_forward(logits_.data(), labels.data(), probs_.data(), conv_.batch, kClasses);
}

void TinyNet::backward(const std::vector<double>& images, const std::vector<int>& labels) {
  std::vector<double> dlogits(logits_.size()), dpool(pool_out_.size()), drelu(relu_out_.size()),
      dconv(conv_out_.size()), dimages(images.size());
  softmax_cross_entropy_backward(probs_.data(), labels.data(), dlogits.data(), conv_.batch, kClasses);
  dense_backward(pool_out_.data(), dense_w_.data(), dlogits.data(), dpool.data(), grad_dense_w_.data(),
                 grad_dense_b_.data(), conv_.batch, features_, kClasses);
  maxpool_backward(pool_, argmax_.data(), dpool.data(), drelu.data());
  relu_backward(conv_out_.data(), drelu.data(), dconv.data(), dconv.size());
  conv2d_backward(conv_, images.data(), conv_w_.data(), dconv.data(), dimages.data(), grad_conv_w_.data(),
                  grad_conv_b_.data());
}

std::vector<ParamTensor> TinyNet::parameters() {
  return {
      {"conv.weight", {kChannels, 1, kKernel, kKernel}, &conv_w_, &grad_conv_w_},
      {"conv.bias", {kChannels}, &conv_b_, &grad_conv_b_},
      {"dense.weight", {kClasses, features_}, &dense_w_, &grad_dense_w_},
      {"dense.bias", {kClasses}, &dense_b_, &grad_dense_b_},
  };
}

std::string TinyNet::describe() const {
  auto dims = [](std::initializer_list<int> d) {
    std::string s = "[";
    for (int v : d) s += (s.size() > 1 ? "," : "") + std::to_string(v);
    return s + "]";
  };
  const int N = conv_.batch;
  return "image " + dims({N, 1, conv_.height, conv_.width}) + " -> conv 3x3 " +
         dims({N, kChannels, conv_.out_h(), conv_.out_w()}) + " -> relu -> maxpool 2x2 " +
         dims({N, kChannels, pool_.out_h(), pool_.out_w()}) + " -> dense " + dims({N, kClasses}) +
         " -> softmax-CE";
}

}  // namespace lesson01
