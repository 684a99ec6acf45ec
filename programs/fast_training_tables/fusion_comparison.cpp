// Lesson 09's tables (a program above the lessons): the fusion table of the program (fusion_comparison.hpp).
#include "fusion_comparison.hpp"

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/timer.hpp"
#include "fast_training.hpp"
#include "first_kernels.hpp"
#include "gemm_dense.hpp"
#include "pooling.hpp"

namespace lesson09 {

namespace {

using course::DeviceBuffer;

double median_ms(const std::function<void()>& fn, int warmup, int repeats) {
  return course::time_gpu(fn, warmup, repeats).median_ms;
}

void print_row(const std::string& what, const std::string& separate, double separate_ms, const std::string& fused,
               double fused_ms) {
  std::printf("| %s | %s | %.4f | %s | %.4f | %.2fx |\n", what.c_str(), separate.c_str(), separate_ms, fused.c_str(),
              fused_ms, separate_ms / fused_ms);
}

// ReLU, then max-pool (lesson 03, lesson 06) against 09.5, forward and backward, on a conv's output.
void relu_pool(const char* name, const host_layers::PoolShape& s, int warmup, int repeats) {
  const size_t in = s.input_size(), out = s.output_size();
  DeviceBuffer<float> x(course::random_floats(in, 51)), dy(course::random_floats(out, 52));
  DeviceBuffer<float> relu_out(in), y(out), d_relu(in), dx(in), y2(out), dx2(in);
  DeviceBuffer<int> argmax(out), argmax2(out);
  auto separate_forward = [&] {
    first_kernels::relu_forward(x.data(), relu_out.data(), in);
    pooling::maxpool_forward_argmax(s, relu_out.data(), y.data(), argmax.data());
  };
  auto separate_backward = [&] {
    pooling::maxpool_backward_argmax(s, argmax.data(), dy.data(), d_relu.data());
    first_kernels::relu_backward(x.data(), d_relu.data(), dx.data(), in);
  };
  auto fused_forward = [&] { fast_training::relu_maxpool_forward(s, x.data(), y2.data(), argmax2.data()); };
  auto fused_backward = [&] { fast_training::relu_maxpool_backward(s, argmax2.data(), dy.data(), dx2.data()); };
  for (auto* buf : {&y, &dx, &y2, &dx2}) buf->poison();
  separate_forward(), separate_backward(), fused_forward(), fused_backward();
  CUDA_CHECK(cudaDeviceSynchronize());
  // A maximum and a sum of at most a few dy: the two paths must agree to the last bit but for
  // the order of those few additions.
  course::validate(std::string(name) + " fused y", y2.to_host(), y.to_host(), {0.0, 0.0});
  course::validate(std::string(name) + " fused dx", dx2.to_host(), dx.to_host(), course::float_sum_tolerance(8));
  print_row(std::string(name) + " forward", "relu + maxpool", median_ms(separate_forward, warmup, repeats),
            "relu_maxpool", median_ms(fused_forward, warmup, repeats));
  print_row(std::string(name) + " backward", "maxpool + relu", median_ms(separate_backward, warmup, repeats),
            "relu_maxpool_backward", median_ms(fused_backward, warmup, repeats));
}

// Lesson 04's softmax-CE forward, then backward, against 09.6.
void softmax(int batch, int classes, int warmup, int repeats) {
  std::vector<int> labels(batch);
  for (int b = 0; b < batch; ++b) labels[b] = b % classes;
  DeviceBuffer<float> z(course::random_floats(size_t(batch) * classes, 61, 0, -4.0f, 4.0f));
  DeviceBuffer<int> d_labels(labels);
  DeviceBuffer<float> probs(size_t(batch) * classes), loss(batch), dz(size_t(batch) * classes), loss2(batch),
      dz2(size_t(batch) * classes);
  auto separate = [&] {
    gemm_dense::softmax_cross_entropy_forward(z.data(), d_labels.data(), probs.data(), loss.data(), batch, classes);
    gemm_dense::softmax_cross_entropy_backward(probs.data(), d_labels.data(), dz.data(), batch, classes);
  };
  auto fused = [&] {
    fast_training::softmax_cross_entropy_fused(z.data(), d_labels.data(), loss2.data(), dz2.data(), batch, classes);
  };
  for (auto* buf : {&loss, &dz, &loss2, &dz2}) buf->poison();
  separate(), fused();
  CUDA_CHECK(cudaDeviceSynchronize());
  // Both sum `classes` exponentials in float, in different orders.
  const course::Tolerance tol = course::float_sum_atol_rtol(2.0 * classes + 8);
  course::validate("fused row losses", loss2.to_host(), loss.to_host(), tol);
  course::validate("fused dlogits", dz2.to_host(), dz.to_host(), tol);
  print_row("softmax-CE forward + backward", "two kernels (lesson 04)", median_ms(separate, warmup, repeats),
            "softmax_cross_entropy_fused", median_ms(fused, warmup, repeats));
}

}  // namespace

void compare_fusions(int batch, int warmup, int repeats) {
  std::printf("| pass | separate (lessons 03, 04, 06) | ms | fused | ms | speed-up |\n");
  std::printf("|---|---|---:|---|---:|---:|\n");
  relu_pool("relu1 + pool1", {batch, 32, 28, 28, 2, 2}, warmup, repeats);
  relu_pool("relu2 + pool2", {batch, 64, 14, 14, 2, 2}, warmup, repeats);
  softmax(batch, 10, warmup, repeats);
  std::printf("each fused result validated against the separate kernels before timing\n");
}

}  // namespace lesson09
