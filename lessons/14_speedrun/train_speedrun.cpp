// train_speedrun: lesson 14's speedrun. One recipe (network, batch, epochs, optimizer and its
// one-cycle schedule, label smoothing, random shifts), trained once per seed on the GPU with every
// step inside CUDA graphs; prints each seed's accuracy and training time, then the mean and minimum
// accuracy and the median time against the lesson's bar. The rules are in the README.
#include <cstdio>
#include <string>

#include "beyond_gpu_layers.hpp"  // runs_thin_first
#include "course/cli.hpp"
#include "fast_train_flags.hpp"  // --branches, --thin
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "host_training.hpp"
#include "speedrun_trainer.hpp"
#include "course/number_text.hpp"
#include "framework/train_flags.hpp"
#include "framework/training_data.hpp"
#include "your_steps_check.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif
#ifndef COURSE_SPEEDRUN_MODELS_DIR  // lessons/14_speedrun/models
#define COURSE_SPEEDRUN_MODELS_DIR "models"
#endif

namespace {

constexpr double kTargetAccuracy = 0.99;  // the bar: mean test accuracy over the seeds ...
constexpr double kTargetSeconds = 0.5;    // ... in at most this median training time (H100)
constexpr int kRuleSeeds = 10;            // ... over at least this many seeds

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    const speedrun::Recipe defaults;
    course::ArgParser args("train_speedrun",
                           "Lesson 14: time to 99 %. Trains one recipe once per seed on the GPU, every step inside\n"
                           "CUDA graphs, and reports the mean and minimum accuracy and the median training time.");
    // The flags every trainer shares, with the recipe's defaults; then the recipe's own.
    framework::TrainConfig common;
    common.model = defaults.model, common.epochs = defaults.epochs, common.batch = defaults.batch;
    common.optimizer = defaults.optimizer, common.seed = defaults.first_seed;
    speedrun::Recipe with_sgd, with_adam;
    with_sgd.optimizer = framework::OptimizerKind::sgd, with_adam.optimizer = framework::OptimizerKind::adam;
    common.default_sgd_lr = with_sgd.default_lr(), common.default_adam_lr = with_adam.default_lr();
    framework::TrainFlagWords words;
    words.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson14";
    words.out_help = "where runs.csv goes";
    words.model_help = "network: speedrun (lessons/14_speedrun/models/<name>.txt), @<file>, or a layer list as lesson 12's";
    words.optimizers = {framework::OptimizerKind::nesterov, framework::OptimizerKind::sgd, framework::OptimizerKind::adam};
    words.optimizer_help = "nesterov (yours, step 14.4), sgd (momentum) or adam";
    words.lr_help = "the schedule's peak learning rate";
    words.max_epochs = 100, words.max_lr = 100.0;
    words.seed_help = "the first seed";
    words.save = false;
    words.datasets = {"mnist", "fashion"};
    words.dataset_help = "data set: mnist or fashion (Fashion-MNIST)";
    words.data_help = "folder with the data set's files (default: the data set's folder under data/)";
    words.profile_help = "before the first seed's run: the time of every layer's passes and the update (not timed)";
    framework::add_train_flags(args, common, words);
    args.add_float("--momentum", framework::flag_default(defaults.momentum), 0.0, 0.999, "momentum of nesterov and sgd");
    args.add_float("--weight-decay", framework::flag_default(defaults.weight_decay), 0.0, 1.0, "L2 weight decay added to every gradient");
    args.add_choice("--schedule", "one-cycle", {"one-cycle", "constant"},
                    "one-cycle (yours, step 14.1: up over --warmup, then down) or constant");
    args.add_float("--warmup", framework::flag_default(defaults.warmup), 0.0, 0.99, "fraction of the steps the one-cycle schedule rises over");
    args.add_float("--smoothing", framework::flag_default(defaults.smoothing), 0.0, 0.99, "label smoothing (yours, step 14.2); 0: none");
    args.add_int("--shift", defaults.shift, 0, 8, "random shifts of up to N pixels (yours, step 14.3); 0: none");
    args.add_choice("--precision", "fp32", {"fp32", "bf16"},
                    "fp32: lesson 09's kernels; bf16: the convolutions on lesson 10's Tensor Core kernels (BF16 "
                    "products, FP32 sums), the other products in TF32");
    args.add_choice("--graph", "on", {"on", "off"}, "on: every step inside CUDA graphs; off: launched one by one");
    fast_training::add_step_shape_flags(args, "the loss sum");
    args.add_int("--seeds", defaults.seeds, 1, 1000, "runs, with seeds --seed, --seed + 1, ... (the rules: at least 10)");
    args.add_int("--val", defaults.val, 0, 1 << 30,
                 "hold out the last N training images and report accuracy on them, never on the test set "
                 "(for choosing a recipe); 0: the test set");
    if (!args.parse(argc, argv)) return 0;

    framework::FlagOptions options;  // any layer kind; --model <name> also names models/<name>.txt
    options.layers = beyond_mnist::layer_kinds(), options.models_dir = COURSE_SPEEDRUN_MODELS_DIR;
    framework::apply_given_flags(args, common, options);
    speedrun::Recipe recipe;
    recipe.model = common.model, recipe.epochs = common.epochs, recipe.batch = common.batch;
    recipe.optimizer = common.optimizer;
    recipe.lr = common.lr;  // 0 (not given): the optimizer's own default
    recipe.first_seed = common.seed;
    recipe.momentum = static_cast<float>(args.get_float("--momentum"));
    recipe.weight_decay = static_cast<float>(args.get_float("--weight-decay"));
    recipe.schedule = args.get_string("--schedule") == "constant" ? speedrun::Schedule::constant
                                                                   : speedrun::Schedule::one_cycle;
    recipe.warmup = static_cast<float>(args.get_float("--warmup"));
    recipe.smoothing = static_cast<float>(args.get_float("--smoothing"));
    recipe.shift = static_cast<int>(args.get_int("--shift"));
    recipe.graph = args.get_string("--graph") == "on";
    const fast_training::StepShape shape = fast_training::step_shape(args);
    recipe.branches = shape.branches, recipe.thin = shape.thin;
    recipe.precision = args.get_string("--precision");
    recipe.seeds = static_cast<int>(args.get_int("--seeds"));
    recipe.val = static_cast<int>(args.get_int("--val"));
    recipe.profile = common.profile, recipe.profile_steps = common.profile_steps;

    if (recipe.schedule == speedrun::Schedule::constant && args.given("--warmup"))
      throw course::Error("--warmup: the constant schedule has no warm-up (use --schedule one-cycle)");

    const framework::TrainingData data = framework::load_training_data(common);
    const host_training::ModelSpec spec = speedrun::speedrun_model(recipe, data, COURSE_SPEEDRUN_MODELS_DIR);
    speedrun::check_recipe(recipe, data);  // bad input stops here, also on a machine without a GPU
    course::require_gpu("train_speedrun");
    speedrun::check_your_steps();  // an unwritten step stops here, in one line

    std::printf("device: %s; %s\n", course::device_summary().c_str(), course::cuda_versions().c_str());
    std::printf("layers: %s\n", host_training::plan_summary(spec).c_str());
    std::printf("recipe: %s lr %g (%s%s), momentum %g, weight decay %g, batch %d, %d epoch(s), label smoothing %g, "
                "shifts up to %d px, %s, %s, %s%s\n",
                framework::optimizer_name(recipe.optimizer), double(recipe.peak_lr()),
                recipe.schedule == speedrun::Schedule::one_cycle ? "one-cycle, warm-up " : "constant",
                recipe.schedule == speedrun::Schedule::one_cycle
                    ? (course::shortest_text(recipe.warmup) + " of the steps").c_str() : "",
                double(recipe.momentum), double(recipe.weight_decay), recipe.batch, recipe.epochs,
                double(recipe.smoothing), recipe.shift,
                recipe.precision == "bf16" ? "BF16 convolutions and TF32 products (lesson 10)" : "FP32 (TF32 off)",
                recipe.graph ? "every step inside CUDA graphs" : "launched one by one (--graph off)",
                recipe.branches ? "weight gradients on a second stream (09.12)" : "one stream (--branches off)",
                recipe.thin && beyond_mnist::runs_thin_first(spec, recipe.batch)
                    ? ", the first conv, ReLU and pool in one kernel (09.13)" : "");
    std::printf("data: %d training images%s, on the GPU before the clock starts; accuracy on %s\n",
                data.train.count() - recipe.val,
                recipe.val > 0 ? (" (the last " + std::to_string(recipe.val) + " held out)").c_str() : "",
                recipe.val > 0 ? "the held-out validation images (the test set is not read)" : "the test set");
    std::fflush(stdout);

    const speedrun::SpeedrunResult result = speedrun::run_speedrun(recipe, data, spec, common.out_dir);
    const double mean = result.mean_accuracy(), seconds = result.median_train_ms() / 1e3;
    std::printf("\n%zu seed(s): mean %s accuracy %.2f %%, minimum %.2f %%; median training time %.3f s\n",
                result.runs.size(), result.evaluated.c_str(), 100 * mean, 100 * result.min_accuracy(), seconds);
    if (recipe.val > 0) {
      std::printf("bar: not judged on a validation split (the bar is on the test set)\n");
    } else if (int(result.runs.size()) < kRuleSeeds) {
      std::printf("bar: not judged: the rules ask for at least %d seeds (--seeds %d)\n", kRuleSeeds, kRuleSeeds);
    } else {
      const bool met = mean >= kTargetAccuracy && seconds <= kTargetSeconds;
      std::printf("bar: mean test accuracy >= %.1f %% in a median training time <= %.1f s (on an H100): %s\n",
                  100 * kTargetAccuracy, kTargetSeconds, met ? "MET" : "NOT MET");
    }
    if (!common.out_dir.empty()) std::printf("wrote %s/runs.csv\n", common.out_dir.c_str());
    return 0;
  });
}
