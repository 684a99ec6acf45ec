#include "cpu_baseline.hpp"

#include <algorithm>
#include <cstdio>

#include "course/check.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"

namespace lesson05 {

namespace {

using host_layers::ConvShape;

struct ConvData {
  explicit ConvData(const ConvShape& s)
      : x(course::random_uniform(s.input_size(), 1)), W(course::random_uniform(s.weight_size(), 2)),
        b(course::random_uniform(s.out_channels, 3)), dy(course::random_uniform(s.output_size(), 4)),
        y(s.output_size()), dx(s.input_size()), dW(s.weight_size()), db(s.out_channels) {}
  std::vector<float> x, W, b, dy, y, dx, dW, db;
};

void forward(const ConvShape& s, ConvData& t) {
  host_layers::conv2d_forward(s, t.x.data(), t.W.data(), t.b.data(), t.y.data());
}
void backward(const ConvShape& s, ConvData& t) {
  host_layers::conv2d_backward(s, t.x.data(), t.W.data(), t.dy.data(), t.dx.data(), t.dW.data(), t.db.data());
}

void check_float_against_double(const ConvShape& full) {
  ConvShape s = full;
  s.batch = std::min(full.batch, 2);
  ConvData t(s);
  forward(s, t);
  backward(s, t);
  using course::to_double;
  const std::vector<double> x = to_double(t.x), W = to_double(t.W), b = to_double(t.b), dy = to_double(t.dy);
  std::vector<double> y(s.output_size()), dx(s.input_size()), dW(s.weight_size()), db(s.out_channels);
  host_layers::conv2d_forward(s, x.data(), W.data(), b.data(), y.data());
  host_layers::conv2d_backward(s, x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data());
  const double forward_terms = double(s.in_channels) * s.kernel_h * s.kernel_w + 1;
  const double dx_terms = double(s.out_channels) * s.kernel_h * s.kernel_w;
  const double positions = double(s.batch) * s.out_h() * s.out_w();
  // Lesson 01's float loops against its double loops: float sums of products of values in [-1, 1].
  using course::float_sum_tolerance;
  course::validate("lesson 01's float y", t.y, y, float_sum_tolerance(forward_terms));
  course::validate("lesson 01's float dx", t.dx, dx, float_sum_tolerance(dx_terms));
  course::validate("lesson 01's float dW", t.dW, dW, float_sum_tolerance(positions));
  course::validate("lesson 01's float dbias", t.db, db, float_sum_tolerance(positions));
}

double conv_flops(const ConvShape& s) {
  return 2.0 * s.batch * s.out_channels * s.out_h() * s.out_w() * s.in_channels * s.kernel_h * s.kernel_w;
}

}  // namespace

CpuConvTimes time_lesson01_conv(const ConvShape& full, int cpu_batch, int repeats) {
  ConvShape s = full;
  s.batch = std::min(full.batch, cpu_batch);
  ConvData t(s);
  const double fwd = course::time_host([&] { forward(s, t); }, 0, repeats).median_ms;
  const double bwd = course::time_host([&] { backward(s, t); }, 0, repeats).median_ms;
  const double scale = double(full.batch) / s.batch;
  return {fwd * scale, bwd * scale, s.batch};
}

void run_cpu_baseline(const std::vector<NamedConv>& layers, int cpu_batch, int repeats) {
  std::printf("lesson 01's convolution loops (float, one core, host clock): median of %d, measured on\n"
              "%d image(s) and scaled to the full batch; checked against lesson 01 in double first.\n"
              "GFLOP/s: 2*N*O*OH*OW*C*kh*kw per pass (the GPU table's count)\n",
              repeats, cpu_batch);
  for (const NamedConv& layer : layers) {
    const ConvShape& s = layer.s;
    std::printf("\n%s: N=%d, %d->%d channels, %dx%d image, %dx%d kernel, stride %d, pad %d\n", layer.name.c_str(),
                s.batch, s.in_channels, s.out_channels, s.height, s.width, s.kernel_h, s.kernel_w, s.stride, s.pad);
    check_float_against_double(s);
    const CpuConvTimes t = time_lesson01_conv(s, cpu_batch, repeats);
    const double flops = conv_flops(s);
    std::printf("  %-34s %10s %12s\n", "lesson 01 on the CPU", "ms", "GFLOP/s");
    std::printf("  %-34s %10.1f %12.2f\n", "forward", t.forward_ms, flops / (t.forward_ms * 1e6));
    // Backward computes dx and dW: twice the forward's multiply-adds.
    std::printf("  %-34s %10.1f %12.2f\n", "backward (dx, dW, dbias)", t.backward_ms,
                2 * flops / (t.backward_ms * 1e6));
    std::printf("    measured on %d image(s), scaled x%.0f to N=%d\n", t.images, double(s.batch) / t.images, s.batch);
  }
  std::printf("\nCPU baseline done\n");
}

}  // namespace lesson05
