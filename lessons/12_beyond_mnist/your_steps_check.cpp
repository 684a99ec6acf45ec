// Lesson 12 (given): the quick look at your 12.1-12.3 before train_beyond trains (your_steps_check.hpp).
#include "your_steps_check.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "beyond_mnist.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/step_output.hpp"
#include "dropout_mask.hpp"

namespace beyond_mnist {

namespace {

constexpr size_t kValues = 333;  // odd: more than one warp, not a multiple of anything
constexpr float kRate = 0.3f;
constexpr uint64_t kKey = 12345;

struct Check {
  const char* step;  // "12.1"
  const char* file;  // where the function is written
};

// Fails unless every value is finite and within 1e-5 + 1e-4 |expected| (float against double:
// a few ulps; a wrong formula is off by far more).
void expect_close(const Check& c, const std::string& function, const char* output, const std::vector<float>& got,
                  const std::vector<double>& expected) {
  course::expect_step_output({c.step, function, c.file, output}, got, expected, 1e-5, 1e-4);
}

std::vector<float> values(uint64_t stream, float lo, float hi) { return course::random_uniform(kValues, 120 + stream, lo, hi); }


// One function with one input and one output, on the host or (gpu) on the device.
using Unary = std::function<void(const float*, float*, size_t)>;
std::vector<float> run(bool gpu, const Unary& f, const std::vector<float>& in) {
  std::vector<float> out = course::unwritten_floats(kValues);
  if (!gpu) {
    f(in.data(), out.data(), in.size());
    return out;
  }
  course::DeviceBuffer<float> din(in), dout(out);
  f(din.data(), dout.data(), in.size());
  return dout.to_host();
}
using Binary = std::function<void(const float*, const float*, float*, size_t)>;
std::vector<float> run(bool gpu, const Binary& f, const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out = course::unwritten_floats(kValues);
  if (!gpu) {
    f(a.data(), b.data(), out.data(), a.size());
    return out;
  }
  course::DeviceBuffer<float> da(a), db(b), dout(out);
  f(da.data(), db.data(), dout.data(), a.size());
  return dout.to_host();
}

void check_activations(bool gpu) {
  const Check c{"12.1", gpu ? "exercises/activations.cu" : "exercises/activations.cpp"};
  const std::string suffix = gpu ? "_gpu" : "";
  const std::vector<float> x = values(1, -8.f, 8.f), dy = values(2, -1.f, 1.f);
  std::vector<double> s(kValues), t(kValues), ds(kValues), dt(kValues);
  for (size_t i = 0; i < kValues; ++i) {
    s[i] = 1.0 / (1.0 + std::exp(-double(x[i])));
    t[i] = std::tanh(double(x[i]));
  }
  const Unary sf = gpu ? Unary([](const float* a, float* b, size_t n) { sigmoid_forward_gpu(a, b, n); })
                       : Unary(sigmoid_forward);
  const Unary tf = gpu ? Unary([](const float* a, float* b, size_t n) { tanh_forward_gpu(a, b, n); })
                       : Unary(tanh_forward);
  const std::vector<float> sy = run(gpu, sf, x), ty = run(gpu, tf, x);
  expect_close(c, "sigmoid_forward" + suffix, "y", sy, s);
  expect_close(c, "tanh_forward" + suffix, "y", ty, t);
  for (size_t i = 0; i < kValues; ++i) {
    ds[i] = double(dy[i]) * sy[i] * (1.0 - sy[i]);
    dt[i] = double(dy[i]) * (1.0 - double(ty[i]) * ty[i]);
  }
  const Binary sb = gpu ? Binary([](const float* y, const float* d, float* dx, size_t n) { sigmoid_backward_gpu(y, d, dx, n); })
                        : Binary(sigmoid_backward);
  const Binary tb = gpu ? Binary([](const float* y, const float* d, float* dx, size_t n) { tanh_backward_gpu(y, d, dx, n); })
                        : Binary(tanh_backward);
  expect_close(c, "sigmoid_backward" + suffix, "dx", run(gpu, sb, sy, dy), ds);
  expect_close(c, "tanh_backward" + suffix, "dx", run(gpu, tb, ty, dy), dt);
}

void check_dropout(bool gpu) {
  const Check c{"12.2", gpu ? "exercises/dropout.cu" : "exercises/dropout.cpp"};
  const std::string suffix = gpu ? "_gpu" : "";
  const std::vector<float> x = values(3, -1.f, 1.f);
  std::vector<double> expected(kValues);
  for (size_t i = 0; i < kValues; ++i)
    expected[i] = dropout_keeps(kKey, i, kRate) ? double(x[i] * dropout_scale(kRate)) : 0.0;
  course::DeviceBuffer<uint64_t> key(gpu ? 1 : 0);  // the GPU reads its key from device memory
  if (gpu) key.upload(std::vector<uint64_t>{kKey});
  const uint64_t* k = key.data();
  const Unary f = gpu ? Unary([k](const float* a, float* b, size_t n) { dropout_forward_gpu(a, b, n, kRate, k); })
                      : Unary([](const float* a, float* b, size_t n) { dropout_forward(a, b, n, kRate, kKey); });
  const Unary b = gpu ? Unary([k](const float* a, float* d, size_t n) { dropout_backward_gpu(a, d, n, kRate, k); })
                      : Unary([](const float* a, float* d, size_t n) { dropout_backward(a, d, n, kRate, kKey); });
  expect_close(c, "dropout_forward" + suffix, "y", run(gpu, f, x), expected);
  expect_close(c, "dropout_backward" + suffix, "dx", run(gpu, b, x), expected);
}

// Your host step (an unwritten one throws its TODO), and on the GPU your kernel against it: the
// same update in float, other rounding. The update itself is check_12.3's to test.
void check_adadelta_step(bool gpu) {
  const float lr = 1.0f, rho = 0.9f, eps = 1e-6f, decay = 0.01f;
  std::vector<float> w = values(4, -1.f, 1.f), sq = values(6, 0.f, 1.f), da = values(7, 0.f, 1.f);
  const std::vector<float> g = values(5, -1.f, 1.f);
  std::vector<float> hw = w, hsq = sq, hda = da;
  adadelta_step(hw.data(), g.data(), hsq.data(), hda.data(), kValues, lr, rho, eps, decay);
  if (!gpu) return;
  course::DeviceBuffer<float> dw(w), dg(g), dsq(sq), dda(da), dlr(std::vector<float>{lr});
  adadelta_update_gpu(dw.data(), dg.data(), dsq.data(), dda.data(), kValues, dlr.data(), rho, eps, decay);
  auto same = [](const char* output, const std::vector<float>& got, const std::vector<float>& host) {
    course::expect_step_output({"12.3", "adadelta_update_gpu", "exercises/adadelta.cu", output}, got,
                               std::vector<double>(host.begin(), host.end()), 1e-5, 1e-4, "your host function gives");
  };
  same("square_avg", dsq.to_host(), hsq);
  same("delta_avg", dda.to_host(), hda);
  same("w", dw.to_host(), hw);
}

}  // namespace

void check_your_steps(bool gpu) {
  for (bool device : {false, true}) {
    if (device && !gpu) break;
    check_activations(device);
    check_dropout(device);
    check_adadelta_step(device);
  }
}

}  // namespace beyond_mnist
