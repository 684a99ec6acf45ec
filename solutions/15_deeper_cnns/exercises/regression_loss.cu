// Lesson 15, step 15.4: a regression head's losses on the GPU, a row a thread.
#include "course/cuda_check.hpp"
#include "deeper_cnns.hpp"
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

__global__ void regression_loss_kernel(RegressionLoss kind, const float* __restrict__ pred,
                                       const float* __restrict__ target, int batch, int outputs, float beta,
                                       float* __restrict__ row_loss, float* __restrict__ dpred) {
  const float count = float(batch) * float(outputs);
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < batch; b += gridDim.x * blockDim.x) {
    float row = 0.0f;
    for (int o = 0; o < outputs; ++o) {
      const size_t i = size_t(b) * outputs + o;
      const float d = pred[i] - target[i];
      float cost, slope;
      if (kind == RegressionLoss::squared) {
        cost = d * d, slope = 2.0f * d;
      } else if (fabsf(d) < beta) {
        cost = d * d / (2.0f * beta), slope = d / beta;
      } else {
        cost = fabsf(d) - 0.5f * beta, slope = d > 0.0f ? 1.0f : -1.0f;
      }
      row += cost;
      dpred[i] = slope / count;
    }
    row_loss[b] = row / count;
  }
}

}  // namespace

void regression_loss_gpu(RegressionLoss kind, const float* pred, const float* target, int batch, int outputs,
                         float beta, float* row_loss, float* dpred, cudaStream_t stream) {
  check_regression("regression_loss_gpu", kind, batch, outputs, beta);
  regression_loss_kernel<<<first_kernels::blocks_for(size_t(batch)), first_kernels::kThreadsPerBlock, 0, stream>>>(
      kind, pred, target, batch, outputs, beta, row_loss, dpred);
  CUDA_CHECK_LAUNCH();
}

}  // namespace deeper_cnns
