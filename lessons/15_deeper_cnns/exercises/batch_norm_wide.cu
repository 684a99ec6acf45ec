// Lesson 15, step 15.6: batch normalisation across the whole GPU. YOUR FILE: the four kernel bodies;
// where a value lives (Layout, Slice, slice_of) and the launchers below are written for you.
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
  // TODO(15.6): slice blockIdx.y of channel blockIdx.x (slice_of, slice.at): its count, its mean (block_sum of
  // the threads' shares) and the squares around that mean, into partials[3 * (c * slices + k) + 0, 1, 2]
  // (slices: gridDim.y). A thread reads only a few values of its slice: keep several of its loads in
  // flight at once (#pragma unroll 4 on the loop), or it spends its time waiting for each.
  (void)s, (void)images, (void)layout, (void)x, (void)partials;
}

__global__ void __launch_bounds__(kThreads)
    normalize_kernel(BatchNormShape s, int images, Layout layout, const float* __restrict__ x,
                     const float* __restrict__ gamma, const float* __restrict__ beta,
                     const float* __restrict__ partials, int entries, float eps, float momentum,
                     float* __restrict__ saved_mean, float* __restrict__ saved_inv_std,
                     float* __restrict__ running_mean, float* __restrict__ running_var,
                     const float* __restrict__ skip, bool relu, float* __restrict__ y) {
  // TODO(15.6): block (c, k) = (blockIdx.x, blockIdx.y). First channel c's `entries` partials (count,
  // mean, squares at partials[3 * (c * entries + e) + 0, 1, 2]): the block's threads share the entries,
  // block_sum adds their shares (every thread calls it), and they merge into the channel's mean and
  // variance (deeper_cnns.hpp says how); the counts come from the entries, never from s. Thread 0 of
  // the block of slice 0 writes saved_mean, saved_inv_std and the running statistics as 15.1. Then
  // slice k's values (slice_of, slice.at, #pragma unroll 4): y as 15.2, skip[k] added where skip is
  // given, the ReLU where relu.
  (void)s, (void)images, (void)layout, (void)x, (void)gamma, (void)beta, (void)partials, (void)entries, (void)eps,
      (void)momentum, (void)saved_mean, (void)saved_inv_std, (void)running_mean, (void)running_var, (void)skip,
      (void)relu, (void)y;
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

__global__ void __launch_bounds__(kThreads)
    dx_kernel(BatchNormShape s, int images, Layout layout, const float* __restrict__ x, const float* __restrict__ dy,
              const float* __restrict__ relu_y, const float* __restrict__ gamma, const float* __restrict__ mean,
              const float* __restrict__ inv_std, const float* __restrict__ partials, int entries,
              float* __restrict__ dgamma, float* __restrict__ dbeta, float* __restrict__ dx) {
  // TODO(15.6): block (c, k) as in normalize_kernel: channel c's totals of its `entries` pairs (sum g,
  // sum g * xhat at partials[2 * (c * entries + e) + 0, 1]) by block_sum; thread 0 of slice 0's block
  // writes them as dbeta and dgamma where those are not null. Then dx as 15.2 for slice k's values.
  (void)s, (void)images, (void)layout, (void)x, (void)dy, (void)relu_y, (void)gamma, (void)mean, (void)inv_std,
      (void)partials, (void)entries, (void)dgamma, (void)dbeta, (void)dx;
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
