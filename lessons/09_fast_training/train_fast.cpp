// train_fast: lesson 09's trainer. Lesson 08's recipe and loop on the fast network (09.2-09.8),
// its steps replayed from CUDA graphs (09.9). Needs a GPU.
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "fast_train_flags.hpp"
#include "course/device_info.hpp"
#include "course/main.hpp"
#include "framework/epoch_log.hpp"
#include "fast_run.hpp"
#include "framework/gpu_trainer.hpp"
#include "host_training.hpp"
#include "framework/training_data.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("train_fast",
                           "Lesson 09: train a CNN on MNIST on the GPU with the fast network (implicit-GEMM convs, "
                           "fused layers)\nand CUDA graphs. Same recipe and flags as lesson 08's train_mnist.");
    fast_training::add_fast_train_flags(args, std::string(COURSE_OUTPUT_DIR) + "/lesson09");
    fast_training::add_step_shape_flags(args, "the step's counters");
    if (!args.parse(argc, argv)) return 0;

    course::require_gpu("train_fast");  // before the data: the clearest message on a machine without one
    fast_training::FastTrainConfig config = fast_training::fast_train_config(args);
    const fast_training::StepShape shape = fast_training::step_shape(args);
    config.branches = shape.branches, config.thin = shape.thin;
    const framework::TrainingData data = framework::load_training_data(config);

    // The framework's GPU trainer on the fast network, with lesson 08's step kernels and update rules.
    const fast_training::FastRun fast(config, "train_fast");
    framework::print_summary(framework::train_on_gpu(config, data, fast.kit(), fast.run, fast.counters), "GPU, fast");
    return 0;
  });
}
