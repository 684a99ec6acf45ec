// Lesson 15, step 15.6: batch normalisation across the whole GPU. YOUR FILE: the six kernel bodies;
// where a value lives (Layout, Slice, slice_of) and the launchers below are written for you.
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
  // TODO(15.6): slice blockIdx.y of channel blockIdx.x (slice_of, slice.at): its count, its mean (block_sum of
  // the threads' shares) and the squares around that mean, into partials[3 * (c * slices + k) + 0, 1, 2]
  // (slices: gridDim.y). A thread reads only a few values of its slice: keep several of its loads in
  // flight at once (#pragma unroll 4 on the loop), or it spends its time waiting for each.
  (void)s, (void)images, (void)layout, (void)x, (void)partials;
}

__global__ void merge_stats_kernel(BatchNormShape s, int slices, const float* __restrict__ partials, float eps,
                                   float momentum, float* __restrict__ saved_mean, float* __restrict__ saved_inv_std,
                                   float* __restrict__ running_mean, float* __restrict__ running_var) {
  // TODO(15.6): a warp a channel c < s.channels (c: the thread's global index / 32; its lane:
  // threadIdx.x % 32): the lanes share the channel's `slices` partials (count, mean, squares), warp_sum
  // adds their shares (every lane of the warp takes part), and lane 0 writes. Merge them into the
  // channel's mean and variance (deeper_cnns.hpp says how), then saved_mean, saved_inv_std and the
  // running statistics as 15.1. The counts come from the partials, never from s: the same kernel
  // merges the statistics of several GPUs.
  (void)s, (void)slices, (void)partials, (void)eps, (void)momentum, (void)saved_mean, (void)saved_inv_std,
      (void)running_mean, (void)running_var;
}

__global__ void normalize_kernel(BatchNormShape s, Layout layout, const float* __restrict__ x,
                                 const float* __restrict__ gamma,
                                 const float* __restrict__ beta, const float* __restrict__ mean,
                                 const float* __restrict__ inv_std, bool relu, float* __restrict__ y) {
  // TODO(15.6): a value a thread (grid-stride over s.size()): y from the saved statistics, as 15.2
  // (the ReLU where relu); its channel: layout.channel(k).
  (void)s, (void)layout, (void)x, (void)gamma, (void)beta, (void)mean, (void)inv_std, (void)relu, (void)y;
}

__global__ void __launch_bounds__(kThreads)
    slice_grad_sums_kernel(BatchNormShape s, int images, Layout layout, const float* __restrict__ x,
                           const float* __restrict__ dy,
                           const float* __restrict__ relu_y, const float* __restrict__ mean,
                           const float* __restrict__ inv_std, float* __restrict__ partials) {
  // TODO(15.6): slice blockIdx.y of channel blockIdx.x: the sums of g and g * xhat over it (g: dy,
  // 0 where relu_y is given and not > 0), into partials[2 * (c * slices + k) + 0, 1].
  (void)s, (void)images, (void)layout, (void)x, (void)dy, (void)relu_y, (void)mean, (void)inv_std, (void)partials;
}

__global__ void merge_grad_sums_kernel(int channels, int slices, const float* __restrict__ partials,
                                       float* __restrict__ dgamma, float* __restrict__ dbeta) {
  // TODO(15.6): a warp a channel, as the merge above: dbeta and dgamma, the sums of its slices' two sums.
  (void)channels, (void)slices, (void)partials, (void)dgamma, (void)dbeta;
}

__global__ void dx_kernel(BatchNormShape s, Layout layout, const float* __restrict__ x, const float* __restrict__ dy,
                          const float* __restrict__ relu_y, const float* __restrict__ gamma,
                          const float* __restrict__ mean, const float* __restrict__ inv_std,
                          const float* __restrict__ dgamma, const float* __restrict__ dbeta, float* __restrict__ dx) {
  // TODO(15.6): a value a thread (grid-stride): dx as 15.2, from dgamma and dbeta.
  (void)s, (void)layout, (void)x, (void)dy, (void)relu_y, (void)gamma, (void)mean, (void)inv_std, (void)dgamma,
      (void)dbeta, (void)dx;
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
