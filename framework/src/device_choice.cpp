// Where a layer-list trainer runs: its device, graphs and threads (device_choice.hpp).
#include "framework/device_choice.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "course/device_info.hpp"

namespace framework {

int default_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

void add_device_flags(course::ArgParser& args, const std::string& graph_help) {
  DeviceFlagWords words;
  words.graph_help = graph_help;
  add_device_flags(args, words);
}

void add_device_flags(course::ArgParser& args, const DeviceFlagWords& words) {
  args.add_choice("--device", words.default_device, {"auto", "gpu", "cpu"},
                  "auto: the GPU when there is one, else the CPU; gpu: fail without one");
  args.add_choice("--graph", "on", {"on", "off"}, words.graph_help);
  args.add_int("--threads", 0, 0, 1024,
               words.threads_help + " (0: all cores, " + std::to_string(default_threads()) + " here)");
}

int cpu_threads(const course::ArgParser& args) {
  return args.get_int("--threads") > 0 ? static_cast<int>(args.get_int("--threads")) : default_threads();
}

bool use_gpu(const course::ArgParser& args) {
  const std::string device = args.get_string("--device");
  if (device == "gpu") course::require_gpu("--device gpu");
  return device == "gpu" || (device == "auto" && course::gpu_available());
}

void say_cpu_fallback(const course::ArgParser& args) {
  if (args.get_string("--device") == "auto")
    std::printf("no usable CUDA GPU (%s): training on the CPU\n", course::query_devices().reason.c_str());
}

int prepare_cpu_run(const course::ArgParser& args, TrainConfig& config, int cpu_epochs, const std::string& why,
                    const std::vector<const char*>& gpu_only) {
  for (const char* flag : gpu_only)
    if (args.given(flag)) std::printf("note: %s applies to the GPU only; ignored\n", flag);
  say_cpu_fallback(args);
  if (!args.given("--epochs")) {
    std::printf("the CPU trains %d epoch(s) unless --epochs says more (the GPU's default: %d%s)\n", cpu_epochs,
                config.epochs, why.empty() ? "" : ("; " + why).c_str());
    config.epochs = cpu_epochs;
  }
  return cpu_threads(args);
}

std::string graph_problem(const course::ArgParser& args, const TrainConfig& config, const std::string& layers_problem) {
  return graph_problem(args.get_string("--graph") == "on", config, layers_problem);
}

std::string graph_problem(bool graph, const TrainConfig& config, const std::string& layers_problem) {
  if (!graph) return "--graph off";
  if (config.optimizer == OptimizerKind::adam) return "adam's step number changes every step";
  return layers_problem;
}

std::string steps_text(const std::string& problem) {
  return problem.empty() ? "replayed from CUDA graphs" : "launched one by one (" + problem + ")";
}

void replay_steps(DeviceRun& run, cudaStream_t stream, const std::string& problem, const GraphReplay& replay) {
  if (!problem.empty()) {
    run.steps_text = steps_text(problem);
    return;
  }
  run.stream = stream;
  run.capture = [stream, replayed = replay.replayed](const std::function<void()>& enqueue) {
    return replayed(stream, enqueue);
  };
  run.steps_text = steps_text("") + " (" + replay.text + "), every layer on a stream of its own";
}

void prepare_gpu_run(const course::ArgParser& args, DeviceRun& run, cudaStream_t stream, const std::string& problem,
                     const GraphReplay& replay) {
  if (args.given("--threads")) std::printf("note: --threads applies to the CPU only; ignored\n");
  replay_steps(run, stream, problem, replay);
}

}  // namespace framework
