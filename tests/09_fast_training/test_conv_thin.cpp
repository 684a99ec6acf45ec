// Lesson 09, step 09.13: the thin first layer. The fused forward against lesson 01's conv in double
// with the window's first maximum and the ReLU worked out here; on inputs whose sums are exact (ties
// everywhere) value and argmax must be exactly the rule's. The weight gradient from d_pooled and the
// argmax against lesson 01's conv backward in double on the gradient the pool sends back (each
// pooled gradient at its winner, zero elsewhere). Outputs poisoned before every call; odd sizes, a
// channel count that is not a multiple of the block's 8, 1-3 input channels; the same bits twice;
// the shapes it refuses; and the fast network with its first block on the thin kernels against
// lesson 08's GpuNetwork.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "device_download.hpp"
#include "fast_network.hpp"
#include "fast_training.hpp"
#include "host_layers.hpp"
#include "network.hpp"

using course::DeviceBuffer;
using host_layers::ConvShape;
using host_layers::PoolShape;

namespace {

struct ThinCase {
  int batch, channels, height, width, out_channels, k, pad, window;
};

// Model A's conv1 (5x5, pad 2) at batch 3; the speedrun's (3x3, pad 1) on odd 15x13 images (the
// pool drops a row and a column) with 13 output channels; colour images (3 channels); no padding
// and a window of 3; two channels.
std::vector<ThinCase> thin_cases() {
  return {{3, 1, 28, 28, 32, 5, 2, 2}, {2, 1, 15, 13, 13, 3, 1, 2}, {2, 3, 32, 32, 16, 3, 1, 2},
          {2, 1, 11, 12, 5, 3, 0, 3}, {1, 2, 9, 9, 9, 3, 1, 2}};
}

ConvShape conv_of(const ThinCase& c) {
  ConvShape s;
  s.batch = c.batch, s.in_channels = c.channels, s.height = c.height, s.width = c.width;
  s.out_channels = c.out_channels, s.kernel_h = s.kernel_w = c.k, s.stride = 1, s.pad = c.pad;
  return s;
}

PoolShape pool_of(const ConvShape& s, int window) {
  PoolShape p;
  p.batch = s.batch, p.channels = s.out_channels, p.height = s.out_h(), p.width = s.out_w();
  p.window = p.stride = window;
  return p;
}

struct PooledPlace {
  int plane, ph, pw;  // plane = n * channels + c
};
PooledPlace pooled_place(const PoolShape& p, size_t o) {
  const size_t per_plane = size_t(p.out_h()) * p.out_w();
  const int q = int(o % per_plane);
  return {int(o / per_plane), q / p.out_w(), q % p.out_w()};
}

// The rule on the conv's outputs y (double): per pooled output, the window's first maximum (a
// later value must be strictly larger), then the ReLU: the maximum and its index if > 0, else 0, -1.
void pool_rule(const PoolShape& p, const std::vector<double>& y, std::vector<double>& value, std::vector<int>& at) {
  const int OH = p.height, OW = p.width, PH = p.out_h(), PW = p.out_w();
  value.assign(p.output_size(), 0.0);
  at.assign(p.output_size(), -1);
  for (int plane = 0; plane < p.batch * p.channels; ++plane)
    for (int ph = 0; ph < PH; ++ph)
      for (int pw = 0; pw < PW; ++pw) {
        int best = -1;
        for (int i = 0; i < p.window; ++i)
          for (int j = 0; j < p.window; ++j) {
            const int idx = (plane * OH + ph * p.window + i) * OW + pw * p.window + j;
            if (best < 0 || y[size_t(idx)] > y[size_t(best)]) best = idx;
          }
        const size_t o = (size_t(plane) * PH + ph) * PW + pw;
        if (y[size_t(best)] > 0) value[o] = y[size_t(best)], at[o] = best;
      }
}

std::vector<double> conv_reference(const ConvShape& s, const std::vector<float>& x, const std::vector<float>& W,
                                   const std::vector<float>& bias) {
  std::vector<double> y(s.output_size());
  const std::vector<double> xd(x.begin(), x.end()), wd(W.begin(), W.end()), bd(bias.begin(), bias.end());
  host_layers::conv2d_forward<double>(s, xd.data(), wd.data(), bd.data(), y.data());
  return y;
}

struct Forward {
  std::vector<float> pooled;
  std::vector<int> argmax;
};

Forward run_forward(const ConvShape& s, const PoolShape& p, const std::vector<float>& x, const std::vector<float>& W,
                    const std::vector<float>& bias) {
  DeviceBuffer<float> dx(x), dW(W), db(bias), pooled(course::test::nan_vector(p.output_size()));
  DeviceBuffer<int> argmax(std::vector<int>(p.output_size(), 12345));  // poison: no real index or -1
  fast_training::thin_conv_relu_maxpool(s, p, dx.data(), dW.data(), db.data(), pooled.data(), argmax.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return {pooled.to_host(), argmax.to_host()};
}

// A value on a grid of `step` in [lo, hi]: sums of a few such products are exact in float.
std::vector<float> grid_vector(size_t n, uint64_t seed, int lo, int hi, float step) {
  course::Rng rng(seed, 1);
  std::vector<float> v(n);
  for (float& e : v) e = float(lo + rng.uniform_int(hi - lo + 1)) * step;
  return v;
}

// dW, dbias of lesson 01's conv backward (double) on the gradient the pool sends to the conv's
// output: d_pooled at each winner, zero elsewhere.
void dw_reference(const ConvShape& s, const PoolShape& p, const std::vector<float>& x, const std::vector<float>& W,
                  const std::vector<int>& argmax, const std::vector<float>& d_pooled, std::vector<double>& dW,
                  std::vector<double>& dbias) {
  std::vector<double> dy(s.output_size(), 0.0);
  for (size_t o = 0; o < p.output_size(); ++o)
    if (argmax[o] >= 0) dy[size_t(argmax[o])] = d_pooled[o];
  const std::vector<double> xd(x.begin(), x.end()), wd(W.begin(), W.end());
  std::vector<double> dx(s.input_size());
  dW.assign(s.weight_size(), 0.0);
  dbias.assign(size_t(s.out_channels), 0.0);
  host_layers::conv2d_backward<double>(s, xd.data(), wd.data(), dy.data(), dx.data(), dW.data(), dbias.data());
}

struct Gradient {
  std::vector<float> dW, dbias;
};

Gradient run_backward(const ConvShape& s, const PoolShape& p, const std::vector<float>& x,
                      const std::vector<int>& argmax, const std::vector<float>& d_pooled) {
  DeviceBuffer<float> dx(x), dpool(d_pooled), dW(course::test::nan_vector(s.weight_size())),
      db(course::test::nan_vector(size_t(s.out_channels))),
      work(course::test::nan_vector(fast_training::thin_conv_dw_workspace_floats(s)));
  DeviceBuffer<int> am(argmax);
  fast_training::thin_conv_backward_weight(s, p, dx.data(), am.data(), dpool.data(), dW.data(), db.data(), work.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return {dW.to_host(), db.to_host()};
}

}  // namespace

TEST_CASE("thin conv + ReLU + pool: values against lesson 01 in double, each argmax a window's maximum",
          "[09.13]") {
  uint64_t seed = 1300;
  for (const ThinCase& c : thin_cases()) {
    const ConvShape s = conv_of(c);
    const PoolShape p = pool_of(s, c.window);
    CAPTURE(c.batch, c.channels, c.height, c.width, c.out_channels, c.k, c.pad, c.window);
    ++seed;
    COURSE_INPUT_SEED(seed);
    REQUIRE(fast_training::thin_conv_problem(s, p) == "");
    const std::vector<float> x = course::test::random_vector(s.input_size(), seed, 0.0f, 1.0f);
    const std::vector<float> W = course::test::random_vector(s.weight_size(), seed + 1, -0.5f, 0.5f);
    // Every third channel's bias far below its sums' spread: windows the ReLU stops, whatever the draw.
    std::vector<float> bias = course::test::random_vector(size_t(s.out_channels), seed + 2, -0.3f, 0.3f);
    for (size_t o = 0; o < bias.size(); o += 3) bias[o] = -2.0f;
    const std::vector<double> y = conv_reference(s, x, W, bias);
    std::vector<double> want;
    std::vector<int> want_at;
    pool_rule(p, y, want, want_at);
    const Forward got = run_forward(s, p, x, W, bias);

    double scale = 0;
    for (double v : y) scale = std::max(scale, std::fabs(v));
    const double tol = 1e-5 * scale;  // float sums of at most 75 products: a few ulps of the scale
    const std::vector<double> got_value(got.pooled.begin(), got.pooled.end());
    REQUIRE_ALL_CLOSE(got_value, want, tol, 1e-5);
    int positive = 0, stopped = 0;
    for (size_t o = 0; o < p.output_size(); ++o) {
      const auto [plane, ph, pw] = pooled_place(p, o);
      CAPTURE(o, got.argmax[o], want_at[o], want[o]);
      if (got.argmax[o] < 0) {
        REQUIRE(got.pooled[o] == 0.0f);
        REQUIRE(want[o] <= tol);  // -1 only where the window's maximum is (within rounding) <= 0
        ++stopped;
        continue;
      }
      ++positive;
      // The winner lies in the output's window, and its value is the window's maximum.
      const int at = got.argmax[o];
      const int oh = at / s.out_w() % s.out_h(), ow = at % s.out_w();
      REQUIRE(at / (s.out_h() * s.out_w()) == plane);
      REQUIRE((oh / p.window == ph && ow / p.window == pw && oh < p.out_h() * p.window && ow < p.out_w() * p.window));
      REQUIRE(std::fabs(y[size_t(at)] - want[o]) <= tol);
      REQUIRE(std::fabs(double(got.pooled[o]) - y[size_t(at)]) <= tol);
    }
    REQUIRE(positive > 0);  // the case has both kinds of outputs
    REQUIRE(stopped > 0);
  }
}

TEST_CASE("thin conv + ReLU + pool: exact sums and ties everywhere: the first maximum, -1 for <= 0", "[09.13]") {
  uint64_t seed = 1350;
  for (const ThinCase& c : thin_cases()) {
    const ConvShape s = conv_of(c);
    const PoolShape p = pool_of(s, c.window);
    CAPTURE(c.channels, c.height, c.out_channels, c.k);
    ++seed;
    COURSE_INPUT_SEED(seed);
    // Inputs 0, 0.5, 1; weights -1, 0, 1; biases -0.5, 0, 0.5: every sum is a multiple of 0.5.
    const std::vector<float> x = grid_vector(s.input_size(), seed, 0, 2, 0.5f);
    const std::vector<float> W = grid_vector(s.weight_size(), seed + 1, -1, 1, 1.0f);
    const std::vector<float> bias = grid_vector(size_t(s.out_channels), seed + 2, -1, 1, 0.5f);
    std::vector<double> want;
    std::vector<int> want_at;
    pool_rule(p, conv_reference(s, x, W, bias), want, want_at);
    const Forward got = run_forward(s, p, x, W, bias);
    int ties = 0;
    const std::vector<double> y = conv_reference(s, x, W, bias);
    for (size_t o = 0; o < p.output_size(); ++o) {
      CAPTURE(o);
      REQUIRE(double(got.pooled[o]) == want[o]);
      REQUIRE(got.argmax[o] == want_at[o]);
      if (want_at[o] >= 0) {  // count windows where another output equals the winner
        const auto [plane, ph, pw] = pooled_place(p, o);
        for (int i = 0; i < p.window; ++i)
          for (int j = 0; j < p.window; ++j) {
            const int idx = (plane * s.out_h() + ph * p.window + i) * s.out_w() + pw * p.window + j;
            ties += idx != want_at[o] && y[size_t(idx)] == y[size_t(want_at[o])];
          }
      }
    }
    REQUIRE(ties > 0);  // the rule was tested, not only the maximum
  }
}

TEST_CASE("thin weight gradient: dW and dbias from d_pooled and the argmax, against lesson 01 in double",
          "[09.13]") {
  uint64_t seed = 1400;
  for (const ThinCase& c : thin_cases()) {
    const ConvShape s = conv_of(c);
    const PoolShape p = pool_of(s, c.window);
    CAPTURE(c.batch, c.channels, c.height, c.out_channels, c.k, c.pad, c.window);
    ++seed;
    COURSE_INPUT_SEED(seed);
    const std::vector<float> x = course::test::random_vector(s.input_size(), seed, 0.0f, 1.0f);
    const std::vector<float> W = course::test::random_vector(s.weight_size(), seed + 1, -0.5f, 0.5f);
    const std::vector<float> bias = course::test::random_vector(size_t(s.out_channels), seed + 2, -0.3f, 0.3f);
    // The argmax of the reference (every stopped output -1), and gradients of both signs.
    std::vector<double> value;
    std::vector<int> at;
    pool_rule(p, conv_reference(s, x, W, bias), value, at);
    const std::vector<float> d_pooled = course::test::random_vector(p.output_size(), seed + 3, -1.0f, 1.0f);
    std::vector<double> want_dW, want_db;
    dw_reference(s, p, x, W, at, d_pooled, want_dW, want_db);
    const Gradient got = run_backward(s, p, x, at, d_pooled);
    double largest = 0;
    for (double v : want_dW) largest = std::max(largest, std::fabs(v));
    REQUIRE(largest > 0);
    const std::vector<double> dW(got.dW.begin(), got.dW.end()), db(got.dbias.begin(), got.dbias.end());
    REQUIRE_ALL_CLOSE(dW, want_dW, 1e-5 * largest, 1e-4);
    REQUIRE_ALL_CLOSE(db, want_db, 1e-5 * largest, 1e-4);
    // The same bits on a second run: the slices are added in a fixed order.
    const Gradient again = run_backward(s, p, x, at, d_pooled);
    REQUIRE(again.dW == got.dW);
    REQUIRE(again.dbias == got.dbias);
  }
}

TEST_CASE("thin weight gradient: exact sums; a stopped window sends nothing", "[09.13]") {
  uint64_t seed = 1450;
  for (const ThinCase& c : thin_cases()) {
    const ConvShape s = conv_of(c);
    const PoolShape p = pool_of(s, c.window);
    CAPTURE(c.channels, c.height, c.out_channels, c.k);
    ++seed;
    COURSE_INPUT_SEED(seed);
    const std::vector<float> x = grid_vector(s.input_size(), seed, 0, 2, 0.5f);
    std::vector<int> at(p.output_size());
    course::Rng rng(seed, 2);
    // Winners anywhere in their windows, a third of them stopped by the ReLU.
    for (size_t o = 0; o < at.size(); ++o) {
      const auto [plane, ph, pw] = pooled_place(p, o);
      const int oh = ph * p.window + rng.uniform_int(p.window), ow = pw * p.window + rng.uniform_int(p.window);
      at[o] = rng.uniform_int(3) == 0 ? -1 : (plane * s.out_h() + oh) * s.out_w() + ow;
    }
    const std::vector<float> d_pooled = grid_vector(p.output_size(), seed + 3, -4, 4, 0.25f);
    std::vector<double> want_dW, want_db;
    dw_reference(s, p, x, std::vector<float>(s.weight_size(), 0.0f), at, d_pooled, want_dW, want_db);
    const Gradient got = run_backward(s, p, x, at, d_pooled);
    REQUIRE(std::vector<double>(got.dW.begin(), got.dW.end()) == want_dW);
    REQUIRE(std::vector<double>(got.dbias.begin(), got.dbias.end()) == want_db);
    // Every window stopped: nothing at all.
    const Gradient none = run_backward(s, p, x, std::vector<int>(p.output_size(), -1), d_pooled);
    REQUIRE(none.dW == std::vector<float>(s.weight_size(), 0.0f));
    REQUIRE(none.dbias == std::vector<float>(size_t(s.out_channels), 0.0f));
  }
}

TEST_CASE("thin conv: the shapes it refuses say why, and the functions throw that", "[09.13]") {
  ConvShape s;
  s.batch = 2, s.in_channels = 1, s.height = s.width = 28, s.out_channels = 32, s.kernel_h = s.kernel_w = 5, s.pad = 2;
  const PoolShape p = pool_of(s, 2);
  REQUIRE(fast_training::thin_conv_problem(s, p) == "");
  ConvShape wide = s;
  wide.in_channels = 2;  // 2 x 5 x 5 = 50 taps
  CHECK(fast_training::thin_conv_problem(wide, pool_of(wide, 2)).find("taps") != std::string::npos);
  ConvShape strided = s;
  strided.stride = 2;
  CHECK(fast_training::thin_conv_problem(strided, pool_of(strided, 2)).find("stride") != std::string::npos);
  PoolShape overlapping = p;
  overlapping.stride = 1;
  CHECK(fast_training::thin_conv_problem(s, overlapping).find("overlap") != std::string::npos);
  ConvShape big = s;
  big.height = big.width = 200;
  CHECK(fast_training::thin_conv_problem(big, pool_of(big, 2)).find("shared memory") != std::string::npos);
  PoolShape other = p;
  other.channels = 31;
  CHECK(fast_training::thin_conv_problem(s, other).find("does not read") != std::string::npos);
  ConvShape seven = s;
  seven.kernel_h = seven.kernel_w = 7;
  CHECK(fast_training::thin_conv_problem(seven, pool_of(seven, 2)).find("3x3 and 5x5") != std::string::npos);
  REQUIRE_THROWS_AS(fast_training::thin_conv_relu_maxpool(strided, pool_of(strided, 2), nullptr, nullptr, nullptr,
                                                          nullptr, nullptr),
                    course::Error);
  REQUIRE_THROWS_AS(fast_training::thin_conv_backward_weight(wide, pool_of(wide, 2), nullptr, nullptr, nullptr,
                                                             nullptr, nullptr, nullptr),
                    course::Error);
}

TEST_CASE("FastNetwork with its first block on the thin kernels: logits, losses, gradients as lesson 08's",
          "[09.13]") {
  struct NetCase {
    const char* model;
    int height, width, batch, max_batch;
  };
  uint64_t seed = 1480;
  for (const NetCase c : {NetCase{"a", 28, 28, 5, 8}, NetCase{"a", 15, 15, 7, 7}, NetCase{"small", 28, 28, 9, 16}}) {
    host_training::ModelSpec spec = host_training::model_by_name(c.model);
    spec.height = c.height, spec.width = c.width;
    CAPTURE(c.model, c.height, c.batch);
    ++seed;
    COURSE_INPUT_SEED(seed);
    const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, seed);
    const size_t per_example = size_t(spec.in_channels) * spec.height * spec.width;
    DeviceBuffer<float> x(course::test::random_vector(size_t(c.batch) * per_example, seed + 1, 0.0f, 1.0f));
    std::vector<int> labels(size_t(c.batch));
    for (int b = 0; b < c.batch; ++b) labels[size_t(b)] = int((seed + 7 * b) % spec.classes);
    DeviceBuffer<int> d_labels(labels);

    mnist_gpu::GpuNetwork reference(spec, init, c.max_batch, mnist_gpu::ConvAlgorithm::im2col);
    reference.forward_backward(x.data(), d_labels.data(), c.batch);
    const std::vector<float> ref_logits = course::test::download(reference.logits(), size_t(c.batch) * spec.classes);
    const std::vector<host_training::Parameter> ref_grads = reference.parameters().download();

    fast_training::FastNetwork net(spec, init, c.max_batch, nullptr, fast_training::ConvEngine::tiled);
    net.use_thin_first_layer(true);
    REQUIRE(net.thin_first_layer());
    CUDA_CHECK(cudaMemset(net.parameters().grads(), 0xff, net.parameters().total() * sizeof(float)));
    net.forward_backward(x.data(), d_labels.data(), c.batch);
    CUDA_CHECK(cudaDeviceSynchronize());
    REQUIRE_ALL_CLOSE(course::test::download(net.logits(), size_t(c.batch) * spec.classes), ref_logits, 1e-4, 1e-4);
    const std::vector<host_training::Parameter> grads = net.parameters().download();
    REQUIRE(grads.size() == ref_grads.size());
    for (size_t t = 0; t < grads.size(); ++t) {
      CAPTURE(grads[t].name);
      double largest = 0;
      for (float g : ref_grads[t].grad) largest = std::max(largest, double(std::fabs(g)));
      REQUIRE_ALL_CLOSE(grads[t].grad, ref_grads[t].grad, 1e-4 * largest, 1e-3);
    }
    net.use_thin_first_layer(false);  // and back: the separate passes again, the same gradients
    REQUIRE_FALSE(net.thin_first_layer());
    net.forward_backward(x.data(), d_labels.data(), c.batch);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<host_training::Parameter> separate = net.parameters().download();
    for (size_t t = 0; t < grads.size(); ++t) {
      double largest = 0;
      for (float g : ref_grads[t].grad) largest = std::max(largest, double(std::fabs(g)));
      REQUIRE_ALL_CLOSE(separate[t].grad, ref_grads[t].grad, 1e-4 * largest, 1e-3);
    }
  }
}
