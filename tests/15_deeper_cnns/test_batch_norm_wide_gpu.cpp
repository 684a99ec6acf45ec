// Lesson 15, step 15.6: batch normalisation across the whole GPU, against 15.1's formulas written out
// in double (batch_norm_gpu_checks.hpp, the checks of 15.2), with and without the fused ReLU and a
// block's shortcut added: channels cut into many slices (ResNet-20's shapes at batch 128), a slice of
// one image, a last slice shorter than the others, a channel of one slice; the second stages on
// entries made up as several GPUs leave them; outputs and the workspace poisoned (NaN) before every call.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "batch_norm_gpu_checks.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"

using deeper_cnns::BatchNormShape;
using namespace bn_test;

namespace {

// ResNet-20's three stages at batch 128 (64, 22 and 7 slices a channel, the last two with a short last
// slice); 7 images of 400 pixels (3 images a slice: slices of 1200, 1200 and 400 values); one image of
// 9100 pixels (one slice, larger than kSliceValues); 2 x 1 x 1 x 2 (one slice of 4 values).
const BatchNormShape kWideShapes[] = {{128, 16, 28, 28}, {128, 32, 14, 14}, {128, 7, 7, 7},
                                      {7, 3, 20, 20},    {1, 2, 130, 70},   {2, 1, 1, 2}};

GpuPasses across_the_gpu(const BatchNormShape& s, course::DeviceBuffer<float>& workspace) {
  workspace = course::DeviceBuffer<float>(deeper_cnns::batch_norm_wide_workspace_floats(s));
  workspace.poison();
  GpuPasses p;
  p.file = "exercises/batch_norm_wide.cu";
  float* w = workspace.data();
  p.train = [w](const BatchNormShape& s, const float* x, const float* g, const float* b, float eps, float momentum,
                bool relu, float* y, float* mean, float* inv, float* rm, float* rv) {
    deeper_cnns::batch_norm_forward_train_wide_gpu(s, x, g, b, eps, momentum, nullptr, relu, y, mean, inv, rm, rv, w);
  };
  p.backward = [w](const BatchNormShape& s, const float* x, const float* dy, const float* relu_y, const float* g,
                   const float* mean, const float* inv, float* dx, float* dg, float* db) {
    deeper_cnns::batch_norm_backward_wide_gpu(s, x, dy, relu_y, g, mean, inv, dx, dg, db, w);
  };
  return p;
}

}  // namespace

TEST_CASE("batch_norm_slices: whole images, about kSliceValues values a slice, every image in one slice", "[15.6]") {
  const deeper_cnns::BatchNormSlices a = deeper_cnns::batch_norm_slices({128, 16, 28, 28});
  CHECK((a.images == 2 && a.count == 64));  // 2 x 784 = 1568 values a slice
  const deeper_cnns::BatchNormSlices d = deeper_cnns::batch_norm_slices({128, 64, 7, 7});
  CHECK((d.images == 21 && d.count == 7));  // 21 x 49 = 1029 values; 6 slices of 21 images and one of 2
  const deeper_cnns::BatchNormSlices b = deeper_cnns::batch_norm_slices({1, 2, 130, 70});
  CHECK((b.images == 1 && b.count == 1));
  const deeper_cnns::BatchNormSlices c = deeper_cnns::batch_norm_slices({100000, 1, 64, 64});
  CHECK(c.count <= 65535);  // a grid's second dimension
  CHECK(int64_t(c.images) * c.count >= 100000);
}

TEST_CASE("batch norm across the whole GPU equals 15.1's formulas in double: training, backward", "[15.6]") {
  uint64_t seed = 2700;
  for (const BatchNormShape& s : kWideShapes) {
    course::DeviceBuffer<float> workspace;
    check_gpu_passes(across_the_gpu(s, workspace), s, seed += 10, false);
  }
}

TEST_CASE("batch norm across the whole GPU with the ReLU fused", "[15.6]") {
  uint64_t seed = 2800;
  for (const BatchNormShape& s : kWideShapes) {
    course::DeviceBuffer<float> workspace;
    check_gpu_passes(across_the_gpu(s, workspace), s, seed += 10, true);
  }
}

TEST_CASE("the wide launchers refuse bad arguments before any launch", "[15.6]") {
  course::DeviceBuffer<float> x(std::vector<float>{1, 2, 3, 4}), one(std::vector<float>{1}), y(4), st(1), run(1), dx(4),
      w(16);
  y.poison(), st.poison(), run.poison(), dx.poison();
  CHECK_THROWS_AS(deeper_cnns::batch_norm_forward_train_wide_gpu({2, 1, 1, 2}, x.data(), one.data(), one.data(), 0.0f,
                                                                 0.1f, nullptr, false, y.data(), st.data(), st.data(),
                                                                 run.data(), run.data(), w.data()),
                  course::Error);
  CHECK_THROWS_AS(deeper_cnns::batch_norm_forward_train_wide_gpu({1, 1, 1, 1}, x.data(), one.data(), one.data(), 1e-5f,
                                                                 0.1f, x.data(), true, y.data(), st.data(), st.data(),
                                                                 run.data(), run.data(), w.data()),
                  course::Error);
  CHECK_THROWS_AS(deeper_cnns::batch_norm_backward_wide_gpu({1, 1, 1, 1}, x.data(), x.data(), nullptr, one.data(),
                                                            one.data(), one.data(), dx.data(), st.data(), st.data(),
                                                            w.data()),
                  course::Error);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (float v : y.to_host()) CHECK(std::isnan(v));
  for (float v : dx.to_host()) CHECK(std::isnan(v));
  for (float v : run.to_host()) CHECK(std::isnan(v));
}

TEST_CASE("batch norm across the whole GPU adds a block's shortcut before the ReLU", "[15.6]") {
  uint64_t seed = 2900;
  for (const BatchNormShape& s : {BatchNormShape{128, 32, 14, 14}, BatchNormShape{7, 3, 20, 20}})
    for (const bool relu : {false, true}) {
      CAPTURE(s.batch, s.channels, s.height, s.width, relu);
      seed += 10;
      COURSE_INPUT_SEED(seed);
      const size_t C = size_t(s.channels);
      const Vec x = channel_input(s, seed), gamma = course::random_doubles(C, seed + 1, 0.5f, 2.f),
                beta = course::random_doubles(C, seed + 2, -1.f, 1.f),
                skip = course::random_doubles(s.size(), seed + 3, -2.f, 2.f);
      const double eps = 1e-5;
      const Reference r = reference_train(s, x, gamma, beta, eps);
      Vec want(s.size());
      for (size_t k = 0; k < want.size(); ++k) want[k] = relu ? std::max(r.y[k] + skip[k], 0.0) : r.y[k] + skip[k];
      course::DeviceBuffer<float> d_x(to_float(x)), d_g(to_float(gamma)), d_b(to_float(beta)), d_skip(to_float(skip)),
          d_y(s.size()), mean(C), inv(C), rm(std::vector<float>(C, 0.0f)), rv(std::vector<float>(C, 1.0f)),
          workspace(deeper_cnns::batch_norm_wide_workspace_floats(s));
      d_y.poison(), mean.poison(), inv.poison(), workspace.poison();
      deeper_cnns::batch_norm_forward_train_wide_gpu(s, d_x.data(), d_g.data(), d_b.data(), float(eps), 0.1f,
                                                     d_skip.data(), relu, d_y.data(), mean.data(), inv.data(),
                                                     rm.data(), rv.data(), workspace.data());
      CUDA_CHECK(cudaDeviceSynchronize());
      REQUIRE_NAMED_CLOSE("exercises/batch_norm_wide.cu: normalize_kernel's y with skip added", d_y.to_host(), want,
                          shape_of(s), kAtol, kRtol);
      REQUIRE_NAMED_CLOSE("exercises/batch_norm_wide.cu: saved_mean", mean.to_host(), r.mean, ::course::Shape{}, kAtol,
                          kRtol);
    }
}

namespace {

// A channel's entries (count, mean, squares) as several GPUs leave them: counts far apart, one a
// single value, one of count 0 (a GPU's missing slice: mean and squares 0).
constexpr int kChannels = 3, kEntries = 6;
constexpr double kCounts[kEntries] = {7, 1, 300, 0, 2, 50};

std::vector<float> made_up_entries() {
  const std::vector<double> means = course::random_doubles(size_t(kChannels) * kEntries, 1561, -4.f, 6.f);
  const std::vector<double> spreads = course::random_doubles(size_t(kChannels) * kEntries, 1562, 0.5f, 2.f);
  std::vector<float> partials;
  for (int c = 0; c < kChannels; ++c)
    for (int k = 0; k < kEntries; ++k) {
      const size_t e = size_t(c) * kEntries + k;
      const float mean = kCounts[k] > 0 ? float(means[e]) : 0.0f;
      const float squares = kCounts[k] > 1 ? float(spreads[e] * kCounts[k]) : 0.0f;
      partials.insert(partials.end(), {float(kCounts[k]), mean, squares});
    }
  return partials;
}

}  // namespace

TEST_CASE("normalize merges its channel's entries, taking the counts from them (several GPUs')", "[15.6]") {
  // x of one GPU (5 slices a channel of one image each); the statistics come from the entries alone,
  // not from x: every slice's block must merge them and normalise with the result.
  const BatchNormShape s{5, kChannels, 20, 60};
  REQUIRE(deeper_cnns::batch_norm_slices(s).count == 5);
  const std::vector<float> partials = made_up_entries();
  const double eps = 1e-5, momentum = 0.1;
  Vec want_mean(kChannels), want_inv(kChannels), want_run_mean(kChannels), want_run_var(kChannels);
  for (int c = 0; c < kChannels; ++c) {
    const float* p = partials.data() + size_t(c) * kEntries * 3;
    double n = 0, weighted = 0;
    for (int k = 0; k < kEntries; ++k) n += p[3 * k], weighted += double(p[3 * k]) * p[3 * k + 1];
    const double mean = weighted / n;
    double q = 0;
    for (int k = 0; k < kEntries; ++k)
      q += double(p[3 * k + 2]) + double(p[3 * k]) * (double(p[3 * k + 1]) - mean) * (double(p[3 * k + 1]) - mean);
    want_mean[size_t(c)] = mean, want_inv[size_t(c)] = 1 / std::sqrt(q / n + eps);
    want_run_mean[size_t(c)] = 0.5 * (1 - momentum) + momentum * mean;    // from 0.5
    want_run_var[size_t(c)] = 2.0 * (1 - momentum) + momentum * q / (n - 1);  // from 2
  }
  const Vec x = course::random_doubles(s.size(), 1563, -8.f, 8.f), gamma = {1.5, 0.5, -1.0}, beta = {0.25, -2.0, 1.0};
  Vec want_y(s.size());
  for (int n = 0; n < s.batch; ++n)
    for (int c = 0; c < kChannels; ++c)
      for (int p = 0; p < s.height * s.width; ++p) {
        const size_t k = index_of(s, n, c, p);
        want_y[k] = gamma[c] * (x[k] - want_mean[c]) * want_inv[c] + beta[c];
      }
  course::DeviceBuffer<float> d_partials(partials), d_x(to_float(x)), d_g(to_float(gamma)), d_b(to_float(beta)),
      d_y(s.size()), mean{size_t(kChannels)}, inv{size_t(kChannels)},
      run_mean(std::vector<float>(size_t(kChannels), 0.5f)), run_var(std::vector<float>(size_t(kChannels), 2.0f));
  d_y.poison(), mean.poison(), inv.poison();
  deeper_cnns::batch_norm_normalize_gpu(s, d_x.data(), d_g.data(), d_b.data(), d_partials.data(), kEntries, float(eps),
                                        float(momentum), mean.data(), inv.data(), run_mean.data(), run_var.data(),
                                        nullptr, false, d_y.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const course::Shape shape{{"c", size_t(kChannels)}};
  const std::string file = "exercises/batch_norm_wide.cu: normalize_kernel's ";
  REQUIRE_NAMED_CLOSE(file + "saved_mean", mean.to_host(), want_mean, shape, 1e-5, 1e-5);
  REQUIRE_NAMED_CLOSE(file + "saved_inv_std", inv.to_host(), want_inv, shape, 1e-5, 1e-4);
  REQUIRE_NAMED_CLOSE(file + "running_mean (once, by one block)", run_mean.to_host(), want_run_mean, shape, 1e-5,
                      1e-5);
  REQUIRE_NAMED_CLOSE(file + "running_var (once, by one block)", run_var.to_host(), want_run_var, shape, 1e-5, 1e-4);
  REQUIRE_NAMED_CLOSE(file + "y", d_y.to_host(), want_y, shape_of(s), 1e-4, 1e-4);
}

TEST_CASE("dx adds its channel's entries of sums, and leaves dgamma and dbeta alone when they are null", "[15.6]") {
  const BatchNormShape s{5, kChannels, 20, 60};
  const size_t C = size_t(kChannels);
  const int entries = 3;
  const std::vector<double> sums = course::random_doubles(C * entries * 2, 1571, -30.f, 30.f);
  const Vec x = course::random_doubles(s.size(), 1572, -3.f, 3.f),
            dy = course::random_doubles(s.size(), 1573, -1.f, 1.f), gamma = {1.5, 0.5, -1.0},
            mean = {0.1, -0.3, 0.2}, inv = {1.2, 0.7, 2.0};
  Vec want_dg(C, 0.0), want_db(C, 0.0), want_dx(s.size());
  for (size_t c = 0; c < C; ++c)
    for (int e = 0; e < entries; ++e)
      want_db[c] += static_cast<float>(sums[(c * entries + e) * 2]),
          want_dg[c] += static_cast<float>(sums[(c * entries + e) * 2 + 1]);
  const double M = double(s.per_channel());
  for (int n = 0; n < s.batch; ++n)
    for (int c = 0; c < kChannels; ++c)
      for (int p = 0; p < s.height * s.width; ++p) {
        const size_t k = index_of(s, n, c, p);
        const double xf = static_cast<float>(x[k]), mf = static_cast<float>(mean[c]);
        const double xhat = (xf - mf) * static_cast<float>(inv[c]);
        want_dx[k] = gamma[c] * inv[c] * (dy[k] - want_db[c] / M - xhat * want_dg[c] / M);
      }
  course::DeviceBuffer<float> d_sums(to_float(sums)), d_x(to_float(x)), d_dy(to_float(dy)), d_g(to_float(gamma)),
      d_mean(to_float(mean)), d_inv(to_float(inv)), dx(s.size()), dg(C), db(C);
  const std::string file = "exercises/batch_norm_wide.cu: dx_kernel's ";
  const course::Shape shape{{"c", C}};
  dx.poison(), dg.poison(), db.poison();
  deeper_cnns::batch_norm_dx_gpu(s, d_x.data(), d_dy.data(), nullptr, d_g.data(), d_mean.data(), d_inv.data(),
                                 d_sums.data(), entries, dg.data(), db.data(), dx.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE_NAMED_CLOSE(file + "dx", dx.to_host(), want_dx, shape_of(s), 1e-4, 1e-3);
  REQUIRE_NAMED_CLOSE(file + "dbeta (the entries' g sums added)", db.to_host(), want_db, shape, 1e-4, 1e-5);
  REQUIRE_NAMED_CLOSE(file + "dgamma (the entries' g * xhat sums added)", dg.to_host(), want_dg, shape, 1e-4, 1e-5);
  dx.poison();
  deeper_cnns::batch_norm_dx_gpu(s, d_x.data(), d_dy.data(), nullptr, d_g.data(), d_mean.data(), d_inv.data(),
                                 d_sums.data(), entries, nullptr, nullptr, dx.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE_NAMED_CLOSE(file + "dx (dgamma and dbeta null)", dx.to_host(), want_dx, shape_of(s), 1e-4, 1e-3);
}
