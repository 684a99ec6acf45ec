#include "cpu_baseline.hpp"

#include <algorithm>
#include <cstdio>

#include "course/compare.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "im2col.hpp"

namespace lesson07 {

namespace {

using host_layers::ConvShape;

constexpr double kMiB = 1024.0 * 1024.0;

std::vector<double> random_double(size_t n, uint64_t seed) {
  const std::vector<float> v = course::random_uniform(n, seed);
  return {v.begin(), v.end()};
}

// Both sides are double sums of the same products in another order: far below 1e-9.
void require_close(const std::vector<double>& got, const std::vector<double>& ref, const std::string& what) {
  const course::CompareResult r = course::compare(got.data(), ref.data(), ref.size(), course::Tolerance{1e-9, 1e-9});
  if (!r.ok) throw course::Error("validation failed: " + what + " vs lesson 01: " + r.message());
}

// y = W * im2col(x) + bias and dx = col2im(W^T * dy), in double, against lesson 01's loops.
void validate(const ConvShape& full, const std::string& name) {
  ConvShape s = full;
  s.batch = std::min(full.batch, 2);
  const size_t K = im2col::col_rows(s), P = im2col::col_cols(s), O = size_t(s.out_channels);
  const size_t plane = size_t(s.out_h()) * s.out_w();
  const std::vector<double> x = random_double(s.input_size(), 11), W = random_double(s.weight_size(), 12),
                            b = random_double(O, 13), dy = random_double(s.output_size(), 14);
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
  require_close(y, y_ref, name + ": im2col_cpu + GEMM forward");

  std::vector<double> dcol(K * P), dx(s.input_size());
  for (size_t k = 0; k < K; ++k)
    for (size_t q = 0; q < P; ++q) {
      double sum = 0;
      for (size_t o = 0; o < O; ++o) sum += W[o * K + k] * dy[(q / plane * O + o) * plane + q % plane];
      dcol[k * P + q] = sum;
    }
  im2col::col2im_cpu(s, dcol.data(), dx.data());
  require_close(dx, dx_ref, name + ": GEMM + col2im_cpu dx");
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
