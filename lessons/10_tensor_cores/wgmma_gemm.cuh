#pragma once
// Lesson 10 (given, read-only): the Hopper GEMM of step 10.8 around the part you write
// (issue_stage_mma in exercises/wgmma_stage.cuh).
//
// Three things are new on Hopper (compute capability 9.0), and this kernel uses all three:
//   * the TENSOR MEMORY ACCELERATOR (TMA): one thread asks the copy engine for a whole tile
//     ("cp.async.bulk.tensor"), described once on the host by a tensor map (the matrix's address,
//     sizes, row pitch, the box to copy and a swizzle); rows and columns past the matrix's edges
//     arrive as zeros, so tails need no code;
//   * MBARRIERS: counters in shared memory that a copy signals when its bytes have landed
//     ("full") and that consumers signal when they are done with a buffer ("empty");
//   * WGMMA: one instruction issued by a WARPGROUP (4 consecutive warps, 128 threads) multiplies
//     a 64 x 256 x k16 (BF16) or 64 x 256 x k8 (TF32) product straight from shared memory into
//     registers, ASYNCHRONOUSLY: the warps go on while the Tensor Cores work, and wait for a group
//     of such products only when they need its result.
//
// Block: 3 warpgroups, 128 x 256 of C. Warpgroup 0 is the PRODUCER: one of its threads sends
// the TMA copies of every stage. Warpgroups 1 and 2 are CONSUMERS: each owns 64 rows x 256
// columns of C, 128 FP32 accumulators per thread, and multiplies every stage.
// kWgStages stages of 128 bytes of k (64 BF16 or 32 floats) each:
//   A: 128 rows (m) of 128 bytes, K-major (k contiguous), 16 KB
//   B: BF16: 4 boxes of 64 columns (n), each 64 rows (k) of 128 bytes: N-MAJOR (n contiguous), 32 KB
//      TF32: 256 rows (n) of 128 bytes: K-major (the launcher first writes B transposed, B^T, as
//      wgmma's TF32 reads only K-major operands), 32 KB
// Every 128-byte row is SWIZZLED by the copy (128-byte mode): its 16-byte chunk c of row r lands
// at chunk c ^ (r % 8), so that 8 rows read column-wise hit 8 different groups of banks. wgmma
// knows the pattern: a shared-memory DESCRIPTOR tells it the start, the swizzle and two strides.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

// wgmma and setmaxnreg exist only on sm_90a: this file is compiled for that target alone (see the
// lesson's CMakeLists.txt); the host pass and any other target see empty kernels.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define COURSE_WGMMA 1
#else
#define COURSE_WGMMA 0
#endif

namespace tensor_cores::detail {

constexpr int kWgTileM = 128, kWgTileN = 256, kWgStages = 4, kWgRowBytes = 128;
constexpr int kWgThreads = 3 * 128;        // producer + 2 consumer warpgroups
constexpr int kWgConsumerRows = 64;         // rows of C per consumer warpgroup
constexpr int kWgAccumulators = kWgConsumerRows * kWgTileN / 128;  // FP32 accumulators per consumer thread
constexpr int kWgABytes = kWgTileM * kWgRowBytes, kWgBBytes = kWgTileN * kWgRowBytes;
constexpr int kWgStageBytes = kWgABytes + kWgBBytes;
constexpr int kWgSmemBytes = kWgStages * kWgStageBytes + 1024 /* alignment */ + 2 * kWgStages * 8 /* barriers */;

// The two input formats. kStepK: k of one wgmma; kStageK: k of one stage (128 bytes).
struct WgBf16 {
  using Element = __nv_bfloat16;
  static constexpr int kStageK = 64, kStepK = 16;
  static constexpr bool kBNMajor = true;  // B's stage as stored: rows of k, n contiguous
};
struct WgTf32 {
  using Element = float;
  static constexpr int kStageK = 32, kStepK = 8;
  static constexpr bool kBNMajor = false;  // B^T's stage: rows of n, k contiguous
};

#if COURSE_WGMMA
// ---- shared-memory matrix descriptors --------------------------------------------------------
// A 64-bit word that tells wgmma where an operand's tile starts in shared memory and how it is
// laid out: bits 0-13 the start address / 16, bits 16-29 the LEADING byte offset / 16, bits
// 32-45 the STRIDE byte offset / 16, bits 62-63 the swizzle (1: 128-byte). In 128-byte swizzle:
//   K-major tile (rows of m or n, k contiguous): stride = bytes from one group of 8 rows to the
//     next (8 x 128 = 1024 here); the leading offset is not used (give 16). The k16 (BF16) or k8
//     (TF32) slice s of a 128-byte row starts 32 s bytes into the row: start + 32 s.
//   MN-major tile (rows of k, m or n contiguous, in boxes of 64 elements = 128 bytes): leading =
//     bytes from one box of 64 columns to the next (64 rows x 128 = 8192 here), stride = bytes from
//     one group of 8 rows of k to the next (1024). The slice of k rows 16 s .. starts 16 s rows
//     (2048 s bytes) into the box.
// Tiles start on 1024-byte boundaries (the swizzle pattern repeats every 8 rows of 128 bytes).
__device__ __forceinline__ uint64_t smem_descriptor(const void* start, uint32_t leading_bytes, uint32_t stride_bytes) {
  const uint64_t address = uint64_t(__cvta_generic_to_shared(start));
  return ((address & 0x3FFFF) >> 4) | (uint64_t((leading_bytes & 0x3FFFF) >> 4) << 16) |
         (uint64_t((stride_bytes & 0x3FFFF) >> 4) << 32) | (uint64_t(1) << 62);
}

// ---- wgmma: issue, group, wait ---------------------------------------------------------------
// wgmma_fence: before the first wgmma that reads or writes accumulators other code touched.
// wgmma_commit: closes a group of the wgmmas issued since the last commit.
// wgmma_wait<n>: returns once at most n groups are still running (their accumulators are final).
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// The 128 accumulators of a thread as operands of one asm statement: "%0, ..., %127" and "+f"(d[i]).
#define COURSE_WGMMA_D_REGISTERS \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define COURSE_WGMMA_D_OPERANDS(d) \
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// d += A * B for one warpgroup: A 64 x k (descriptor a), B k x 256 (descriptor b), d the
// warpgroup's 64 x 256 accumulators (128 per thread). BF16: k = 16, B N-major (the "transpose B"
// flag set: wgmma's default B is K-major); TF32: k = 8, both K-major (the only layout it reads).
template <class F>
__device__ __forceinline__ void wgmma_async(float (&d)[kWgAccumulators], uint64_t a, uint64_t b);

template <>
__device__ __forceinline__ void wgmma_async<WgBf16>(float (&d)[kWgAccumulators], uint64_t a, uint64_t b) {
  asm volatile(
      "{\n"
      ".reg .pred keep;\n"
      "setp.ne.b32 keep, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      COURSE_WGMMA_D_REGISTERS
      "}, %128, %129, keep, 1, 1, 0, 1;\n"
      "}\n"
      : COURSE_WGMMA_D_OPERANDS(d)
      : "l"(a), "l"(b), "r"(1));  // keep = 1: d += A * B (0 would overwrite d)
}

template <>
__device__ __forceinline__ void wgmma_async<WgTf32>(float (&d)[kWgAccumulators], uint64_t a, uint64_t b) {
  asm volatile(
      "{\n"
      ".reg .pred keep;\n"
      "setp.ne.b32 keep, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
      COURSE_WGMMA_D_REGISTERS
      "}, %128, %129, keep, 1, 1;\n"
      "}\n"
      : COURSE_WGMMA_D_OPERANDS(d)
      : "l"(a), "l"(b), "r"(1));  // keep = 1: d += A * B (0 would overwrite d)
}

// ---- mbarriers -------------------------------------------------------------------------------
// A barrier completes a PHASE when `count` threads have arrived and the bytes it expects have
// landed; a waiter names the parity (0, 1, 0, ...) of the phase it waits for.
__device__ __forceinline__ uint32_t smem_address(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void barrier_init(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(bar)), "r"(count));
}
__device__ __forceinline__ void barrier_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(bar)) : "memory");
}
// Arrive, and expect `bytes` more to land (from TMA copies that signal this barrier).
__device__ __forceinline__ void barrier_arrive_expect(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(bar)), "r"(bytes)
               : "memory");
}
// Returns once the phase of `parity` is complete. A phase that never completes (a stage never
// copied, never handed back) stops the kernel after about ten seconds (trap: the launch fails with
// cudaErrorLaunchFailure) instead of hanging the GPU. The clock is read only once a first try failed.
__device__ __forceinline__ void barrier_wait(uint64_t* bar, int parity) {
  asm volatile(
      "{\n"
      ".reg .pred done, late;\n"
      ".reg .u64 start, now;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@done bra.uni DONE_%=;\n"
      "mov.u64 start, %%clock64;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@done bra.uni DONE_%=;\n"
      "mov.u64 now, %%clock64;\n"
      "sub.u64 now, now, start;\n"
      "setp.gt.u64 late, now, 20000000000;\n"
      "@late trap;\n"
      "bra.uni WAIT_%=;\n"
      "DONE_%=:\n"
      "}\n" ::"r"(smem_address(bar)),
      "r"(parity)
      : "memory");
}

// ---- TMA: a 2-D box of a tensor map into shared memory -----------------------------------------
// (x, y): the box's first element (x the contiguous dimension); the copy signals `bar` with its bytes.
__device__ __forceinline__ void tma_load_2d(void* dst, const void* tensor_map, uint64_t* bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          smem_address(dst)),
      "l"(tensor_map), "r"(smem_address(bar)), "r"(x), "r"(y)
      : "memory");
}

// ---- the stages ----------------------------------------------------------------------------------
// kWgStages stages of A's and B's tiles in shared memory, each with two barriers:
//   full[s]   count 1: the producer's arrive, plus the bytes of the stage's copies (expect_tx);
//             complete = stage s holds k tile kt's data
//   empty[s]  count 2: one arrive per consumer warpgroup; complete = both are done reading stage s,
//             so the producer may copy the next k tile into it
// k tile kt uses stage kt % kWgStages in ROUND kt / kWgStages: round r waits for phase parity r & 1.
template <class F>
struct StageRing {
  unsigned char* smem;  // kWgStages stages, 1024-byte aligned
  uint64_t* full;
  uint64_t* empty;
  __device__ typename F::Element* a(int s) const {
    return reinterpret_cast<typename F::Element*>(smem + s * kWgStageBytes);
  }
  __device__ typename F::Element* b(int s) const {
    return reinterpret_cast<typename F::Element*>(smem + s * kWgStageBytes + kWgABytes);
  }
};

// The copies of k tile kt into stage s (one thread calls it): A's 128 rows of 128 bytes, and B's
// tile (BF16: 4 boxes of 64 columns, rows of k; TF32: B^T's 256 rows), each copy signalling full[s]
// with its bytes (kWgStageBytes together). Arrive on full[s] with those bytes expected first.
template <class F>
__device__ __forceinline__ void copy_stage(const StageRing<F>& ring, int s, const void* a_map, const void* b_map,
                                           int kt, int m0, int n0) {
  tma_load_2d(ring.a(s), a_map, &ring.full[s], kt * F::kStageK, m0);
  if constexpr (F::kBNMajor) {
    for (int box = 0; box < kWgTileN / 64; ++box)
      tma_load_2d(ring.b(s) + box * 64 * F::kStageK, b_map, &ring.full[s], n0 + 64 * box, kt * F::kStageK);
  } else {
    tma_load_2d(ring.b(s), b_map, &ring.full[s], kt * F::kStageK, n0);
  }
}
#endif  // COURSE_WGMMA

}  // namespace tensor_cores::detail
