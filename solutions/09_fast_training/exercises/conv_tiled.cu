// Lesson 09, step 09.10: the tiled direct convolution's multiply-adds.
//   out[o][oh][ow] += sum over the chunk's channels cc and i, j < k of
//                     ws[cc][i][j][o] * xs[cc][oh + i][ow + j]
// The block (conv_tiled.cuh) has put a chunk of the image, padding included, and of the weights
// into shared memory; this adds the chunk to the thread's kTileO x kTileP outputs in registers.
#include "conv_tiled.cuh"
#include "course/cuda_check.hpp"

namespace fast_training {

namespace detail {

template <int KS>
__device__ void accumulate_chunk(const float* ws, const float* xs, int sh, int sw, int oh, int ow0, int og,
                                 float (&acc)[kTileO][kTileP]) {
#pragma unroll 1
  for (int cc = 0; cc < kChunkC; ++cc) {
#pragma unroll
    for (int i = 0; i < KS; ++i) {
      // The kTileP outputs' windows overlap: kTileP + KS - 1 inputs of this row serve all of them.
      float x[kTileP + KS - 1];
      const float* row = xs + (cc * sh + oh + i) * sw + ow0;
#pragma unroll
      for (int p = 0; p < kTileP + KS - 1; ++p) x[p] = row[p];
#pragma unroll
      for (int j = 0; j < KS; ++j) {
        // The thread's kTileO weights of (cc, i, j): one float4, the same for a whole group.
        const float4 w = *reinterpret_cast<const float4*>(ws + ((cc * KS + i) * KS + j) * kBlockO + og * kTileO);
        const float wo[kTileO] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int o = 0; o < kTileO; ++o)
#pragma unroll
          for (int p = 0; p < kTileP; ++p) acc[o][p] = fmaf(wo[o], x[p + j], acc[o][p]);
      }
    }
  }
}

}  // namespace detail

// ---- given: a block's statistics (for a normalisation after the conv) -------------------------
namespace detail {

// Two passes over the registers (the mean first, then the squares around it). The threads of group
// og hold its channels' outputs at rows * segs places: their sums go to shared memory, a slice of
// those places to each of `parts` threads a channel, then one thread a channel adds the slices up,
// all in a fixed order (the same bits on every run). Its three arrays fit in any block's shared
// memory: the largest block's, in the smallest (3x3) kernel's two weight buffers alone.
static_assert(kTiledThreads * (kTileO + 1) + kBlockO <= 2 * kChunkC * 3 * 3 * kBlockO, "tile_statistics' arrays");
__device__ void tile_statistics(const TiledConvArgs& a, const float (&acc)[kTileO][kTileP], float* smem, int og,
                                int ow0, int rows, bool stores) {
  const int t = threadIdx.x, o0 = blockIdx.y * kBlockO, places = rows * a.segs;
  const int channels = a.groups * kTileO, parts = blockDim.x / channels;
  float* own = smem;                              // [threads][kTileO]: each thread's sums
  float* sliced = own + blockDim.x * kTileO;      // [parts][channels]
  float* mean = sliced + parts * channels;        // [channels]
  float bias[kTileO];
#pragma unroll
  for (int o = 0; o < kTileO; ++o) {
    const int oc = o0 + og * kTileO + o;
    bias[o] = stores && a.bias && oc < a.O ? __ldg(a.bias + oc) : 0.0f;
  }
  for (int pass = 0; pass < 2; ++pass) {
#pragma unroll
    for (int o = 0; o < kTileO; ++o) {
      float sum = 0.0f;
#pragma unroll
      for (int p = 0; p < kTileP; ++p) {
        if (!stores || ow0 + p >= a.OW) continue;
        const float v = acc[o][p] + bias[o], d = pass == 0 ? v : v - mean[og * kTileO + o];
        sum += pass == 0 ? d : d * d;
      }
      own[t * kTileO + o] = sum;
    }
    __syncthreads();
    if (t < parts * channels) {
      const int c = t % channels, q = t / channels, g = c / kTileO, o = c % kTileO;
      float sum = 0.0f;
      for (int at = q; at < places; at += parts) sum += own[(g * places + at) * kTileO + o];
      sliced[q * channels + c] = sum;
    }
    __syncthreads();
    if (t < channels) {
      float total = 0.0f;
      for (int q = 0; q < parts; ++q) total += sliced[q * channels + t];
      const float count = float(rows * a.OW);
      const int oc = o0 + t;
      if (pass == 0) {
        mean[t] = total / count;
      } else if (oc < a.O) {  // entry n * bands + band of channel oc
        const size_t entries = size_t(gridDim.x) * gridDim.z, entry = size_t(blockIdx.x) * gridDim.z + blockIdx.z;
        float* to = a.stats + 3 * (size_t(oc) * entries + entry);
        to[0] = count, to[1] = mean[t], to[2] = total;
      }
    }
    if (pass == 0) __syncthreads();  // the means written; own and sliced free again
  }
}

}  // namespace detail

// ---- given: the launches ------------------------------------------------------------------------
namespace {

// The kernel for a plan's block size (tiled_plan picks 64, 128 or 256 threads).
template <int KS>
void (*tiled_kernel_for(int threads))(detail::TiledConvArgs) {
  if (threads == 64) return detail::conv_tiled_kernel<KS, 64>;
  return threads == 128 ? detail::conv_tiled_kernel<KS, 128> : detail::conv_tiled_kernel<KS, detail::kTiledThreads>;
}

void launch_tiled(detail::TiledPlan plan, int k, const float* in, const float* wt, const float* bias, float* out,
                  cudaStream_t stream, float* stats = nullptr) {
  plan.args.in = in, plan.args.wt = wt, plan.args.bias = bias, plan.args.out = out, plan.args.stats = stats;
  const auto kernel = k == 3 ? tiled_kernel_for<3>(plan.threads) : tiled_kernel_for<5>(plan.threads);
  // Above 48 KiB a kernel must ask for its dynamic shared memory (conv_tiled_problem checked the GPU has it).
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(plan.smem_bytes)));
  kernel<<<plan.grid, plan.threads, plan.smem_bytes, stream>>>(plan.args);
  CUDA_CHECK_LAUNCH();
}

detail::TiledPlan forward_plan(const ConvShape& s) {
  return detail::tiled_plan(s.batch, s.in_channels, s.height, s.width, s.out_channels, s.kernel_h, s.pad, s.out_h(),
                            s.out_w());
}

}  // namespace

void conv2d_forward_tiled(const ConvShape& s, const float* x, const float* tiled_weights, const float* bias, float* y,
                          cudaStream_t stream, float* stats) {
  detail::require_tiled(s, "conv2d_forward_tiled");
  launch_tiled(forward_plan(s), s.kernel_h, x, tiled_weights, bias, y, stream, stats);
}

int conv_tiled_statistics_entries(const ConvShape& s) {
  detail::require_tiled(s, "conv_tiled_statistics_entries");
  const detail::TiledPlan plan = forward_plan(s);
  return int(plan.grid.x * plan.grid.z);
}

void conv2d_backward_data_tiled(const ConvShape& s, const float* tiled_weights, const float* dy, float* dx,
                                cudaStream_t stream) {
  detail::require_tiled(s, "conv2d_backward_data_tiled");
  const int k = s.kernel_h;
  const size_t forward_floats = size_t(s.in_channels) * k * k * ((s.out_channels + 3) / 4 * 4);
  launch_tiled(detail::tiled_plan(s.batch, s.out_channels, s.out_h(), s.out_w(), s.in_channels, k, k - 1 - s.pad,
                                  s.height, s.width),
               k, dy, tiled_weights + forward_floats, nullptr, dx, stream);
}

}  // namespace fast_training
