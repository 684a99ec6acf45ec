// train_fast: lesson 09's trainer. Lesson 08's recipe and loop on the fast network (09.2-09.8),
// its steps replayed from CUDA graphs (09.9). Needs a GPU.
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/main.hpp"
#include "epoch_log.hpp"
#include "fast_trainer.hpp"
#include "host_training.hpp"
#include "train_flags.hpp"
#include "training_data.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    const fast_training::FastTrainConfig defaults;
    course::ArgParser args("train_fast",
                           "Lesson 09: train a CNN on MNIST on the GPU with the fast network (implicit-GEMM convs, "
                           "fused layers)\nand CUDA graphs. Same recipe and flags as lesson 08's train_mnist.");
    args.add_choice("--model", defaults.model, {"small", "a"},
                    "network: a (two 5x5 convs, 3136->512->10) or small (conv 3x3x10, dense 100)");
    args.add_int("--epochs", defaults.epochs, 1, 1000, "passes over the training set");
    args.add_int("--batch", defaults.batch, 1, 8192, "minibatch size");
    args.add_float("--lr", host_training::flag_default(defaults.default_lr("sgd")), 1e-7, 10.0,
                   "learning rate (default " + host_training::number_text(defaults.default_lr("sgd")) + " for sgd, " +
                       host_training::number_text(defaults.default_lr("adam")) + " for adam)");
    args.add_choice("--optimizer", defaults.optimizer, {"sgd", "adam"}, "sgd (momentum 0.9) or adam");
    args.add_int("--seed", static_cast<long long>(defaults.seed), 0, 1LL << 62, "seed of the weight init and the shuffling");
    args.add_choice("--dataset", defaults.dataset, {"mnist", "fashion"}, "data set");
    args.add_string("--data", defaults.data_dir, "folder with the four IDX files (default: the data set's folder under data/)");
    args.add_string("--out", std::string(COURSE_OUTPUT_DIR) + "/lesson09", "where metrics.csv and the PNGs go");
    args.add_string("--save", defaults.save_dir, "also write every parameter and the test logits as .npy files into this folder");
    args.add_choice("--graph", "on", {"on", "off"}, "on: replay the steps from CUDA graphs (SGD only); off: launch them one by one");
    args.add_choice("--conv", "tiled", {"tiled", "implicit"},
                    "tiled: 09.10's kernel for the convs it runs (forward and dx), implicit: 09.2-09.4 everywhere");
    args.add_flag("--profile", "before training, time every kernel of one step, and the step with and without a graph");
    args.add_int("--profile-steps", defaults.profile_steps, 1, 100000, "steps the profile averages over");
    args.add_int("--train-limit", defaults.train_limit, 0, 1 << 30, "use only the first N training images (0: all)");
    args.add_int("--test-limit", defaults.test_limit, 0, 1 << 30, "use only the first N test images (0: all)");
    if (!args.parse(argc, argv)) return 0;

    course::require_gpu("train_fast");  // before the data: the clearest message on a machine without one
    fast_training::FastTrainConfig config;
    host_training::apply_given_flags(args, config);
    config.graph = args.get_string("--graph") == "on";
    config.conv = args.get_string("--conv") == "tiled" ? fast_training::ConvEngine::tiled : fast_training::ConvEngine::implicit_gemm;
    config.profile = args.flag("--profile");
    if (args.given("--profile-steps")) config.profile_steps = static_cast<int>(args.get_int("--profile-steps"));
    const host_training::TrainingData data = host_training::load_training_data(config);

    host_training::print_summary(fast_training::train_fast(config, data), "GPU, fast");
    return 0;
  });
}
