// train_parallel: lesson 13's trainer. Lesson 09's network and recipe with one rank per GPU: each GPU trains
// on its shard of every batch, NCCL averages the gradients. Needs a GPU (one works: one rank).
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "beyond_gpu_layers.hpp"  // lesson 12's layer_kinds
#include "course/main.hpp"
#include "framework/epoch_log.hpp"
#include "fast_train_flags.hpp"
#include "framework/rank_trainer.hpp"
#include "replica_run.hpp"
#include "framework/training_data.hpp"

#ifndef COURSE_MODELS_DIR  // lessons/12_beyond_mnist/models (lesson 12's layers library defines it)
#define COURSE_MODELS_DIR "models"
#endif
#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("train_parallel",
                           "Lesson 13: train a CNN on MNIST on several GPUs: one rank per GPU, each its shard of every\n"
                           "batch, gradients averaged by NCCL. lesson 09's recipe and flags; --batch is per GPU.");
    fast_training::add_fast_train_flags(args, std::string(COURSE_OUTPUT_DIR) + "/lesson13");
    args.add_int("--gpus", 0, 0, 64, "how many GPUs (ranks): 0 takes every usable GPU");
    args.add_choice("--overlap", "on", {"on", "off"},
                    "on: all-reduce bucket by bucket during the backward pass (13.3); off: once after it");
    args.add_int("--bucket-kb", 4096, 1, 1 << 20, "gradients per bucket at most, in KiB (whole layers)");
    args.add_choice("--network", "fast", {"fast", "layers"},
                    "fast: lesson 09's network (conv-ReLU-pool blocks, then dense layers); layers: any layer list on "
                    "lesson 12's layers, e.g. --model mnist_cnn (lesson 12's models/ by name; --conv is then unused)");
    if (!args.parse(argc, argv)) return 0;

    if (args.flag("--profile"))  // a step with NCCL's kernels in it cannot be timed kernel by kernel
      throw course::Error("--profile: train_parallel's step holds NCCL's kernels, which the profile cannot time one "
                          "by one; train_fast --profile times the same network's step on one GPU");
    course::require_gpu("train_parallel");  // before the data: the clearest message on a machine without one
    data_parallel::ParallelTrainConfig config;
    // --model takes any layer list, and lesson 12's models by name ("mnist_cnn"): lesson 09's network
    // says itself which it cannot run (and that --network layers can).
    framework::FlagOptions model_options;
    model_options.layers = beyond_mnist::layer_kinds();
    model_options.models_dir = COURSE_MODELS_DIR;
    static_cast<fast_training::FastTrainConfig&>(config) = fast_training::fast_train_config(args, model_options);
    config.gpus = static_cast<int>(args.get_int("--gpus"));
    config.overlap = args.get_string("--overlap") == "on";
    config.network = data_parallel::network_kind_by_name(args.get_string("--network"));
    config.bucket_floats = size_t(args.get_int("--bucket-kb")) * 1024 / sizeof(float);
    const framework::TrainingData data = framework::load_training_data(config);

    // The framework's run on one rank per GPU, each rank's replica built from your 13.1-13.3.
    const std::vector<int> devices = data_parallel::devices_of(config);
    const framework::TrainSummary summary =
        framework::train_on_ranks(config, data, devices, [&](const framework::Rank& rank) {
          return data_parallel::replica_run(config, data, rank, "train_parallel");
        });
    framework::print_summary(summary, "GPU x" + std::to_string(devices.size()) + ", data parallel");
    return 0;
  });
}
