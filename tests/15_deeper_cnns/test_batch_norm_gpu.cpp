// Lesson 15, step 15.2: batch normalisation on the GPU, against 15.1's formulas written out in double
// (batch_norm_reference.hpp), with and without the fused ReLU; channels of up to 16000 values (many
// rounds of a block's threads), odd shapes, outputs poisoned (NaN) before every call.
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

const BatchNormShape kGpuShapes[] = {{8, 3, 40, 50}, {2, 33, 17, 9}, {1, 5, 3, 3}, {64, 4, 7, 7}, {2, 1, 1, 2}};

GpuPasses one_block_a_channel() {
  GpuPasses p;
  p.file = "exercises/batch_norm.cu";
  p.train = [](const BatchNormShape& s, const float* x, const float* g, const float* b, float eps, float momentum,
               bool relu, float* y, float* mean, float* inv, float* rm, float* rv) {
    deeper_cnns::batch_norm_forward_train_gpu(s, x, g, b, eps, momentum, relu, y, mean, inv, rm, rv);
  };
  p.backward = [](const BatchNormShape& s, const float* x, const float* dy, const float* relu_y, const float* g,
                  const float* mean, const float* inv, float* dx, float* dg, float* db) {
    deeper_cnns::batch_norm_backward_gpu(s, x, dy, relu_y, g, mean, inv, dx, dg, db);
  };
  p.eval = true;
  return p;
}

}  // namespace

TEST_CASE("batch norm kernels equal 15.1's formulas in double: training, backward, evaluation", "[15.2]") {
  uint64_t seed = 2500;
  for (const BatchNormShape& s : kGpuShapes) check_gpu_passes(one_block_a_channel(), s, seed += 10, false);
}

TEST_CASE("batch norm kernels with the ReLU fused: y = max(0, ...), dy masked where it let nothing through",
          "[15.2]") {
  uint64_t seed = 2600;
  for (const BatchNormShape& s : kGpuShapes) check_gpu_passes(one_block_a_channel(), s, seed += 10, true);
}

TEST_CASE("batch norm launchers refuse bad arguments before any launch", "[15.2]") {
  const BatchNormShape s{2, 1, 1, 2};
  course::DeviceBuffer<float> x(std::vector<float>{1, 2, 3, 4}), one(std::vector<float>{1}), y(4), st(1), run(1), dx(4);
  y.poison(), st.poison(), run.poison(), dx.poison();
  CHECK_THROWS_AS(deeper_cnns::batch_norm_forward_train_gpu(s, x.data(), one.data(), one.data(), 0.0f, 0.1f, false,
                                                            y.data(), st.data(), st.data(), run.data(), run.data()),
                  course::Error);
  CHECK_THROWS_AS(deeper_cnns::batch_norm_forward_train_gpu(BatchNormShape{1, 1, 1, 1}, x.data(), one.data(),
                                                            one.data(), 1e-5f, 0.1f, true, y.data(), st.data(),
                                                            st.data(), run.data(), run.data()),
                  course::Error);
  CHECK_THROWS_AS(deeper_cnns::batch_norm_forward_eval_gpu(s, x.data(), one.data(), one.data(), one.data(), one.data(),
                                                           -1.0f, false, y.data()),
                  course::Error);
  CHECK_THROWS_AS(deeper_cnns::batch_norm_backward_gpu(BatchNormShape{1, 1, 1, 1}, x.data(), x.data(), nullptr,
                                                       one.data(), one.data(), one.data(), dx.data(), st.data(),
                                                       st.data()),
                  course::Error);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (float v : y.to_host()) CHECK(std::isnan(v));
  for (float v : dx.to_host()) CHECK(std::isnan(v));
  for (float v : run.to_host()) CHECK(std::isnan(v));
}
