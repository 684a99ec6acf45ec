// lesson02_host_training: trains a CNN on MNIST (or Fashion-MNIST) on the CPU with the code of
// lessons 01 and 02, and writes metrics.csv and pictures of what it learned.
#include <cstdio>
#include <string>

#include "course/cli.hpp"
#include "course/main.hpp"
#include "host_training.hpp"
#include "framework/host_trainer.hpp"
#include "framework/train_flags.hpp"
#include "framework/training_data.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    const framework::TrainConfig defaults;  // every default below is the config's own
    course::ArgParser args("lesson02_host_training",
                           "Lesson 02: train a small CNN on the CPU (lesson 01's layers, your optimizer and loop).");
    framework::TrainFlagWords words;
    words.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson02";
    words.model_note = " (a: two 5x5 convs, slow on a CPU)";
    words.max_batch = 60000;
    framework::add_train_flags(args, defaults, words);
    if (!args.parse(argc, argv)) return 0;

    framework::TrainConfig config = defaults;
    framework::apply_given_flags(args, config);
    // The data first: a missing data set is the first thing to fix.
    framework::train_on_host(config, framework::load_training_data(config), host_training::host_kit());
    return 0;
  });
}
