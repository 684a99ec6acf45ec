// Lesson 10, step 10.1: rounding a float to BF16 and to TF32, to nearest, ties to even. YOUR FILE:
// round_bits (marked TODO); the rest is written for you.
// One __host__ __device__ function per format serves the host functions and the kernels alike.
#include <cstring>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

namespace {

__host__ __device__ inline uint32_t bits_of(float x) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(x);
#else
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}
__host__ __device__ inline float float_of(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

[[maybe_unused]] constexpr uint32_t kExponent = 0x7f800000u, kMantissa = 0x007fffffu;

// Keeps the top (32 - drop) bits of x's pattern, rounded to nearest, ties to even; NaN stays a
// quiet NaN of the same sign. YOUR PART.
__host__ __device__ inline uint32_t round_bits(uint32_t u, int drop) {
  // TODO(10.1): return u with its low `drop` bits cleared after rounding to nearest, ties to even
  // (look at the last kept bit and at what is dropped: below half, half, above half). A NaN
  // (exponent all ones, mantissa not 0) must come out a NaN: keep its sign, set the quiet bit
  // (0x00400000), clear the dropped bits. Inf and overflow need no special case.
  (void)drop;
  return u;
}

__host__ __device__ inline uint16_t bf16_round(float x) { return uint16_t(round_bits(bits_of(x), 16) >> 16); }
__host__ __device__ inline float tf32_round(float x) { return float_of(round_bits(bits_of(x), 13)); }

}  // namespace

uint16_t float_to_bf16(float x) { return bf16_round(x); }
float round_to_tf32(float x) { return tf32_round(x); }

// ---- given --------------------------------------------------------------------------------------
float bf16_to_float(uint16_t b) { return float_of(uint32_t(b) << 16); }

namespace {
// FP16 has 5 exponent bits: besides the same rounding of the mantissa (13 bits dropped), the
// exponent is rebased from FP32's bias 127 to FP16's 15, values from 65520 up overflow to Inf, and
// values below 2^-14 become subnormals (multiples of 2^-24) or 0.
__host__ __device__ inline uint16_t fp16_round(float x) {
  const uint32_t u = bits_of(x), sign = (u >> 16) & 0x8000u, magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return uint16_t(sign | 0x7e00u | ((magnitude >> 13) & 0x01ffu));  // NaN, quiet
  if (magnitude >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // 65520 and up (Inf too): Inf
  if (magnitude >= 0x38800000u) {  // normal in FP16: rebias the exponent, round 13 mantissa bits
    const uint32_t h = magnitude - ((127u - 15u) << 23);
    return uint16_t(sign | ((h + 0x0fffu + ((h >> 13) & 1u)) >> 13));
  }
  if (magnitude <= 0x33000000u) return uint16_t(sign);  // up to 2^-25 (a tie with 0): 0
  // Subnormal: the significand (with its leading 1) in units of 2^-24, rounded to nearest, even.
  const uint32_t exponent = magnitude >> 23, significand = (magnitude & 0x007fffffu) | 0x00800000u;
  const uint32_t shift = 126u - exponent;  // 14 .. 24
  const uint32_t kept = significand >> shift, rest = significand & ((1u << shift) - 1), half = 1u << (shift - 1);
  return uint16_t(sign | (kept + (rest > half || (rest == half && (kept & 1u)))));
}
}  // namespace

uint16_t float_to_fp16(float x) { return fp16_round(x); }

namespace {
__global__ void to_bf16_kernel(const float* __restrict__ x, uint16_t* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    y[i] = bf16_round(x[i]);
}
__global__ void to_fp16_kernel(const float* __restrict__ x, uint16_t* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    y[i] = fp16_round(x[i]);
}
__global__ void to_tf32_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    y[i] = tf32_round(x[i]);
}
unsigned blocks_for(size_t n) { return unsigned(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096); }
}  // namespace

void to_bf16_gpu(const float* x, uint16_t* y, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  to_bf16_kernel<<<blocks_for(n), 256, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH();
}

void to_fp16_gpu(const float* x, uint16_t* y, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  to_fp16_kernel<<<blocks_for(n), 256, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH();
}

void to_tf32_gpu(const float* x, float* y, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  to_tf32_kernel<<<blocks_for(n), 256, 0, stream>>>(x, y, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tensor_cores
