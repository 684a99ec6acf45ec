// The data race of lesson 05, on purpose (see race_demo.hpp). Do not copy this kernel.
#include <cstdint>

#include "conv_launch.cuh"
#include "course/cuda_check.hpp"
#include "race_demo.hpp"

namespace conv_direct {

namespace {

// `dW[k] += v` is three steps: load dW[k], add, store. When two threads do them at the same
// time both load the same old value and the second store erases the first thread's addition.
// The 32 lanes of a warp share oc and differ in ow: they hit the SAME dW[k] in the same
// instruction, so at most one of their 32 additions survives; warps of other blocks collide
// on top of that, in an order that depends on timing.
__global__ void weight_grad_racy_kernel(const float* x, const float* dy, float* dW, float* dbias, int64_t outputs,
                                        Dims d) {
  const int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (o >= outputs) return;
  const int ow = static_cast<int>(o % d.OW);
  const int oh = static_cast<int>(o / d.OW % d.OH);
  const int oc = static_cast<int>(o / (int64_t(d.OW) * d.OH) % d.O);
  const int64_t n = o / (int64_t(d.OW) * d.OH * d.O);
  const float g = dy[o];
  dbias[oc] += g;  // RACE: every thread of channel oc does this
  for (int c = 0; c < d.C; ++c)
    for (int kh = 0; kh < d.KH; ++kh) {
      const int ih = oh * d.stride - d.pad + kh;
      if (ih < 0 || ih >= d.H) continue;
      for (int kw = 0; kw < d.KW; ++kw) {
        const int iw = ow * d.stride - d.pad + kw;
        if (iw < 0 || iw >= d.W) continue;
        dW[((int64_t(oc) * d.C + c) * d.KH + kh) * d.KW + kw] +=  // RACE
            g * x[((n * d.C + c) * d.H + ih) * d.W + iw];
      }
    }
}

}  // namespace

void conv2d_backward_weight_racy(const ConvShape& s, const float* x, const float* dy, float* dW, float* dbias) {
  check_shape(s, "conv2d_backward_weight_racy");
  CUDA_CHECK(cudaMemsetAsync(dW, 0, s.weight_size() * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(dbias, 0, size_t(s.out_channels) * sizeof(float)));
  const int64_t outputs = static_cast<int64_t>(s.output_size());
  weight_grad_racy_kernel<<<blocks_for(outputs), kThreads>>>(x, dy, dW, dbias, outputs, dims_of(s));
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv_direct
