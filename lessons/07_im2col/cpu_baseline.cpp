#include "cpu_baseline.hpp"

#include <algorithm>
#include <cstdio>

#include "course/check.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "im2col.hpp"

namespace lesson07 {

namespace {

using host_layers::ConvShape;

constexpr double kMiB = 1024.0 * 1024.0;

// y = W * im2col(x) + bias and dx = col2im(W^T * dy), in double, against lesson 01's loops: both
// sides are double sums of the same products (values in [-1, 1]) in another order.
void validate(const ConvShape& full, const std::string& name) {
  ConvShape s = full;
  s.batch = std::min(full.batch, 2);
  const size_t K = im2col::col_rows(s), P = im2col::col_cols(s), O = size_t(s.out_channels);
  const size_t plane = size_t(s.out_h()) * s.out_w();
  using course::random_doubles;
  const std::vector<double> x = random_doubles(s.input_size(), 11), W = random_doubles(s.weight_size(), 12),
                            b = random_doubles(O, 13), dy = random_doubles(s.output_size(), 14);
  std::vector<double> y_ref(s.output_size()), dx_ref(s.input_size()), dW_ref(s.weight_size()), db_ref(O);
  host_layers::conv2d_forward(s, x.data(), W.data(), b.data(), y_ref.data());
  host_layers::conv2d_backward(s, x.data(), W.data(), dy.data(), dx_ref.data(), dW_ref.data(), db_ref.data());

  // Column q = n * plane + p holds output position p of image n; y is [N, O, OH, OW].
  std::vector<double> col(K * P), y(s.output_size());
  im2col::im2col_cpu(s, x.data(), col.data());
  for (size_t o = 0; o < O; ++o)
    for (size_t q = 0; q < P; ++q) {
      double sum = b[o];
      for (size_t k = 0; k < K; ++k) sum += W[o * K + k] * col[k * P + q];
      y[(q / plane * O + o) * plane + q % plane] = sum;
    }
  course::validate(name + ": im2col_cpu + GEMM y", y, y_ref, {course::double_sum_atol(double(K) + 1), 0.0});

  std::vector<double> dcol(K * P), dx(s.input_size());
  for (size_t k = 0; k < K; ++k)
    for (size_t q = 0; q < P; ++q) {
      double sum = 0;
      for (size_t o = 0; o < O; ++o) sum += W[o * K + k] * dy[(q / plane * O + o) * plane + q % plane];
      dcol[k * P + q] = sum;
    }
  im2col::col2im_cpu(s, dcol.data(), dx.data());
  const double dx_terms = double(O) * s.kernel_h * s.kernel_w;
  course::validate(name + ": GEMM + col2im_cpu dx", dx, dx_ref, {course::double_sum_atol(dx_terms), 0.0});
}

}  // namespace

void run_cpu_part(const std::vector<NamedConv>& layers, int repeats) {
  // Model A's layers use stride 1; a strided, odd-sized layer makes windows overlap unevenly.
  std::vector<NamedConv> checked = layers;
  checked.push_back({"strided, odd sizes", {2, 3, 17, 15, 4, 3, 3, 2, 1}});
  std::printf("07.1 im2col_cpu / col2im_cpu as a convolution (double, at most 2 images): forward\n"
              "W * im2col(x) + bias and dx = col2im(W^T * dy) against lesson 01's loops\n");
  for (const NamedConv& layer : checked) {
    ConvShape two = layer.s;
    two.batch = std::min(two.batch, 2);
    // Each GEMM in double: K * P * O multiply-adds; above ~1e8 the check alone would take seconds.
    if (double(im2col::col_rows(two)) * im2col::col_cols(two) * two.out_channels > 1e8) {
      std::printf("  %-20s not checked here (seconds in double); timed below\n", layer.name.c_str());
      continue;
    }
    validate(layer.s, layer.name);
    std::printf("  %-20s ok\n", layer.name.c_str());
  }

  std::printf("\nim2col_cpu and col2im_cpu timed alone (float, one core, host clock, median of %d)\n", repeats);
  std::printf("  %-16s %-30s %9s %8s %11s %9s %11s %9s\n", "layer", "shape", "col MiB", "x input", "im2col ms",
              "GB/s wr", "col2im ms", "GB/s rd");
  for (const NamedConv& layer : layers) {
    const ConvShape& s = layer.s;
    const std::vector<float> x = course::random_uniform(s.input_size(), 1);
    std::vector<float> col(im2col::col_size(s)), dx(s.input_size());
    const double to_col = course::time_host([&] { im2col::im2col_cpu(s, x.data(), col.data()); }, 1, repeats).median_ms;
    const double to_x = course::time_host([&] { im2col::col2im_cpu(s, col.data(), dx.data()); }, 1, repeats).median_ms;
    const double col_bytes = double(im2col::col_size(s)) * sizeof(float);
    char shape[64];
    std::snprintf(shape, sizeof shape, "N=%d %d->%d ch %dx%d k%dx%d", s.batch, s.in_channels, s.out_channels, s.height,
                  s.width, s.kernel_h, s.kernel_w);
    std::printf("  %-16s %-30s %9.1f %7.1fx %11.2f %9.2f %11.2f %9.2f\n", layer.name.c_str(), shape, col_bytes / kMiB,
                col_bytes / (double(s.input_size()) * sizeof(float)), to_col, col_bytes / (to_col * 1e6), to_x,
                col_bytes / (to_x * 1e6));
    std::fflush(stdout);
  }
  std::printf("\nCPU part done\n");
}

}  // namespace lesson07
