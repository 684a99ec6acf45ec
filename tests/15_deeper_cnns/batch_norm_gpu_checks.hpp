#pragma once
// Lesson 15's GPU tests of batch norm (15.2 and 15.6): a set of kernels against 15.1's formulas written
// out in double (batch_norm_reference.hpp), with and without the fused ReLU, outputs poisoned (NaN)
// before every call.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "batch_norm_reference.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"

namespace bn_test {

// The kernels under test: the training pass and the backward pass (15.2's arguments), and
// whether to check 15.2's evaluation pass too; `file` names the learner's file in messages.
struct GpuPasses {
  std::string file;
  std::function<void(const BatchNormShape&, const float* x, const float* gamma, const float* beta, float eps,
                     float momentum, bool relu, float* y, float* mean, float* inv_std, float* run_mean, float* run_var)>
      train;
  std::function<void(const BatchNormShape&, const float* x, const float* dy, const float* relu_y, const float* gamma,
                     const float* mean, const float* inv_std, float* dx, float* dgamma, float* dbeta)>
      backward;
  bool eval = false;
};

// ---- tolerances and why ------------------------------------------------------------------------------
// Float against double. y: the mean of up to 16000 values near 90 is off by a few ulps of 90 (~1e-5),
// xhat by that over the spread (>= 0.5): atol 1e-4 + rtol 1e-4. dgamma and dbeta are sums of up to
// 16000 terms of size ~1 in float: off by up to ~M * 2^-24 ~ 1e-3 of the largest term; atol 5e-3 +
// rtol 1e-3. A missing term (the mean's path in dx, the unbiased variance, the ReLU's mask) is off
// by 10-100 %.
inline constexpr double kAtol = 1e-4, kRtol = 1e-4, kSumAtol = 5e-3, kSumRtol = 1e-3;

inline std::vector<float> to_float(const Vec& v) { return std::vector<float>(v.begin(), v.end()); }

inline void check_gpu_passes(const GpuPasses& passes, const BatchNormShape& s, uint64_t seed, bool relu) {
  CAPTURE(s.batch, s.channels, s.height, s.width, relu);
  COURSE_INPUT_SEED(seed);
  const size_t C = size_t(s.channels);
  const Vec x = channel_input(s, seed), gamma = course::random_doubles(C, seed + 1, 0.5f, 2.f),
            beta = course::random_doubles(C, seed + 2, -1.f, 1.f), rm = course::random_doubles(C, seed + 3, -1.f, 1.f),
            rv = course::random_doubles(C, seed + 4, 0.5f, 2.f), dy = course::random_doubles(s.size(), seed + 5, -1.f, 1.f);
  const double eps = 1e-5, momentum = 0.1, M = double(s.per_channel());
  const Reference r = reference_train(s, x, gamma, beta, eps);
  Vec want_y = r.y, want_rm(C), want_rv(C);
  if (relu)
    for (double& v : want_y) v = std::max(v, 0.0);
  for (size_t c = 0; c < C; ++c) {
    want_rm[c] = (1 - momentum) * rm[c] + momentum * r.mean[c];
    want_rv[c] = (1 - momentum) * rv[c] + momentum * r.unbiased_var[c];
  }

  course::DeviceBuffer<float> d_x(to_float(x)), d_g(to_float(gamma)), d_b(to_float(beta)), d_rm(to_float(rm)),
      d_rv(to_float(rv)), d_dy(to_float(dy)), d_y(s.size()), d_mean(C), d_inv(C), d_dx(s.size()), d_dg(C), d_db(C);
  for (course::DeviceBuffer<float>* b : {&d_y, &d_mean, &d_inv, &d_dx, &d_dg, &d_db}) b->poison();
  passes.train(s, d_x.data(), d_g.data(), d_b.data(), float(eps), float(momentum), relu, d_y.data(), d_mean.data(),
               d_inv.data(), d_rm.data(), d_rv.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> y = d_y.to_host();
  REQUIRE_NAMED_CLOSE(passes.file + ": the training pass's y", y, want_y, shape_of(s), kAtol, kRtol);
  REQUIRE_NAMED_CLOSE(passes.file + ": saved_mean", d_mean.to_host(), r.mean, ::course::Shape{}, kAtol, kRtol);
  REQUIRE_NAMED_CLOSE(passes.file + ": saved_inv_std", d_inv.to_host(), r.inv_std, ::course::Shape{}, kAtol,
                      kRtol);
  REQUIRE_NAMED_CLOSE(passes.file + ": running_mean", d_rm.to_host(), want_rm, ::course::Shape{}, kAtol, kRtol);
  REQUIRE_NAMED_CLOSE(passes.file + ": running_var (unbiased)", d_rv.to_host(), want_rv, ::course::Shape{},
                      kAtol, kRtol);

  // The backward pass in double, through the ReLU's mask as the GPU's y draws it (a value within
  // rounding of 0 may fall on either side; the forward check above holds y itself).
  Vec want_dx(s.size()), want_dg(C, 0.0), want_db(C, 0.0);
  const int plane = s.height * s.width;
  auto g_at = [&](size_t k) { return relu && !(y[k] > 0.0f) ? 0.0 : dy[k]; };
  for (int c = 0; c < s.channels; ++c) {
    for (int n = 0; n < s.batch; ++n)
      for (int p = 0; p < plane; ++p) {
        const size_t k = index_of(s, n, c, p);
        want_db[c] += g_at(k), want_dg[c] += g_at(k) * (x[k] - r.mean[c]) * r.inv_std[c];
      }
    for (int n = 0; n < s.batch; ++n)
      for (int p = 0; p < plane; ++p) {
        const size_t k = index_of(s, n, c, p);
        const double xhat = (x[k] - r.mean[c]) * r.inv_std[c];
        want_dx[k] = gamma[c] * r.inv_std[c] * (g_at(k) - want_db[c] / M - xhat * want_dg[c] / M);
      }
  }
  passes.backward(s, d_x.data(), d_dy.data(), relu ? d_y.data() : nullptr, d_g.data(), d_mean.data(), d_inv.data(),
                  d_dx.data(), d_dg.data(), d_db.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE_NAMED_CLOSE(passes.file + ": the backward pass's dx", d_dx.to_host(), want_dx, shape_of(s),
                      kAtol, 1e-3);
  REQUIRE_NAMED_CLOSE(passes.file + ": dgamma", d_dg.to_host(), want_dg, ::course::Shape{}, kSumAtol, kSumRtol);
  REQUIRE_NAMED_CLOSE(passes.file + ": dbeta", d_db.to_host(), want_db, ::course::Shape{}, kSumAtol, kSumRtol);

  if (!passes.eval) return;
  // Evaluation: the running statistics the training pass left, nothing changed.
  Vec want_eval(s.size());
  const std::vector<float> rm_now = d_rm.to_host(), rv_now = d_rv.to_host();
  for (int n = 0; n < s.batch; ++n)
    for (int c = 0; c < s.channels; ++c)
      for (int p = 0; p < plane; ++p) {
        const size_t k = index_of(s, n, c, p);
        const double v = gamma[c] * (x[k] - rm_now[c]) / std::sqrt(double(rv_now[c]) + eps) + beta[c];
        want_eval[k] = relu ? std::max(v, 0.0) : v;
      }
  d_y.poison();
  deeper_cnns::batch_norm_forward_eval_gpu(s, d_x.data(), d_g.data(), d_b.data(), d_rm.data(), d_rv.data(), float(eps),
                                           relu, d_y.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE_NAMED_CLOSE(passes.file + ": the evaluation pass's y", d_y.to_host(), want_eval, shape_of(s), kAtol,
                      kRtol);
  CHECK(d_rm.to_host() == rm_now);
  CHECK(d_rv.to_host() == rv_now);
}

}  // namespace bn_test
