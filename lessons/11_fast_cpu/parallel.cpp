// Lesson 11 (given): run_on_pool, a pool of threads that stay (fast_cpu.hpp); your 11.3's
// parallel_ranges hands it the ranges.
//
// Starting a std::thread and joining it costs tens of microseconds. The small CNN's products and
// convolutions at batch 32 take 50-300 microseconds each, so threads started per call cost as much
// as they save: the second core did not pay. The pool's workers are started once and wait for work
// between calls, spinning for a short while first (a call a few microseconds after the last finds
// them awake), then sleeping on a condition variable. Handing a range to an awake worker costs about
// a microsecond, which lets kMinFlopsPerThread be small.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

namespace {

// One short wait in a spin loop: a pause instruction, not a system call (sched_yield is a trip into
// the kernel each time, and in a virtual machine often a trip out of it).
inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

thread_local bool in_pool_work = false;  // a range running on the pool: nested calls run inline

class Pool {
 public:
  static Pool& instance() {
    static Pool pool;  // workers are joined at exit
    return pool;
  }

  // body(r) for r in [0, ranges), on the caller and on up to ranges - 1 workers; returns when every
  // range is done, rethrowing the first exception of a range (after all of them finished).
  void run(int ranges, const std::function<void(int)>& body) {
    std::unique_lock<std::mutex> one_call(call_, std::try_to_lock);
    if (!one_call.owns_lock() || in_pool_work || ranges > kMaxRanges) {  // busy, nested or huge: inline
      for (int r = 0; r < ranges; ++r) body(r);
      return;
    }
    grow(ranges - 1);
    errors_.assign(size_t(ranges), nullptr);
    body_ = &body;
    remaining_.store(ranges, std::memory_order_relaxed);
    const uint64_t job = jobs_ + 1;
    {
      std::lock_guard<std::mutex> lock(sleep_);
      jobs_ = job;
      // One word holds the job, its number of ranges and the next range to take: a thread that
      // took a range of this job knows the job is still running (its range is not done).
      ticket_.store(job << 32 | uint64_t(ranges) << 16, std::memory_order_release);
    }
    wake_.notify_all();
    take_ranges();  // the caller works too
    while (remaining_.load(std::memory_order_acquire) > 0) pause();
    body_ = nullptr;
    for (const std::exception_ptr& e : errors_)
      if (e) std::rethrow_exception(e);
  }

  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(sleep_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

 private:
  static constexpr int kMaxRanges = 1 << 15;
  static constexpr int kSpins = 1 << 14;  // pauses before sleeping: some tens of microseconds

  // Starts workers until there are `wanted` (at most 255). A thread the system will not start (a
  // limit on processes or on memory) is one course::Error; the workers started so far stay and
  // serve later calls.
  void grow(int wanted) {
    const int limit = 255;  // more workers than this would not help a CPU of this course
    while (int(workers_.size()) < std::min(wanted, limit)) {
      try {
        workers_.emplace_back([this] { work(); });
      } catch (const std::system_error& e) {
        throw course::Error("cannot start thread " + std::to_string(workers_.size() + 2) + " of " +
                            std::to_string(std::min(wanted, limit) + 1) + " (" + e.what() +
                            "): a limit on processes or memory (ulimit -u, ulimit -v) holds it back; use fewer "
                            "--threads");
      }
    }
  }

  // Ranges are taken one at a time by whoever is free: which thread runs a range does not change
  // what it computes.
  void take_ranges() {
    for (;;) {
      const uint64_t t = ticket_.fetch_add(1, std::memory_order_acq_rel);
      const int ranges = int(t >> 16 & 0xffff), r = int(t & 0xffff);
      if (r >= ranges) return;  // this job's ranges are all taken (or there is no job)
      in_pool_work = true;
      try {
        (*body_)(r);
      } catch (...) {
        errors_[size_t(r)] = std::current_exception();  // an exception must not leave its thread
      }
      in_pool_work = false;
      remaining_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  void work() {
    uint64_t seen = 0;  // the last job this worker looked at
    for (;;) {
      // Spin a while (some tens of microseconds) before sleeping: the next call usually comes sooner.
      for (int spin = 0; spin < kSpins && (ticket_.load(std::memory_order_acquire) >> 32) == seen; ++spin) pause();
      {
        std::unique_lock<std::mutex> lock(sleep_);
        wake_.wait(lock, [&] { return stop_ || jobs_ != seen; });
        if (stop_) return;
        seen = jobs_;
      }
      take_ranges();
    }
  }

  std::mutex call_, sleep_;
  std::condition_variable wake_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> ticket_{0};
  std::atomic<int> remaining_{0};
  uint64_t jobs_ = 0;  // jobs started (under sleep_)
  const std::function<void(int)>* body_ = nullptr;
  std::vector<std::exception_ptr> errors_;
  bool stop_ = false;
};

}  // namespace

void run_on_pool(int ranges, const std::function<void(int range)>& body) {
  if (ranges <= 0) return;
  if (ranges == 1) {
    body(0);
    return;
  }
  Pool::instance().run(ranges, body);
}

}  // namespace fast_cpu
