#pragma once
// The course framework: the command line of a trainer, read into a TrainConfig (used by every
// trainer). The flags every trainer shares are declared here, once, with the config's own values
// as their defaults (a default is written once, in the config); each program adds only its own.
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/number_text.hpp"
#include "framework/model.hpp"
#include "framework/train_config.hpp"

namespace framework {

// A float setting as a flag's default: the shortest decimal that reads back as that float, so
// --help shows 0.05 rather than 0.0500000007 (the float's exact value). As text for a help line:
// course::shortest_text (course/number_text.hpp).
double flag_default(float value);

// The flags every trainer shares, declared once: --model --epochs --batch --lr --optimizer --seed
// --dataset --data --out --save --train-limit --test-limit, in this order, with `defaults`' values
// (--lr's default is the default optimizer's; left out, each optimizer trains with its own).
// What differs from one trainer to the next:
struct TrainFlagWords {
  std::string out_default;  // --out's default: the program's output folder
  std::string model_help;   // "" : "network: " + kModelFlagHelp + model_note
  std::string model_note;   // e.g. " (a: two 5x5 convs, slow on a CPU)"
  std::vector<OptimizerKind> optimizers = {OptimizerKind::sgd, OptimizerKind::adam};
  std::string optimizer_help = "sgd (momentum 0.9) or adam";
  std::string epochs_note, batch_note, lr_note;  // appended to those flags' help
  int max_batch = 8192;
  double max_lr = 10.0;
  std::string seed_help = "seed of the weight init and the shuffling";
  std::string data_help = "folder with the data set's files: the four IDX files, or CIFAR-10's six .bin batches "
                          "(default: the data set's folder under data/)";
  std::string save_help = "also write every parameter (with batch norm's running statistics) and the test logits as "
                          ".npy files into this folder";
  bool save = true;  // false: no --save (a program that writes no weights)
  // false: a task that makes its own data (sine waves): no --batch, --dataset, --data, --train-limit
  // or --test-limit.
  bool images = true;
  bool model = true;  // false: no --model (a program whose network is fixed)
  std::vector<std::string> datasets = {"mnist", "fashion", "cifar10"};
  std::string dataset_help = "data set: mnist, fashion (Fashion-MNIST) or cifar10 (CIFAR-10, 3x32x32 colour images)";
  std::string out_help = "where metrics.csv and the PNGs go";
  int max_epochs = 1000;
  std::string lr_help = "learning rate";  // followed by each optimizer's default
  // Not empty: also --profile (with this help) and --profile-steps, after the others (GPU trainers).
  std::string profile_help;
};
void add_train_flags(course::ArgParser& args, const TrainConfig& defaults, const TrainFlagWords& words);

// Sets the fields of config whose flag was given on the command line; every other field keeps
// config's value (its defaults). --out is taken as parsed, given or not: its default is the
// program's output folder, where TrainConfig's empty out_dir writes nothing.
// Needs the flags --model --optimizer --dataset --data --out --save --epochs --batch --lr --seed
// --train-limit --test-limit declared in args (and reads --profile and --profile-steps where they are).
// What a trainer with more layers or its own model files reads differently:
struct FlagOptions {
  // The layers the trainer runs: a --model with another layer is refused, naming it.
  LayerKinds layers = basic_layers();
  // Not empty: --model <name> also names the description file <models_dir>/<name>.txt.
  std::string models_dir;
};
void apply_given_flags(const course::ArgParser& args, TrainConfig& config, const FlagOptions& options = {});

}  // namespace framework
