#pragma once
// Lesson 05's CPU baseline: lesson 01's convolution loops (float, one core), timed with the host
// clock on a few images and scaled to the full batch. The GPU table's speed-up column divides
// by these times; without a GPU (or with --cpu-only) they are all that runs.
#include <string>
#include <vector>

#include "host_layers.hpp"

namespace lesson05 {

struct CpuConvTimes {
  double forward_ms = 0, backward_ms = 0;  // scaled to the full batch
  int images = 0;                          // images actually timed
};

// Forward and backward (dx, dW, dbias) of lesson 01 on min(batch, cpu_batch) images, median of
// `repeats`, scaled to s.batch (both passes are linear in the batch).
CpuConvTimes time_lesson01_conv(const host_layers::ConvShape& s, int cpu_batch, int repeats);

struct NamedConv {
  std::string name;
  host_layers::ConvShape s;
};

// The no-GPU run: for each layer, lesson 01's float loops checked against its double loops on
// 2 images, then timed; prints ms and GFLOP/s. Throws course::Error when float and double disagree.
void run_cpu_baseline(const std::vector<NamedConv>& layers, int cpu_batch, int repeats);

}  // namespace lesson05
