// Lesson 06 program: checks every max-pool variant against lesson 01 (host_layers), then
// times the forward + backward pairs side by side, with two scatter-style backward passes
// (naive_scatter.hpp) for comparison. Without a GPU (or with --cpu-only) it times lesson 01's
// loops alone (cpu_baseline.hpp).
//   lesson06_pooling [--quick] [--repeats N] [--seed S] [--cpu-only]
#include <climits>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "cpu_baseline.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "course/timer.hpp"
#include "host_layers.hpp"
#include "naive_scatter.hpp"
#include "pooling.hpp"

namespace {

using pooling::PoolShape;

struct Problem {
  std::string name;
  PoolShape s;
};

std::string shape_text(const PoolShape& s) {
  char text[128];
  std::snprintf(text, sizeof text, "%dx%dx%dx%d, window %d stride %d", s.batch, s.channels, s.height, s.width,
                s.window, s.stride);
  return text;
}

// Everything one problem needs, on the host (inputs and lesson 01's results) and the device.
struct Workspace {
  PoolShape s;
  std::vector<float> x, dy, y_ref, dx_ref;
  std::vector<int> argmax_ref;
  course::DeviceBuffer<float> d_x, d_y, d_dy, d_dx;
  course::DeviceBuffer<int> d_argmax;
  course::DeviceBuffer<uint8_t> d_mask;

  Workspace(const PoolShape& shape, uint64_t seed)
      : s(shape),
        x(course::random_floats(shape.input_size(), seed, 0)),  // x and dy: two streams of one seed
        dy(course::random_floats(shape.output_size(), seed, 1)),
        y_ref(shape.output_size()),
        dx_ref(shape.input_size()),
        argmax_ref(shape.output_size()),
        d_x(x),
        d_y(shape.output_size()),
        d_dy(dy),
        d_dx(shape.input_size()),
        d_argmax(shape.output_size()),
        d_mask(shape.input_size()) {
    host_layers::maxpool_forward<float>(s, x.data(), y_ref.data(), argmax_ref.data());
    host_layers::maxpool_backward<float>(s, argmax_ref.data(), dy.data(), dx_ref.data());
  }
};

// ---- validation: every variant against lesson 01 before anything is timed -------------------

template <typename T>
void require_equal(const std::string& what, const std::vector<T>& got, const std::vector<T>& ref) {
  for (size_t i = 0; i < ref.size(); ++i)
    if (got[i] != ref[i])
      throw course::Error(what + " does not match lesson 01 at index " + std::to_string(i) + ": got " +
                          std::to_string(got[i]) + ", expected " + std::to_string(ref[i]));
}

// dx sums at most ceil(window/stride)^2 values of |dy| < 1. Our gathers add them in lesson 01's
// order (bit-exact); a scatter adds them in another order: course::float_sum_tolerance of that
// many terms, still far below one dy (an error).
void check_backward(Workspace& w, const std::string& name, const std::function<void()>& backward) {
  const int per_axis = (w.s.window + w.s.stride - 1) / w.s.stride;
  w.d_dx.poison();
  backward();
  course::validate(name + ": dx", w.d_dx.to_host(), w.dx_ref, course::float_sum_tolerance(per_axis * per_axis));
}

void validate(Workspace& w) {
  const PoolShape& s = w.s;
  // 06.1 argmax
  w.d_y.poison();
  w.d_argmax.poison();
  pooling::maxpool_forward_argmax(s, w.d_x.data(), w.d_y.data(), w.d_argmax.data());
  require_equal("argmax forward: y", w.d_y.to_host(), w.y_ref);
  require_equal("argmax forward: argmax", w.d_argmax.to_host(), w.argmax_ref);
  check_backward(w, "argmax backward",
                 [&] { pooling::maxpool_backward_argmax(s, w.d_argmax.data(), w.d_dy.data(), w.d_dx.data()); });
  check_backward(w, "scatter+atomicAdd backward", [&] {
    pooling::maxpool_backward_scatter_atomic(s, w.d_argmax.data(), w.d_dy.data(), w.d_dx.data());
  });
  check_backward(w, "host-loop scatter backward", [&] {
    pooling::maxpool_backward_scatter_host_loop(s, w.d_argmax.data(), w.d_dy.data(), w.d_dx.data());
  });
  // 06.2 mask (non-overlapping windows only)
  if (!pooling::windows_overlap(s)) {
    w.d_y.poison();
    w.d_mask.poison();
    pooling::maxpool_forward_mask(s, w.d_x.data(), w.d_y.data(), w.d_mask.data());
    require_equal("mask forward: y", w.d_y.to_host(), w.y_ref);
    std::vector<uint8_t> mask_ref(s.input_size(), 0);
    for (int i : w.argmax_ref) mask_ref[size_t(i)] = 1;
    require_equal("mask forward: mask", w.d_mask.to_host(), mask_ref);
    check_backward(w, "mask backward",
                   [&] { pooling::maxpool_backward_mask(s, w.d_mask.data(), w.d_dy.data(), w.d_dx.data()); });
  }
  // 06.3 recompute
  w.d_y.poison();
  pooling::maxpool_forward(s, w.d_x.data(), w.d_y.data());
  require_equal("plain forward: y", w.d_y.to_host(), w.y_ref);
  check_backward(w, "recompute backward",
                 [&] { pooling::maxpool_backward_recompute(s, w.d_x.data(), w.d_dy.data(), w.d_dx.data()); });
}

// ---- timing -------------------------------------------------------------------------------------

struct Variant {
  std::string name;
  std::function<void()> forward, backward;
  double forward_bytes, backward_bytes;  // the least traffic each pass needs (see README)
};

std::vector<Variant> variants(Workspace& w) {
  const PoolShape& s = w.s;
  const double N = double(s.input_size()), M = double(s.output_size()), f = sizeof(float);
  float *x = w.d_x.data(), *y = w.d_y.data(), *dy = w.d_dy.data(), *dx = w.d_dx.data();
  int* argmax = w.d_argmax.data();
  uint8_t* mask = w.d_mask.data();
  auto fwd_argmax = [=] { pooling::maxpool_forward_argmax(s, x, y, argmax); };
  const double fwd_argmax_bytes = f * (N + 2 * M);  // read x; write y and argmax
  std::vector<Variant> v;
  v.push_back({"06.1 argmax (gather)", fwd_argmax, [=] { pooling::maxpool_backward_argmax(s, argmax, dy, dx); },
               fwd_argmax_bytes, f * (2 * M + N)});  // read argmax, dy; write dx
  if (!pooling::windows_overlap(s))
    v.push_back({"06.2 mask (byte mask)", [=] { pooling::maxpool_forward_mask(s, x, y, mask); },
                 [=] { pooling::maxpool_backward_mask(s, mask, dy, dx); },
                 f * (N + M) + N,      // read x; write y and one byte per input
                 N + f * (M + N)});    // read mask, dy; write dx
  v.push_back({"06.3 recompute", [=] { pooling::maxpool_forward(s, x, y); },
               [=] { pooling::maxpool_backward_recompute(s, x, dy, dx); },
               f * (N + M),            // read x; write y
               f * (2 * N + M)});      // read x again and dy; write dx
  v.push_back({"scatter + atomicAdd", fwd_argmax,
               [=] { pooling::maxpool_backward_scatter_atomic(s, argmax, dy, dx); }, fwd_argmax_bytes,
               f * (N + 3 * M)});      // zero dx; read argmax, dy; add into dx at M places
  v.push_back({"scatter, host loop", fwd_argmax,
               [=] { pooling::maxpool_backward_scatter_host_loop(s, argmax, dy, dx); }, fwd_argmax_bytes,
               f * (N + 2 * M * s.window * s.window + M)});  // zero dx; window^2 passes over argmax, dy
  return v;
}

// Device-to-device copy bandwidth (read + write) of a buffer of `floats`: the ceiling for
// kernels that only move data.
double copy_gbps(size_t floats, int repeats) {
  course::DeviceBuffer<float> a(floats), b(floats);
  a.zero();
  const course::TimingStats t = course::time_gpu(
      [&] { CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice)); }, 3,
      repeats);
  return 2.0 * double(a.bytes()) / (t.median_ms * 1e6);
}

void time_problem(Workspace& w, const std::string& name, int repeats, double copy_ceiling) {
  std::printf("\n%s: %s (%.1f MB of input)\n", name.c_str(), shape_text(w.s).c_str(),
              double(w.s.input_size()) * sizeof(float) / 1e6);
  if (pooling::windows_overlap(w.s)) std::printf("  (windows overlap: the mask variant does not apply)\n");
  std::printf("  %-22s %9s %9s %10s %9s %9s %8s\n", "variant", "fwd ms", "bwd ms", "fwd+bwd ms", "bwd GB/s",
              "pair GB/s", "% copy");
  double first_pair = 0;
  for (const Variant& v : variants(w)) {
    const double fwd = course::time_gpu(v.forward, 3, repeats).median_ms;
    const double bwd = course::time_gpu(v.backward, 3, repeats).median_ms;
    const double pair = course::time_gpu([&] { v.forward(); v.backward(); }, 3, repeats).median_ms;
    if (first_pair == 0) first_pair = pair;
    const double bwd_gbps = v.backward_bytes / (bwd * 1e6);
    const double pair_gbps = (v.forward_bytes + v.backward_bytes) / (pair * 1e6);
    std::printf("  %-22s %9.4f %9.4f %10.4f %9.0f %9.0f %7.0f%%   %.2fx the argmax pair's time\n",
                v.name.c_str(), fwd, bwd, pair, bwd_gbps, pair_gbps, 100.0 * pair_gbps / copy_ceiling,
                pair / first_pair);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("lesson06_pooling",
                           "Max-pool forward + backward on the GPU: argmax, mask and recompute variants, "
                           "checked against lesson 01, then timed side by side.");
    args.add_flag("--quick", "small sizes and few repeats (a fast check)");
    args.add_int("--repeats", 20, 1, 1000, "timed repeats per measurement (the median is reported)");
    args.add_int("--seed", 1, 0, INT_MAX, "seed of the random inputs");
    args.add_flag("--cpu-only", "run only lesson 01's CPU loops at the same shapes, as without a GPU");
    if (!args.parse(argc, argv)) return 0;
    const bool quick = args.flag("--quick");
    const int repeats = args.given("--repeats") || !quick ? int(args.get_int("--repeats")) : 3;
    const uint64_t seed = static_cast<uint64_t>(args.get_int("--seed"));

    // {batch, channels, height, width, window, stride}
    std::vector<Problem> problems;
    if (quick) {
      problems = {{"model pool 1 (small batch)", {8, 32, 28, 28, 2, 2}},
                  {"overlapping windows", {8, 32, 28, 28, 3, 2}}};
    } else {
      problems = {{"model pool 1", {128, 32, 28, 28, 2, 2}},
                  {"model pool 2", {128, 64, 14, 14, 2, 2}},
                  {"large", {64, 64, 112, 112, 2, 2}},
                  {"overlapping windows", {128, 32, 28, 28, 3, 2}}};
    }

    if (course::announce_cpu_only("06", "06.1-06.3", args.flag("--cpu-only"))) {
      std::vector<lesson06::NamedPool> cpu_problems;
      for (const Problem& p : problems) cpu_problems.push_back({p.name, p.s});
      lesson06::run_cpu_baseline(cpu_problems, quick ? 2 : 5, seed);
      return 0;
    }

    std::printf("lesson 06: max-pooling, three ways\n%s\n%s\n", course::device_summary().c_str(),
                course::cuda_versions().c_str());

    std::printf("\nvalidating every variant against lesson 01 (y, argmax and mask exactly; dx to\n"
                "8 * FLT_EPSILON per summed dy, the room a scatter's other order of additions needs)...\n");
    std::vector<Workspace> spaces;
    spaces.reserve(problems.size());
    for (const Problem& p : problems) {
      spaces.emplace_back(p.s, seed);
      validate(spaces.back());
      std::printf("  %-28s %s: ok\n", p.name.c_str(), shape_text(p.s).c_str());
    }

    const size_t copy_floats = quick ? (size_t(1) << 22) : (size_t(1) << 26);
    const double ceiling = copy_gbps(copy_floats, repeats);
    std::printf("\ndevice-to-device copy: %.0f GB/s (read + write of %.0f MB); the %% column is against it\n",
                ceiling, double(copy_floats) * sizeof(float) / 1e6);
    std::printf("GB/s = the least bytes each pass must move / its time (see the README); inputs that fit\n"
                "in L2 cache can beat the copy figure, which streams from memory.\n");
    for (size_t i = 0; i < problems.size(); ++i) time_problem(spaces[i], problems[i].name, repeats, ceiling);
    return 0;
  });
}
