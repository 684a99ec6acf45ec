// Lesson 09 (given): the quick look at your 09.10, 09.11 and 09.13 before train_fast trains
// (your_steps_check.hpp).
#include "your_steps_check.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/step_output.hpp"
#include "fast_training.hpp"
#include "host_layers.hpp"

namespace fast_training {

namespace {

using course::DeviceBuffer;
using course::random_uniform;
using course::unwritten_floats;

std::vector<double> wide(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

// FP32 sums of a few hundred products against double: a few 1e-5 off; a wrong formula far more.
void expect(const char* step, const char* function, const char* file, const char* output,
            const std::vector<float>& got, const std::vector<double>& exact) {
  course::expect_step_output({step, function, file, output}, got, exact, 1e-3, 1e-3);
}

ConvShape shape(int batch, int c, int hw, int o, int k, int pad) {
  ConvShape s;
  s.batch = batch, s.in_channels = c, s.height = s.width = hw, s.out_channels = o;
  s.kernel_h = s.kernel_w = k, s.pad = pad, s.stride = 1;
  return s;
}

}  // namespace

// 09.10 and 09.11 on model A's conv2 (32 -> 64 channels, 5 x 5, 14 x 14).
void check_tiled_steps() {
  const ConvShape s = shape(2, 32, 14, 64, 5, 2);
  const std::vector<float> x = random_uniform(s.input_size(), 1, -1.f, 1.f);
  const std::vector<float> W = random_uniform(s.weight_size(), 2, -.1f, .1f);
  const std::vector<float> b = random_uniform(size_t(s.out_channels), 3, -.1f, .1f);
  const std::vector<float> dy = random_uniform(s.output_size(), 4, -1.f, 1.f);
  std::vector<double> y(s.output_size()), dx(s.input_size()), dW(s.weight_size()), db(size_t(s.out_channels));
  host_layers::conv2d_forward<double>(s, wide(x).data(), wide(W).data(), wide(b).data(), y.data());
  host_layers::conv2d_backward<double>(s, wide(x).data(), wide(W).data(), wide(dy).data(), dx.data(), dW.data(), db.data());

  DeviceBuffer<float> dev_x(x), dev_W(W), dev_b(b), dev_dy(dy), tiled(conv_tiled_weights_size(s));
  conv_tiled_weights(s, dev_W.data(), tiled.data());
  DeviceBuffer<float> out(unwritten_floats(y.size())), in_grad(unwritten_floats(dx.size()));
  conv2d_forward_tiled(s, dev_x.data(), tiled.data(), dev_b.data(), out.data());
  expect("09.10", "conv2d_forward_tiled", "exercises/conv_tiled.cu", "y", out.to_host(), y);
  conv2d_backward_data_tiled(s, tiled.data(), dev_dy.data(), in_grad.data());
  expect("09.10", "conv2d_backward_data_tiled", "exercises/conv_tiled.cu", "dx", in_grad.to_host(), dx);

  DeviceBuffer<float> work(conv_tiled_dw_workspace_floats(s)), w_grad(unwritten_floats(dW.size())),
      b_grad(unwritten_floats(db.size()));
  conv2d_backward_weight_tiled(s, dev_x.data(), dev_dy.data(), w_grad.data(), b_grad.data(), work.data());
  expect("09.11", "conv2d_backward_weight_tiled", "exercises/conv_tiled_weight.cu", "dW", w_grad.to_host(), dW);
  expect("09.11", "conv2d_backward_weight_tiled", "exercises/conv_tiled_weight.cu", "dbias", b_grad.to_host(), db);
}

// 09.13 on model A's conv1 (1 -> 32 channels, 5 x 5, 28 x 28) with its ReLU and 2 x 2 pool.
void check_thin_step() {
  const ConvShape c = shape(2, 1, 28, 32, 5, 2);
  host_layers::PoolShape p;
  p.batch = c.batch, p.channels = c.out_channels, p.height = c.out_h(), p.width = c.out_w(), p.window = p.stride = 2;
  const std::vector<float> x = random_uniform(c.input_size(), 5, 0.f, 1.f);
  const std::vector<float> W = random_uniform(c.weight_size(), 6, -.3f, .3f);
  const std::vector<float> b = random_uniform(size_t(c.out_channels), 7, -.1f, .1f);
  const std::vector<float> dp = random_uniform(p.output_size(), 8, -1.f, 1.f);
  // Lesson 01's layers in double: conv, ReLU, pool.
  std::vector<double> y(c.output_size()), r(y.size()), pooled(p.output_size());
  std::vector<int> at(pooled.size());
  host_layers::conv2d_forward<double>(c, wide(x).data(), wide(W).data(), wide(b).data(), y.data());
  host_layers::relu_forward<double>(y.data(), r.data(), y.size());
  host_layers::maxpool_forward<double>(p, r.data(), pooled.data(), at.data());

  DeviceBuffer<float> dev_x(x), dev_W(W), dev_b(b), dev_dp(dp), out(unwritten_floats(pooled.size()));
  DeviceBuffer<int> argmax(std::vector<int>(pooled.size(), -2));  // -2: no winner written
  thin_conv_relu_maxpool(c, p, dev_x.data(), dev_W.data(), dev_b.data(), out.data(), argmax.data());
  expect("09.13", "thin_conv_relu_maxpool", "exercises/conv_thin.cu", "pooled", out.to_host(), pooled);
  // The gradient flows through YOUR winners (two near-equal values may pick either): each must be a
  // place of the conv's output whose value is the pooled one, or -1 where the ReLU stopped it.
  const std::vector<int> winners = argmax.to_host();
  std::vector<double> dyc(y.size(), 0.0), winner_values(pooled.size());
  for (size_t q = 0; q < winners.size(); ++q) {
    const int a = winners[q];
    if (a < -1 || a >= int(y.size()))
      throw course::Error("step 09.13 is not right yet: thin_conv_relu_maxpool gives argmax[" + std::to_string(q) +
                          "] = " + std::to_string(a) + ", not a place of the conv's output nor -1 " +
                          "(exercises/conv_thin.cu; run check_09.13 for the details)");
    winner_values[q] = a < 0 ? 0.0 : r[size_t(a)];
    if (a >= 0) dyc[size_t(a)] += double(dp[q]);
  }
  expect("09.13", "thin_conv_relu_maxpool", "exercises/conv_thin.cu", "argmax (the ReLU'd conv there)",
         out.to_host(), winner_values);
  std::vector<double> dx(c.input_size()), dW(c.weight_size()), db(size_t(c.out_channels));
  host_layers::conv2d_backward<double>(c, wide(x).data(), wide(W).data(), dyc.data(), dx.data(), dW.data(), db.data());
  DeviceBuffer<float> work(thin_conv_dw_workspace_floats(c)), w_grad(unwritten_floats(dW.size())),
      b_grad(unwritten_floats(db.size()));
  thin_conv_backward_weight(c, p, dev_x.data(), argmax.data(), dev_dp.data(), w_grad.data(), b_grad.data(), work.data());
  expect("09.13", "thin_conv_backward_weight", "exercises/conv_thin.cu", "dW", w_grad.to_host(), dW);
  expect("09.13", "thin_conv_backward_weight", "exercises/conv_thin.cu", "dbias", b_grad.to_host(), db);
}

}  // namespace fast_training
