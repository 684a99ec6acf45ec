// The course framework: a training run timed as one interval on the GPU clock (timed_run.hpp).
#include "framework/timed_run.hpp"

#include "device_run.hpp"  // enqueue_steps

#include <algorithm>
#include <string>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/arithmetic.hpp"
#include "course/timer.hpp"
#include "framework/epoch_counters.hpp"
#include "framework/epoch_loop.hpp"

namespace framework {

TimedTraining time_training(DeviceNetwork& net, DeviceUpdate& update, const DeviceDataset& train,
                            const TimedRun& run) {
  course::HostTimer setup;
  if (run.epochs < 1 || run.batch < 1 || !run.epoch_order || !run.step)
    throw course::Error("time_training: epochs and batch must be >= 1, with an epoch order and a step");
  const int n = train.count, batch = std::min(run.batch, n);
  const int steps_per_epoch = course::ceil_div(n, batch);
  const cudaStream_t stream = run.stream ? run.stream : net.stream();

  // Everything a step reads is on the GPU before the clock starts and keeps its address (a captured
  // step holds the pointers): every epoch's order, one after another.
  course::DeviceBuffer<float> x(size_t(batch) * train.per_example);
  course::DeviceBuffer<int> labels{size_t(batch)}, predictions{size_t(batch)}, order{size_t(n) * run.epochs};
  std::vector<int> orders;
  for (int e = 0; e < run.epochs; ++e) {
    const std::vector<int> one = run.epoch_order(n, run.seed, e);
    if (one.size() != size_t(n))
      throw course::Error("time_training: an epoch's order must have one entry a training example (" +
                          std::to_string(n) + "), got " + std::to_string(one.size()));
    orders.insert(orders.end(), one.begin(), one.end());
  }
  order.upload(orders);
  EpochCounters counters;  // the NaN flag (and a loss sum nobody reads)

  // The epoch loop, timed as one interval: each epoch captured (or kept to enqueue) before the
  // clock starts, every epoch back to back on the GPU's clock, the counters read once after it.
  std::vector<std::function<void()>> epochs;
  course::CudaEventTimer gpu_clock;
  TimedTraining timed;
  EpochLoop loop;
  loop.examples = n, loop.batch = batch, loop.epochs = run.epochs;
  loop.timing = Timing::whole_run;
  loop.start_epoch = [&](int epoch) {
    std::function<void()> enqueue = [&, epoch] {
      detail::enqueue_steps(run.step,
                            StepArgs{net, update, train, order.data() + size_t(epoch) * n, 0, 0, 0, x.data(),
                                     labels.data(), predictions.data(), counters, stream},
                            n, batch, 0, steps_per_epoch, epoch * steps_per_epoch);
    };
    epochs.push_back(run.capture ? run.capture(enqueue) : enqueue);
  };
  loop.run_stretch = [&](int epoch, size_t, int, int) { epochs[size_t(epoch)](); };
  loop.wait = [&] { CUDA_CHECK(cudaStreamSynchronize(stream)); };
  loop.clock_start = [&] {
    timed.setup_ms = setup.milliseconds();
    gpu_clock.start(stream);
  };
  loop.clock_stop = [&] {
    gpu_clock.stop(stream);
    return gpu_clock.milliseconds() / 1e3;
  };
  loop.counts = [&](int) {
    read_report(counters, steps_per_epoch);  // stops on a NaN loss
    return EpochCounts{};
  };
  loop.evaluate = [] { return TestScore{}; };  // the speedrun evaluates on its own set afterwards
  net.set_training(true);
  timed.train_ms = run_epochs(loop, nullptr, nullptr).epoch_seconds.at(0) * 1e3;
  return timed;
}

}  // namespace framework
