#include "framework/train_flags.hpp"

#include <cstdio>
#include <cstdlib>

#include "course/error.hpp"
#include "framework/model.hpp"
#include "framework/train_config.hpp"

namespace framework {

double flag_default(float value) { return std::strtod(course::shortest_text(value).c_str(), nullptr); }

void add_train_flags(course::ArgParser& args, const TrainConfig& defaults, const TrainFlagWords& words) {
  const std::string model_help =
      words.model_help.empty() ? std::string("network: ") + kModelFlagHelp + words.model_note : words.model_help;
  if (words.model) args.add_string("--model", defaults.model, model_help);
  args.add_int("--epochs", defaults.epochs, 1, words.max_epochs, "passes over the training set" + words.epochs_note);
  if (words.images) args.add_int("--batch", defaults.batch, 1, words.max_batch, "minibatch size" + words.batch_note);
  std::string lr_help = words.lr_help + " (default ";
  for (size_t i = 0; i < words.optimizers.size(); ++i)
    lr_help += (i == 0 ? "" : ", ") + course::shortest_text(defaults.default_lr(words.optimizers[i])) + " for " +
               optimizer_name(words.optimizers[i]);
  args.add_float("--lr", flag_default(defaults.default_lr(defaults.optimizer)), 1e-7, words.max_lr,
                 lr_help + words.lr_note + ")");
  std::vector<std::string> names;
  for (OptimizerKind kind : words.optimizers) names.push_back(optimizer_name(kind));
  args.add_choice("--optimizer", optimizer_name(defaults.optimizer), names, words.optimizer_help);
  args.add_int("--seed", static_cast<long long>(defaults.seed), 0, 1LL << 62, words.seed_help);
  if (words.images) {
    args.add_choice("--dataset", defaults.dataset, words.datasets, words.dataset_help);
    args.add_string("--data", defaults.data_dir, words.data_help);
  }
  args.add_string("--out", words.out_default, words.out_help);
  if (words.save) args.add_string("--save", defaults.save_dir, words.save_help);
  if (words.images) {
    args.add_int("--train-limit", defaults.train_limit, 0, 1 << 30, "use only the first N training images (0: all)");
    args.add_int("--test-limit", defaults.test_limit, 0, 1 << 30, "use only the first N test images (0: all)");
  }
  if (!words.profile_help.empty()) {
    args.add_flag("--profile", words.profile_help);
    args.add_int("--profile-steps", defaults.profile_steps, 1, 100000, "steps the profile averages over");
  }
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
    require_layers(spec, options.layers, "--model");
  }
  if (args.given("--optimizer")) config.optimizer = optimizer_kind(args.get_string("--optimizer"));
  text("--dataset", config.dataset);
  text("--data", config.data_dir);
  text("--save", config.save_dir);
  config.out_dir = args.get_string("--out");
  integer("--epochs", config.epochs);
  integer("--batch", config.batch);
  integer("--train-limit", config.train_limit);
  integer("--test-limit", config.test_limit);
  if (args.given("--profile")) config.profile = true;
  integer("--profile-steps", config.profile_steps);
  if (args.given("--lr")) config.lr = static_cast<float>(args.get_float("--lr"));
  if (args.given("--seed")) config.seed = static_cast<uint64_t>(args.get_int("--seed"));
}

}  // namespace framework
