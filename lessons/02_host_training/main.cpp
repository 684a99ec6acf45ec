// lesson02_host_training: trains a CNN on MNIST (or Fashion-MNIST) on the CPU with the code of
// lessons 01 and 02, and writes metrics.csv and pictures of what it learned.
#include <cstdio>
#include <string>

#include "course/cli.hpp"
#include "course/main.hpp"
#include "host_training.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("lesson02_host_training",
                           "Lesson 02: train a small CNN on the CPU (lesson 01's layers, your optimizer and loop).");
    args.add_choice("--model", "small", {"small", "a"}, "network: small (conv 3x3x10) or a (two 5x5 convs; slow on a CPU)");
    args.add_int("--epochs", 3, 1, 1000, "passes over the training set");
    args.add_int("--batch", 32, 1, 60000, "minibatch size");
    args.add_float("--lr", 0.02, 1e-7, 10.0, "learning rate (default 0.02 for sgd, 0.001 for adam)");
    args.add_choice("--optimizer", "sgd", {"sgd", "adam"}, "sgd (momentum 0.9) or adam");
    args.add_int("--seed", 1, 0, 1LL << 62, "seed of the weight init and the shuffling");
    args.add_choice("--dataset", "mnist", {"mnist", "fashion"}, "data set");
    args.add_string("--data", "", "folder with the four IDX files (default: the data set's folder under data/)");
    args.add_string("--out", std::string(COURSE_OUTPUT_DIR) + "/lesson02", "where metrics.csv and the PNGs go");
    args.add_string("--save", "", "also write every parameter and the test logits as .npy files into this folder");
    args.add_int("--train-limit", 0, 0, 1 << 30, "use only the first N training images (0: all)");
    args.add_int("--test-limit", 0, 0, 1 << 30, "use only the first N test images (0: all)");
    if (!args.parse(argc, argv)) return 0;

    host_training::TrainConfig config;
    config.model = args.get_string("--model");
    config.optimizer = args.get_string("--optimizer");
    config.dataset = args.get_string("--dataset");
    config.data_dir = args.get_string("--data");
    config.out_dir = args.get_string("--out");
    config.save_dir = args.get_string("--save");
    config.epochs = static_cast<int>(args.get_int("--epochs"));
    config.batch = static_cast<int>(args.get_int("--batch"));
    config.lr = args.given("--lr") ? static_cast<float>(args.get_float("--lr"))
                                   : host_training::default_cpu_lr(config.optimizer);
    config.seed = static_cast<uint64_t>(args.get_int("--seed"));
    config.train_limit = static_cast<int>(args.get_int("--train-limit"));
    config.test_limit = static_cast<int>(args.get_int("--test-limit"));
    host_training::train(config);
    return 0;
  });
}
