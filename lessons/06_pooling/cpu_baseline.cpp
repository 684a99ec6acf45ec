#include "cpu_baseline.hpp"

#include <cstdio>

#include "course/check.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"

namespace lesson06 {

namespace {

using host_layers::PoolShape;

// Forward: y is the window's maximum and argmax points at its FIRST occurrence (row-major).
// Backward: dx is dy scattered to the argmax positions. Both checked exactly, from the definition.
void check(const PoolShape& s, const std::vector<float>& x, const std::vector<float>& y,
           const std::vector<int>& argmax, const std::vector<float>& dy, const std::vector<float>& dx) {
  std::vector<float> dx_ref(s.input_size(), 0.0f);
  size_t o = 0;
  for (int plane = 0; plane < s.batch * s.channels; ++plane)
    for (int oh = 0; oh < s.out_h(); ++oh)
      for (int ow = 0; ow < s.out_w(); ++ow, ++o) {
        size_t best = 0;
        bool first = true;
        for (int i = 0; i < s.window; ++i)
          for (int j = 0; j < s.window; ++j) {
            const size_t at = (size_t(plane) * s.height + oh * s.stride + i) * s.width + ow * s.stride + j;
            if (first || x[at] > x[best]) best = at;
            first = false;
          }
        if (y[o] != x[best] || argmax[o] != int(best))
          throw course::Error("lesson 01's max-pool forward disagrees with the window maximum at output " +
                              std::to_string(o));
        dx_ref[best] += dy[o];
      }
  for (size_t i = 0; i < dx.size(); ++i)
    if (dx[i] != dx_ref[i])
      throw course::Error("lesson 01's max-pool backward disagrees with the scatter of dy at input " +
                          std::to_string(i));
}

}  // namespace

void run_cpu_baseline(const std::vector<NamedPool>& problems, int repeats, uint64_t seed) {
  std::printf("lesson 01's max-pool loops (float, one core, host clock), median of %d, each checked\n"
              "against the definition first. GB/s = the least bytes the pass must move / its time,\n"
              "counted as for the GPU table's argmax row.\n\n",
              repeats);
  std::printf("  %-22s %-32s %9s %9s %9s %9s\n", "problem", "shape", "fwd ms", "bwd ms", "fwd GB/s", "bwd GB/s");
  for (const NamedPool& p : problems) {
    const PoolShape& s = p.s;
    const std::vector<float> x = course::random_floats(s.input_size(), seed, 0);
    const std::vector<float> dy = course::random_floats(s.output_size(), seed, 1);
    std::vector<float> y(s.output_size()), dx(s.input_size());
    std::vector<int> argmax(s.output_size());
    auto forward = [&] { host_layers::maxpool_forward(s, x.data(), y.data(), argmax.data()); };
    auto backward = [&] { host_layers::maxpool_backward(s, argmax.data(), dy.data(), dx.data()); };
    forward();
    backward();
    check(s, x, y, argmax, dy, dx);
    const double fwd = course::time_host(forward, 1, repeats).median_ms;
    const double bwd = course::time_host(backward, 1, repeats).median_ms;
    const double N = double(s.input_size()), M = double(s.output_size()), f = sizeof(float);
    char shape[96];
    std::snprintf(shape, sizeof shape, "%dx%dx%dx%d, window %d stride %d", s.batch, s.channels, s.height, s.width,
                  s.window, s.stride);
    std::printf("  %-22s %-32s %9.3f %9.3f %9.2f %9.2f\n", p.name.c_str(), shape, fwd, bwd,
                f * (N + 2 * M) / (fwd * 1e6),   // read x; write y and argmax
                f * (2 * M + N) / (bwd * 1e6));  // read argmax, dy; write dx
    std::fflush(stdout);
  }
  std::printf("\nCPU baseline done\n");
}

}  // namespace lesson06
