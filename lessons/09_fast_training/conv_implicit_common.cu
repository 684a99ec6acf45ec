// Lesson 09 (given): the shape check, the split-K rule and the slice sum of the implicit-GEMM
// convolutions (conv_implicit.cuh).
#include <algorithm>
#include <climits>
#include <string>

#include "conv_implicit.cuh"
#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace fast_training {

namespace detail {

void check_conv_shape(const ConvShape& s, const char* what) {
  const auto fail = [&](const std::string& why) {
    throw course::Error(std::string(what) + ": " + why + " (N=" + std::to_string(s.batch) + " C=" +
                        std::to_string(s.in_channels) + " H=" + std::to_string(s.height) + " W=" +
                        std::to_string(s.width) + " O=" + std::to_string(s.out_channels) + " k=" +
                        std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) + " stride=" +
                        std::to_string(s.stride) + " pad=" + std::to_string(s.pad) + ")");
  };
  // The gathers split flat indices with FastDiv (n < 2^31) and address tensors with ints.
  const std::string problem = host_layers::conv_shape_problem(s);
  if (!problem.empty()) fail(problem);
  // The forward GEMM (and 09.3's flipped one) keeps one key per k in shared memory, and packs the
  // kernel row and column into 16 bits each.
  const long long keys = std::max(1LL * s.in_channels, 1LL * s.out_channels) * s.kernel_h * s.kernel_w;
  if (keys > kMaxKeys) fail("channels x kernel area above " + std::to_string(kMaxKeys) + " (the key table's size)");
  if (s.kernel_h > 32767 || s.kernel_w > 32767) fail("a kernel side above 32767");
}

ConvGeometry geometry_of(const ConvShape& s) {
  return {s.batch, s.in_channels, s.height, s.width, s.out_channels, s.kernel_h, s.kernel_w, s.stride,
          s.pad,   s.pad,         s.out_h(), s.out_w()};
}

int split_k_slices(int tiles, int K) {
  const int by_blocks = std::max(1, kTargetBlocks / std::max(1, tiles));
  const int by_length = std::max(1, K / kMinSlice);
  return std::min({by_blocks, by_length, kMaxSlices});
}

int weight_gemm_slices(const ConvShape& s) {
  const int Kc = s.in_channels * s.kernel_h * s.kernel_w;
  const bool wide = s.out_channels > WeightTileNarrow::BM;
  const int bm = wide ? WeightTileWide::BM : WeightTileNarrow::BM, bn = wide ? WeightTileWide::BN : WeightTileNarrow::BN;
  const int tiles = int(blocks_of(s.out_channels, bm) * blocks_of(Kc + 1, bn));
  return split_k_slices(tiles, s.batch * s.out_h() * s.out_w());
}

namespace {

// A block per 32 neighbouring outputs: its 32 x 32 threads read 32 neighbouring floats of a slice
// at a time (coalesced), row y of threads adding the slices y, y + 32, ...; then row 0 adds the 32
// rows' sums in order. A thread per output would leave conv1's 832 outputs with ~480 slices each
// to 832 threads adding one after another. The order is fixed: the same bits on every run.
constexpr int kSumRows = 32;
__global__ void sum_weight_slices_kernel(const float* __restrict__ partial, int slices, int O, int Kc,
                                         float* __restrict__ dW, float* __restrict__ dbias) {
  __shared__ float rows[kSumRows][33];
  const size_t count = size_t(O) * (Kc + 1);
  const size_t i = blockIdx.x * size_t(32) + threadIdx.x;
  float sum = 0.0f;
  if (i < count)
    for (int z = threadIdx.y; z < slices; z += kSumRows) sum += partial[z * count + i];
  rows[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y != 0 || i >= count) return;
  float total = 0.0f;
  for (int r = 0; r < kSumRows; ++r) total += rows[r][threadIdx.x];
  const int o = int(i / (Kc + 1)), j = int(i % (Kc + 1));
  if (j < Kc) dW[size_t(o) * Kc + j] = total;
  else dbias[o] = total;
}

}  // namespace

void sum_weight_slices(const float* partial, int slices, int O, int Kc, float* dW, float* dbias,
                       cudaStream_t stream) {
  const size_t count = size_t(O) * (Kc + 1);
  sum_weight_slices_kernel<<<blocks_of(count, 32), dim3(32, kSumRows), 0, stream>>>(partial, slices, O, Kc, dW, dbias);
  CUDA_CHECK_LAUNCH();
}

}  // namespace detail

size_t conv_implicit_workspace_floats(const ConvShape& s) {
  detail::check_conv_shape(s, "conv_implicit_workspace_floats");
  const size_t flipped = s.weight_size();
  const size_t slices = size_t(detail::weight_gemm_slices(s)) * s.out_channels *
                        (size_t(s.in_channels) * s.kernel_h * s.kernel_w + 1);
  return std::max(flipped, slices);
}

}  // namespace fast_training
