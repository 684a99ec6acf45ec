// Step 02.1: one and three optimizer steps against values worked out by hand,
// random odd sizes against a double reference, and the Optimizer wrapper.
#include <cmath>

#include "course_test.hpp"
#include "host_training.hpp"

using namespace host_training;

namespace {
// The optimizers do a handful of float operations per element on values of size ~1: a few
// float roundings (6e-8 relative each) stay far below 2e-6. Real mistakes (a missing term,
// a wrong bias correction) move the results by 1e-3 or more.
constexpr double kAtol = 2e-6, kRtol = 2e-6;

// Three gradients used by the hand-worked examples below.
const float kG[3][3] = {{0.5f, 0.25f, -1.0f}, {-0.25f, 0.5f, 0.75f}, {0.125f, -0.5f, 0.25f}};
}  // namespace

TEST_CASE("sgd_momentum_step: one and three steps worked out by hand", "[02.1]") {
  // lr 0.1, momentum 0.9, weight_decay 0.01, w = (1, -2, 0.5), v = 0.
  // Step 1, g = (0.5, 0.25, -1):
  //   v = 0 + g + 0.01 w = (0.5 + 0.01, 0.25 - 0.02, -1 + 0.005) = (0.51, 0.23, -0.995)
  //   w = w - 0.1 v      = (0.949, -2.023, 0.5995)
  std::vector<float> w = {1.0f, -2.0f, 0.5f}, v = {0, 0, 0};
  sgd_momentum_step(w.data(), kG[0], v.data(), 3, 0.1f, 0.9f, 0.01f);
  REQUIRE_ALL_CLOSE(v, (std::vector<double>{0.51, 0.23, -0.995}), kAtol, kRtol);
  REQUIRE_ALL_CLOSE(w, (std::vector<double>{0.949, -2.023, 0.5995}), kAtol, kRtol);

  // Step 2, g = (-0.25, 0.5, 0.75):
  //   v = 0.9 (0.51, 0.23, -0.995) + g + 0.01 (0.949, -2.023, 0.5995)
  //     = (0.459 - 0.25 + 0.00949, 0.207 + 0.5 - 0.02023, -0.8955 + 0.75 + 0.005995)
  //     = (0.21849, 0.68677, -0.139505)
  //   w = (0.949 - 0.021849, -2.023 - 0.068677, 0.5995 + 0.0139505) = (0.927151, -2.091677, 0.6134505)
  sgd_momentum_step(w.data(), kG[1], v.data(), 3, 0.1f, 0.9f, 0.01f);
  REQUIRE_ALL_CLOSE(v, (std::vector<double>{0.21849, 0.68677, -0.139505}), kAtol, kRtol);
  REQUIRE_ALL_CLOSE(w, (std::vector<double>{0.927151, -2.091677, 0.6134505}), kAtol, kRtol);

  // Step 3, g = (0.125, -0.5, 0.25):
  //   v = 0.9 v + g + 0.01 w = (0.196641 + 0.125 + 0.00927151, 0.618093 - 0.5 - 0.02091677,
  //                             -0.1255545 + 0.25 + 0.006134505)
  //     = (0.33091251, 0.09717623, 0.130580005)
  //   w = w - 0.1 v = (0.894059749, -2.101394623, 0.6003924995)
  sgd_momentum_step(w.data(), kG[2], v.data(), 3, 0.1f, 0.9f, 0.01f);
  REQUIRE_ALL_CLOSE(v, (std::vector<double>{0.33091251, 0.09717623, 0.130580005}), kAtol, kRtol);
  REQUIRE_ALL_CLOSE(w, (std::vector<double>{0.894059749, -2.101394623, 0.6003924995}), kAtol, kRtol);
}

TEST_CASE("sgd_momentum_step: momentum 0 and no weight decay is plain SGD", "[02.1]") {
  // w = (1, -2, 0.5) - 0.5 * (0.5, 0.25, -1) = (0.75, -2.125, 1.0); v = g.
  std::vector<float> w = {1.0f, -2.0f, 0.5f}, v = {7.0f, -3.0f, 2.0f};  // momentum 0 must forget v
  sgd_momentum_step(w.data(), kG[0], v.data(), 3, 0.5f, 0.0f, 0.0f);
  REQUIRE_ALL_CLOSE(w, (std::vector<double>{0.75, -2.125, 1.0}), kAtol, kRtol);
  REQUIRE_ALL_CLOSE(v, (std::vector<double>{0.5, 0.25, -1.0}), kAtol, kRtol);
}

TEST_CASE("sgd_momentum_step: random odd sizes against a double reference", "[02.1]") {
  const size_t n = GENERATE(values<size_t>({1, 17, 33, 1001}));
  const uint64_t seed = 100 + n;
  CAPTURE(n);
  COURSE_INPUT_SEED(seed);
  std::vector<float> w = course::test::random_vector(n, seed), v = course::test::random_vector(n, seed + 1);
  std::vector<double> w_ref = course::test::to_double(w), v_ref = course::test::to_double(v);
  for (int step = 0; step < 3; ++step) {
    const std::vector<float> g = course::test::random_vector(n, seed + 10 + step, -2.0f, 2.0f);
    sgd_momentum_step(w.data(), g.data(), v.data(), n, 0.03f, 0.8f, 0.05f);
    for (size_t i = 0; i < n; ++i) {
      v_ref[i] = 0.8 * v_ref[i] + (g[i] + double(0.05f) * w_ref[i]);
      w_ref[i] -= double(0.03f) * v_ref[i];
    }
  }
  // |v| stays below ~10 here; three steps of float rounding stay below 1e-5.
  REQUIRE_ALL_CLOSE(v, v_ref, 1e-5, 1e-5);
  REQUIRE_ALL_CLOSE(w, w_ref, 1e-5, 1e-5);
}

TEST_CASE("adam_step: one and three steps worked out by hand (small numbers)", "[02.1]") {
  // lr 0.1, beta1 0.5, beta2 0.75, eps 0.25 (large, so that where eps goes matters).
  // Step 1 (t = 1), g = (0.5, 0.25, -1): m = 0.5 g = (0.25, 0.125, -0.5), v = 0.25 g^2 = (0.0625, 0.015625, 0.25)
  //   m_hat = m / 0.5 = g,  sqrt(v_hat) = sqrt(v / 0.25) = |g| = (0.5, 0.25, 1)
  //   w -= 0.1 * m_hat / (|g| + 0.25):  1 - 0.05/0.75 = 0.9333333,  -2 - 0.025/0.5 = -2.05,  0.5 + 0.1/1.25 = 0.58
  std::vector<float> w = {1.0f, -2.0f, 0.5f}, m = {0, 0, 0}, v = {0, 0, 0};
  adam_step(w.data(), kG[0], m.data(), v.data(), 3, 0.1f, 0.5f, 0.75f, 0.25f, 1);
  REQUIRE_ALL_CLOSE(m, (std::vector<double>{0.25, 0.125, -0.5}), kAtol, kRtol);
  REQUIRE_ALL_CLOSE(v, (std::vector<double>{0.0625, 0.015625, 0.25}), kAtol, kRtol);
  REQUIRE_ALL_CLOSE(w, (std::vector<double>{1.0 - 0.05 / 0.75, -2.05, 0.58}), kAtol, kRtol);

  // Step 2 (t = 2), g = (-0.25, 0.5, 0.75):
  //   m = 0.5 m + 0.5 g = (0, 0.3125, 0.125);  v = 0.75 v + 0.25 g^2 = (0.0625, 0.07421875, 0.328125)
  //   m_hat = m / (1 - 0.25) = (0, 0.416667, 0.166667);  sqrt(v_hat) = sqrt(v / (1 - 0.5625))
  //         = (0.377964, 0.411877, 0.866025)
  //   w = (0.933333 - 0, -2.05 - 0.1 * 0.416667 / 0.661877, 0.58 - 0.1 * 0.166667 / 1.116025)
  //     = (0.9333333, -2.1129523, 0.5650661)
  adam_step(w.data(), kG[1], m.data(), v.data(), 3, 0.1f, 0.5f, 0.75f, 0.25f, 2);
  REQUIRE_ALL_CLOSE(m, (std::vector<double>{0.0, 0.3125, 0.125}), kAtol, kRtol);
  REQUIRE_ALL_CLOSE(v, (std::vector<double>{0.0625, 0.07421875, 0.328125}), kAtol, kRtol);
  REQUIRE_ALL_CLOSE(w, (std::vector<double>{0.93333333, -2.11295226, 0.56506605}), kAtol, kRtol);

  // Step 3 (t = 3), g = (0.125, -0.5, 0.25):
  //   m = (0.0625, -0.09375, 0.1875);  v = (0.05078125, 0.1181640625, 0.26171875)
  //   m_hat = m / 0.875 = (0.0714286, -0.1071429, 0.2142857)
  //   sqrt(v_hat) = sqrt(v / 0.578125) = (0.2963745, 0.4520972, 0.6728319)
  //   w -= 0.1 m_hat / (sqrt(v_hat) + 0.25)  ->  (0.9202601, -2.0976919, 0.5418456)
  adam_step(w.data(), kG[2], m.data(), v.data(), 3, 0.1f, 0.5f, 0.75f, 0.25f, 3);
  REQUIRE_ALL_CLOSE(m, (std::vector<double>{0.0625, -0.09375, 0.1875}), kAtol, kRtol);
  REQUIRE_ALL_CLOSE(v, (std::vector<double>{0.05078125, 0.1181640625, 0.26171875}), kAtol, kRtol);
  REQUIRE_ALL_CLOSE(w, (std::vector<double>{0.92026014, -2.09769186, 0.54184560}), kAtol, kRtol);
}

TEST_CASE("adam_step: the usual betas, one and three steps", "[02.1]") {
  // lr 0.01, beta1 0.9, beta2 0.999, eps 1e-8. Step 1: m_hat = g, sqrt(v_hat) = |g|, so every
  // weight moves by lr against the sign of its gradient: w = (0.99, -2.01, 0.51).
  //   m = 0.1 g = (0.05, 0.025, -0.1),  v = 0.001 g^2 = (0.00025, 0.0000625, 0.001)
  std::vector<float> w = {1.0f, -2.0f, 0.5f}, m = {0, 0, 0}, v = {0, 0, 0};
  adam_step(w.data(), kG[0], m.data(), v.data(), 3, 0.01f, 0.9f, 0.999f, 1e-8f, 1);
  REQUIRE_ALL_CLOSE(m, (std::vector<double>{0.05, 0.025, -0.1}), kAtol, kRtol);
  // 0.999 is not exact in float: 1 - 0.999f = 0.00099998713, so v sits 1.3e-5 (relative) below the
  // decimal values; 3e-5 relative allows that and nothing more (a missing (1 - beta2) is off by 1000x).
  REQUIRE_ALL_CLOSE(v, (std::vector<double>{0.00025, 0.0000625, 0.001}), 0.0, 3e-5);
  REQUIRE_ALL_CLOSE(w, (std::vector<double>{0.99, -2.01, 0.51}), kAtol, kRtol);
  // Steps 2 and 3 with g = (-0.25, 0.5, 0.75) then (0.125, -0.5, 0.25):
  //   t = 2: m = (0.02, 0.0725, -0.015), corrections 1 - 0.9^2 = 0.19, 1 - 0.999^2 = 0.001999
  //          w = (0.98733663, -2.01965182, 0.51089325)
  //   t = 3: m = (0.0305, 0.01525, 0.0115), v = (3.2756275e-4, 5.621250625e-4, 1.6224385e-3),
  //          corrections 0.271 and 0.002997001: w = (0.98393234, -2.02095117, 0.51031650)
  adam_step(w.data(), kG[1], m.data(), v.data(), 3, 0.01f, 0.9f, 0.999f, 1e-8f, 2);
  adam_step(w.data(), kG[2], m.data(), v.data(), 3, 0.01f, 0.9f, 0.999f, 1e-8f, 3);
  REQUIRE_ALL_CLOSE(m, (std::vector<double>{0.0305, 0.01525, 0.0115}), kAtol, kRtol);
  // v: the same 1.3e-5 relative offset from 1 - 0.999f as after step 1.
  REQUIRE_ALL_CLOSE(v, (std::vector<double>{3.2756275e-4, 5.621250625e-4, 1.6224385e-3}), 0.0, 3e-5);
  // w moves by ~lr per step through sqrt(v_hat) of float v: 1e-5 relative of a 0.01 step is 1e-7.
  REQUIRE_ALL_CLOSE(w, (std::vector<double>{0.98393234, -2.02095117, 0.51031650}), kAtol, kRtol);
}

TEST_CASE("adam_step: random odd sizes against a double reference", "[02.1]") {
  const size_t n = GENERATE(values<size_t>({1, 17, 33, 1001}));
  const uint64_t seed = 200 + n;
  CAPTURE(n);
  COURSE_INPUT_SEED(seed);
  std::vector<float> w = course::test::random_vector(n, seed), m(n, 0.0f), v(n, 0.0f);
  std::vector<double> w_ref = course::test::to_double(w), m_ref(n, 0.0), v_ref(n, 0.0);
  const double b1 = double(0.8f), b2 = double(0.99f), eps = double(1e-3f), lr = double(0.02f);
  for (int t = 1; t <= 3; ++t) {
    const std::vector<float> g = course::test::random_vector(n, seed + 10 + t, -2.0f, 2.0f);
    adam_step(w.data(), g.data(), m.data(), v.data(), n, 0.02f, 0.8f, 0.99f, 1e-3f, t);
    for (size_t i = 0; i < n; ++i) {
      m_ref[i] = b1 * m_ref[i] + (1 - b1) * g[i];
      v_ref[i] = b2 * v_ref[i] + (1 - b2) * double(g[i]) * g[i];
      w_ref[i] -= lr * (m_ref[i] / (1 - std::pow(b1, t))) / (std::sqrt(v_ref[i] / (1 - std::pow(b2, t))) + eps);
    }
  }
  // Each step moves w by at most ~lr = 0.02; float rounding inside a step is ~1e-7 of that.
  // Near-zero m over sqrt(v) ~ 1e-3 can amplify float error in v: 2e-6 absolute covers it.
  REQUIRE_ALL_CLOSE(m, m_ref, 1e-6, 1e-5);
  REQUIRE_ALL_CLOSE(v, v_ref, 1e-6, 1e-5);
  REQUIRE_ALL_CLOSE(w, w_ref, 2e-6, 1e-5);
}

TEST_CASE("Optimizer(sgd) steps every parameter with its own velocity", "[02.1]") {
  // Two parameters; the second sees the same gradients with w = (1, -2, 0.5) as the hand-worked case.
  std::vector<Parameter> params(2);
  params[0] = {"a", {1}, {3.0f}, {0.0f}};
  params[1] = {"b", {3}, {1.0f, -2.0f, 0.5f}, {0, 0, 0}};
  OptimizerConfig config;
  config.kind = OptimizerKind::sgd, config.lr = 0.1f, config.momentum = 0.9f, config.weight_decay = 0.01f;
  Optimizer opt(config, params);
  for (int s = 0; s < 3; ++s) {
    params[0].grad = {1.0f};
    params[1].grad.assign(kG[s], kG[s] + 3);
    opt.step(params);
  }
  REQUIRE(opt.steps() == 3);
  REQUIRE_ALL_CLOSE(params[1].value, (std::vector<double>{0.894059749, -2.101394623, 0.6003924995}), kAtol, kRtol);
  // a: g = 1 + 0.01 a each step. v1 = 1.03, a1 = 2.897; v2 = 0.927 + 1.02897 = 1.95597, a2 = 2.701403;
  //    v3 = 1.760373 + 1.02701403 = 2.78738703, a3 = 2.4226642970
  REQUIRE_ALL_CLOSE(params[0].value, (std::vector<double>{2.422664297}), kAtol, kRtol);
}

TEST_CASE("Optimizer(adam) counts t from 1", "[02.1]") {
  std::vector<Parameter> params(1);
  params[0] = {"w", {3}, {1.0f, -2.0f, 0.5f}, {0, 0, 0}};
  OptimizerConfig config;
  config.kind = OptimizerKind::adam, config.lr = 0.1f, config.beta1 = 0.5f, config.beta2 = 0.75f, config.eps = 0.25f;
  Optimizer opt(config, params);
  for (int s = 0; s < 3; ++s) {
    params[0].grad.assign(kG[s], kG[s] + 3);
    opt.step(params);
  }
  REQUIRE(opt.steps() == 3);
  // The same three steps as the hand-worked small-number case above.
  REQUIRE_ALL_CLOSE(params[0].value, (std::vector<double>{0.92026014, -2.09769186, 0.54184560}), kAtol, kRtol);
}
