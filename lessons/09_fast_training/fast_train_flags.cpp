// Lesson 09 (given): the trainer's flags (fast_train_flags.hpp).
#include "fast_train_flags.hpp"

#include "framework/train_flags.hpp"

namespace fast_training {

void add_fast_train_flags(course::ArgParser& args, const std::string& out_default) {
  const FastTrainConfig defaults;
  framework::TrainFlagWords words;
  words.out_default = out_default;
  words.model_note = " (a: two 5x5 convs, 3136->512->10; small: conv 3x3x10, dense 100); lesson 09's network takes "
                     "conv-ReLU-pool blocks, then dense layers";
  words.profile_help = "before training, time every kernel of one step, and the step with and without a graph";
  framework::add_train_flags(args, defaults, words);
  args.add_choice("--graph", "on", {"on", "off"}, "on: replay the steps from CUDA graphs (SGD only); off: launch them one by one");
  args.add_choice("--conv", "tiled", {"tiled", "implicit"},
                  "tiled: 09.10's kernel for the convs it runs (forward and dx), implicit: 09.2-09.4 everywhere");
}

FastTrainConfig fast_train_config(const course::ArgParser& args, const framework::FlagOptions& options) {
  FastTrainConfig config;
  framework::apply_given_flags(args, config, options);
  config.graph = args.get_string("--graph") == "on";
  config.conv = args.get_string("--conv") == "tiled" ? ConvEngine::tiled : ConvEngine::implicit_gemm;
  return config;
}

void add_step_shape_flags(course::ArgParser& args, const std::string& counters) {
  args.add_choice("--branches", "on", {"on", "off"},
                  "on: the weight gradients and " + counters + " on a second stream, beside the rest (09.12); off: one "
                  "stream");
  args.add_choice("--thin", "on", {"on", "off"},
                  "on: the first conv, its ReLU and max-pool in one kernel, its dW from the pool's argmax, where "
                  "the thin kernels run it (09.13); off: separate passes");
}

StepShape step_shape(const course::ArgParser& args) {
  StepShape shape;
  shape.branches = args.get_string("--branches") == "on";
  shape.thin = args.get_string("--thin") == "on";
  return shape;
}

}  // namespace fast_training
