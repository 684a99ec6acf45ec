// lesson02_host_training: trains a CNN on MNIST (or Fashion-MNIST) on the CPU with the code of
// lessons 01 and 02, and writes metrics.csv and pictures of what it learned.
#include <cstdio>
#include <string>

#include "course/cli.hpp"
#include "course/main.hpp"
#include "host_training.hpp"
#include "framework/train_flags.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    const framework::TrainConfig defaults;  // every default below is the config's own
    course::ArgParser args("lesson02_host_training",
                           "Lesson 02: train a small CNN on the CPU (lesson 01's layers, your optimizer and loop).");
    args.add_string("--model", defaults.model,
                    std::string("network: ") + host_training::kModelFlagHelp + " (a: two 5x5 convs, slow on a CPU)");
    args.add_int("--epochs", defaults.epochs, 1, 1000, "passes over the training set");
    args.add_int("--batch", defaults.batch, 1, 60000, "minibatch size");
    args.add_float("--lr", framework::flag_default(defaults.default_lr("sgd")), 1e-7, 10.0,
                   "learning rate (default " + course::shortest_text(defaults.default_lr("sgd")) + " for sgd, " +
                       course::shortest_text(defaults.default_lr("adam")) + " for adam)");
    args.add_choice("--optimizer", defaults.optimizer, {"sgd", "adam"}, "sgd (momentum 0.9) or adam");
    framework::add_seed_and_data_flags(args, defaults);
    args.add_string("--out", std::string(COURSE_OUTPUT_DIR) + "/lesson02", "where metrics.csv and the PNGs go");
    args.add_string("--save", defaults.save_dir, "also write every parameter and the test logits as .npy files into this folder");
    args.add_int("--train-limit", defaults.train_limit, 0, 1 << 30, "use only the first N training images (0: all)");
    args.add_int("--test-limit", defaults.test_limit, 0, 1 << 30, "use only the first N test images (0: all)");
    if (!args.parse(argc, argv)) return 0;

    framework::TrainConfig config = defaults;
    framework::apply_given_flags(args, config);
    host_training::train(config);
    return 0;
  });
}
