#pragma once
// The course framework: the device-side counters of a training epoch (loss sum, right answers, the first NaN step) and
// the host's read of them at report points. Used by every GPU trainer's loop.
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"

namespace framework {

// The device-side counters of one epoch, read by the host at report points only.
struct EpochCounters {
  course::DeviceBuffer<double> loss_sum{1};
  course::DeviceBuffer<int> ints{2};  // [0] right answers this epoch, [1] first bad step (-1: none)
  EpochCounters() {
    ints.upload(std::vector<int>{0, -1});
    loss_sum.zero();
  }
  void new_epoch() {  // keeps the bad-step flag
    loss_sum.zero();
    CUDA_CHECK(cudaMemset(ints.data(), 0, sizeof(int)));
  }
  int* correct() { return ints.data(); }
  int* bad_step() { return ints.data() + 1; }
};

struct CounterReport {
  double loss_sum = 0;
  int correct = 0, bad_step = -1;
};

// A report point: waits for the GPU (the copies do), then stops on a NaN loss. The flag holds the
// step's number as the trainer passed it to accumulate_loss; first_step + flag is its number
// counted from the start of training (a step replayed from a CUDA graph passes the step within
// the epoch).
inline CounterReport read_report(const EpochCounters& c, int steps_per_epoch, int first_step = 0) {
  CounterReport r;
  c.loss_sum.download(&r.loss_sum, 1);
  int ints[2];
  c.ints.download(ints, 2);
  r.correct = ints[0], r.bad_step = ints[1];
  if (r.bad_step >= 0) {
    r.bad_step += first_step;
    throw course::Error("loss became NaN at step " + std::to_string(r.bad_step) + " (epoch " +
                        std::to_string((r.bad_step - 1) / steps_per_epoch + 1) + "); try a smaller --lr");
  }
  return r;
}

}  // namespace framework
