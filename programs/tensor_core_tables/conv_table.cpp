// Lesson 10's tables (a program above the lessons): the convolution table of the program (conv_table.hpp).
#include "conv_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "fast_training.hpp"
#include "tensor_cores.hpp"

namespace lesson10 {

namespace {

std::vector<float> download(const course::DeviceBuffer<float>& b) {
  std::vector<float> host(b.size());
  b.download(host.data(), host.size());
  return host;
}

// 10.5 and 10.6 must agree with FP32 before their times mean anything: BF16 inputs leave about 2^-8 of each
// product, so a few parts in a thousand of the largest output; a wrong gather is off by far more.
void check_close(const course::DeviceBuffer<float>& got, const course::DeviceBuffer<float>& fp32, const char* what) {
  const std::vector<float> g = download(got), r = download(fp32);
  double largest = 0, worst = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    largest = std::max(largest, double(std::fabs(r[i])));
    const double d = std::fabs(double(g[i]) - r[i]);
    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
  }
  if (!(worst <= 0.02 * largest))
    throw course::Error(std::string("not right yet: ") + what + " differs from lesson 09's FP32 result by " +
                        std::to_string(worst) + " (largest output " + std::to_string(largest) + ")");
}

}  // namespace

void print_conv_table(int repeats) {
  struct Layer {
    const char* name;
    host_layers::ConvShape s;
  };
  auto shape = [](int c, int h, int o) {
    host_layers::ConvShape s;
    s.batch = 128, s.in_channels = c, s.height = s.width = h, s.out_channels = o, s.kernel_h = s.kernel_w = 5, s.pad = 2;
    return s;
  };
  std::printf("\n== 3. Convolutions on the Tensor Cores (10.5-10.7): model A's layers at batch 128, ms (TFLOP/s), median of %d\n",
              repeats);
  std::printf("| layer | pass | GFLOP | lesson 09 implicit GEMM FP32 | lesson 09 tiled FP32 | 10.5 BF16 gathered | "
              "10.6 BF16 image in shared memory (dW: 10.7) | fastest BF16 vs fastest FP32 |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  course::Rng rng(1051);
  for (const Layer& l : {Layer{"conv1", shape(1, 28, 32)}, Layer{"conv2", shape(32, 14, 64)}}) {
    const host_layers::ConvShape& s = l.s;
    std::vector<float> hx(s.input_size()), hw(s.weight_size()), hb(size_t(s.out_channels)), hdy(s.output_size());
    rng.fill_uniform(hx, 0.0f, 1.0f);
    rng.fill_uniform(hw, -0.1f, 0.1f);
    rng.fill_uniform(hb, -0.1f, 0.1f);
    rng.fill_uniform(hdy, -1e-3f, 1e-3f);
    course::DeviceBuffer<float> x(hx), W(hw), bias(hb), dy(hdy);
    course::DeviceBuffer<float> y32(s.output_size()), y16(s.output_size()), dx32(s.input_size()), dx16(s.input_size());
    course::DeviceBuffer<float> dw32(s.weight_size() + s.out_channels), dw16(s.weight_size() + s.out_channels);
    course::DeviceBuffer<float> workspace(std::max(fast_training::conv_implicit_workspace_floats(s),
                                                   fast_training::conv_tiled_dw_workspace_floats(s)));
    const bool dw16_runs = tensor_cores::conv_mma_weight_problem(s).empty();
    course::DeviceBuffer<float> workspace16(dw16_runs ? tensor_cores::conv_mma_weight_workspace_floats(s) : 1);
    const bool tiled = fast_training::conv_tiled_problem(s).empty();
    course::DeviceBuffer<float> tiled_weights(tiled ? fast_training::conv_tiled_weights_size(s) : 1);
    if (tiled) fast_training::conv_tiled_weights(s, W.data(), tiled_weights.data());
    const bool tiled16 = tensor_cores::conv_mma_tiled_problem(s).empty();
    course::DeviceBuffer<uint16_t> weights16(tiled16 ? tensor_cores::conv_mma_tiled_weights_size(s) : 1);
    if (tiled16) tensor_cores::conv_mma_tiled_weights(s, W.data(), weights16.data());

    const double gflop = 2.0 * s.output_size() * s.in_channels * s.kernel_h * s.kernel_w * 1e-9;
    struct Pass {
      const char* name;
      std::function<void()> implicit, tiled, mma, mma_tiled;  // mma: none for dW
    };
    float* dW32 = dw32.data();
    float* dW16 = dw16.data();
    const Pass passes[] = {
        {"forward", [&] { fast_training::conv2d_forward_implicit(s, x.data(), W.data(), bias.data(), y32.data()); },
         [&] { fast_training::conv2d_forward_tiled(s, x.data(), tiled_weights.data(), bias.data(), y32.data()); },
         [&] { tensor_cores::conv2d_forward_mma(s, x.data(), W.data(), bias.data(), y16.data()); },
         [&] { tensor_cores::conv2d_forward_mma_tiled(s, x.data(), weights16.data(), bias.data(), y16.data()); }},
        {"dx", [&] { fast_training::conv2d_backward_data_implicit(s, W.data(), dy.data(), dx32.data(), workspace.data()); },
         [&] { fast_training::conv2d_backward_data_tiled(s, tiled_weights.data(), dy.data(), dx32.data()); },
         [&] { tensor_cores::conv2d_backward_data_mma(s, W.data(), dy.data(), dx16.data()); },
         [&] { tensor_cores::conv2d_backward_data_mma_tiled(s, weights16.data(), dy.data(), dx16.data()); }},
        {"dW", [&] { fast_training::conv2d_backward_weight_implicit(s, x.data(), dy.data(), dW32, dW32 + s.weight_size(), workspace.data()); },
         [&] { fast_training::conv2d_backward_weight_tiled(s, x.data(), dy.data(), dW32, dW32 + s.weight_size(), workspace.data()); },
         nullptr,
         [&] { tensor_cores::conv2d_backward_weight_mma(s, x.data(), dy.data(), dW16, dW16 + s.weight_size(), workspace16.data()); }},
    };
    for (const Pass& p : passes) {
      const std::string name = p.name;
      const bool dw = name == "dW";
      const course::DeviceBuffer<float>& got = name == "forward" ? y16 : dw ? dw16 : dx16;
      const course::DeviceBuffer<float>& ref = name == "forward" ? y32 : dw ? dw32 : dx32;
      const std::string what = std::string(l.name) + " " + p.name;
      const bool runs16 = dw ? dw16_runs : tiled16;
      p.implicit();
      if (p.mma) {
        p.mma();
        CUDA_CHECK(cudaDeviceSynchronize());
        check_close(got, ref, (what + " (10.5)").c_str());
      }
      if (runs16) {
        p.mma_tiled();
        CUDA_CHECK(cudaDeviceSynchronize());
        check_close(got, ref, (what + (dw ? " (10.7)" : " (10.6)")).c_str());
      }
      const bool fp32_tiled = tiled && (!dw || l.s.in_channels >= 8);  // 09.11 where the network uses it
      const double t_implicit = course::time_gpu(p.implicit, 3, repeats).median_ms;
      const double t_tiled = fp32_tiled ? course::time_gpu(p.tiled, 3, repeats).median_ms : 0;
      const double t_mma = p.mma ? course::time_gpu(p.mma, 3, repeats).median_ms : 0;
      const double t_mma_tiled = runs16 ? course::time_gpu(p.mma_tiled, 3, repeats).median_ms : 0;
      auto cell = [&](double ms) {
        char text[64];
        std::snprintf(text, sizeof text, "%.4f (%.1f)", ms, gflop / ms);
        return std::string(text);
      };
      const double best32 = fp32_tiled ? std::min(t_implicit, t_tiled) : t_implicit;
      double best16 = 0;
      for (double t : {t_mma, t_mma_tiled})
        if (t > 0 && (best16 == 0 || t < best16)) best16 = t;
      char ratio[32] = "";
      if (best16 > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", best32 / best16);
      std::printf("| %s | %s | %.3f | %s | %s | %s | %s | %s |\n", l.name, p.name, gflop, cell(t_implicit).c_str(),
                  fp32_tiled ? cell(t_tiled).c_str() : "(does not run it)",
                  p.mma ? cell(t_mma).c_str() : "(no such kernel)",
                  runs16 ? cell(t_mma_tiled).c_str() : "(does not run it)", ratio);
    }
  }
  std::printf("\nevery 10.5-10.7 result checked against lesson 09's FP32 implicit GEMM (within 2 %% of the largest "
              "output) before timing\nconvolutions done\n");
}

}  // namespace lesson10
