// train: the course's trainer on whatever this machine has. On a GPU, the framework's trainer with the
// course's own kernels (train_mnist's flags and output); without one, or with --device cpu, the
// framework's CPU trainer on lesson 11's layers (threaded, vectorised GEMMs; --threads). It sits above the
// lessons it combines, built from their solutions: the README's first command runs it.
#include <cstdio>
#include <string>

#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/main.hpp"
#include "course/number_text.hpp"
#include "fast_host_network.hpp"
#include "framework/device_choice.hpp"  // use_gpu, cpu_threads, default_threads
#include "framework/epoch_log.hpp"
#include "framework/train_flags.hpp"
#include "framework/training_data.hpp"
#include "host_training.hpp"
#include "framework/gpu_trainer.hpp"
#include "gpu_kit.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif
#ifndef COURSE_LEARNER_BUILD
#define COURSE_LEARNER_BUILD 0
#endif

namespace {

const std::string kCpuTrainer = "the CPU trainer on lesson 11's layers";

// The framework's CPU trainer with lesson 02's kit, on lesson 11's layers. Flags left out take lesson 02's defaults
// (TrainConfig{}), not the GPU's: model A takes about half an hour per epoch on a CPU.
framework::TrainSummary train_on_cpu(const course::ArgParser& args, const framework::TrainingData& data) {
  for (const char* flag : {"--profile", "--conv", "--profile-steps"})
    if (args.given(flag)) std::printf("note: %s applies to the GPU trainer only; ignored\n", flag);
  framework::TrainConfig config;
  framework::apply_given_flags(args, config);
  // The model as the trainer reads it, on one line (a layer list given across lines included).
  const std::string model = framework::model_title(config.model, framework::model_by_name(config.model));
  std::printf("CPU run: model %s, %d epoch(s), batch %d, lr %g%s\n", model.c_str(), config.epochs,
              config.batch, static_cast<double>(config.learning_rate()),
              args.given("--model") ? "" : " (lesson 02's defaults; --model a takes minutes per epoch here)");
  const int threads = framework::cpu_threads(args);
  return framework::train_on_host(config, data,
                                  host_training::host_kit(fast_cpu::network_maker(threads),
                                                          fast_cpu::network_description(threads),
                                                          fast_cpu::network_bytes(threads)));
}

int train_main(int argc, char** argv) {
  const framework::TrainConfig cpu_defaults;  // named in the help of the flags they differ in
  course::ArgParser args("train",
                         "The course's trainer: a CNN on MNIST on the GPU with lesson 08's layers and the course's own\n"
                         "kernels; without a GPU, the CPU trainer on lesson 11's layers. Writes metrics.csv and\n"
                         "pictures to --out; --save DIR writes the weights as .npy files.");
  framework::TrainFlagWords words;  // the common flags, with what the CPU trainer does differently
  words.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson08";
  words.model_note = " (a: two 5x5 convs, 3136->512->10; small: conv 3x3x10, dense 100); CPU default: " +
                     cpu_defaults.model;
  words.epochs_note = " (CPU default: " + std::to_string(cpu_defaults.epochs) + ")";
  words.batch_note = " (CPU default: " + std::to_string(cpu_defaults.batch) + ")";
  words.lr_note = "; CPU sgd: " + course::shortest_text(cpu_defaults.default_lr(framework::OptimizerKind::sgd));
  mnist_gpu::add_train_mnist_flags(args, words);
  args.add_choice("--device", "auto", {"auto", "gpu", "cpu"},
                  "auto: the GPU when there is one, else the CPU trainer on lesson 11's layers; gpu: fail "
                  "without one");
  args.add_int("--threads", 0, 0, 1024,
               "CPU trainer only: threads of lesson 11's layers (0: all cores, " +
                   std::to_string(framework::default_threads()) + " here)");
  if (!args.parse(argc, argv)) return 0;
  if (COURSE_LEARNER_BUILD)  // whose code trains: never the learner's exercises, and it says so first
    std::printf("train runs the reference solutions (solutions/), not your exercise files: lessons 01-08 on a GPU, "
                "01, 02 and 11 on the CPU; your own code runs in each lesson's program and tests\n");

  const std::string device = args.get_string("--device");
  const bool use_gpu = framework::use_gpu(args);  // before anything else: --device gpu without one stops here
  const mnist_gpu::TrainMnistConfig config = mnist_gpu::train_mnist_config(args);
  // The data folder is worked out and checked here, once, before the device: a missing data set
  // is the first thing to fix. Both trainers take this data (their data flags are the same).
  const framework::TrainingData data = framework::load_training_data(config);
  if (!use_gpu) {
    if (device == "auto")
      std::printf("no usable CUDA GPU (%s): training on the CPU with %s instead\n",
                  course::query_devices().reason.c_str(), kCpuTrainer.c_str());
    else
      std::printf("--device cpu: training on the CPU with %s\n", kCpuTrainer.c_str());
    framework::print_summary(train_on_cpu(args, data), "CPU, " + kCpuTrainer);
    return 0;
  }
  if (args.given("--threads")) std::printf("note: --threads applies to the CPU trainer only; ignored\n");
  framework::DeviceRun run;
  run.program = "train on the GPU";
  framework::print_summary(framework::train_on_gpu(config, data, mnist_gpu::gpu_kit(config.conv), run), "GPU");
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main([&] { return train_main(argc, argv); }); }
