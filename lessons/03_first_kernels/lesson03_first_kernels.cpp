// Lesson 03: first CUDA kernels. The program
//   1. launches a kernel with a bad configuration and shows what CUDA_CHECK_LAUNCH reports;
//   2. measures copy bandwidth: host <-> device (pageable and pinned) and device -> device;
//   3. checks every kernel of exercises/*.cu against the CPU, then times it at several sizes
//      (GPU: CUDA events; CPU: host clock) and prints GB/s against the device copy bandwidth;
//   4. times one launch with the host clock, with and without synchronisation, beside events.
// Without a GPU (or with --cpu-only) it runs the CPU baseline alone (cpu_baseline.hpp): host
// copy bandwidth and lesson 01's ReLU loops.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "copy_bandwidth.hpp"
#include "cpu_baseline.hpp"
#include "course/cli.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "course/timer.hpp"
#include "first_kernels.hpp"
#include "kernel_table.hpp"
#include "launch_demo.hpp"

namespace {

constexpr int kMinExponent = 15, kMaxExponent = 28;  // 2^15: bias add's smallest shape (one image)

// "16,20,24" -> {2^16, 2^20, 2^24}; anything else is a one-line error naming the flag.
std::vector<size_t> parse_sizes(const std::string& text) {
  const std::string what = "--sizes must be a comma-separated list of exponents k in [" +
                           std::to_string(kMinExponent) + ", " + std::to_string(kMaxExponent) +
                           "] (n = 2^k elements), got '" + course::shown(text) + "'";
  std::vector<size_t> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    int k = 0;
    if (item.empty() || item[0] < '0' || item[0] > '9') throw course::Error(what);  // stoi would skip " 16"'s space
    try {
      k = std::stoi(item, &used);
    } catch (const std::exception&) {
      throw course::Error(what);
    }
    if (used != item.size() || k < kMinExponent || k > kMaxExponent) throw course::Error(what);
    sizes.push_back(size_t(1) << k);
  }
  if (sizes.empty() || text.back() == ',') throw course::Error(what);
  return sizes;
}

size_t count_nan(const std::vector<float>& v) {
  size_t count = 0;
  for (float x : v) count += std::isnan(x) ? 1 : 0;
  return count;
}

// ---- 1. a bad launch ----------------------------------------------------------------------
void show_bad_launch() {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int too_many = 2 * prop.maxThreadsPerBlock;
  constexpr size_t n = 10000;
  course::DeviceBuffer<float> y(n);

  std::printf("== 1. A bad launch configuration: %d threads per block (this GPU allows at most %d)\n\n",
              too_many, prop.maxThreadsPerBlock);

  // (a) Unchecked: the launch returns as if nothing happened.
  y.poison();
  lesson03::fill_with_block_size(y.data(), n, 1.0f, too_many, /*check=*/false);
  const cudaError_t sync = cudaDeviceSynchronize();
  const cudaError_t last = cudaGetLastError();  // reads AND clears the pending launch error
  std::printf("(a) launched WITHOUT a check:\n");
  std::printf("    cudaDeviceSynchronize() returned %s%s\n", cudaGetErrorName(sync),
              sync == cudaSuccess ? " (a kernel that never started leaves nothing to wait for)" : "");
  std::printf("    the output: %zu of %zu values are still the NaN poison: the kernel did not run\n",
              count_nan(y.to_host()), n);
  std::printf("    cudaGetLastError() only now says: %s (%s)\n\n", cudaGetErrorName(last),
              cudaGetErrorString(last));

  // (b) Checked right after the launch, as every launcher of this course does.
  std::printf("(b) launched WITH CUDA_CHECK_LAUNCH() right after it:\n");
  try {
    lesson03::fill_with_block_size(y.data(), n, 1.0f, too_many, /*check=*/true);
    std::printf("    no error?! (this GPU accepted %d threads per block)\n", too_many);
  } catch (const course::CudaError& e) {
    std::printf("    caught course::CudaError:\n    %s\n", e.what());
  }
  std::printf("    The error names the problem and the line of the launch. Without the check, the\n"
              "    program would go on with an unwritten output and fail much later, or never.\n\n");

  // (c) The fix: a legal block size.
  y.poison();
  lesson03::fill_with_block_size(y.data(), n, 1.0f, first_kernels::kThreadsPerBlock, /*check=*/true);
  const std::vector<float> filled = y.to_host();
  std::printf("(c) %d threads per block: the kernel runs; %zu NaN left, y[0] = %g, y[%zu] = %g\n\n",
              first_kernels::kThreadsPerBlock, count_nan(filled), filled[0], n - 1, filled[n - 1]);
}

// ---- 4. launches are asynchronous -----------------------------------------------------------
void show_async_launch(size_t n, int repeats) {
  std::printf("== 4. Launches are asynchronous: vector_add at n = %zu, median of %d\n\n", n, repeats);
  course::DeviceBuffer<float> a(n), b(n), c(n);
  a.zero();
  b.zero();
  first_kernels::vector_add(a.data(), b.data(), c.data(), n);  // warm-up
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<double> launch_ms, synced_ms, event_ms;
  course::CudaEventTimer events;
  for (int r = 0; r < repeats; ++r) {
    course::HostTimer clock;
    events.start();
    first_kernels::vector_add(a.data(), b.data(), c.data(), n);
    events.stop();
    launch_ms.push_back(clock.milliseconds());  // the call has returned; the GPU may still be busy
    CUDA_CHECK(cudaDeviceSynchronize());
    synced_ms.push_back(clock.milliseconds());
    event_ms.push_back(events.milliseconds());
  }
  std::printf("host clock around the launch call alone:            %9.4f ms\n", course::median(launch_ms));
  std::printf("host clock around launch + cudaDeviceSynchronize(): %9.4f ms\n", course::median(synced_ms));
  std::printf("CUDA events around the kernel (GPU time):           %9.4f ms\n\n", course::median(event_ms));
  std::printf("The launch call returns as soon as the work is queued: a host clock without a\n"
              "synchronisation measures the queueing, not the kernel. With it, the host clock adds\n"
              "launch and wake-up latency. Events are recorded in the GPU's stream, before and after\n"
              "the kernel, so they measure the kernel alone.\n");
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("lesson03_first_kernels",
                           "First CUDA kernels: launch errors, copy bandwidth, and each kernel timed against "
                           "the CPU and the device copy bandwidth.");
    args.add_flag("--quick", "small sizes and few repeats (a fast check that everything runs)");
    args.add_string("--sizes", "16,20,24,26",
                    "element counts as exponents k (n = 2^k), comma-separated, k in [15, 28]");
    args.add_int("--repeats", 20, 1, 1000, "timed repeats of each GPU measurement (median reported)");
    args.add_int("--copy-mib", 256, 1, 4096, "MiB per copy in the copy-bandwidth measurement");
    args.add_flag("--cpu-only", "run only the CPU baseline, as on a machine without a GPU");
    if (!args.parse(argc, argv)) return 0;

    // Every flag is checked before the GPU is touched.
    const bool quick = args.flag("--quick");
    const bool cpu_only = args.flag("--cpu-only") || !course::gpu_available();
    // The CPU alone stops at 2^24 by default: 2^26 takes seconds per loop on one core.
    const char* default_sizes = quick ? "16,20" : cpu_only ? "16,20,24" : nullptr;
    const std::vector<size_t> sizes =
        parse_sizes(default_sizes && !args.given("--sizes") ? default_sizes : args.get_string("--sizes"));
    const int repeats = quick && !args.given("--repeats") ? 5 : static_cast<int>(args.get_int("--repeats"));
    const size_t copy_mib = quick && !args.given("--copy-mib") ? 32 : static_cast<size_t>(args.get_int("--copy-mib"));

    if (cpu_only) {
      course::announce_cpu_only("03", "03.1-03.2", args.flag("--cpu-only"));
      lesson03::CpuBaselineOptions cpu;
      cpu.sizes = sizes;
      cpu.copy_bytes = copy_mib << 20;
      cpu.repeats = quick ? 2 : 3;
      lesson03::run_cpu_baseline(cpu);
      return 0;
    }

    std::printf("Lesson 03: first kernels on %s\n%s\n\n", course::device_summary(0).c_str(),
                course::cuda_versions().c_str());

    show_bad_launch();

    std::printf("== 2. Copy bandwidth\n\n");
    const size_t copy_bytes = copy_mib << 20;
    const std::vector<lesson03::CopyMeasurement> copies = lesson03::measure_copies(copy_bytes, repeats);
    lesson03::print_copy_table(copies, copy_bytes);
    const double d2d = lesson03::device_copy_gb_per_s(copies);
    std::printf("A kernel that reads and writes each byte once cannot beat the device -> device copy:\n"
                "it is the ceiling in the next table. Every host <-> device copy crosses PCIe/NVLink-C2C\n"
                "at a fraction of that.\n\n");

    std::printf("== 3. The kernels, checked against the CPU, then timed\n\n");
    std::printf("GB/s = bytes read + written / GPU time; %% D2D = of the %.1f GB/s device copy above;\n"
                "CPU = one core, host clock; +copies = upload inputs, kernel, download outputs\n"
                "(pageable memory, host clock), and its speed-up over the CPU.\n\n",
                d2d);
    lesson03::TableOptions table;
    table.sizes = sizes;
    table.gpu_repeats = repeats;
    table.cpu_repeats = quick ? 2 : 3;
    table.device_copy_gb_per_s = d2d;
    lesson03::run_kernel_table(table);
    std::printf("\nall kernels agree with the CPU\n\n");

    show_async_launch(*std::max_element(sizes.begin(), sizes.end()), repeats);
    return 0;
  });
}
