#pragma once
// Where a trainer of layer lists runs, read beside the common flags: --device (the GPU or the CPU),
// --graph (whole steps replayed from CUDA graphs or launched one by one) and --threads (the CPU's
// threads), with the lines that say where a run trains and why.
#include <cuda_runtime_api.h>  // cudaStream_t

#include <functional>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "framework/device_trainer.hpp"
#include "framework/train_config.hpp"

namespace framework {

// Threads when --threads is 0: every core this machine has (at least 1).
int default_threads();

// --device (auto, gpu, cpu), --graph (on, off: `graph_help` says when steps can be replayed) and
// --threads (0: default_threads()).
void add_device_flags(course::ArgParser& args, const std::string& graph_help);
// The same with a trainer's own words: the device it takes without --device, and what its threads do.
struct DeviceFlagWords {
  std::string graph_help;
  std::string default_device = "auto";  // auto, gpu or cpu
  std::string threads_help = "CPU only: threads of the CPU layers";
};
void add_device_flags(course::ArgParser& args, const DeviceFlagWords& words);

// --threads as a count: the number given, or default_threads() for 0.
int cpu_threads(const course::ArgParser& args);

// Whether the run trains on the GPU: --device gpu (course::Error without a usable GPU), or auto with one.
bool use_gpu(const course::ArgParser& args);
// Under --device auto without a usable GPU: the line saying so and why ("no usable CUDA GPU (...):
// training on the CPU"); nothing otherwise.
void say_cpu_fallback(const course::ArgParser& args);

// Before a CPU run: a note for each flag of `gpu_only` given, the line saying no GPU was found (under
// auto) and, without --epochs, config.epochs = cpu_epochs with a line saying so and `why` (e.g. "about
// 5 minutes an epoch of mnist_cnn on two cores"; "" : none). Returns the threads to run on.
int prepare_cpu_run(const course::ArgParser& args, TrainConfig& config, int cpu_epochs, const std::string& why,
                    const std::vector<const char*>& gpu_only);

// Why the training steps cannot be replayed from CUDA graphs: --graph off, adam (its step number
// changes every step), else `layers_problem` (a layer that launches on the default stream; "" : none).
std::string graph_problem(const course::ArgParser& args, const TrainConfig& config, const std::string& layers_problem);
// The same from a config alone: `graph` is its --graph on.
std::string graph_problem(bool graph, const TrainConfig& config, const std::string& layers_problem = "");
// The steps line for a run whose graph_problem is `problem`: "replayed from CUDA graphs" or
// "launched one by one (<problem>)".
std::string steps_text(const std::string& problem);

// How a lesson replays a stretch of steps: `replayed(stream, enqueue)` captures what enqueue launches
// on stream once and returns what replays it; `text` names where that capture is written.
struct GraphReplay {
  std::function<std::function<void()>(cudaStream_t stream, const std::function<void()>& enqueue)> replayed;
  std::string text;  // e.g. "lesson 09's 09.9"
};

// Before a GPU run: with `problem` empty, every step on `stream`, replayed by `replay`, else launched
// one by one; the steps line says which.
void replay_steps(DeviceRun& run, cudaStream_t stream, const std::string& problem, const GraphReplay& replay);
// The same after a note when --threads was given (a trainer that also runs on the CPU).
void prepare_gpu_run(const course::ArgParser& args, DeviceRun& run, cudaStream_t stream, const std::string& problem,
                     const GraphReplay& replay);

}  // namespace framework
