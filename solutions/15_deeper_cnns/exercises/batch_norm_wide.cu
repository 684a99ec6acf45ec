// Lesson 15, step 15.6: batch normalisation across the whole GPU: a block a slice of a channel, which
// merges its channel's slices itself before it touches its own values.
#include "block_reduce.cuh"  // lesson 09's block_sum
#include "course/cuda_check.hpp"
#include "deeper_cnns.hpp"
#include "fast_div.cuh"  // lesson 09's FastDiv

namespace deeper_cnns {

// Named (not anonymous): the helpers a kernel has not used yet draw no "never referenced" warnings.
namespace wide_batch_norm {

// Where a slice's values live. Splitting an index into its image and pixel takes a division by a
// number known only at run time, and a 64-bit division costs dozens of instructions: done for every
// value, that would be most of these kernels' work. While the tensor has fewer than 2^31 values,
// lesson 09's FastDiv does it as a multiply and a shift.
struct Layout {
  fast_training::FastDiv by_plane;
  size_t plane;
  int channels;
  bool small;  // s.size() < 2^31: FastDiv applies
};

Layout layout_of(const BatchNormShape& s) {
  const size_t plane = size_t(s.height) * s.width;
  const bool small = s.size() < (size_t(1) << 31);
  return Layout{fast_training::FastDiv(small ? int(plane) : 1), plane, s.channels, small};
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

__global__ void __launch_bounds__(kThreads)
    normalize_kernel(BatchNormShape s, int images, Layout layout, const float* __restrict__ x,
                     const float* __restrict__ gamma, const float* __restrict__ beta,
                     const float* __restrict__ partials, int entries, float eps, float momentum,
                     float* __restrict__ saved_mean, float* __restrict__ saved_inv_std,
                     float* __restrict__ running_mean, float* __restrict__ running_var,
                     const float* __restrict__ skip, bool relu, float* __restrict__ y) {
  const int c = blockIdx.x;
  const float* p = partials + 3 * size_t(c) * entries;
  float n = 0.0f, weighted = 0.0f;
  for (int k = threadIdx.x; k < entries; k += blockDim.x) n += p[3 * k], weighted += p[3 * k] * p[3 * k + 1];
  n = fast_training::block_sum(n);
  const float mean = fast_training::block_sum(weighted) / n;
  float q = 0.0f;
  for (int k = threadIdx.x; k < entries; k += blockDim.x) {
    const float d = p[3 * k + 1] - mean;
    q += p[3 * k + 2] + p[3 * k] * d * d;
  }
  q = fast_training::block_sum(q);
  const float inv_std = 1.0f / sqrtf(q / n + eps);
  if (blockIdx.y == 0 && threadIdx.x == 0) {
    saved_mean[c] = mean;
    saved_inv_std[c] = inv_std;
    running_mean[c] = (1.0f - momentum) * running_mean[c] + momentum * mean;
    running_var[c] = (1.0f - momentum) * running_var[c] + momentum * (q / (n - 1.0f));
  }
  const Slice slice = slice_of(s, images, layout);
  const float g = gamma[c], b = beta[c];
#pragma unroll 4
  for (size_t j = threadIdx.x; j < slice.values; j += blockDim.x) {
    const size_t k = slice.at(j);
    const float v = g * ((x[k] - mean) * inv_std) + b + (skip ? skip[k] : 0.0f);
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

__global__ void __launch_bounds__(kThreads)
    dx_kernel(BatchNormShape s, int images, Layout layout, const float* __restrict__ x, const float* __restrict__ dy,
              const float* __restrict__ relu_y, const float* __restrict__ gamma, const float* __restrict__ mean,
              const float* __restrict__ inv_std, const float* __restrict__ partials, int entries,
              float* __restrict__ dgamma, float* __restrict__ dbeta, float* __restrict__ dx) {
  const int c = blockIdx.x;
  const float* p = partials + 2 * size_t(c) * entries;
  float sum_g = 0.0f, sum_g_xhat = 0.0f;
  for (int k = threadIdx.x; k < entries; k += blockDim.x) sum_g += p[2 * k], sum_g_xhat += p[2 * k + 1];
  sum_g = fast_training::block_sum(sum_g);
  sum_g_xhat = fast_training::block_sum(sum_g_xhat);
  if (blockIdx.y == 0 && threadIdx.x == 0) {
    if (dbeta) dbeta[c] = sum_g;
    if (dgamma) dgamma[c] = sum_g_xhat;
  }
  const Slice slice = slice_of(s, images, layout);
  const float M = float(s.per_channel()), m = mean[c], inv = inv_std[c], scale = gamma[c] * inv;
#pragma unroll 4
  for (size_t j = threadIdx.x; j < slice.values; j += blockDim.x) {
    const size_t k = slice.at(j);
    const float g = relu_y && !(relu_y[k] > 0.0f) ? 0.0f : dy[k];
    const float xhat = (x[k] - m) * inv;
    dx[k] = scale * (g - sum_g / M - xhat * sum_g_xhat / M);
  }
}

}  // namespace

// ---- the passes stage by stage (given): the whole passes below are these in a row; batch norm over
// several GPUs (synced_batch_norm.hpp) runs them with NCCL's collectives between. ----------------------
void batch_norm_slice_stats_gpu(const BatchNormShape& s, const float* x, float* workspace, cudaStream_t stream) {
  const BatchNormSlices slices = batch_norm_slices(s);
  slice_stats_kernel<<<dim3(s.channels, slices.count), kThreads, 0, stream>>>(s, slices.images, layout_of(s), x,
                                                                                 workspace);
  CUDA_CHECK_LAUNCH();
}

void batch_norm_normalize_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                              const float* partials, int entries, float eps, float momentum, float* saved_mean,
                              float* saved_inv_std, float* running_mean, float* running_var, const float* skip,
                              bool relu, float* y, cudaStream_t stream) {
  const BatchNormSlices slices = batch_norm_slices(s);
  normalize_kernel<<<dim3(s.channels, slices.count), kThreads, 0, stream>>>(
      s, slices.images, layout_of(s), x, gamma, beta, partials, entries, eps, momentum, saved_mean, saved_inv_std,
      running_mean, running_var, skip, relu, y);
  CUDA_CHECK_LAUNCH();
}

void batch_norm_slice_grad_sums_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                                    const float* mean, const float* inv_std, float* workspace, cudaStream_t stream) {
  const BatchNormSlices slices = batch_norm_slices(s);
  slice_grad_sums_kernel<<<dim3(s.channels, slices.count), kThreads, 0, stream>>>(
      s, slices.images, layout_of(s), x, dy, relu_y, mean, inv_std, workspace);
  CUDA_CHECK_LAUNCH();
}

void batch_norm_dx_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                       const float* gamma, const float* mean, const float* inv_std, const float* partials, int entries,
                       float* dgamma, float* dbeta, float* dx, cudaStream_t stream) {
  const BatchNormSlices slices = batch_norm_slices(s);
  dx_kernel<<<dim3(s.channels, slices.count), kThreads, 0, stream>>>(
      s, slices.images, layout_of(s), x, dy, relu_y, gamma, mean, inv_std, partials, entries, dgamma, dbeta, dx);
  CUDA_CHECK_LAUNCH();
}

// ---- the whole passes (given) --------------------------------------------------------------------------------
void batch_norm_forward_train_wide_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                                       float eps, float momentum, const float* skip, bool relu, float* y,
                                       float* saved_mean, float* saved_inv_std, float* running_mean,
                                       float* running_var, float* workspace, cudaStream_t stream) {
  check_batch_norm("batch_norm_forward_train_wide_gpu", s, eps, momentum, true);
  batch_norm_slice_stats_gpu(s, x, workspace, stream);
  batch_norm_normalize_gpu(s, x, gamma, beta, workspace, batch_norm_slices(s).count, eps, momentum, saved_mean,
                           saved_inv_std, running_mean, running_var, skip, relu, y, stream);
}

void batch_norm_backward_wide_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                                  const float* gamma, const float* saved_mean, const float* saved_inv_std, float* dx,
                                  float* dgamma, float* dbeta, float* workspace, cudaStream_t stream) {
  check_batch_norm_shape("batch_norm_backward_wide_gpu", s, true);
  batch_norm_slice_grad_sums_gpu(s, x, dy, relu_y, saved_mean, saved_inv_std, workspace, stream);
  batch_norm_dx_gpu(s, x, dy, relu_y, gamma, saved_mean, saved_inv_std, workspace, batch_norm_slices(s).count, dgamma,
                    dbeta, dx, stream);
}

}  // namespace deeper_cnns
