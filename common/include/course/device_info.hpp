#pragma once
// Is there a usable GPU, and what is it? "No device" means cudaGetDeviceCount
// returned an error or 0 (with the toolkit but no driver it returns
// cudaErrorInsufficientDriver, not cudaErrorNoDevice).
#include <cstddef>
#include <ostream>
#include <string>

namespace course {

struct DeviceStatus {
  int count = 0;
  std::string reason;  // why none is usable, when count == 0
  bool available() const { return count > 0; }
};

DeviceStatus query_devices();  // asks once, then remembers
bool gpu_available();
// Throws course::Error("<what> needs a CUDA GPU, but none is usable: <reason>").
void require_gpu(const std::string& what);

// For a lesson program's CPU part: true when it must run without the GPU (no usable GPU, or
// --cpu-only given), after printing the one line that says so and which steps are skipped, e.g.
// "Lesson 05: no usable CUDA GPU (...): steps 05.1-05.4 run on the GPU and are skipped here; ...".
bool announce_cpu_only(const std::string& lesson, const std::string& gpu_steps, bool cpu_only_flag);

// major * 10 + minor (90 for an H100), or 0 without a usable GPU.
int compute_capability(int device = 0);
// Why code that needs compute capability min_cc (80: 8.0) or newer cannot run on GPU 0, or "" when
// it can: "no usable CUDA GPU", or "<what> need compute capability 8.0 or newer; this GPU is 7.5".
std::string compute_capability_problem(int min_cc, const std::string& what);

// What one SM offers, from the device's attributes: what decides how many blocks of a kernel it holds.
struct SmLimits {
  int sms;                     // SMs on the GPU
  int max_threads;             // threads an SM holds at once (2048 on sm_80 and sm_90)
  int max_blocks;              // blocks an SM holds at once (32)
  int registers;               // 32-bit registers of an SM (65536), split evenly among
  int register_partitions;     //   its partitions (4: one per warp scheduler); a warp lives in one
  int register_unit;           // a warp's registers are given in units of this many (256)
  size_t shared_bytes;         // shared memory of an SM (233472 on sm_90)
  size_t reserved_shared;      // shared memory the system keeps for each block (1024 on sm_80 and sm_90)
  size_t shared_unit;          // a block's shared memory is given in units of this many bytes (128)
};
// The current GPU's, read once per device; throws course::Error without a visible GPU.
SmLimits sm_limits();

// "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB"
std::string device_summary(int device = 0);
// Runtime and driver versions, e.g. "CUDA runtime 13.0, driver 13.0"
std::string cuda_versions();
// Every property lesson 00 shows: name, compute capability, SMs, memory, clocks...
void print_device_properties(std::ostream& out, int device);

// The host CPU's model name ("model name" in /proc/cpuinfo), or "unknown CPU": what the CPU
// lessons print beside their timings.
std::string cpu_model_name();

}  // namespace course
