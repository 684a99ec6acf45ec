// Lesson 09 (given): the tiled convolution's plan, its shape rules and the weights in its order
// (step 09.10; the kernel is conv_tiled.cuh, its multiply-adds exercises/conv_tiled.cu).
#include <algorithm>
#include <string>

#include "conv_implicit.cuh"
#include "conv_tiled.cuh"
#include "conv_tiled_weight.cuh"
#include "course/cuda_check.hpp"
#include "course/arithmetic.hpp"
#include "course/error.hpp"

namespace fast_training {

namespace detail {

TiledPlan tiled_plan(int N, int C, int H, int W, int O, int k, int pad, int OH, int OW) {
  TiledPlan p;
  const int segs = (OW + kTileP - 1) / kTileP, sw = segs * kTileP + k - 1;
  // Only as many groups as the output channels fill (16 channels: 4 of the 8): the threads of the
  // others take more rows instead, as many as the threads' fetch registers hold with their padding.
  const int groups = std::min(kGroupsO, (O + kTileO - 1) / kTileO);
  // A small image (14 x 14, 7 x 7) leaves most of 256 threads without an output: such an image
  // gets a block of 128 or 64 threads instead, and the SM room for more blocks at once. (3x3 only:
  // a smaller block stages more of a 5x5 kernel's weights per thread than its registers hold.)
  const int row_threads = groups * segs, small = k == 3 && row_threads * OH < kTiledThreads;
  p.threads = !small ? kTiledThreads : row_threads * OH <= 64 ? 64 : row_threads <= 128 ? 128 : kTiledThreads;
  const int staged_rows = kMaxStagedX * p.threads / (kChunkC * sw) - (k - 1);
  const int rows = std::max(1, std::min({OH, p.threads / row_threads, staged_rows}));
  p.x_floats = kChunkC * (rows + k - 1) * sw;
  p.w_floats = kChunkC * k * k * kBlockO;
  p.smem_bytes = 2 * size_t(p.w_floats + course::round_up(p.x_floats, 4)) * sizeof(float);
  p.grid = dim3(unsigned(N), unsigned((O + kBlockO - 1) / kBlockO), unsigned((OH + rows - 1) / rows));
  p.args = {nullptr, nullptr, nullptr, nullptr, C, H, W, O, course::round_up(O, 4), pad, OH, OW, segs, rows, groups};
  return p;
}

TiledWeightPlan tiled_weight_plan(const ConvShape& s) {
  TiledWeightPlan p;
  const int k = s.kernel_h, OH = s.out_h(), OW = s.out_w();
  const int threads = k == 3 ? tiled_weight_threads<3>() : tiled_weight_threads<5>();
  const int segs = (OW + kTileP - 1) / kTileP, width = segs * kTileP;
  // As many output rows per unit as the block's fetch registers hold (x with its padding, dy).
  int rows = OH;
  while (rows > 0 && (kChunkC * (rows + k - 1) * (width + k - 1) > kMaxStagedXWeight * threads ||
                      rows * width * (kBlockO / 4) > kMaxStagedDy * threads))
    --rows;
  p.x_floats = kChunkC * (rows + k - 1) * (width + k - 1);
  p.dy_float4s = rows * width * (kBlockO / 4);
  const int groups = std::min(kGroupsO, (s.out_channels + kTileO - 1) / kTileO);
  // The buffers, or the parts' sums at the end where fewer groups than kGroupsO split the rows.
  p.smem_bytes = std::max(2 * size_t(course::round_up(p.x_floats, 4) + rows * width * kDyStride),
                          groups < kGroupsO ? size_t(kGroupsO) * kChunkC * k * kTileO * k : 0) * sizeof(float);
  const int o_blocks = (s.out_channels + kBlockO - 1) / kBlockO, c_blocks = (s.in_channels + kChunkC - 1) / kChunkC;
  // About kTiledWeightBlocks blocks: enough slices of the images to fill the GPU twice over.
  const int wanted = std::max(1, std::min(s.batch, kTiledWeightBlocks / (o_blocks * c_blocks)));
  const int per_slice = (s.batch + wanted - 1) / wanted;
  p.slices = (s.batch + per_slice - 1) / per_slice;
  p.grid = dim3(unsigned(p.slices), unsigned(o_blocks), unsigned(c_blocks));
  p.block = dim3(unsigned(threads));
  p.args = {nullptr, nullptr, nullptr, s.batch, s.in_channels, s.height, s.width, s.out_channels, s.pad, OH, OW,
            segs, rows, rows > 0 ? (OH + rows - 1) / rows : 0, per_slice, groups};
  return p;
}

namespace {

// "" when this GPU gives a block `bytes` of shared memory, or on a machine without a GPU (the
// rest of the rules hold everywhere); else why not.
std::string shared_memory_problem(const char* which, size_t bytes) {
  int device = 0, allowed = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&allowed, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) == cudaSuccess &&
      bytes > size_t(allowed))
    return std::string(which) + " needs " + std::to_string(bytes / 1024) + " KiB of shared memory, this GPU gives a " +
           "block " + std::to_string(allowed / 1024) + " KiB";
  cudaGetLastError();  // no GPU: the queries' errors are not this call's business
  return "";
}

// Why the kernel cannot run one direction (input C x H x W -> output O x OH x OW), or "".
std::string direction_problem(const char* which, int C, int H, int W, int O, int k, int pad, int OH, int OW) {
  const int segs = (OW + kTileP - 1) / kTileP;
  if (segs * kGroupsO > kTiledThreads)
    return std::string(which) + " rows of " + std::to_string(OW) + " outputs: at most " +
           std::to_string(kTiledThreads / kGroupsO * kTileP) + " fit a block";
  const TiledPlan p = tiled_plan(1, C, H, W, O, k, pad, OH, OW);
  if (p.x_floats > kMaxStagedX * p.threads)
    return std::string(which) + " input rows of " + std::to_string(W) + " pixels: a chunk of " +
           std::to_string(p.x_floats) + " floats, more than the block's " + std::to_string(p.threads) +
           " threads fetch (" + std::to_string(kMaxStagedX) + " each)";
  return shared_memory_problem(which, p.smem_bytes);
}

// Both layouts of conv_tiled_weights in one pass over their elements (the zeros of the padding
// included): forward [C][k][k][Opad], then backward [O][k][k][Cpad].
__global__ void tiled_weights_kernel(const float* __restrict__ W, float* __restrict__ out, int O, int C, int k,
                                     int o_pad, int c_pad) {
  const int area = k * k;
  const size_t forward = size_t(C) * area * o_pad, total = forward + size_t(O) * area * c_pad;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < total; e += size_t(gridDim.x) * blockDim.x) {
    float v = 0.0f;
    if (e < forward) {
      const int o = int(e % o_pad), rest = int(e / o_pad), ij = rest % area, c = rest / area;
      if (o < O) v = W[(size_t(o) * C + c) * area + ij];
    } else {
      const size_t b = e - forward;
      const int c = int(b % c_pad), rest = int(b / c_pad), ij = rest % area, o = rest / area;
      if (c < C) v = W[(size_t(o) * C + c) * area + (area - 1 - ij)];  // (k-1-i, k-1-j): the flip
    }
    out[e] = v;
  }
}

}  // namespace

}  // namespace detail

std::string conv_tiled_problem(const ConvShape& s) {
  try {
    detail::check_conv_shape(s, "conv_tiled");
  } catch (const course::Error& e) {
    return e.what();
  }
  const int k = s.kernel_h;
  if (s.stride != 1) return "stride " + std::to_string(s.stride) + ": the tiled kernel needs stride 1";
  if (s.kernel_h != s.kernel_w || (k != 3 && k != 5))
    return "a " + std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) +
           " kernel: the tiled kernel has 3x3 and 5x5";
  if (s.pad > k - 1) return "pad " + std::to_string(s.pad) + " > kernel size - 1";
  std::string why = detail::direction_problem("forward:", s.in_channels, s.height, s.width, s.out_channels, k, s.pad,
                                              s.out_h(), s.out_w());
  if (why.empty())
    why = detail::direction_problem("backward data:", s.out_channels, s.out_h(), s.out_w(), s.in_channels, k,
                                    k - 1 - s.pad, s.height, s.width);
  if (!why.empty()) return why;
  const detail::TiledWeightPlan w = detail::tiled_weight_plan(s);
  if (w.args.rows < 1)
    return "weight gradient: rows of " + std::to_string(s.out_w()) + " outputs do not fit the block's fetch registers";
  return detail::shared_memory_problem("weight gradient:", w.smem_bytes);
}

void detail::require_tiled(const ConvShape& s, const char* what) {
  const std::string why = conv_tiled_problem(s);
  if (!why.empty()) throw course::Error(std::string(what) + ": " + why);
}

size_t conv_tiled_weights_size(const ConvShape& s) {
  const size_t area = size_t(s.kernel_h) * s.kernel_w;
  return area * (size_t(s.in_channels) * course::round_up(s.out_channels, 4) +
                 size_t(s.out_channels) * course::round_up(s.in_channels, 4));
}

size_t conv_tiled_dw_workspace_floats(const ConvShape& s) {
  detail::require_tiled(s, "conv_tiled_dw_workspace_floats");
  const detail::TiledWeightPlan p = detail::tiled_weight_plan(s);
  return size_t(p.slices) * s.out_channels * (size_t(s.in_channels) * s.kernel_h * s.kernel_w + 1);
}

void conv_tiled_weights(const ConvShape& s, const float* W, float* tiled_weights, cudaStream_t stream) {
  detail::require_tiled(s, "conv_tiled_weights");
  const size_t total = conv_tiled_weights_size(s);
  const unsigned blocks = unsigned(std::min<size_t>((total + 255) / 256, 1024));
  detail::tiled_weights_kernel<<<blocks, 256, 0, stream>>>(W, tiled_weights, s.out_channels, s.in_channels,
                                                           s.kernel_h, course::round_up(s.out_channels, 4),
                                                           course::round_up(s.in_channels, 4));
  CUDA_CHECK_LAUNCH();
}

}  // namespace fast_training
