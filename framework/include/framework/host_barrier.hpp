#pragma once
// The course framework: threads meeting on the host (the ranks of ranks.hpp, one thread per GPU).
#include <condition_variable>
#include <mutex>

namespace framework {

// Threads meeting on the host (GPUs meet in collectives): arrive_and_wait returns
// once `parties` threads called it, and the barrier is ready for the next round.
class HostBarrier {
 public:
  explicit HostBarrier(int parties) : parties_(parties) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const long round = round_;
    if (++arrived_ == parties_) {
      arrived_ = 0, ++round_;
      all_arrived_.notify_all();
    } else {
      all_arrived_.wait(lock, [&] { return round_ != round; });
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  int parties_, arrived_ = 0;
  long round_ = 0;
};

}  // namespace framework
