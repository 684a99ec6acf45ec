#include "kernel_table.hpp"

#include <cstdio>
#include <functional>
#include <string>

#include "course/check.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "first_kernels.hpp"
#include "host_layers.hpp"

namespace lesson03 {

namespace {

using course::DeviceBuffer;
using Vec = std::vector<float>;

// bias_add_nchw's shape at n elements: 32 channels of 32 x 32 planes, batch = n / 32768.
constexpr int kBiasChannels = 32, kBiasPlane = 32 * 32;

// SGD hyper-parameters of a typical CNN run.
constexpr float kLr = 0.01f, kMomentum = 0.9f, kWeightDecay = 5e-4f;

// One measured kernel at one size.
struct Row {
  const char* kernel;
  size_t n;
  double bytes;             // bytes the kernel reads + writes in device memory
  double gpu_ms, cpu_ms;    // kernel alone (events) / the CPU loop (host clock)
  double with_copies_ms;    // upload inputs + kernel + download outputs (host clock)
};

// What one kernel needs to be checked and timed: the GPU launch, the CPU loop (which also
// produces the reference), and the round trip with copies.
struct Bench {
  const char* step;
  const char* kernel;
  double bytes;
  course::Tolerance tolerance;
  std::function<void()> gpu, cpu, with_copies;
  std::function<std::vector<Vec>()> gpu_outputs;  // downloads the kernel's outputs
  std::function<std::vector<Vec>()> cpu_outputs;  // the CPU loop's outputs, same order
};

// Each output against the CPU's; a mismatch names the kernel, its step and the element: the
// message's element count is n.
void validate(const Bench& b, size_t n) {
  const std::vector<Vec> got = b.gpu_outputs(), ref = b.cpu_outputs();
  for (size_t k = 0; k < got.size(); ++k)
    course::validate(std::string(b.kernel) + " (step " + b.step + ") output " + std::to_string(k), got[k], ref[k],
                     b.tolerance, {{"i", n}});
}

Row measure(Bench& b, size_t n, const TableOptions& o) {
  // Check first: the kernel runs once on fresh inputs (outputs poisoned), the CPU once.
  b.gpu();
  CUDA_CHECK(cudaDeviceSynchronize());
  b.cpu();
  validate(b, n);
  Row row{b.kernel, n, b.bytes, 0, 0, 0};
  row.gpu_ms = course::time_gpu(b.gpu, 3, o.gpu_repeats).median_ms;
  row.cpu_ms = course::time_host(b.cpu, 1, o.cpu_repeats).median_ms;
  row.with_copies_ms = course::time_host(b.with_copies, 1, o.cpu_repeats).median_ms;
  return row;
}

std::string size_text(size_t n) {
  for (int k = 0; k < 63; ++k)
    if (n == (size_t(1) << k)) return "2^" + std::to_string(k);
  return std::to_string(n);
}

void print_row(const Row& r, double ceiling_gb_per_s) {
  const double gb_per_s = r.bytes / (r.gpu_ms * 1e6);
  std::printf("%-14s %6s %10.4f %9.1f %6.1f%% %10.3f %8.1fx %12.3f %8.2fx\n", r.kernel, size_text(r.n).c_str(),
              r.gpu_ms, gb_per_s, 100.0 * gb_per_s / ceiling_gb_per_s, r.cpu_ms, r.cpu_ms / r.gpu_ms,
              r.with_copies_ms, r.cpu_ms / r.with_copies_ms);
  std::fflush(stdout);
}

// ---- one function per kernel: inputs, buffers, and the three ways to run it -------------

Row bench_vector_add(size_t n, const TableOptions& o) {
  const Vec a = course::random_uniform(n, o.seed, -1.0f, 1.0f), b = course::random_uniform(n, o.seed + 1);
  Vec c(n), c_host(n);
  DeviceBuffer<float> da(a), db(b), dc(n);
  dc.poison();
  Bench bench{"03.1", "vector_add", 12.0 * n, {0.0, 0.0}, {}, {}, {}, {}, {}};
  bench.gpu = [&] { first_kernels::vector_add(da.data(), db.data(), dc.data(), n); };
  bench.cpu = [&] {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  };
  bench.with_copies = [&] {
    da.upload(a);
    db.upload(b);
    bench.gpu();
    dc.download(c_host.data(), n);
  };
  bench.gpu_outputs = [&] { return std::vector<Vec>{dc.to_host()}; };
  bench.cpu_outputs = [&] { return std::vector<Vec>{c}; };
  return measure(bench, n, o);
}

Row bench_relu_forward(size_t n, const TableOptions& o) {
  const Vec x = course::random_uniform(n, o.seed + 2, -1.0f, 1.0f);
  Vec y(n), y_host(n);
  DeviceBuffer<float> dx(x), dy(n);
  dy.poison();
  Bench bench{"03.1", "relu_forward", 8.0 * n, {0.0, 0.0}, {}, {}, {}, {}, {}};
  bench.gpu = [&] { first_kernels::relu_forward(dx.data(), dy.data(), n); };
  bench.cpu = [&] { host_layers::relu_forward(x.data(), y.data(), n); };
  bench.with_copies = [&] {
    dx.upload(x);
    bench.gpu();
    dy.download(y_host.data(), n);
  };
  bench.gpu_outputs = [&] { return std::vector<Vec>{dy.to_host()}; };
  bench.cpu_outputs = [&] { return std::vector<Vec>{y}; };
  return measure(bench, n, o);
}

Row bench_relu_backward(size_t n, const TableOptions& o) {
  const Vec x = course::random_uniform(n, o.seed + 3, -1.0f, 1.0f), dy = course::random_uniform(n, o.seed + 4);
  Vec dx(n), dx_host(n);
  DeviceBuffer<float> d_x(x), d_dy(dy), d_dx(n);
  d_dx.poison();
  Bench bench{"03.1", "relu_backward", 12.0 * n, {0.0, 0.0}, {}, {}, {}, {}, {}};
  bench.gpu = [&] { first_kernels::relu_backward(d_x.data(), d_dy.data(), d_dx.data(), n); };
  bench.cpu = [&] { host_layers::relu_backward(x.data(), dy.data(), dx.data(), n); };
  bench.with_copies = [&] {
    d_x.upload(x);
    d_dy.upload(dy);
    bench.gpu();
    d_dx.download(dx_host.data(), n);
  };
  bench.gpu_outputs = [&] { return std::vector<Vec>{d_dx.to_host()}; };
  bench.cpu_outputs = [&] { return std::vector<Vec>{dx}; };
  return measure(bench, n, o);
}

Row bench_bias_add(size_t n, const TableOptions& o) {
  const int batch = static_cast<int>(n / (size_t(kBiasChannels) * kBiasPlane));
  const Vec y0 = course::random_uniform(n, o.seed + 5, -1.0f, 1.0f);
  const Vec bias = course::random_uniform(kBiasChannels, o.seed + 6, -1.0f, 1.0f);
  Vec y = y0, y_host(n);
  DeviceBuffer<float> dy(y0), dbias(bias);
  // In place: the check compares one run on y0 (GPU) with one run on y0 (CPU); the timed
  // repeats after it keep adding the bias, which changes the values but not the work.
  Bench bench{"03.2", "bias_add_nchw", 8.0 * n + 4.0 * kBiasChannels, {0.0, 0.0}, {}, {}, {}, {}, {}};
  bench.gpu = [&] { first_kernels::bias_add_nchw(dy.data(), dbias.data(), batch, kBiasChannels, kBiasPlane); };
  bench.cpu = [&] {
    for (size_t row = 0; row < size_t(batch) * kBiasChannels; ++row)
      for (size_t p = 0; p < size_t(kBiasPlane); ++p) y[row * kBiasPlane + p] += bias[row % kBiasChannels];
  };
  bench.with_copies = [&] {
    dy.upload(y0);
    dbias.upload(bias);
    bench.gpu();
    dy.download(y_host.data(), n);
  };
  bench.gpu_outputs = [&] { return std::vector<Vec>{dy.to_host()}; };
  bench.cpu_outputs = [&] { return std::vector<Vec>{y}; };
  return measure(bench, n, o);
}

Row bench_sgd(size_t n, const TableOptions& o) {
  const Vec w0 = course::random_uniform(n, o.seed + 7, -1.0f, 1.0f), g = course::random_uniform(n, o.seed + 8);
  const Vec v0 = course::random_uniform(n, o.seed + 9, -0.1f, 0.1f);
  Vec w = w0, v = v0, w_host(n), v_host(n);
  DeviceBuffer<float> dw(w0), dg(g), dv(v0), dlr(Vec{kLr});  // the rate in device memory (03.2)
  // The GPU may fuse a*b + c into one FMA (one rounding instead of two) where the CPU
  // rounds twice: a few float ulps of the largest term (|terms| <= 2) apart, so 1e-6.
  Bench bench{"03.2", "sgd_momentum", 20.0 * n, {1e-6, 1e-6}, {}, {}, {}, {}, {}};
  bench.gpu = [&] { first_kernels::sgd_momentum_update(dw.data(), dg.data(), dv.data(), n, dlr.data(), kMomentum,
                                                      kWeightDecay); };
  bench.cpu = [&] {  // lesson 02's host_training::sgd_momentum_step, written out
    for (size_t i = 0; i < n; ++i) {
      v[i] = kMomentum * v[i] + (g[i] + kWeightDecay * w[i]);
      w[i] -= kLr * v[i];
    }
  };
  bench.with_copies = [&] {
    dw.upload(w0);
    dg.upload(g);
    dv.upload(v0);
    bench.gpu();
    dw.download(w_host.data(), n);
    dv.download(v_host.data(), n);
  };
  bench.gpu_outputs = [&] { return std::vector<Vec>{dw.to_host(), dv.to_host()}; };
  bench.cpu_outputs = [&] { return std::vector<Vec>{w, v}; };
  return measure(bench, n, o);
}

}  // namespace

void run_kernel_table(const TableOptions& o) {
  std::printf("%-14s %6s %10s %9s %7s %10s %9s %12s %9s\n", "kernel", "n", "GPU ms", "GB/s", "% D2D", "CPU ms",
              "speed-up", "+copies ms", "speed-up");
  using BenchFn = Row (*)(size_t, const TableOptions&);
  const BenchFn benches[] = {bench_vector_add, bench_relu_forward, bench_relu_backward, bench_bias_add, bench_sgd};
  for (BenchFn bench : benches) {
    for (size_t n : o.sizes) print_row(bench(n, o), o.device_copy_gb_per_s);
  }
}

}  // namespace lesson03
