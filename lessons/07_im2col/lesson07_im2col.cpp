// Lesson 07 benchmark: convolution as a direct kernel (lesson 05), as im2col + GEMM
// (this lesson, lesson 04's GEMM) and through cuDNN, timed in one run on the same data.
// Every algorithm is validated before it is timed: im2col + GEMM against lesson 01's
// loops (double, on the first images of the batch), the others against im2col + GEMM
// on the full batch. Without a GPU (or with --cpu-only) it checks and times step 07.1,
// im2col_cpu / col2im_cpu, alone (cpu_baseline.hpp).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/device_info.hpp"
#include "course/main.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "bench_algorithm.hpp"
#include "cpu_baseline.hpp"
#include "host_layers.hpp"
#include "im2col.hpp"
#ifdef COURSE_HAVE_CUDNN
#include "cudnn_conv.hpp"
#endif

namespace {

using course::DeviceBuffer;
using im2col_bench::Algorithm;
using host_layers::ConvShape;

constexpr double kMiB = 1024.0 * 1024.0;

struct Layer {
  std::string name;
  ConvShape s;
};

// Every output is a float sum of `terms` products of values in [-1, 1]. Against lesson 01 in
// double: course::float_sum_atol(terms) (course/check.hpp says why) plus 1e-5 relative, as the
// tests of 07.3 and 07.4 allow. Against im2col+GEMM, another float result: both sides round, so
// twice the terms; and 1e-4 relative, because cuDNN's FFT and Winograd algorithms round
// differently from a direct sum (their error grows with the result's size).
course::Tolerance against_double(double terms) { return {course::float_sum_atol(terms), 1e-5}; }
course::Tolerance against_float(double terms) { return {course::float_sum_atol(2 * terms), 1e-4}; }

double forward_flops(const ConvShape& s) {
  return 2.0 * s.batch * s.out_channels * s.out_h() * s.out_w() * s.in_channels * s.kernel_h * s.kernel_w;
}

std::string describe(const ConvShape& s) {
  char text[160];
  std::snprintf(text, sizeof text, "N=%d %d->%d ch %dx%d k%dx%d s%d p%d", s.batch, s.in_channels, s.out_channels,
                s.height, s.width, s.kernel_h, s.kernel_w, s.stride, s.pad);
  return text;
}

// im2col + GEMM against lesson 01's host loops in double, on at most 2 images.
void validate_against_host(const ConvShape& full) {
  ConvShape s = full;
  s.batch = std::min(full.batch, 2);
  using course::random_uniform;
  using course::to_double;
  const auto x = random_uniform(s.input_size(), 11), W = random_uniform(s.weight_size(), 12);
  const auto b = random_uniform(s.out_channels, 13), dy = random_uniform(s.output_size(), 14);
  const std::vector<double> xd = to_double(x), Wd = to_double(W), bd = to_double(b), dyd = to_double(dy);
  std::vector<double> y(s.output_size()), dx(s.input_size()), dW(s.weight_size()), db(s.out_channels);
  host_layers::conv2d_forward(s, xd.data(), Wd.data(), bd.data(), y.data());
  host_layers::conv2d_backward(s, xd.data(), Wd.data(), dyd.data(), dx.data(), dW.data(), db.data());

  DeviceBuffer<float> d_x(x), d_W(W), d_b(b), d_dy(dy), d_y(s.output_size()), d_dx(s.input_size()),
      d_dW(s.weight_size()), d_db(s.out_channels), work(im2col::conv_gemm_workspace_floats(s));
  for (auto* buf : {&d_y, &d_dx, &d_dW, &d_db, &work}) buf->poison();
  im2col::conv2d_forward_gemm(s, d_x.data(), d_W.data(), d_b.data(), d_y.data(), work.data());
  im2col::conv2d_backward_gemm(s, d_x.data(), d_W.data(), d_dy.data(), d_dx.data(), d_dW.data(), d_db.data(),
                               work.data());
  const double k_terms = double(s.in_channels) * s.kernel_h * s.kernel_w + 1;
  const double pos_terms = double(s.batch) * s.out_h() * s.out_w();
  const double dx_terms = double(s.out_channels) * s.kernel_h * s.kernel_w;
  course::validate("im2col+GEMM y", d_y.to_host(), y, against_double(k_terms));
  course::validate("im2col+GEMM dx", d_dx.to_host(), dx, against_double(dx_terms));
  course::validate("im2col+GEMM dW", d_dW.to_host(), dW, against_double(pos_terms));
  course::validate("im2col+GEMM dbias", d_db.to_host(), db, against_double(pos_terms));
}

std::vector<Algorithm> algorithms_for(const ConvShape& s, DeviceBuffer<float>& gemm_workspace,
                                      std::vector<std::string>& unavailable) {
  std::vector<Algorithm> algos;
#ifdef COURSE_HAVE_CONV_DIRECT
  algos.push_back(im2col_bench::direct_algorithm(s));
#else
  unavailable.push_back("direct (lesson 05): not built (configure lesson 05 with this lesson)");
#endif
  float* work = gemm_workspace.data();
  algos.push_back({"im2col+GEMM",
                   [s, work](const float* x, const float* W, const float* b, float* y) {
                     im2col::conv2d_forward_gemm(s, x, W, b, y, work);
                   },
                   [s, work](const float* x, const float* W, const float* dy, float* dx, float* dW, float* db) {
                     im2col::conv2d_backward_gemm(s, x, W, dy, dx, dW, db, work);
                   },
                   gemm_workspace.bytes(), ""});
#ifdef COURSE_HAVE_CUDNN
  try {
    auto conv = std::make_shared<im2col_bench::CudnnConv>(s);
    algos.push_back({"cuDNN",
                     [conv](const float* x, const float* W, const float* b, float* y) { conv->forward(x, W, b, y); },
                     [conv](const float* x, const float* W, const float* dy, float* dx, float* dW, float* db) {
                       conv->backward(x, W, dy, dx, dW, db);
                     },
                     conv->workspace_bytes(), conv->algorithms()});
  } catch (const course::Error& e) {
    unavailable.push_back(std::string("cuDNN: not available (") + e.what() + ")");
  }
#else
  unavailable.push_back("cuDNN: not available (not found when CMake configured; see COURSE_CUDNN)");
#endif
  return algos;
}

struct Row {
  std::string algo;
  double fwd_ms = 0, bwd_ms = 0;
  size_t extra_bytes = 0;
};

void run_layer(const Layer& layer, int repeats, int warmup) {
  const ConvShape& s = layer.s;
  std::printf("\n%s: %s -> %dx%d outputs\n", layer.name.c_str(), describe(s).c_str(), s.out_h(), s.out_w());
  validate_against_host(s);

  DeviceBuffer<float> x(course::random_uniform(s.input_size(), 1)), W(course::random_uniform(s.weight_size(), 2)),
      b(course::random_uniform(s.out_channels, 3)), dy(course::random_uniform(s.output_size(), 4));
  DeviceBuffer<float> y(s.output_size()), dx(s.input_size()), dW(s.weight_size()), db(s.out_channels);
  DeviceBuffer<float> gemm_work(im2col::conv_gemm_workspace_floats(s));
  std::vector<std::string> unavailable;
  const std::vector<Algorithm> algos = algorithms_for(s, gemm_work, unavailable);

  // Reference outputs on the full batch: im2col + GEMM (validated against lesson 01 above).
  std::vector<float> y_ref, dx_ref, dW_ref, db_ref;
  const double k_terms = double(s.in_channels) * s.kernel_h * s.kernel_w + 1;
  const double dx_terms = double(s.out_channels) * s.kernel_h * s.kernel_w;
  const double pos_terms = double(s.batch) * s.out_h() * s.out_w();
  std::vector<Row> rows;
  std::vector<std::string> rejected;  // failed validation: not timed
  for (const Algorithm& a : algos) {
    for (auto* buf : {&y, &dx, &dW, &db}) buf->poison();
    a.forward(x.data(), W.data(), b.data(), y.data());
    a.backward(x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    if (a.name == "im2col+GEMM") {
      y_ref = y.to_host(), dx_ref = dx.to_host(), dW_ref = dW.to_host(), db_ref = db.to_host();
    }
  }
  for (const Algorithm& a : algos) {
    if (a.name == "im2col+GEMM") continue;
    for (auto* buf : {&y, &dx, &dW, &db}) buf->poison();
    a.forward(x.data(), W.data(), b.data(), y.data());
    a.backward(x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data());
    auto check = [&](const DeviceBuffer<float>& got, const std::vector<float>& ref, double terms, const char* what) {
      course::validate(a.name + " " + what, got.to_host(), ref, against_float(terms));
    };
    try {
      check(y, y_ref, k_terms, "forward");
      check(dx, dx_ref, dx_terms, "dx");
      check(dW, dW_ref, pos_terms, "dW");
      check(db, db_ref, pos_terms, "dbias");
    } catch (const course::Error& e) {
      // The course's own kernels must agree; cuDNN is only a yardstick, so a disagreement
      // there is reported and that column left out instead of ending the benchmark.
      if (a.name != "cuDNN") throw;
      std::printf("  cuDNN left out of this table: %s\n", e.what());
      rejected.push_back(a.name);
    }
  }
  std::printf("  validated: im2col+GEMM vs lesson 01 (double, %d image(s)); others vs im2col+GEMM\n",
              std::min(s.batch, 2));

  for (const Algorithm& a : algos) {
    if (std::find(rejected.begin(), rejected.end(), a.name) != rejected.end()) continue;
    Row r;
    r.algo = a.name;
    r.extra_bytes = a.extra_bytes;
    r.fwd_ms = course::time_gpu([&] { a.forward(x.data(), W.data(), b.data(), y.data()); }, warmup, repeats)
                   .median_ms;
    r.bwd_ms = course::time_gpu(
                   [&] { a.backward(x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data()); }, warmup,
                   repeats)
                   .median_ms;
    rows.push_back(r);
  }
  // The data movement im2col adds, timed alone.
  DeviceBuffer<float> col(im2col::col_size(s));
  const double im2col_ms =
      course::time_gpu([&] { im2col::im2col_gpu(s, x.data(), col.data()); }, warmup, repeats).median_ms;
  const double col2im_ms =
      course::time_gpu([&] { im2col::col2im_gpu(s, col.data(), dx.data()); }, warmup, repeats).median_ms;

  const double fwd_flop = forward_flops(s), bwd_flop = 2 * fwd_flop;  // backward: dx and dW
  const Row* cudnn = nullptr;
  for (const Row& r : rows)
    if (r.algo == "cuDNN") cudnn = &r;
  std::printf("  %-14s %10s %12s %10s %12s %12s %12s\n", "algorithm", "fwd ms", "fwd GFLOP/s", "bwd ms",
              "bwd GFLOP/s", "% of cuDNN", "scratch MiB");
  for (const Row& r : rows) {
    char ratio[32] = "-";
    if (cudnn)
      std::snprintf(ratio, sizeof ratio, "%.0f/%.0f", 100 * cudnn->fwd_ms / r.fwd_ms, 100 * cudnn->bwd_ms / r.bwd_ms);
    std::printf("  %-14s %10.3f %12.0f %10.3f %12.0f %12s %12.1f\n", r.algo.c_str(), r.fwd_ms,
                fwd_flop / (r.fwd_ms * 1e6), r.bwd_ms, bwd_flop / (r.bwd_ms * 1e6), ratio, r.extra_bytes / kMiB);
  }
  for (const Algorithm& a : algos)
    if (!a.note.empty()) std::printf("  %s: %s\n", a.name.c_str(), a.note.c_str());
  for (const std::string& u : unavailable) std::printf("  %s\n", u.c_str());

  const double col_bytes = im2col::col_size(s) * sizeof(float);
  const double in_bytes = s.input_size() * sizeof(float);
  std::printf("  im2col memory: col %.1f MiB (%.1fx the input's %.2f MiB) + Y'/dY' %.1f MiB = %.1f MiB workspace\n",
              col_bytes / kMiB, col_bytes / in_bytes, in_bytes / kMiB,
              (gemm_work.bytes() - col_bytes) / kMiB, gemm_work.bytes() / kMiB);
  // im2col reads the input (cached, mostly) and writes col; col2im reads col and writes dx.
  std::printf("  im2col alone %.3f ms (%.0f GB/s written), col2im alone %.3f ms (%.0f GB/s read)\n", im2col_ms,
              col_bytes / (im2col_ms * 1e6), col2im_ms, col_bytes / (col2im_ms * 1e6));
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("lesson07_im2col",
                           "Convolution as im2col + GEMM: validates, then times direct (lesson 05), im2col+GEMM "
                           "and cuDNN\nforward and backward at model A's shapes and a larger layer.");
    args.add_flag("--quick", "small batches and 3 repeats (a fast smoke run)");
    args.add_int("--repeats", 20, 1, 1000, "timed repeats per measurement (the median is reported)");
    args.add_flag("--cpu-only", "run only step 07.1 (im2col_cpu / col2im_cpu) on the CPU, as without a GPU");
    if (!args.parse(argc, argv)) return 0;

    const bool quick = args.flag("--quick");
    const int repeats = quick && !args.given("--repeats") ? 3 : static_cast<int>(args.get_int("--repeats"));
    const int warmup = quick ? 1 : 3;
    // Model A (lesson 02): conv 5x5x32 pad 2 on 28x28, pool, conv 5x5x64 pad 2 on 14x14; batch 128.
    const int batch_a = quick ? 16 : 128, batch_big = quick ? 4 : 32;
    const std::vector<Layer> layers = {
        {"model A conv1", {batch_a, 1, 28, 28, 32, 5, 5, 1, 2}},
        {"model A conv2", {batch_a, 32, 14, 14, 64, 5, 5, 1, 2}},
        {"larger layer", {batch_big, 64, 56, 56, 128, 3, 3, 1, 1}},
    };

    if (course::announce_cpu_only("07", "07.2-07.4", args.flag("--cpu-only"))) {
      std::vector<lesson07::NamedConv> cpu_layers;
      for (const Layer& layer : layers) cpu_layers.push_back({layer.name, layer.s});
      lesson07::run_cpu_part(cpu_layers, quick ? 1 : 3);
      return 0;
    }

    std::printf("Lesson 07: convolution as im2col + GEMM%s\n", quick ? " (--quick)" : "");
    std::printf("%s\n%s\n", course::device_summary().c_str(), course::cuda_versions().c_str());
#ifdef COURSE_HAVE_CUDNN
    std::printf("%s, FP32 with FMA math (no tensor cores, no TF32)\n", im2col_bench::CudnnConv::version().c_str());
#else
    std::printf("cuDNN: not available\n");
#endif
    std::printf("times: median of %d repeats after %d warm-up call(s), CUDA events; FLOPs: forward "
                "2*N*O*OH*OW*C*kh*kw, backward twice that (dx and dW)\n",
                repeats, warmup);
    for (const Layer& layer : layers) run_layer(layer, repeats, warmup);
    return 0;
  });
}
