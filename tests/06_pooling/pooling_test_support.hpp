#pragma once
// Shared by lesson 06's tests: the shapes, the inputs (random, tied, tie-free), lesson 01's
// results as the reference, exact and tolerant comparisons, the finite-difference check, and the
// checks that all three variants go through (backward, ties, finite differences).
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "host_layers.hpp"
#include "pooling.hpp"

namespace l06 {

using pooling::PoolShape;

inline std::string describe(const PoolShape& s) {
  char text[128];
  std::snprintf(text, sizeof text, "N=%d C=%d H=%d W=%d window=%d stride=%d", s.batch, s.channels, s.height,
                s.width, s.window, s.stride);
  return text;
}

// Odd sizes, batch and channels > 1, every window/stride relation: stride == window, stride <
// window (overlap), stride > window (gaps), H or W not reached by the last window (dropped
// rows/columns), a window as large as the image, 1x1. The model-size shape has more inputs than
// the launchers' capped grid has threads, so the kernels' grid-stride loops run several rounds.
// Then seeded random shapes.
inline std::vector<PoolShape> test_shapes(bool with_model_size = true) {
  // {batch, channels, height, width, window, stride}
  std::vector<PoolShape> shapes = {
      {1, 1, 17, 13, 2, 2}, {3, 3, 17, 13, 3, 2}, {3, 10, 28, 28, 2, 2}, {1, 3, 28, 28, 3, 1},
      {3, 1, 17, 13, 2, 1}, {1, 10, 13, 17, 2, 3}, {3, 3, 17, 17, 3, 3},  {1, 1, 3, 3, 3, 1},
      {1, 1, 1, 1, 1, 1},   {3, 3, 33, 28, 2, 2}, {3, 1, 3, 33, 3, 2},   {1, 3, 28, 28, 1, 2},
  };
  course::Rng rng(606);
  for (int k = 0; k < 6; ++k) {
    PoolShape s;
    s.batch = rng.uniform_int(2) ? 3 : 1;
    const int channels[] = {1, 3, 10};
    s.channels = channels[rng.uniform_int(3)];
    s.window = 1 + rng.uniform_int(3);
    s.stride = 1 + rng.uniform_int(3);
    s.height = s.window + rng.uniform_int(34 - s.window);
    s.width = s.window + rng.uniform_int(34 - s.window);
    shapes.push_back(s);
  }
  if (with_model_size) shapes.push_back({128, 32, 28, 28, 2, 2});
  return shapes;
}

// The shapes the mask variant accepts (stride >= window).
inline std::vector<PoolShape> non_overlapping(const std::vector<PoolShape>& shapes) {
  std::vector<PoolShape> kept;
  for (const PoolShape& s : shapes)
    if (!pooling::windows_overlap(s)) kept.push_back(s);
  return kept;
}

// ---- inputs --------------------------------------------------------------------------------------

// Many exact ties: every value drawn from {0, 1, 2}.
inline std::vector<float> three_levels(size_t n, uint64_t seed) {
  course::Rng rng(seed, 7);
  std::vector<float> v(n);
  for (float& e : v) e = static_cast<float>(rng.uniform_int(3));
  return v;
}

// No ties and no two values closer than 2/n: a permutation of n evenly spaced values in
// (-1, 1). A finite-difference step below 1/n then never changes which input is a maximum.
inline std::vector<float> tie_free(size_t n, uint64_t seed) {
  const std::vector<int> order = course::Rng(seed, 9).permutation(static_cast<int>(n));
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(-1.0 + (order[i] + 0.5) * 2.0 / double(n));
  return v;
}

// Inputs full of exact ties, for the tie-rule tests.
struct TieInput {
  const char* name;
  std::vector<float> x;
  bool all_equal;  // then all_equal_dx gives the expected dx by hand
};
inline std::vector<TieInput> tie_inputs(const PoolShape& s, uint64_t seed) {
  return {{"values drawn from {0, 1, 2}", three_levels(s.input_size(), seed), false},
          {"every value equal", std::vector<float>(s.input_size(), 0.5f), true}};
}

// Upstream gradients for the tie tests: all positive, so gradient sent to a tied input that
// should not get it can never cancel out in the sum checks.
constexpr float kTieDyLo = 0.5f, kTieDyHi = 1.5f;

// ---- device buffers for one shape ----------------------------------------------------------------

struct DeviceData {
  course::DeviceBuffer<float> x, dy, y, dx;
  course::DeviceBuffer<int> argmax;
  course::DeviceBuffer<uint8_t> mask;
  DeviceData(const PoolShape& s, const std::vector<float>& host_x, const std::vector<float>& host_dy)
      : x(host_x), dy(host_dy), y(s.output_size()), dx(s.input_size()), argmax(s.output_size()),
        mask(s.input_size()) {}
};

// ---- lesson 01's results: the reference ------------------------------------------------------------

struct Reference {
  std::vector<float> y, dx;
  std::vector<int> argmax;
};

inline Reference reference(const PoolShape& s, const std::vector<float>& x, const std::vector<float>& dy) {
  Reference r{course::test::nan_vector(s.output_size()), course::test::nan_vector(s.input_size()),
              std::vector<int>(s.output_size(), -1)};
  host_layers::maxpool_forward<float>(s, x.data(), r.y.data(), r.argmax.data());
  host_layers::maxpool_backward<float>(s, r.argmax.data(), dy.data(), r.dx.data());
  return r;
}

// The mask lesson 01's argmax implies: 1 at each window's chosen input, 0 everywhere else.
inline std::vector<uint8_t> mask_from_argmax(const PoolShape& s, const std::vector<int>& argmax) {
  std::vector<uint8_t> mask(s.input_size(), 0);
  for (int i : argmax) mask[size_t(i)] = 1;
  return mask;
}

// ---- comparisons -------------------------------------------------------------------------------------

// dx[i] sums the dy of at most ceil(window/stride)^2 windows (one when they do not overlap).
// The solutions add them in lesson 01's order and match it bit for bit; a correct kernel that
// adds in another order (atomics) rounds each partial sum by at most FLT_EPSILON * |sum|, so
// course::float_sum_atol(terms, max|dy|) (below 1e-5) leaves room, while a kernel that misroutes
// gradient moves whole dy values (about 0.5 on average) by many orders more.
inline double dx_atol(const PoolShape& s, double max_abs_dy) {
  const int per_axis = (s.window + s.stride - 1) / s.stride;
  return course::float_sum_atol(per_axis * per_axis, max_abs_dy);
}

// Exact equality of integer-like results (argmax indices, mask bytes); names the first mismatch.
template <typename T>
void require_equal(const std::vector<T>& got, const std::vector<T>& ref, const char* what) {
  REQUIRE(got.size() == ref.size());
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < ref.size(); ++i)
    if (got[i] != ref[i] && bad++ == 0) first = i;
  INFO(what << ": " << bad << " of " << ref.size() << " differ; first at index " << first << ": got "
            << (bad ? +got[first] : 0) << ", expected " << (bad ? +ref[first] : 0));
  REQUIRE(bad == 0);
}

// y holds copies of inputs: exactly equal, NaN fails.
inline void require_same_values(const std::vector<float>& y, const std::vector<float>& ref, const PoolShape& s) {
  REQUIRE_TENSOR_CLOSE(y, ref, course::test::output_shape(s), 0.0, 0.0);
}

// Each dy goes to exactly one input, so sum(dx) = sum(dy). A variant that sends a window's dy
// to every tied maximum (or to none) breaks it by whole dy values. The float sums of dx differ
// from the double sum of dy by the roundings above, at most outputs * dx_atol.
inline void require_mass_conserved(const PoolShape& s, const std::vector<float>& dx, const std::vector<float>& dy,
                                   double max_abs_dy) {
  double in = 0, out = 0;
  for (float v : dx) in += v;
  for (float v : dy) out += v;
  INFO("sum(dx) = " << in << ", sum(dy) = " << out);
  REQUIRE(std::fabs(in - out) <= double(s.output_size()) * dx_atol(s, max_abs_dy) + 1e-12);
}

// Every input of an all-equal image ties with its whole window, so each window's first maximum is
// its top-left corner: dx[h][w] = dy[h/stride][w/stride] where h and w are multiples of stride
// with a window there, 0 elsewhere. Computed by hand from that rule, not by lesson 01.
inline std::vector<float> all_equal_dx(const PoolShape& s, const std::vector<float>& dy) {
  const int OH = s.out_h(), OW = s.out_w();
  std::vector<float> dx(s.input_size(), 0.0f);
  for (int p = 0; p < s.batch * s.channels; ++p)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow)
        dx[(size_t(p) * s.height + oh * s.stride) * s.width + ow * s.stride] = dy[(size_t(p) * OH + oh) * OW + ow];
  return dx;
}

// ---- finite differences ------------------------------------------------------------------------------

// Small shapes for the finite-difference check (each checks every input).
inline std::vector<PoolShape> fd_shapes() {
  return {{2, 3, 9, 7, 3, 2}, {1, 2, 8, 8, 2, 2}, {3, 1, 7, 11, 2, 1}, {1, 1, 10, 9, 3, 3}, {2, 2, 11, 10, 2, 3}};
}

// The step: tie_free inputs are at least 2/n >= 4e-3 apart on these shapes, so +-1e-4 never
// changes a window's maximum and the loss L(x) = sum_o dy[o] * maxpool(x)[o] is linear across
// the step: the difference quotient has no truncation error, only rounding (~1e-16 * |L| / eps,
// about 1e-11).
constexpr double kFdEps = 1e-4;

// Compares the GPU's dx (float) with central differences of L in double, input by input. The
// tolerance is dx_atol (the float sums) plus 1e-9 for the rounding of the quotient; a wrong
// index moves whole dy values (about 0.5 on average).
inline void require_matches_finite_differences(const PoolShape& s, const std::vector<float>& x,
                                               const std::vector<float>& dy, const std::vector<float>& dx_gpu,
                                               double max_abs_dy) {
  std::vector<double> xd(x.begin(), x.end()), yd(s.output_size());
  const std::vector<double> dyd(dy.begin(), dy.end());
  auto loss = [&] {
    host_layers::maxpool_forward<double>(s, xd.data(), yd.data(), nullptr);
    double L = 0;
    for (size_t o = 0; o < yd.size(); ++o) L += dyd[o] * yd[o];
    return L;
  };
  std::vector<double> numeric(xd.size());
  for (size_t i = 0; i < xd.size(); ++i) numeric[i] = course::test::numeric_derivative(loss, xd, i, kFdEps);
  const std::vector<double> got(dx_gpu.begin(), dx_gpu.end());
  INFO("GPU dx vs central differences of sum(dy * maxpool(x)) in double");
  REQUIRE_NAMED_CLOSE("dx", got, numeric, course::test::input_shape(s), dx_atol(s, max_abs_dy) + 1e-9, 0.0);
}

// ---- the checks every variant goes through ------------------------------------------------------------

// One max-pool variant's GPU passes over a DeviceData.
struct Variant {
  // y plus what backward needs (argmax or mask); empty for the recompute variant, whose backward
  // reads only x.
  std::function<void(const PoolShape&, DeviceData&)> forward;
  // dx from dy and that state.
  std::function<void(const PoolShape&, DeviceData&)> backward;
  // Uploads lesson 01's version of the state (so backward is tested alone); may be empty.
  std::function<void(const PoolShape&, DeviceData&, const Reference&)> upload_reference_state;
  // Compares the state forward wrote with lesson 01's; may be empty.
  std::function<void(const PoolShape&, DeviceData&, const Reference&)> check_state;
  bool needs_non_overlapping = false;  // the mask variant
};

inline std::vector<PoolShape> shapes_for(const Variant& v, const std::vector<PoolShape>& shapes) {
  return v.needs_non_overlapping ? non_overlapping(shapes) : shapes;
}

// Every output the passes write starts as NaN / -1 / 0xFF, so whatever a kernel leaves
// unwritten fails the comparisons.
inline void poison_outputs(DeviceData& d) {
  d.y.poison();
  d.argmax.poison();
  d.mask.poison();
  d.dx.poison();
}

// Calls check(s, dy, ref, d) for every test shape the variant accepts: random x and dy (seeds
// seed + 1, seed + 2, ...), lesson 01's results for them, and device buffers with poisoned outputs
// (argmax -1, mask 0xFF: neither 0 nor 1, NaN floats), so an unwritten entry fails.
template <class Check>
void for_each_random_case(const Variant& v, uint64_t seed, Check check) {
  for (const PoolShape& s : shapes_for(v, test_shapes())) {
    ++seed;
    COURSE_INPUT_SEED(seed);
    INFO(describe(s));
    const std::vector<float> x = course::test::random_vector(s.input_size(), seed);
    const std::vector<float> dy = course::test::random_vector(s.output_size(), seed + 1);
    const Reference ref = reference(s, x, dy);
    DeviceData d(s, x, dy);
    poison_outputs(d);
    check(s, dy, ref, d);
  }
}

// Forward on random inputs: y and the state equal lesson 01's exactly.
inline void check_forward_matches_lesson01(const Variant& v, uint64_t seed) {
  for_each_random_case(v, seed, [&](const PoolShape& s, const std::vector<float>&, const Reference& ref, DeviceData& d) {
    v.forward(s, d);
    require_same_values(d.y.to_host(), ref.y, s);
    v.check_state(s, d, ref);
  });
}

// Backward alone, from lesson 01's state: dx equals lesson 01's (overlapping windows included
// where the variant allows them) and conserves the sum of dy.
inline void check_backward_matches_lesson01(const Variant& v, uint64_t seed) {
  for_each_random_case(v, seed, [&](const PoolShape& s, const std::vector<float>& dy, const Reference& ref, DeviceData& d) {
    if (v.upload_reference_state) v.upload_reference_state(s, d, ref);
    v.backward(s, d);
    const std::vector<float> dx = d.dx.to_host();
    REQUIRE_TENSOR_CLOSE(dx, ref.dx, course::test::input_shape(s), dx_atol(s, 1.0), 0.0);  // see dx_atol
    require_mass_conserved(s, dx, dy, 1.0);
  });
}

// Inputs full of exact ties through forward (if the variant has one) and backward: only the
// first maximum of each window is chosen and gets the gradient.
inline void check_tie_rule(const Variant& v, uint64_t seed) {
  for (const PoolShape& s : shapes_for(v, test_shapes(false))) {
    for (const TieInput& input : tie_inputs(s, ++seed)) {
      COURSE_INPUT_SEED(seed);
      INFO(describe(s) << ", input: " << input.name);
      const std::vector<float> dy = course::test::random_vector(s.output_size(), seed + 1, kTieDyLo, kTieDyHi);
      const Reference ref = reference(s, input.x, dy);
      DeviceData d(s, input.x, dy);
      poison_outputs(d);
      if (v.forward) {
        v.forward(s, d);
        require_same_values(d.y.to_host(), ref.y, s);
        if (v.check_state) v.check_state(s, d, ref);
      }
      v.backward(s, d);
      const std::vector<float> dx = d.dx.to_host();
      REQUIRE_TENSOR_CLOSE(dx, ref.dx, course::test::input_shape(s), dx_atol(s, kTieDyHi), 0.0);
      require_mass_conserved(s, dx, dy, kTieDyHi);
      if (input.all_equal)  // one term per input: exact
        REQUIRE_TENSOR_CLOSE(dx, all_equal_dx(s, dy), course::test::input_shape(s), 0.0, 0.0);
    }
  }
}

// The variant's own forward and backward against central differences in double.
inline void check_finite_differences(const Variant& v, uint64_t seed) {
  for (const PoolShape& s : shapes_for(v, fd_shapes())) {
    ++seed;
    COURSE_INPUT_SEED(seed);
    INFO(describe(s));
    const std::vector<float> x = tie_free(s.input_size(), seed);
    const std::vector<float> dy = course::test::random_vector(s.output_size(), seed + 1);
    DeviceData d(s, x, dy);
    poison_outputs(d);
    if (v.forward) v.forward(s, d);
    v.backward(s, d);
    require_matches_finite_differences(s, x, dy, d.dx.to_host(), 1.0);
  }
}

}  // namespace l06
