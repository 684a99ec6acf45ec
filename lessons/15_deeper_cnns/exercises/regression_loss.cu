// Lesson 15, step 15.4: a regression head's losses on the GPU, a row a thread. YOUR FILE: the
// kernel's body; the launcher below is written for you.
#include "course/cuda_check.hpp"
#include "deeper_cnns.hpp"
#include "first_kernels.hpp"  // lesson 03's grid

namespace deeper_cnns {

namespace {

__global__ void regression_loss_kernel(RegressionLoss kind, const float* __restrict__ pred,
                                       const float* __restrict__ target, int batch, int outputs, float beta,
                                       float* __restrict__ row_loss, float* __restrict__ dpred) {
  // TODO(15.4): a row b a thread (a grid-stride loop over the rows): the row's costs and their
  // derivatives as your CPU function, row_loss[b] and the row's dpred.
  (void)kind, (void)pred, (void)target, (void)batch, (void)outputs, (void)beta, (void)row_loss, (void)dpred;
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
