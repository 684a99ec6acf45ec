// Lesson 10 (given): step 10.8's kernel and launches: the barriers made, the warpgroups' roles and
// registers, the accumulators stored. The pipeline itself is yours (exercises/wgmma_stage.cuh: the
// producer's loop, the consumers' loop and a stage's products). Compiled for sm_90a only.
#include <cuda.h>  // CUtensorMap and its enums (the function itself comes from the driver at run time)
#include <cudaTypedefs.h>

#include <string>

#include "course/arithmetic.hpp"
#include "course/cuda_check.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "gemm_checks.hpp"
#include "tensor_cores.hpp"
#include "wgmma_gemm.cuh"
#include <exercises/wgmma_stage.cuh>  // <>: this build's copy (solutions/ or yours), never a neighbour's

namespace tensor_cores {

namespace detail {

template <class F>
__global__ void __launch_bounds__(kWgThreads, 1)
    gemm_wgmma_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                      float* __restrict__ C, int M, int N, int K) {
#if COURSE_WGMMA
  extern __shared__ unsigned char wg_smem_raw[];
  // Stages on a 1024-byte boundary (the 128-byte swizzle's period), the barriers after them.
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(wg_smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kWgStages * kWgStageBytes);
  uint64_t* empty = full + kWgStages;
  const StageRing<F> ring{smem, full, empty};

  const int warpgroup = threadIdx.x / 128, t = threadIdx.x % 128;
  const int m0 = blockIdx.y * kWgTileM, n0 = blockIdx.x * kWgTileN;
  const int k_tiles = course::ceil_div(K, int(F::kStageK));
  if (threadIdx.x == 0) {
    for (int s = 0; s < kWgStages; ++s) {
      barrier_init(&full[s], 1);   // the producer's arrive (+ the copies' bytes)
      barrier_init(&empty[s], 2);  // one arrive per consumer warpgroup
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");  // visible to the copy engine
  }
  __syncthreads();

  if (warpgroup == 0) {
    // PRODUCER: few registers (setmaxnreg gives the rest to the consumers); one thread copies.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (t == 0) produce_stages<F>(ring, &a_map, &b_map, m0, n0, k_tiles);  // 10.8: yours
  } else {
    // CONSUMERS: 64 rows each.
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    float acc[kWgAccumulators];
#pragma unroll
    for (int i = 0; i < kWgAccumulators; ++i) acc[i] = 0.0f;
    const int row_offset = (warpgroup - 1) * kWgConsumerRows;
    consume_stages<F>(ring, row_offset, k_tiles, acc);  // 10.8: yours

    // The accumulators of m64 x n256: thread t holds, for every 8 columns j, rows
    // 16 (t / 32) + (t % 32) / 4 (+ 8), columns 8 j + 2 (t % 4) and the next one.
    const int lane = t % 32, row = m0 + row_offset + 16 * (t / 32) + lane / 4;
    const bool pairs = N % 2 == 0;
#pragma unroll
    for (int j = 0; j < kWgTileN / 8; ++j) {
      const int col = n0 + 8 * j + 2 * (lane % 4);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = row + 8 * half;
        if (r >= M) continue;
        float* out = C + size_t(r) * N + col;
        const float x = acc[4 * j + 2 * half], y = acc[4 * j + 2 * half + 1];
        if (pairs && col + 1 < N) {
          *reinterpret_cast<float2*>(out) = make_float2(x, y);
        } else {
          if (col < N) out[0] = x;
          if (col + 1 < N) out[1] = y;
        }
      }
    }
  }
#endif
}

// B^T = B (K x N) transposed, rounded to TF32 (the GPU's instruction: ties away from zero), for
// wgmma's TF32 products, which read K-major operands only. 32 x 32 tiles through shared memory
// (one float of padding a row: the transposed reads fall in 32 different banks).
__global__ void transpose_to_tf32_kernel(const float* __restrict__ B, float* __restrict__ Bt, int K, int N) {
  __shared__ float tile[32][33];
  const int k0 = blockIdx.y * 32, n0 = blockIdx.x * 32;
  for (int i = threadIdx.y; i < 32; i += blockDim.y) {
    const int k = k0 + i, n = n0 + threadIdx.x;
    if (k < K && n < N) tile[i][threadIdx.x] = B[size_t(k) * N + n];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < 32; i += blockDim.y) {
    const int n = n0 + i, k = k0 + threadIdx.x;
    if (n < N && k < K) {
      uint32_t bits;
      asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(tile[threadIdx.x][i]));
      Bt[size_t(n) * K + k] = __uint_as_float(bits);
    }
  }
}

namespace {

// cuTensorMapEncodeTiled, from the driver (the program links the runtime only).
PFN_cuTensorMapEncodeTiled_v12000 encode_function() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || p == nullptr)
      throw course::Error("the CUDA driver has no cuTensorMapEncodeTiled (a driver for CUDA 12.0 or newer is needed)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// A row-major matrix of `rows` x `cols` elements, copied in boxes of box_rows x box_cols, 128-byte
// swizzle, zeros past the edges.
CUtensorMap tensor_map(const void* base, CUtensorMapDataType type, int element_bytes, int rows, int cols, int box_rows,
                       int box_cols) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t pitch[1] = {cuuint64_t(cols) * element_bytes};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode_function()(&map, type, 2, const_cast<void*>(base), dims, pitch, box, element_strides,
                                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                       CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) throw course::Error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) + ")");
  return map;
}

template <class F>
void launch_wgmma(const CUtensorMap& a_map, const CUtensorMap& b_map, float* C, int M, int N, int K,
                  cudaStream_t stream) {
  const auto kernel = gemm_wgmma_kernel<F>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kWgSmemBytes));
  const dim3 grid(unsigned(course::ceil_div(N, kWgTileN)), unsigned(course::ceil_div(M, kWgTileM)));
  kernel<<<grid, kWgThreads, kWgSmemBytes, stream>>>(a_map, b_map, C, M, N, K);
  CUDA_CHECK_LAUNCH();
}

// gemm_wgmma_problem's refusals, then what the copy engine needs of the matrices it reads: rows
// that start on 16-byte boundaries (rows_16_byte_aligned, as 10.3's copies).
void require_wgmma(const char* what, int M, int N, int K, int element_bytes) {
  const std::string why = gemm_wgmma_problem(M, N, K, element_bytes);
  if (!why.empty()) throw course::Error(std::string(what) + ": " + why);
}
void require_copyable(const char* what, const char* name, const void* p, int row_elements, int element_bytes) {
  if (!rows_16_byte_aligned(p, row_elements, element_bytes))
    throw course::Error(std::string(what) + ": " + name + " must start on a 16-byte boundary (the copy engine's rule)");
}

}  // namespace

}  // namespace detail

std::string gemm_wgmma_problem(int M, int N, int K, int element_bytes) {
  if (M < 1 || N < 1 || K < 1)
    return "M, N and K must be >= 1, got " + std::to_string(M) + ", " + std::to_string(N) + ", " + std::to_string(K);
  if (element_bytes != 2 && element_bytes != 4) return "element_bytes must be 2 (BF16) or 4 (TF32)";
  const int per16 = 16 / element_bytes;
  if (K % per16 != 0)
    return "rows of A must be whole multiples of 16 bytes for the copy engine: K must be a multiple of " +
           std::to_string(per16) + ", got " + std::to_string(K);
  if (element_bytes == 2 && N % per16 != 0)
    return "rows of B must be whole multiples of 16 bytes for the copy engine: N must be a multiple of 8, got " +
           std::to_string(N);
  const int cc = course::compute_capability(0);
  if (cc == 0) return "no usable CUDA GPU";
  if (cc != 90)
    return "wgmma and the tensor memory accelerator are Hopper's (compute capability 9.0, code built for sm_90a); "
           "this GPU is " + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  return "";
}

size_t gemm_wgmma_tf32_workspace_floats(int N, int K) { return N > 0 && K > 0 ? size_t(N) * size_t(K) : 0; }

void gemm_wgmma_bf16(const uint16_t* A, const uint16_t* B, float* C, int M, int N, int K, cudaStream_t stream) {
  using namespace detail;
  require_wgmma("gemm_wgmma_bf16", M, N, K, 2);
  require_copyable("gemm_wgmma_bf16", "A", A, K, 2);
  require_copyable("gemm_wgmma_bf16", "B", B, N, 2);
  const CUtensorMap a_map = tensor_map(A, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, M, K, kWgTileM, WgBf16::kStageK);
  const CUtensorMap b_map = tensor_map(B, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, K, N, WgBf16::kStageK, 64);
  launch_wgmma<WgBf16>(a_map, b_map, C, M, N, K, stream);
}

void gemm_wgmma_tf32(const float* A, const float* B, float* C, int M, int N, int K, float* workspace,
                     cudaStream_t stream) {
  using namespace detail;
  require_wgmma("gemm_wgmma_tf32", M, N, K, 4);
  if (workspace == nullptr)
    throw course::Error("gemm_wgmma_tf32: needs a workspace of gemm_wgmma_tf32_workspace_floats(N, K) floats");
  require_copyable("gemm_wgmma_tf32", "A", A, K, 4);  // B is read by the transposing kernel: any address
  require_copyable("gemm_wgmma_tf32", "the workspace", workspace, K, 4);
  transpose_to_tf32_kernel<<<dim3(unsigned((N + 31) / 32), unsigned((K + 31) / 32)), dim3(32, 8), 0, stream>>>(
      B, workspace, K, N);
  CUDA_CHECK_LAUNCH();
  const CUtensorMap a_map = tensor_map(A, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, M, K, kWgTileM, WgTf32::kStageK);
  const CUtensorMap b_map = tensor_map(workspace, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, N, K, kWgTileN, WgTf32::kStageK);
  launch_wgmma<WgTf32>(a_map, b_map, C, M, N, K, stream);
}

}  // namespace tensor_cores
