// Lesson 12 (given): a layer-list trainer's device, graphs and threads (device_choice.hpp).
#include "device_choice.hpp"

#include <cstdio>
#include <functional>

#include "course/device_info.hpp"
#include "fast_host_network.hpp"  // lesson 11's default_threads
#include "step_graph.hpp"         // lesson 09's replayed

namespace beyond_mnist {

void add_device_flags(course::ArgParser& args, const std::string& graph_help) {
  args.add_choice("--device", "auto", {"auto", "gpu", "cpu"},
                  "auto: the GPU when there is one, else the CPU; gpu: fail without one");
  args.add_choice("--graph", "on", {"on", "off"}, graph_help);
  args.add_int("--threads", 0, 0, 1024,
               "CPU only: threads of lesson 11's layers (0: all cores, " + std::to_string(fast_cpu::default_threads()) +
                   " here)");
}

bool use_gpu(const course::ArgParser& args) {
  const std::string device = args.get_string("--device");
  if (device == "gpu") course::require_gpu("--device gpu");
  return device == "gpu" || (device == "auto" && course::gpu_available());
}

int prepare_cpu_run(const course::ArgParser& args, framework::TrainConfig& config, int cpu_epochs,
                    const std::string& why, const std::vector<const char*>& gpu_only) {
  for (const char* flag : gpu_only)
    if (args.given(flag)) std::printf("note: %s applies to the GPU only; ignored\n", flag);
  if (args.get_string("--device") == "auto")
    std::printf("no usable CUDA GPU (%s): training on the CPU\n", course::query_devices().reason.c_str());
  if (!args.given("--epochs")) {
    std::printf("the CPU trains %d epoch(s) unless --epochs says more (the GPU's default: %d%s)\n", cpu_epochs,
                config.epochs, why.empty() ? "" : ("; " + why).c_str());
    config.epochs = cpu_epochs;
  }
  return args.get_int("--threads") > 0 ? static_cast<int>(args.get_int("--threads")) : fast_cpu::default_threads();
}

std::string graph_problem(const course::ArgParser& args, const framework::TrainConfig& config,
                          const std::string& layers_problem) {
  if (args.get_string("--graph") == "off") return "--graph off";
  if (config.optimizer == framework::OptimizerKind::adam) return "adam's step number changes every step";
  return layers_problem;
}

void prepare_gpu_run(const course::ArgParser& args, framework::DeviceRun& run, cudaStream_t stream,
                     const std::string& problem) {
  if (args.given("--threads")) std::printf("note: --threads applies to the CPU only; ignored\n");
  replay_steps(run, stream, problem);
}

void replay_steps(framework::DeviceRun& run, cudaStream_t stream, const std::string& problem) {
  if (!problem.empty()) {
    run.steps_text = "launched one by one (" + problem + ")";
    return;
  }
  run.stream = stream;
  run.capture = [stream](const std::function<void()>& enqueue) { return fast_training::replayed(stream, enqueue); };
  run.steps_text = "replayed from CUDA graphs (lesson 09's 09.9), every layer on a stream of its own";
}

}  // namespace beyond_mnist
