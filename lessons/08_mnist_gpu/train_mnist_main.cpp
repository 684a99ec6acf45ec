// Lesson 08 (given): train_mnist's command line and trainers (train_mnist_main.hpp).
#include "train_mnist_main.hpp"

#include <cstdio>
#include <string>

#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/idx.hpp"
#include "course/main.hpp"
#include "framework/epoch_log.hpp"
#include "host_training.hpp"
#include "framework/train_flags.hpp"
#include "trainer.hpp"
#include "framework/training_data.hpp"

namespace mnist_gpu {

namespace {

// The GPU trainer's config: lesson 02's flags read the same way as lesson02_host_training reads
// them, then the GPU's own. Flags not given keep GpuTrainConfig's defaults.
mnist_gpu::GpuTrainConfig gpu_config_of(const course::ArgParser& args) {
  mnist_gpu::GpuTrainConfig config;
  framework::apply_given_flags(args, config);
  if (args.given("--conv")) config.conv = mnist_gpu::conv_algorithm_by_name(args.get_string("--conv"));
  config.profile = args.flag("--profile");
  if (args.given("--profile-steps")) config.profile_steps = static_cast<int>(args.get_int("--profile-steps"));
  return config;
}

// Lesson 02's trainer on the CPU. Flags left out take lesson 02's defaults (TrainConfig{}), not
// the GPU's: model A takes about half an hour per epoch on a CPU.
framework::TrainSummary train_on_cpu(const course::ArgParser& args, const framework::TrainingData& data,
                                         const CpuLayers* layers) {
  for (const char* flag : {"--profile", "--conv", "--profile-steps"})
    if (args.given(flag)) std::printf("note: %s applies to the GPU trainer only; ignored\n", flag);
  framework::TrainConfig config;
  framework::apply_given_flags(args, config);
  std::printf("CPU run: model %s, %d epoch(s), batch %d, lr %g%s\n", config.model.c_str(), config.epochs,
              config.batch, static_cast<double>(config.learning_rate()),
              args.given("--model") ? "" : " (lesson 02's defaults; --model a takes minutes per epoch here)");
  if (!layers) return host_training::train(config, data);
  const int threads = args.get_int("--threads") > 0 ? static_cast<int>(args.get_int("--threads")) : layers->default_threads;
  return host_training::train(config, data, layers->maker(threads), layers->description(threads));
}

}  // namespace

int train_mnist_main(int argc, char** argv, const TrainMnistProgram& program) {
  const mnist_gpu::GpuTrainConfig defaults;             // the flags' defaults
  const framework::TrainConfig cpu_defaults;        // named in the help of the flags they differ in
  const auto lr_text = [](const framework::TrainConfig& c, framework::OptimizerKind optimizer) {
    return course::shortest_text(c.default_lr(optimizer));
  };
  course::ArgParser args(program.name, program.about);
  framework::TrainFlagWords words;  // the common flags, with what the CPU trainer does differently
  words.out_default = program.out_default;
  words.model_note = " (a: two 5x5 convs, 3136->512->10; small: conv 3x3x10, dense 100); CPU default: " +
                     cpu_defaults.model;
  words.epochs_note = " (CPU default: " + std::to_string(cpu_defaults.epochs) + ")";
  words.batch_note = " (CPU default: " + std::to_string(cpu_defaults.batch) + ")";
  words.lr_note = "; CPU sgd: " + lr_text(cpu_defaults, framework::OptimizerKind::sgd);
  framework::add_train_flags(args, defaults, words);
  const std::string cpu_trainer = "lesson 02's CPU trainer" + (program.cpu ? " on " + program.cpu->name : "");
  args.add_choice("--device", "auto", {"auto", "gpu", "cpu"},
                  program.learner_build
                      ? "auto or gpu: the GPU (this build trains only with your code, and lesson 08's is GPU "
                        "code: on the CPU run your lesson 02, build/lessons/bin/lesson02_host_training); cpu: "
                        "refused here"
                      : "auto: the GPU when there is one, else " + cpu_trainer + "; gpu: fail without one");
  args.add_choice("--conv", mnist_gpu::conv_algorithm_name(defaults.conv), {"auto", "im2col", "direct"},
                  "convolution algorithm: im2col + GEMM (lesson 07), direct (lesson 05), or auto: per layer, "
                  "direct where in_c*k*k < " + std::to_string(mnist_gpu::kDirectBelowK) + ", im2col elsewhere");
  args.add_flag("--profile", "before training, time every layer's forward, backward and update (CUDA events)");
  args.add_int("--profile-steps", defaults.profile_steps, 1, 100000, "steps the profile averages over");
  if (program.cpu)
    args.add_int("--threads", 0, 0, 1024,
                 "CPU trainer only: threads of " + program.cpu->name + " (0: all cores, " +
                     std::to_string(program.cpu->default_threads) + " here)");
  if (!args.parse(argc, argv)) return 0;

  const std::string device = args.get_string("--device");
  if (device == "gpu") course::require_gpu("--device gpu");  // before anything else: the clearest message
  const mnist_gpu::GpuTrainConfig config = gpu_config_of(args);
  // The data folder is worked out and checked here, once, before the device: a missing data set
  // is the first thing to fix. Both trainers take this data (their data flags are the same).
  const framework::TrainingData data = framework::load_training_data(config);
  const bool use_gpu = device == "gpu" || (device == "auto" && course::gpu_available());
  if (!use_gpu && program.learner_build) {
    // Your build: the CPU trainer here would be lesson 02's reference solution, not your code.
    const std::string why = device == "auto" ? "no usable CUDA GPU (" + course::query_devices().reason + ")"
                                              : std::string("--device cpu");
    throw course::Error(why + ": lesson 08's steps 08.1-08.9 run on the GPU, and this build trains only with "
                        "your code; on the CPU, train with your lesson 02: build/lessons/bin/lesson02_host_training "
                        "(built with train_mnist; or: cmake --build --preset lessons --target lesson02_host_training)");
  }

  if (!use_gpu) {
    const std::string on = program.cpu ? " on " + program.cpu->name : "";
    if (device == "auto")
      std::printf("no usable CUDA GPU (%s): training on the CPU with lesson 02's trainer%s instead\n",
                  course::query_devices().reason.c_str(), on.c_str());
    else
      std::printf("--device cpu: training on the CPU with lesson 02's trainer%s\n", on.c_str());
    const framework::TrainSummary s = train_on_cpu(args, data, program.cpu);
    framework::print_summary(s, program.cpu ? "CPU, lesson 02's trainer on " + program.cpu->name : "CPU, lesson 02");
    return 0;
  }

  if (program.cpu && args.given("--threads"))
    std::printf("note: --threads applies to the CPU trainer only; ignored\n");
  const framework::TrainSummary s = mnist_gpu::train_on_gpu(config, data);
  framework::print_summary(s, "GPU");
  return 0;
}

}  // namespace mnist_gpu
