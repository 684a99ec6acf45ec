// The course framework: ranks on threads (ranks.hpp) and NCCL's errors (nccl_check.hpp).
#include "framework/ranks.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include "course/cuda_check.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "framework/nccl_check.hpp"

namespace framework {

void nccl_check(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  std::string message = std::string("NCCL error: ") + ncclGetErrorString(result) + " in " + call + " at " + file +
                         ":" + std::to_string(line);
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && *last != '\0') message += " (" + std::string(last) + ")";
  throw course::Error(message);
}

int usable_gpus() { return course::query_devices().count; }

std::vector<int> first_devices(int count) {
  const int have = usable_gpus();
  if (count < 1) throw course::Error("the number of GPUs must be at least 1, got " + std::to_string(count));
  if (count > have)
    throw course::Error("asked for " + std::to_string(count) + " GPUs, but this machine has " + std::to_string(have) +
                        " usable");
  std::vector<int> devices(count);
  for (int i = 0; i < count; ++i) devices[i] = i;
  return devices;
}

std::string nccl_version() {
  int code = 0;
  NCCL_CHECK(ncclGetVersion(&code));
  // 2.9 and later: major * 10000 + minor * 100 + patch.
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

void run_ranks(const std::vector<int>& devices, const std::function<void(const Rank&)>& body) {
  const int ranks = int(devices.size());
  if (ranks < 1) throw course::Error("run_ranks: no devices given");
  if (std::set<int>(devices.begin(), devices.end()).size() != devices.size())
    throw course::Error("run_ranks: a GPU can hold only one rank of a communicator; devices repeat");
  // NVLink SHARP (multicast) stays off: these all-reduces are small, and multicast objects left by
  // a crashed program can hold a shared machine's GPUs. A value set outside is kept.
  setenv("NCCL_NVLS_ENABLE", "0", 0);

  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  std::vector<std::exception_ptr> errors(ranks);
  std::atomic<int> finished{0};
  std::atomic<int> failed{-1};
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      ncclComm_t comm = nullptr;
      try {
        CUDA_CHECK(cudaSetDevice(devices[r]));
        // The ranks capture their CUDA graphs at the same time. A capture forbids allocations and
        // graph instantiations in EVERY thread of the process by default (lesson 09's capture_graph
        // uses cudaStreamCaptureModeGlobal); the ranks share nothing on the GPU side, so each rank's
        // thread is exempt from the others' captures. Its own capture still catches its own mistakes.
        cudaStreamCaptureMode relaxed = cudaStreamCaptureModeRelaxed;
        CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&relaxed));
        NCCL_CHECK(ncclCommInitRank(&comm, ranks, id, r));
        body(Rank{r, ranks, devices[r], comm});
        CUDA_CHECK(cudaDeviceSynchronize());
        NCCL_CHECK(ncclCommFinalize(comm));  // waits for this rank's collectives to finish
        NCCL_CHECK(ncclCommDestroy(comm));
      } catch (...) {
        errors[r] = std::current_exception();
        int none = -1;
        failed.compare_exchange_strong(none, r);
        if (comm != nullptr) ncclCommAbort(comm);
      }
      ++finished;
    });
  }
  // A failed rank leaves the others waiting in their next collective: give them a while, then stop.
  using clock = std::chrono::steady_clock;
  clock::time_point failed_at{};
  while (finished.load() < ranks) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (failed.load() < 0) continue;
    if (failed_at == clock::time_point{}) failed_at = clock::now();
    if (clock::now() - failed_at > std::chrono::seconds(10)) {
      std::string what = "unknown error";
      try {
        std::rethrow_exception(errors[failed.load()]);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      std::fprintf(stderr, "error: rank %d failed (%s); the other ranks wait for it in a collective, so the program stops here\n",
                   failed.load(), what.c_str());
      std::fflush(stdout);
      std::_Exit(1);
    }
  }
  for (std::thread& t : threads) t.join();
  if (failed.load() >= 0) std::rethrow_exception(errors[failed.load()]);
}

}  // namespace framework
