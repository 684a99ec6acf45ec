#include "cpu_baseline.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "host_layers.hpp"

namespace lesson04 {

namespace {

struct CpuShape {
  std::string label;  // the row label of the GPU table with the same M, N, K
  int M, N, K;
};

// The first rows of y = x * W^T + bias in double, from the definition.
std::vector<double> first_rows_in_double(const std::vector<float>& x, const std::vector<float>& W,
                                         const std::vector<float>& bias, int rows, int N, int K) {
  std::vector<double> y(size_t(rows) * N);
  for (size_t m = 0; m < size_t(rows); ++m)
    for (size_t n = 0; n < size_t(N); ++n) {
      double sum = bias[n];
      for (size_t k = 0; k < size_t(K); ++k) sum += double(x[m * K + k]) * W[n * K + k];
      y[m * N + n] = sum;
    }
  return y;
}

}  // namespace

void run_cpu_baseline(bool quick) {
  std::vector<CpuShape> shapes = {{"256^3", 256, 256, 256}, {"fc2 forward y = x*W^T", 128, 10, 512}};
  if (!quick) {
    shapes.insert(shapes.begin() + 1, {"512^3", 512, 512, 512});
    shapes.push_back({"fc1 forward y = x*W^T", 128, 512, 3136});
  }
  const int repeats = quick ? 1 : 3;
  std::printf("lesson 01's dense_forward (y = x*W^T + bias, float, one core, host clock), median of %d;\n"
              "each product is first checked against double on its first rows. GFLOP/s = 2 M N K / time.\n\n",
              repeats);
  std::printf("| shape | product | M x N x K | CPU ms | CPU GFLOP/s |\n");
  std::printf("|---|---|---|---:|---:|\n");
  uint64_t seed = 4100;
  for (const CpuShape& s : shapes) {
    const std::vector<float> x = course::random_uniform(size_t(s.M) * s.K, seed++);
    const std::vector<float> W = course::random_uniform(size_t(s.N) * s.K, seed++);
    const std::vector<float> bias = course::random_uniform(size_t(s.N), seed++);
    std::vector<float> y(size_t(s.M) * s.N);
    auto run = [&] { host_layers::dense_forward(x.data(), W.data(), bias.data(), y.data(), s.M, s.K, s.N); };
    run();
    // A float sum of K + 1 terms in [-1, 1]: course::float_sum_atol_rtol, as for the GPU kernels.
    const int rows = std::min(s.M, 4);
    const std::vector<double> ref = first_rows_in_double(x, W, bias, rows, s.N, s.K);
    const std::vector<float> y_rows(y.begin(), y.begin() + ref.size());
    course::validate("lesson 01's dense_forward y at " + s.label, y_rows, ref, course::float_sum_atol_rtol(s.K + 1),
                     {{"m", size_t(rows)}, {"n", size_t(s.N)}});
    const double ms = course::time_host(run, 0, repeats).median_ms;
    const double gflops = 2.0 * double(s.M) * s.N * s.K / (ms * 1e6);
    std::printf("| %s | A*B^T | %d x %d x %d | %.1f | %.2f |\n", s.label.c_str(), s.M, s.N, s.K, ms, gflops);
    std::fflush(stdout);
  }
  std::printf("\nCPU baseline done\n");
}

}  // namespace lesson04
