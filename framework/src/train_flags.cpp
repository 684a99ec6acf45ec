#include "framework/train_flags.hpp"

#include <cstdio>
#include <cstdlib>

#include "course/error.hpp"
#include "framework/model.hpp"
#include "framework/train_config.hpp"

namespace framework {

double flag_default(float value) { return std::strtod(course::shortest_text(value).c_str(), nullptr); }

void add_seed_and_data_flags(course::ArgParser& args, const TrainConfig& defaults) {
  args.add_int("--seed", static_cast<long long>(defaults.seed), 0, 1LL << 62, "seed of the weight init and the shuffling");
  args.add_choice("--dataset", defaults.dataset, {"mnist", "fashion", "cifar10"},
                  "data set: mnist, fashion (Fashion-MNIST) or cifar10 (CIFAR-10, 3x32x32 colour images)");
  args.add_string("--data", defaults.data_dir,
                  "folder with the data set's files: the four IDX files, or CIFAR-10's six .bin batches "
                  "(default: the data set's folder under data/)");
}

void apply_given_flags(const course::ArgParser& args, TrainConfig& config, const FlagOptions& options) {
  auto text = [&](const char* flag, std::string& field) {
    if (args.given(flag)) field = args.get_string(flag);
  };
  auto integer = [&](const char* flag, int& field) {
    if (args.given(flag)) field = static_cast<int>(args.get_int(flag));
  };
  text("--model", config.model);
  if (!options.models_dir.empty()) config.model = model_in_folder(config.model, options.models_dir);
  if (args.given("--model") || !options.models_dir.empty()) {
    ModelSpec spec;
    try {
      spec = model_by_name(config.model);  // a bad name or layer list stops here, before any data is read
    } catch (const course::Error& e) {
      throw course::Error(std::string("--model: ") + e.what());
    }
    if (!options.every_layer_kind) require_lesson02_layers(spec, "--model");
  }
  text("--optimizer", config.optimizer);
  text("--dataset", config.dataset);
  text("--data", config.data_dir);
  text("--save", config.save_dir);
  config.out_dir = args.get_string("--out");
  integer("--epochs", config.epochs);
  integer("--batch", config.batch);
  integer("--train-limit", config.train_limit);
  integer("--test-limit", config.test_limit);
  if (args.given("--lr")) config.lr = static_cast<float>(args.get_float("--lr"));
  if (args.given("--seed")) config.seed = static_cast<uint64_t>(args.get_int("--seed"));
}

}  // namespace framework
