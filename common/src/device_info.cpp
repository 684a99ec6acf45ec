#include "course/device_info.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>

#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace course {

namespace {
std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }
}  // namespace

DeviceStatus query_devices() {
  static DeviceStatus status;
  static std::once_flag once;
  std::call_once(once, [] {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      cudaGetLastError();
      status.count = 0;
      status.reason = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    } else if (count == 0) {
      status.reason = "cudaGetDeviceCount found 0 devices";
    } else {
      status.count = count;
    }
  });
  return status;
}

bool gpu_available() { return query_devices().available(); }

void require_gpu(const std::string& what) {
  const DeviceStatus s = query_devices();
  if (!s.available()) throw Error(what + " needs a CUDA GPU, but none is usable (" + s.reason + ")");
}

std::string cuda_versions() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  return "CUDA runtime " + version_text(runtime) + ", driver " + (driver ? version_text(driver) : "none") +
         ", built with toolkit " + version_text(CUDART_VERSION);
}

int compute_capability(int device) {
  if (!gpu_available()) return 0;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return major * 10 + minor;
}

std::string device_summary(int device) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
    cudaGetLastError();  // leave no error behind for the next CUDA_CHECK_LAUNCH
    return "device " + std::to_string(device) + " (unreadable)";
  }
  char text[512];
  std::snprintf(text, sizeof text, "%s, sm_%d%d, %d SMs, %.1f GiB", p.name, p.major, p.minor, p.multiProcessorCount,
                static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
  return text;
}

void print_device_properties(std::ostream& out, int device) {
  cudaDeviceProp p{};
  const cudaError_t err = cudaGetDeviceProperties(&p, device);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw Error("cudaGetDeviceProperties(" + std::to_string(device) + "): " + cudaGetErrorString(err));
  }
  auto attr = [device](cudaDeviceAttr a) {
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, device) == cudaSuccess ? v : 0;
  };
  const int sm_clock_khz = attr(cudaDevAttrClockRate);
  const int mem_clock_khz = attr(cudaDevAttrMemoryClockRate);
  const int bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
  char line[256];
  auto row = [&](const char* key, const std::string& value) {
    std::snprintf(line, sizeof line, "  %-30s %s\n", key, value.c_str());
    out << line;
  };
  out << "GPU " << device << ": " << p.name << "\n";
  row("compute capability", std::to_string(p.major) + "." + std::to_string(p.minor) + " (sm_" +
                                std::to_string(p.major) + std::to_string(p.minor) + ")");
  row("streaming multiprocessors", std::to_string(p.multiProcessorCount));
  std::snprintf(line, sizeof line, "%.1f GiB", p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
  row("global memory", line);
  row("SM clock (max)", sm_clock_khz ? std::to_string(sm_clock_khz / 1000) + " MHz" : "not reported");
  row("memory clock (max)", mem_clock_khz ? std::to_string(mem_clock_khz / 1000) + " MHz" : "not reported");
  row("memory bus width", std::to_string(bus_bits) + " bits");
  if (mem_clock_khz && bus_bits) {
    // DDR: two transfers per clock.
    std::snprintf(line, sizeof line, "%.0f GB/s", 2.0 * mem_clock_khz * 1e3 * (bus_bits / 8) / 1e9);
    row("peak memory bandwidth (theory)", line);
  }
  row("L2 cache", std::to_string(p.l2CacheSize / 1024) + " KiB");
  row("shared memory per block", std::to_string(p.sharedMemPerBlock / 1024) + " KiB (opt-in " +
                                     std::to_string(p.sharedMemPerBlockOptin / 1024) + " KiB)");
  row("shared memory per SM", std::to_string(p.sharedMemPerMultiprocessor / 1024) + " KiB");
  row("registers per block", std::to_string(p.regsPerBlock));
  row("warp size", std::to_string(p.warpSize));
  row("max threads per block", std::to_string(p.maxThreadsPerBlock));
  row("max threads per SM", std::to_string(p.maxThreadsPerMultiProcessor));
  row("max grid size", std::to_string(p.maxGridSize[0]) + " x " + std::to_string(p.maxGridSize[1]) + " x " +
                           std::to_string(p.maxGridSize[2]));
}

bool announce_cpu_only(const std::string& lesson, const std::string& gpu_steps, bool cpu_only_flag) {
  const DeviceStatus& gpu = query_devices();
  if (gpu.available() && !cpu_only_flag) return false;
  const std::string why = gpu.available() ? "--cpu-only" : "no usable CUDA GPU (" + gpu.reason + ")";
  std::printf("Lesson %s: %s: steps %s run on the GPU and are skipped here%s\n\n", lesson.c_str(), why.c_str(),
              gpu_steps.c_str(), gpu.available() ? "" : "; their tests are reported SKIPPED");
  return true;
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      const size_t start = line.find_first_not_of(" \t", line.find(':') + 1);
      return start == std::string::npos ? "unknown CPU" : line.substr(start);
    }
  return "unknown CPU";
}

std::string compute_capability_problem(int min_cc, const std::string& what) {
  const int cc = compute_capability(0);
  if (cc == 0) return "no usable CUDA GPU";
  if (cc >= min_cc) return "";
  return what + " need compute capability " + std::to_string(min_cc / 10) + "." + std::to_string(min_cc % 10) +
         " or newer; this GPU is " + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}

// What one SM offers (device_info.hpp).
namespace {

SmLimits read_limits(int device) {
  auto attribute = [device](cudaDeviceAttr what) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, what, device));
    return value;
  };
  SmLimits sm;
  sm.sms = attribute(cudaDevAttrMultiProcessorCount);
  sm.max_threads = attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
  sm.max_blocks = attribute(cudaDevAttrMaxBlocksPerMultiprocessor);
  sm.registers = attribute(cudaDevAttrMaxRegistersPerMultiprocessor);
  sm.register_partitions = 4;  // the runtime reports neither: 4 and 256 on every GPU since Volta
  sm.register_unit = 256;
  sm.shared_bytes = size_t(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  sm.reserved_shared = size_t(attribute(cudaDevAttrReservedSharedMemoryPerBlock));
  sm.shared_unit = 128;  // Volta and newer
  return sm;
}

}  // namespace

// Read once per device: a launcher may ask at every launch.
SmLimits sm_limits() {
  int device = 0, count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw course::Error("sm_limits: no CUDA GPU is visible");
  }
  CUDA_CHECK(cudaGetDevice(&device));
  static std::mutex guard;
  static std::map<int, SmLimits> known;
  const std::lock_guard<std::mutex> lock(guard);
  auto found = known.find(device);
  if (found == known.end()) found = known.emplace(device, read_limits(device)).first;
  return found->second;
}

}  // namespace course
