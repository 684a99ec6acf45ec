#pragma once
// The course framework: the command line of a trainer, read into a TrainConfig (used by every
// trainer). Each program declares its flags with the config's own values as
// their defaults, so a default is written once, in the config.
#include <string>

#include "course/cli.hpp"
#include "course/number_text.hpp"
#include "framework/model.hpp"
#include "framework/train_config.hpp"

namespace framework {

// A float setting as a flag's default: the shortest decimal that reads back as that float, so
// --help shows 0.05 rather than 0.0500000007 (the float's exact value). As text for a help line:
// course::shortest_text (course/number_text.hpp).
double flag_default(float value);

// Declares --seed, --dataset and --data with `defaults`' values, in the words every trainer uses.
void add_seed_and_data_flags(course::ArgParser& args, const TrainConfig& defaults);

// Sets the fields of config whose flag was given on the command line; every other field keeps
// config's value (its defaults). --out is taken as parsed, given or not: its default is the
// program's output folder, where TrainConfig's empty out_dir writes nothing.
// Needs the flags --model --optimizer --dataset --data --out --save --epochs --batch --lr --seed
// --train-limit --test-limit declared in args. What lesson 12's trainer reads differently:
struct FlagOptions {
  // false: a --model with a layer lesson 02's network does not run (lesson 12's) is refused.
  bool every_layer_kind = false;
  // Not empty: --model <name> also names the description file <models_dir>/<name>.txt.
  std::string models_dir;
};
void apply_given_flags(const course::ArgParser& args, TrainConfig& config, const FlagOptions& options = {});

}  // namespace framework
