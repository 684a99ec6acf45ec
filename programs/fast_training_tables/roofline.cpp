// Lesson 09's tables: the GPU's ceilings and the roofline bound of a pass (roofline.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "course/cuda_check.hpp"
#include "roofline.hpp"

namespace fast_training {

namespace {

// FP32 lanes (one multiply-add per clock each) per SM, by compute capability: the figures of
// NVIDIA's architecture whitepapers.
int fp32_lanes_per_sm(int major, int minor) {
  if (major == 8 && minor == 0) return 64;  // A100
  if (major >= 8) return 128;               // sm_86, sm_89, sm_90 (H100), sm_100, sm_120
  return 64;                                // sm_75 and older
}

}  // namespace

Ceilings device_ceilings(int device) {
  const auto attr = [device](cudaDeviceAttr a) {
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
    return v;
  };
  const int sms = attr(cudaDevAttrMultiProcessorCount), major = attr(cudaDevAttrComputeCapabilityMajor),
            minor = attr(cudaDevAttrComputeCapabilityMinor);
  const double sm_hz = attr(cudaDevAttrClockRate) * 1e3, mem_hz = attr(cudaDevAttrMemoryClockRate) * 1e3;
  const double bus_bytes = attr(cudaDevAttrGlobalMemoryBusWidth) / 8.0;
  Ceilings c;
  const int lanes = fp32_lanes_per_sm(major, minor);
  c.flops_per_s = double(sms) * lanes * 2 * sm_hz;
  c.bytes_per_s = 2 * mem_hz * bus_bytes;  // two transfers per memory clock
  char text[200];
  std::snprintf(text, sizeof text, "%d SMs x %d FP32 lanes x 2 x %.0f MHz; %.0f MHz x %.0f-bit bus x 2", sms, lanes,
                sm_hz / 1e6, mem_hz / 1e6, bus_bytes * 8);
  c.source = text;
  return c;
}

double roofline_seconds(const PassCost& cost, const Ceilings& c) {
  return std::max(cost.flops / c.flops_per_s, cost.bytes / c.bytes_per_s);
}

}  // namespace fast_training
