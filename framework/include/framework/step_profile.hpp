#pragma once
// The course framework: where a training step's time goes, kernel by kernel, and what a CUDA graph
// saves (the --profile of the GPU trainers whose steps are replayed).
//
// The step's launches are captured into a graph once; then
//   - every kernel is timed INSIDE a graph: a copy of the step's graph with a CUDA event between
//     every two nodes, so the GPU runs the kernels back to back and the events see each one alone;
//   - the whole step is timed as the host launches it, kernel by kernel (gaps included), and as
//     one graph launch.
// Replays change what the step changes (the weights, the optimizer's state): the caller saves and
// restores them around the profile.
#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace framework {

struct KernelTime {
  std::string name;  // the kernel's name, namespaces and parameter list cut off
  dim3 grid, block;
  double ms = 0;     // mean per step
};

struct StepProfile {
  std::vector<KernelTime> kernels;  // in the order the step launches them
  int other_nodes = 0;              // memsets and copies (timed in the totals, not alone)
  double kernel_sum_ms = 0;         // the sum of the kernels' times
  double launched_ms = 0;           // median: the step launched by the host, kernel by kernel
  double graph_ms = 0;              // median: the step as one graph launch
  int steps = 0;
};

// `enqueue` launches one step on `stream` (not the default stream). Runs it warmup + steps times
// in each of the three ways.
// `capture` records what `enqueue` launches on the stream into a graph the caller then owns (lesson
// 09's capture_step).
using StepCapture = std::function<cudaGraph_t(cudaStream_t, const std::function<void()>&)>;
StepProfile profile_step(cudaStream_t stream, const std::function<void()>& enqueue, const StepCapture& capture,
                         int warmup, int steps);
void print_step_profile(std::FILE* out, const StepProfile& profile);

}  // namespace framework
