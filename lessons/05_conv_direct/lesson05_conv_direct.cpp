// Lesson 05: direct convolution on the GPU. For each convolution of model A (lesson 02) it
//   1. validates every kernel against lesson 01's loops in double (on 2 images),
//   2. times forward, backward input, backward weight (atomic and race-free) at the full batch,
//      with GFLOP/s and the speed-up over lesson 01's CPU loops,
//   3. runs the racy `+=` weight gradient (race_demo.cu) a few times next to the atomic and
//      race-free versions: how wrong each is, and whether repeated runs give the same bits.
// Without a GPU (or with --cpu-only) it runs lesson 01's loops alone (cpu_baseline.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "conv_direct.hpp"
#include "course/cli.hpp"
#include "cpu_baseline.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/device_info.hpp"
#include "course/main.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "host_layers.hpp"
#include "race_demo.hpp"

namespace {

using conv_direct::ConvShape;
using course::DeviceBuffer;

struct Layer {
  std::string name;
  ConvShape s;
};

struct Options {
  int repeats, warmup, cpu_batch, cpu_repeats, race_runs;
};


double forward_terms(const ConvShape& s) { return double(s.in_channels) * s.kernel_h * s.kernel_w + 1; }
double dx_terms(const ConvShape& s) { return double(s.out_channels) * s.kernel_h * s.kernel_w; }
double dw_terms(const ConvShape& s) { return double(s.batch) * s.out_h() * s.out_w(); }

// Multiply-adds of a forward pass times 2 (padded taps counted too). Backward input and backward
// weight each do the same number of multiply-adds.
double conv_flops(const ConvShape& s) {
  return 2.0 * s.batch * s.out_channels * s.out_h() * s.out_w() * s.in_channels * s.kernel_h * s.kernel_w;
}

std::string describe(const ConvShape& s) {
  char text[160];
  std::snprintf(text, sizeof text, "N=%d, %d->%d channels, %dx%d image, %dx%d kernel, stride %d, pad %d", s.batch,
                s.in_channels, s.out_channels, s.height, s.width, s.kernel_h, s.kernel_w, s.stride, s.pad);
  return text;
}

// Every kernel of the lesson against lesson 01 in double, on at most 2 images, outputs poisoned.
// Each output is a float sum of `terms` products of values in [-1, 1]: course::float_sum_tolerance.
void validate(const ConvShape& full) {
  using course::random_uniform;
  using course::to_double;
  ConvShape s = full;
  s.batch = std::min(full.batch, 2);
  const auto x = random_uniform(s.input_size(), 11), W = random_uniform(s.weight_size(), 12);
  const auto b = random_uniform(s.out_channels, 13), dy = random_uniform(s.output_size(), 14);
  std::vector<double> y(s.output_size()), dx(s.input_size()), dW(s.weight_size()), db(s.out_channels);
  host_layers::conv2d_forward(s, to_double(x).data(), to_double(W).data(), to_double(b).data(), y.data());
  host_layers::conv2d_backward(s, to_double(x).data(), to_double(W).data(), to_double(dy).data(), dx.data(),
                               dW.data(), db.data());

  DeviceBuffer<float> d_x(x), d_W(W), d_b(b), d_dy(dy), d_y(s.output_size()), d_dx(s.input_size()),
      d_dW(s.weight_size()), d_db(s.out_channels), work(conv_direct::conv2d_backward_weight_workspace(s));
  for (auto* buf : {&d_y, &d_dx, &d_dW, &d_db, &work}) buf->poison();
  conv_direct::conv2d_forward(s, d_x.data(), d_W.data(), d_b.data(), d_y.data());
  course::validate("05.1 forward y", d_y.to_host(), y, course::float_sum_tolerance(forward_terms(s)));
  conv_direct::conv2d_backward_input(s, d_W.data(), d_dy.data(), d_dx.data());
  course::validate("05.2 backward input dx", d_dx.to_host(), dx, course::float_sum_tolerance(dx_terms(s)));
  conv_direct::conv2d_backward_weight_atomic(s, d_x.data(), d_dy.data(), d_dW.data(), d_db.data());
  course::validate("05.3 atomic dW", d_dW.to_host(), dW, course::float_sum_tolerance(dw_terms(s)));
  course::validate("05.3 atomic dbias", d_db.to_host(), db, course::float_sum_tolerance(dw_terms(s)));
  d_dW.poison();
  d_db.poison();
  conv_direct::conv2d_backward_weight(s, d_x.data(), d_dy.data(), d_dW.data(), d_db.data(), work.data());
  course::validate("05.4 race-free dW", d_dW.to_host(), dW, course::float_sum_tolerance(dw_terms(s)));
  course::validate("05.4 race-free dbias", d_db.to_host(), db, course::float_sum_tolerance(dw_terms(s)));
}

// Device tensors of one layer at the full batch: random x, W, bias, dy and room for every output.
struct LayerData {
  explicit LayerData(const ConvShape& s)
      : x(course::random_uniform(s.input_size(), 1)), W(course::random_uniform(s.weight_size(), 2)),
        b(course::random_uniform(s.out_channels, 3)), dy(course::random_uniform(s.output_size(), 4)), y(s.output_size()), dx(s.input_size()), dW(s.weight_size()),
        db(s.out_channels), work(conv_direct::conv2d_backward_weight_workspace(s)) {}
  DeviceBuffer<float> x, W, b, dy, y, dx, dW, db, work;
};

// Lesson 01's float loops (cpu_baseline.cpp), scaled to the full batch. Returns {forward ms, backward ms}.
std::pair<double, double> time_cpu(const ConvShape& full, const Options& opt) {
  const lesson05::CpuConvTimes t = lesson05::time_lesson01_conv(full, opt.cpu_batch, opt.cpu_repeats);
  return {t.forward_ms, t.backward_ms};
}

void benchmark(const Layer& layer, LayerData& t, const Options& opt) {
  const ConvShape& s = layer.s;
  auto gpu_ms = [&](const std::function<void()>& fn) {
    return course::time_gpu(fn, opt.warmup, opt.repeats).median_ms;
  };
  const double fwd = gpu_ms([&] { conv_direct::conv2d_forward(s, t.x.data(), t.W.data(), t.b.data(), t.y.data()); });
  const double bin = gpu_ms([&] { conv_direct::conv2d_backward_input(s, t.W.data(), t.dy.data(), t.dx.data()); });
  const double bwa = gpu_ms([&] {
    conv_direct::conv2d_backward_weight_atomic(s, t.x.data(), t.dy.data(), t.dW.data(), t.db.data());
  });
  const double bwr = gpu_ms([&] {
    conv_direct::conv2d_backward_weight(s, t.x.data(), t.dy.data(), t.dW.data(), t.db.data(), t.work.data());
  });
  const auto [cpu_fwd, cpu_bwd] = time_cpu(s, opt);

  const double flops = conv_flops(s);
  std::printf("  %-34s %10s %12s\n", "kernel", "ms", "GFLOP/s");
  auto row = [&](const char* name, double ms) { std::printf("  %-34s %10.4f %12.0f\n", name, ms, flops / (ms * 1e6)); };
  row("forward (05.1)", fwd);
  row("backward input, gather (05.2)", bin);
  row("backward weight, atomic (05.3)", bwa);
  row("backward weight, race-free (05.4)", bwr);
  std::printf("  lesson 01 on the CPU (float, one core): forward %.1f ms, backward (dx, dW, dbias) %.1f ms\n", cpu_fwd,
              cpu_bwd);
  std::printf("    measured on %d image(s), median of %d, scaled x%.0f to N=%d\n", std::min(s.batch, opt.cpu_batch),
              opt.cpu_repeats, double(s.batch) / std::min(s.batch, opt.cpu_batch), s.batch);
  std::printf("  speed-up over lesson 01: forward %.0fx, backward (05.2 + 05.4) %.0fx\n", cpu_fwd / fwd,
              cpu_bwd / (bin + bwr));
}

// dW and dbias of one call, as one vector of gradient entries.
std::vector<float> entries_of(const LayerData& t) {
  std::vector<float> v = t.dW.to_host();
  const std::vector<float> b = t.db.to_host();
  v.insert(v.end(), b.begin(), b.end());
  return v;
}

size_t bitwise_differences(const std::vector<float>& a, const std::vector<float>& b) {
  size_t count = 0;
  for (size_t i = 0; i < a.size(); ++i) count += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
  return count;
}

// Runs one weight-gradient version `runs` times and prints how far it is from `ref` and
// whether the runs agree with the first one bit for bit. Returns the most entries wrong in a run.
size_t race_row(const char* name, const std::function<void()>& run, const LayerData& t, const std::vector<float>& ref,
              double terms, int runs) {
  const course::Tolerance tol = course::float_sum_tolerance(terms);
  double max_error = 0;
  size_t max_wrong = 0, max_differ = 0;
  int differing_runs = 0;
  std::vector<float> first;
  for (int r = 0; r < runs; ++r) {
    run();
    const std::vector<float> got = entries_of(t);
    const course::CompareResult c = course::compare(got, ref, tol);
    max_error = std::max(max_error, c.max_abs_error);
    max_wrong = std::max(max_wrong, c.failures);
    if (r == 0) {
      first = got;
    } else if (const size_t d = bitwise_differences(first, got); d > 0) {
      ++differing_runs;
      max_differ = std::max(max_differ, d);
    }
  }
  std::printf("  %-28s %12.3g %9zu of %zu %9d of %d (up to %zu entries)\n", name, max_error, max_wrong, ref.size(),
              differing_runs, runs - 1, max_differ);
  return max_wrong;
}

void race_demo(const Layer& layer, LayerData& t, const Options& opt) {
  const ConvShape& s = layer.s;
  // Reference: the race-free result (validated against lesson 01 above).
  conv_direct::conv2d_backward_weight(s, t.x.data(), t.dy.data(), t.dW.data(), t.db.data(), t.work.data());
  const std::vector<float> ref = entries_of(t);
  double largest = 0;
  for (float v : ref) largest = std::max(largest, double(std::fabs(v)));
  std::printf("  dW and dbias of the full batch, %d runs each; reference: 05.4 (largest |entry| %.3g)\n",
              opt.race_runs, largest);
  std::printf("  %-28s %12s %15s %24s\n", "version", "max |error|", "entries wrong",
              "runs differing from run 1");
  race_row("racy += (race_demo.cu)", [&] {
    conv_direct::conv2d_backward_weight_racy(s, t.x.data(), t.dy.data(), t.dW.data(), t.db.data());
  }, t, ref, dw_terms(s), opt.race_runs);
  const size_t atomic_wrong = race_row("atomic (05.3)", [&] {
    conv_direct::conv2d_backward_weight_atomic(s, t.x.data(), t.dy.data(), t.dW.data(), t.db.data());
  }, t, ref, dw_terms(s), opt.race_runs);
  const size_t race_free_wrong = race_row("race-free (05.4)", [&] {
    conv_direct::conv2d_backward_weight(s, t.x.data(), t.dy.data(), t.dW.data(), t.db.data(), t.work.data());
  }, t, ref, dw_terms(s), opt.race_runs);
  // The 2-image validation above does not cover this batch: the two correct versions must agree here.
  if (atomic_wrong > 0 || race_free_wrong > 0)
    throw course::Error("validation failed: at N=" + std::to_string(s.batch) +
                        " the atomic (05.3) and race-free (05.4) gradients disagree beyond the tolerance");
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("lesson05_conv_direct",
                           "Direct convolution on the GPU: validates every kernel against lesson 01, times them at "
                           "model A's\nshapes against lesson 01's CPU loops, and shows the data race of a plain +=.");
    args.add_flag("--quick", "batch 16, 3 repeats, CPU timed on 2 images (a fast smoke run)");
    args.add_int("--repeats", 20, 1, 1000, "timed GPU repeats per kernel (the median is reported)");
    args.add_int("--cpu-batch", 8, 1, 128, "images lesson 01's CPU loops are timed on (scaled to the full batch)");
    args.add_int("--race-runs", 5, 2, 100, "runs of each weight-gradient version in the race demo");
    args.add_flag("--cpu-only", "run only lesson 01's CPU loops at the same shapes, as without a GPU");
    if (!args.parse(argc, argv)) return 0;

    const bool quick = args.flag("--quick");
    Options opt;
    opt.repeats = quick && !args.given("--repeats") ? 3 : static_cast<int>(args.get_int("--repeats"));
    opt.warmup = quick ? 1 : 3;
    opt.cpu_batch = quick && !args.given("--cpu-batch") ? 2 : static_cast<int>(args.get_int("--cpu-batch"));
    opt.cpu_repeats = quick ? 1 : 3;
    opt.race_runs = static_cast<int>(args.get_int("--race-runs"));
    // Model A (lesson 02): conv 5x5, 1->32, pad 2 on 28x28; pool; conv 5x5, 32->64, pad 2 on 14x14.
    const int batch = quick ? 16 : 128;
    const std::vector<Layer> layers = {
        {"model A conv1", {batch, 1, 28, 28, 32, 5, 5, 1, 2}},
        {"model A conv2", {batch, 32, 14, 14, 64, 5, 5, 1, 2}},
    };

    if (course::announce_cpu_only("05", "05.1-05.4", args.flag("--cpu-only"))) {
      std::vector<lesson05::NamedConv> cpu_layers;
      for (const Layer& layer : layers) cpu_layers.push_back({layer.name, layer.s});
      lesson05::run_cpu_baseline(cpu_layers, opt.cpu_batch, opt.cpu_repeats);
      return 0;
    }

    std::printf("Lesson 05: direct convolution%s\n", quick ? " (--quick)" : "");
    std::printf("%s\n%s\n", course::device_summary().c_str(), course::cuda_versions().c_str());
    std::printf("GPU times: median of %d repeats after %d warm-up call(s), CUDA events. GFLOP/s: "
                "2*N*O*OH*OW*C*kh*kw per kernel\n",
                opt.repeats, opt.warmup);
    for (const Layer& layer : layers) {
      std::printf("\n%s: %s -> %dx%d outputs\n", layer.name.c_str(), describe(layer.s).c_str(), layer.s.out_h(),
                  layer.s.out_w());
      validate(layer.s);
      std::printf("  validated against lesson 01 (double, %d images): 05.1, 05.2, 05.3, 05.4\n",
                  std::min(layer.s.batch, 2));
      LayerData data(layer.s);
      benchmark(layer, data, opt);
      race_demo(layer, data, opt);
    }
    std::printf("\nWhat to look for: the racy += loses additions (entries wrong) and changes from run to run;\n"
                "the atomic version is right but may differ in the last bits between runs; the race-free one\n"
                "gives the same bits every run.\n");
    return 0;
  });
}
