// Lesson 15, step 15.6: batch normalisation across the whole GPU, against 15.1's formulas written out
// in double (batch_norm_gpu_checks.hpp, the checks of 15.2), with and without the fused ReLU: channels
// cut into many slices (ResNet-20's shapes at batch 128), a slice of one image, a last slice shorter
// than the others, a channel of one slice; outputs and the workspace poisoned (NaN) before every call.
#include <cmath>
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
    deeper_cnns::batch_norm_forward_train_wide_gpu(s, x, g, b, eps, momentum, relu, y, mean, inv, rm, rv, w);
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
                                                                 0.1f, false, y.data(), st.data(), st.data(),
                                                                 run.data(), run.data(), w.data()),
                  course::Error);
  CHECK_THROWS_AS(deeper_cnns::batch_norm_forward_train_wide_gpu({1, 1, 1, 1}, x.data(), one.data(), one.data(), 1e-5f,
                                                                 0.1f, true, y.data(), st.data(), st.data(),
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

TEST_CASE("the merge takes its counts from the entries: any number of them, of any counts (several GPUs')",
          "[15.6]") {
  // A channel's entries (count, mean, squares) as several GPUs leave them: counts far apart, one a
  // single value; the merge sees only the entries (its launcher gives no shape to take counts from).
  const int channels = 3, entries = 5;
  const double counts[entries] = {7, 1, 300, 2, 50};
  const std::vector<double> means = course::random_doubles(size_t(channels) * entries, 1561, -4.f, 6.f);
  const std::vector<double> spreads = course::random_doubles(size_t(channels) * entries, 1562, 0.5f, 2.f);
  std::vector<float> partials;
  Vec want_mean(channels), want_inv(channels), want_run_mean(channels), want_run_var(channels);
  const double eps = 1e-5, momentum = 0.1;
  for (int c = 0; c < channels; ++c) {
    double n = 0, weighted = 0;
    for (int k = 0; k < entries; ++k) {
      const size_t e = size_t(c) * entries + k;
      const float squares = counts[k] > 1 ? float(spreads[e] * counts[k]) : 0.0f;
      partials.insert(partials.end(), {float(counts[k]), float(means[e]), squares});
      n += counts[k], weighted += counts[k] * double(float(means[e]));
    }
    const double mean = weighted / n;
    double q = 0;
    for (int k = 0; k < entries; ++k) {
      const float* p = partials.data() + (size_t(c) * entries + k) * 3;
      q += double(p[2]) + double(p[0]) * (double(p[1]) - mean) * (double(p[1]) - mean);
    }
    want_mean[size_t(c)] = mean, want_inv[size_t(c)] = 1 / std::sqrt(q / n + eps);
    want_run_mean[size_t(c)] = 0.5 * (1 - momentum) + momentum * mean;  // from 0.5
    want_run_var[size_t(c)] = 2.0 * (1 - momentum) + momentum * q / (n - 1);  // from 2
  }
  course::DeviceBuffer<float> d_partials(partials), mean{size_t(channels)}, inv{size_t(channels)},
      run_mean(std::vector<float>(size_t(channels), 0.5f)), run_var(std::vector<float>(size_t(channels), 2.0f));
  mean.poison(), inv.poison();
  deeper_cnns::batch_norm_merge_stats_gpu(channels, entries, d_partials.data(), float(eps), float(momentum),
                                          mean.data(), inv.data(), run_mean.data(), run_var.data(), nullptr);
  const course::Shape shape{{"c", size_t(channels)}};
  REQUIRE_NAMED_CLOSE("exercises/batch_norm_wide.cu: merge_stats_kernel's saved_mean", mean.to_host(), want_mean, shape,
                      1e-5, 1e-5);
  REQUIRE_NAMED_CLOSE("exercises/batch_norm_wide.cu: merge_stats_kernel's saved_inv_std", inv.to_host(), want_inv,
                      shape, 1e-5, 1e-4);
  REQUIRE_NAMED_CLOSE("exercises/batch_norm_wide.cu: merge_stats_kernel's running_mean", run_mean.to_host(),
                      want_run_mean, shape, 1e-5, 1e-5);
  REQUIRE_NAMED_CLOSE("exercises/batch_norm_wide.cu: merge_stats_kernel's running_var", run_var.to_host(), want_run_var,
                      shape, 1e-5, 1e-4);
}
