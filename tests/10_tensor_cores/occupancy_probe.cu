// The stand-in kernels of occupancy_probe.hpp. They are never launched: only counted.
#include "course/cuda_check.hpp"
#include "occupancy_probe.hpp"

namespace occupancy_probe {

namespace {
__global__ void light_kernel(float* out) {
  extern __shared__ float shared[];
  shared[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = shared[blockDim.x - 1 - threadIdx.x];
}

__global__ void heavy_kernel(const float* in, float* out, int n) {
  extern __shared__ float shared[];
  float acc[48];
#pragma unroll
  for (int k = 0; k < 48; ++k) acc[k] = in[k * n + threadIdx.x];
  for (int step = 0; step < n; ++step)
#pragma unroll
    for (int k = 0; k < 48; ++k) acc[k] = acc[k] * acc[(k + 7) % 48] + in[step];
  shared[threadIdx.x] = acc[0];
  __syncthreads();
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < 48; ++k) sum += acc[k];
  out[threadIdx.x] = sum + shared[(threadIdx.x + 1) % blockDim.x];
}

template <class Kernel>
Probe count(Kernel kernel, int threads, size_t dynamic_shared) {
  int device = 0, most = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  most - int(attributes.sharedSizeBytes)));
  Probe p{attributes.numRegs, attributes.sharedSizeBytes, 0};
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&p.runtime_blocks, kernel, threads, dynamic_shared));
  return p;
}
}  // namespace

Probe probe(int kernel, int threads, size_t dynamic_shared) {
  return kernel == 0 ? count(light_kernel, threads, dynamic_shared) : count(heavy_kernel, threads, dynamic_shared);
}

}  // namespace occupancy_probe
