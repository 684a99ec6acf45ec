// The course's trainer: its command line and its two trainers (train_main.hpp).
#include "train_main.hpp"

#include <cstdio>
#include <string>

#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/idx.hpp"
#include "course/main.hpp"
#include "course/number_text.hpp"
#include "framework/epoch_log.hpp"
#include "host_training.hpp"
#include "framework/train_flags.hpp"
#include "trainer.hpp"
#include "framework/training_data.hpp"

namespace course_trainer {

namespace {

// Lesson 02's trainer on the CPU. Flags left out take lesson 02's defaults (TrainConfig{}), not
// the GPU's: model A takes about half an hour per epoch on a CPU.
framework::TrainSummary train_on_cpu(const course::ArgParser& args, const framework::TrainingData& data,
                                     const CpuLayers& layers) {
  for (const char* flag : {"--profile", "--conv", "--profile-steps"})
    if (args.given(flag)) std::printf("note: %s applies to the GPU trainer only; ignored\n", flag);
  framework::TrainConfig config;
  framework::apply_given_flags(args, config);
  std::printf("CPU run: model %s, %d epoch(s), batch %d, lr %g%s\n", config.model.c_str(), config.epochs,
              config.batch, static_cast<double>(config.learning_rate()),
              args.given("--model") ? "" : " (lesson 02's defaults; --model a takes minutes per epoch here)");
  const int threads = args.get_int("--threads") > 0 ? static_cast<int>(args.get_int("--threads")) : layers.default_threads;
  return host_training::train(config, data, layers.maker(threads), layers.description(threads));
}

}  // namespace

int train_main(int argc, char** argv, const TrainerProgram& program) {
  const framework::TrainConfig cpu_defaults;  // named in the help of the flags they differ in
  course::ArgParser args(program.name, program.about);
  framework::TrainFlagWords words;  // the common flags, with what the CPU trainer does differently
  words.out_default = program.out_default;
  words.model_note = " (a: two 5x5 convs, 3136->512->10; small: conv 3x3x10, dense 100); CPU default: " +
                     cpu_defaults.model;
  words.epochs_note = " (CPU default: " + std::to_string(cpu_defaults.epochs) + ")";
  words.batch_note = " (CPU default: " + std::to_string(cpu_defaults.batch) + ")";
  words.lr_note = "; CPU sgd: " + course::shortest_text(cpu_defaults.default_lr(framework::OptimizerKind::sgd));
  mnist_gpu::add_gpu_train_flags(args, words);
  const std::string cpu_trainer = "lesson 02's CPU trainer on " + program.cpu.name;
  args.add_choice("--device", "auto", {"auto", "gpu", "cpu"},
                  "auto: the GPU when there is one, else " + cpu_trainer + "; gpu: fail without one");
  args.add_int("--threads", 0, 0, 1024,
               "CPU trainer only: threads of " + program.cpu.name + " (0: all cores, " +
                   std::to_string(program.cpu.default_threads) + " here)");
  if (!args.parse(argc, argv)) return 0;

  const std::string device = args.get_string("--device");
  if (device == "gpu") course::require_gpu("--device gpu");  // before anything else: the clearest message
  const mnist_gpu::GpuTrainConfig config = mnist_gpu::gpu_train_config(args);
  // The data folder is worked out and checked here, once, before the device: a missing data set
  // is the first thing to fix. Both trainers take this data (their data flags are the same).
  const framework::TrainingData data = framework::load_training_data(config);
  const bool use_gpu = device == "gpu" || (device == "auto" && course::gpu_available());
  if (!use_gpu) {
    const std::string trainer = "lesson 02's trainer on " + program.cpu.name;
    if (device == "auto")
      std::printf("no usable CUDA GPU (%s): training on the CPU with %s instead\n",
                  course::query_devices().reason.c_str(), trainer.c_str());
    else
      std::printf("--device cpu: training on the CPU with %s\n", trainer.c_str());
    framework::print_summary(train_on_cpu(args, data, program.cpu), "CPU, " + trainer);
    return 0;
  }
  if (args.given("--threads")) std::printf("note: --threads applies to the CPU trainer only; ignored\n");
  framework::print_summary(mnist_gpu::train_on_gpu(config, data), "GPU");
  return 0;
}

}  // namespace course_trainer
