#pragma once
// Lesson 12 (given): what a trainer of layer lists on the GPU or the CPU reads beside the framework's
// flags, written once for train_beyond and the trainers after it: --device, --graph and --threads, the
// lines that say where a run trains and why, and whole steps replayed from CUDA graphs.
#include <cuda_runtime_api.h>  // cudaStream_t

#include <string>
#include <vector>

#include "course/cli.hpp"
#include "framework/device_trainer.hpp"
#include "framework/train_config.hpp"

namespace beyond_mnist {

// --device (auto, gpu, cpu), --graph (on, off: `graph_help` says when steps can be replayed) and
// --threads (lesson 11's threads on the CPU).
void add_device_flags(course::ArgParser& args, const std::string& graph_help);

// Whether the run trains on the GPU: --device gpu (course::Error without a usable GPU), or auto with one.
bool use_gpu(const course::ArgParser& args);

// Before a CPU run: a note for each flag of `gpu_only` given, the line saying no GPU was found (under
// auto) and, without --epochs, config.epochs = cpu_epochs with a line saying so and `why` (e.g. "about
// 5 minutes an epoch of mnist_cnn on two cores"; "" : none). Returns the threads to run on.
int prepare_cpu_run(const course::ArgParser& args, framework::TrainConfig& config, int cpu_epochs,
                    const std::string& why, const std::vector<const char*>& gpu_only);

// Why the training steps cannot be replayed from CUDA graphs: --graph off, adam (its step number
// changes every step), else `layers_problem` (a layer that launches on the default stream; "" : none).
std::string graph_problem(const course::ArgParser& args, const framework::TrainConfig& config,
                          const std::string& layers_problem);

// Before a GPU run: a note when --threads was given; with `problem` empty, every step on `stream`,
// replayed from CUDA graphs (lesson 09), else launched one by one; the steps line says which.
void prepare_gpu_run(const course::ArgParser& args, framework::DeviceRun& run, cudaStream_t stream,
                     const std::string& problem);
// The same without the note, for a trainer that runs on the GPU only.
void replay_steps(framework::DeviceRun& run, cudaStream_t stream, const std::string& problem);

}  // namespace beyond_mnist
