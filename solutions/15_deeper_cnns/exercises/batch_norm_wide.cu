// Lesson 15, step 15.6: batch normalisation across the whole GPU: a block a slice of a channel, the
// slices' statistics merged, then every value on its own.
#include "block_reduce.cuh"  // lesson 09's block_sum
#include "course/cuda_check.hpp"
#include "deeper_cnns.hpp"
#include "fast_div.cuh"       // lesson 09's FastDiv
#include "first_kernels.hpp"  // lesson 03's grid for the elementwise kernels

namespace deeper_cnns {

// Named (not anonymous): the helpers a kernel has not used yet draw no "never referenced" warnings.
namespace wide_batch_norm {

// Where a value of x lives. Splitting a flat index k into its image and channel takes divisions by
// numbers known only at run time, and a 64-bit division costs dozens of instructions: done for
// every value, that would be most of these kernels' work. While the tensor has fewer than 2^31
// values, lesson 09's FastDiv does each division as a multiply and a shift.
struct Layout {
  fast_training::FastDiv by_plane, by_channels;
  size_t plane;
  int channels;
  bool small;  // s.size() < 2^31: FastDiv applies
  // The channel of value k of x (NCHW).
  __device__ int channel(size_t k) const {
    if (!small) return int(k / plane % size_t(channels));
    const int p = by_plane.div(int(k));
    return p - by_channels.div(p) * channels;
  }
};

Layout layout_of(const BatchNormShape& s) {
  const size_t plane = size_t(s.height) * s.width;
  const bool small = s.size() < (size_t(1) << 31);
  return Layout{fast_training::FastDiv(small ? int(plane) : 1), fast_training::FastDiv(s.channels), plane, s.channels,
                small};
}

// Slice blockIdx.y of channel blockIdx.x: images [first, first + images), `values` values; where its
// j-th value (0 <= j < values) is in x.
struct Slice {
  int first;
  size_t values;
  Layout layout;
  __device__ size_t at(size_t j) const {
    const size_t image = layout.small ? size_t(layout.by_plane.div(int(j))) : j / layout.plane;
    return (size_t(first) + image) * layout.channels * layout.plane + blockIdx.x * layout.plane +
           (j - image * layout.plane);
  }
};

}  // namespace wide_batch_norm
using wide_batch_norm::Layout;
using wide_batch_norm::layout_of;
using wide_batch_norm::Slice;

namespace {

[[maybe_unused]] __device__ Slice slice_of(const BatchNormShape& s, int images, const Layout& layout) {
  const int first = blockIdx.y * images, last = min(s.batch, first + images);
  return Slice{first, size_t(last - first) * layout.plane, layout};
}

__global__ void __launch_bounds__(kThreads)
    slice_stats_kernel(BatchNormShape s, int images, Layout layout, const float* __restrict__ x,
                       float* __restrict__ partials) {
  const Slice slice = slice_of(s, images, layout);
  float sum = 0.0f;
#pragma unroll 4  // four loads in flight a thread, not one: the wait for memory is most of this kernel's time
  for (size_t j = threadIdx.x; j < slice.values; j += blockDim.x) sum += x[slice.at(j)];
  const float mean = fast_training::block_sum(sum) / float(slice.values);
  float squares = 0.0f;
#pragma unroll 4
  for (size_t j = threadIdx.x; j < slice.values; j += blockDim.x) {
    const float d = x[slice.at(j)] - mean;
    squares += d * d;
  }
  squares = fast_training::block_sum(squares);
  if (threadIdx.x == 0) {
    float* p = partials + 3 * (size_t(blockIdx.x) * gridDim.y + blockIdx.y);
    p[0] = float(slice.values), p[1] = mean, p[2] = squares;
  }
}

__global__ void merge_stats_kernel(BatchNormShape s, int slices, const float* __restrict__ partials, float eps,
                                   float momentum, float* __restrict__ saved_mean, float* __restrict__ saved_inv_std,
                                   float* __restrict__ running_mean, float* __restrict__ running_var) {
  const int c = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (c >= s.channels) return;  // the warp's 32 lanes together: c is the same for all of them
  const float* p = partials + 3 * size_t(c) * slices;
  float n = 0.0f, weighted = 0.0f;
  for (int k = lane; k < slices; k += 32) n += p[3 * k], weighted += p[3 * k] * p[3 * k + 1];
  n = fast_training::warp_sum(n);
  const float mean = fast_training::warp_sum(weighted) / n;
  float q = 0.0f;
  for (int k = lane; k < slices; k += 32) {
    const float d = p[3 * k + 1] - mean;
    q += p[3 * k + 2] + p[3 * k] * d * d;
  }
  q = fast_training::warp_sum(q);
  if (lane != 0) return;
  saved_mean[c] = mean;
  saved_inv_std[c] = 1.0f / sqrtf(q / n + eps);
  running_mean[c] = (1.0f - momentum) * running_mean[c] + momentum * mean;
  running_var[c] = (1.0f - momentum) * running_var[c] + momentum * (q / (n - 1.0f));
}

__global__ void normalize_kernel(BatchNormShape s, Layout layout, const float* __restrict__ x,
                                 const float* __restrict__ gamma,
                                 const float* __restrict__ beta, const float* __restrict__ mean,
                                 const float* __restrict__ inv_std, bool relu, float* __restrict__ y) {
  const size_t n = s.size();
#pragma unroll 4
  for (size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += size_t(gridDim.x) * blockDim.x) {
    const int c = layout.channel(k);
    const float v = gamma[c] * ((x[k] - mean[c]) * inv_std[c]) + beta[c];
    y[k] = relu ? fmaxf(v, 0.0f) : v;
  }
}

__global__ void __launch_bounds__(kThreads)
    slice_grad_sums_kernel(BatchNormShape s, int images, Layout layout, const float* __restrict__ x,
                           const float* __restrict__ dy,
                           const float* __restrict__ relu_y, const float* __restrict__ mean,
                           const float* __restrict__ inv_std, float* __restrict__ partials) {
  const Slice slice = slice_of(s, images, layout);
  const int c = blockIdx.x;
  const float m = mean[c], inv = inv_std[c];
  float sum_g = 0.0f, sum_g_xhat = 0.0f;
#pragma unroll 4
  for (size_t j = threadIdx.x; j < slice.values; j += blockDim.x) {
    const size_t k = slice.at(j);
    const float g = relu_y && !(relu_y[k] > 0.0f) ? 0.0f : dy[k];
    sum_g += g;
    sum_g_xhat += g * ((x[k] - m) * inv);
  }
  sum_g = fast_training::block_sum(sum_g);
  sum_g_xhat = fast_training::block_sum(sum_g_xhat);
  if (threadIdx.x == 0) {
    float* p = partials + 2 * (size_t(c) * gridDim.y + blockIdx.y);
    p[0] = sum_g, p[1] = sum_g_xhat;
  }
}

__global__ void merge_grad_sums_kernel(int channels, int slices, const float* __restrict__ partials,
                                       float* __restrict__ dgamma, float* __restrict__ dbeta) {
  const int c = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (c >= channels) return;
  float sum_g = 0.0f, sum_g_xhat = 0.0f;
  const float* p = partials + 2 * size_t(c) * slices;
  for (int k = lane; k < slices; k += 32) sum_g += p[2 * k], sum_g_xhat += p[2 * k + 1];
  sum_g = fast_training::warp_sum(sum_g);
  sum_g_xhat = fast_training::warp_sum(sum_g_xhat);
  if (lane != 0) return;
  dbeta[c] = sum_g;
  dgamma[c] = sum_g_xhat;
}

__global__ void dx_kernel(BatchNormShape s, Layout layout, const float* __restrict__ x, const float* __restrict__ dy,
                          const float* __restrict__ relu_y, const float* __restrict__ gamma,
                          const float* __restrict__ mean, const float* __restrict__ inv_std,
                          const float* __restrict__ dgamma, const float* __restrict__ dbeta, float* __restrict__ dx) {
  const size_t n = s.size();
  const float M = float(s.per_channel());
#pragma unroll 4
  for (size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += size_t(gridDim.x) * blockDim.x) {
    const int c = layout.channel(k);
    const float g = relu_y && !(relu_y[k] > 0.0f) ? 0.0f : dy[k];
    const float xhat = (x[k] - mean[c]) * inv_std[c];
    dx[k] = gamma[c] * inv_std[c] * (g - dbeta[c] / M - xhat * dgamma[c] / M);
  }
}

// The merges: a warp a channel, four channels a block of 128 threads.
int merge_blocks(int channels) { return (channels + 3) / 4; }

}  // namespace

// ---- the passes stage by stage (given): the whole passes below are these in a row; batch norm over
// several GPUs (synced_batch_norm.hpp) runs them with NCCL's collectives between. ----------------------
void batch_norm_slice_stats_gpu(const BatchNormShape& s, const float* x, float* workspace, cudaStream_t stream) {
  const BatchNormSlices slices = batch_norm_slices(s);
  slice_stats_kernel<<<dim3(s.channels, slices.count), kThreads, 0, stream>>>(s, slices.images, layout_of(s), x,
                                                                                 workspace);
  CUDA_CHECK_LAUNCH();
}

void batch_norm_merge_stats_gpu(int channels, int slices, const float* partials, float eps, float momentum,
                                float* saved_mean, float* saved_inv_std, float* running_mean, float* running_var,
                                cudaStream_t stream) {
  const BatchNormShape per_channel{1, channels, 1, 1};  // the merge reads only the channel count
  merge_stats_kernel<<<merge_blocks(channels), 128, 0, stream>>>(per_channel, slices, partials, eps, momentum,
                                                                 saved_mean, saved_inv_std, running_mean, running_var);
  CUDA_CHECK_LAUNCH();
}

void batch_norm_normalize_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                              const float* mean, const float* inv_std, bool relu, float* y, cudaStream_t stream) {
  normalize_kernel<<<first_kernels::blocks_for(s.size()), first_kernels::kThreadsPerBlock, 0, stream>>>(
      s, layout_of(s), x, gamma, beta, mean, inv_std, relu, y);
  CUDA_CHECK_LAUNCH();
}

void batch_norm_slice_grad_sums_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                                    const float* mean, const float* inv_std, float* workspace, cudaStream_t stream) {
  const BatchNormSlices slices = batch_norm_slices(s);
  slice_grad_sums_kernel<<<dim3(s.channels, slices.count), kThreads, 0, stream>>>(
      s, slices.images, layout_of(s), x, dy, relu_y, mean, inv_std, workspace);
  CUDA_CHECK_LAUNCH();
}

void batch_norm_merge_grad_sums_gpu(int channels, int slices, const float* partials, float* dgamma, float* dbeta,
                                    cudaStream_t stream) {
  merge_grad_sums_kernel<<<merge_blocks(channels), 128, 0, stream>>>(channels, slices, partials, dgamma, dbeta);
  CUDA_CHECK_LAUNCH();
}

void batch_norm_dx_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                       const float* gamma, const float* mean, const float* inv_std, const float* dgamma,
                       const float* dbeta, float* dx, cudaStream_t stream) {
  dx_kernel<<<first_kernels::blocks_for(s.size()), first_kernels::kThreadsPerBlock, 0, stream>>>(
      s, layout_of(s), x, dy, relu_y, gamma, mean, inv_std, dgamma, dbeta, dx);
  CUDA_CHECK_LAUNCH();
}

// ---- the whole passes (given) --------------------------------------------------------------------------------
void batch_norm_forward_train_wide_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                                       float eps, float momentum, bool relu, float* y, float* saved_mean,
                                       float* saved_inv_std, float* running_mean, float* running_var,
                                       float* workspace, cudaStream_t stream) {
  check_batch_norm("batch_norm_forward_train_wide_gpu", s, eps, momentum, true);
  batch_norm_slice_stats_gpu(s, x, workspace, stream);
  batch_norm_merge_stats_gpu(s.channels, batch_norm_slices(s).count, workspace, eps, momentum, saved_mean,
                             saved_inv_std, running_mean, running_var, stream);
  batch_norm_normalize_gpu(s, x, gamma, beta, saved_mean, saved_inv_std, relu, y, stream);
}

void batch_norm_backward_wide_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                                  const float* gamma, const float* saved_mean, const float* saved_inv_std, float* dx,
                                  float* dgamma, float* dbeta, float* workspace, cudaStream_t stream) {
  check_batch_norm_shape("batch_norm_backward_wide_gpu", s, true);
  batch_norm_slice_grad_sums_gpu(s, x, dy, relu_y, saved_mean, saved_inv_std, workspace, stream);
  batch_norm_merge_grad_sums_gpu(s.channels, batch_norm_slices(s).count, workspace, dgamma, dbeta, stream);
  batch_norm_dx_gpu(s, x, dy, relu_y, gamma, saved_mean, saved_inv_std, dgamma, dbeta, dx, stream);
}

}  // namespace deeper_cnns
