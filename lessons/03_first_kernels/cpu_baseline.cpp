#include "cpu_baseline.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "host_layers.hpp"

namespace lesson03 {

namespace {

double gb_per_s(double bytes, double ms) { return bytes / (ms * 1e6); }

// The definition, element by element: a wrong loop is caught before it is timed.
void check_relu(const std::vector<float>& x, const std::vector<float>& dy, const std::vector<float>& y,
                const std::vector<float>& dx) {
  for (size_t i = 0; i < x.size(); ++i) {
    const float y_ref = x[i] > 0 ? x[i] : 0.0f, dx_ref = x[i] > 0 ? dy[i] : 0.0f;
    if (y[i] != y_ref || dx[i] != dx_ref)
      throw course::Error("lesson 01's ReLU disagrees with max(x, 0) at index " + std::to_string(i));
  }
}

}  // namespace

void run_cpu_baseline(const CpuBaselineOptions& o) {
  // Host memory copy: the CPU's ceiling for loops that read and write each byte once.
  std::vector<unsigned char> src(o.copy_bytes, 1), dst(o.copy_bytes, 0);  // written, so every page is mapped
  const double copy_ms =
      course::time_host([&] { std::memcpy(dst.data(), src.data(), o.copy_bytes); }, 1, o.repeats).median_ms;
  const double copy_moved = 2.0 * double(o.copy_bytes);  // every byte read once and written once
  const double ceiling = gb_per_s(copy_moved, copy_ms);
  std::printf("%-34s %10s %10s\n", "host copy", "ms", "GB/s");
  std::printf("%-34s %10.3f %10.1f\n", "std::memcpy (read + write)", copy_ms, ceiling);
  std::printf("(%.0f MiB per copy; median of %d, host clock)\n\n", double(o.copy_bytes) / (1024.0 * 1024.0),
              o.repeats);

  std::printf("lesson 01's ReLU loops (one core, host clock), checked against max(x, 0) first;\n"
              "GB/s = bytes read + written / time, %% copy = of the std::memcpy above\n\n");
  std::printf("%-14s %6s %10s %9s %7s\n", "loop", "n", "CPU ms", "GB/s", "% copy");
  for (size_t n : o.sizes) {
    const std::vector<float> x = course::random_uniform(n, 3, -1.0f, 1.0f), dy = course::random_uniform(n, 4);
    std::vector<float> y(n), dx(n);
    host_layers::relu_forward(x.data(), y.data(), n);
    host_layers::relu_backward(x.data(), dy.data(), dx.data(), n);
    check_relu(x, dy, y, dx);
    const double fwd = course::time_host([&] { host_layers::relu_forward(x.data(), y.data(), n); }, 1, o.repeats)
                           .median_ms;
    const double bwd =
        course::time_host([&] { host_layers::relu_backward(x.data(), dy.data(), dx.data(), n); }, 1, o.repeats)
            .median_ms;
    int k = 0;
    while ((size_t(1) << k) < n) ++k;
    auto row = [&](const char* name, double bytes, double ms) {
      std::printf("%-14s %4s%-2d %10.3f %9.1f %6.1f%%\n", name, "2^", k, ms, gb_per_s(bytes, ms),
                  100.0 * gb_per_s(bytes, ms) / ceiling);
    };
    row("relu_forward", 8.0 * n, fwd);    // read x, write y
    row("relu_backward", 12.0 * n, bwd);  // read x and dy, write dx
  }
  std::printf("\nCPU baseline done\n");
}

}  // namespace lesson03
