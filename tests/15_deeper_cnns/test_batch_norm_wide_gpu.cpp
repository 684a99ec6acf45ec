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

// ResNet-20's three stages at batch 128 (22, 6 and 2 slices a channel); 3 x 2000 values (images of
// 2000 pixels: 3 images a slice, slices of 6000, 6000 and 2000 values); one image of 9100 pixels (one
// slice, larger than kSliceValues); 2 x 1 x 1 x 2 (one slice of 4 values).
const BatchNormShape kWideShapes[] = {{128, 16, 28, 28}, {128, 32, 14, 14}, {128, 7, 7, 7},
                                      {7, 3, 40, 50},    {1, 2, 130, 70},   {2, 1, 1, 2}};

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
  CHECK((a.images == 6 && a.count == 22));  // 6 x 784 = 4704 values; 21 slices of 6 images and one of 2
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
