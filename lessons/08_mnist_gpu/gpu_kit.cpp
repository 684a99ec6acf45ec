// Lesson 08 (given code): this lesson's kit for the framework's GPU trainer (gpu_kit.hpp).
#include "gpu_kit.hpp"

#include <memory>
#include <string>

#include "evaluation.hpp"
#include "host_training.hpp"
#include "optimizer.hpp"

namespace mnist_gpu {

framework::GpuKit gpu_kit(ConvAlgorithm conv, std::shared_ptr<const framework::DeviceLayerMakers> layers,
                          const LossMaker& extra_loss) {
  framework::GpuKit kit;
  if (!layers) layers = gpu_layers(conv);
  kit.layers = [=](const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
                   int max_batch) {
    return std::make_shared<GpuNetwork>(spec, init, max_batch, conv, layers.get(), extra_loss);
  };
  kit.layers_text = [](const framework::LayerStack& net) {
    return "conv " + static_cast<const GpuNetwork&>(net).conv_summary();
  };
  kit.kernels = step_kernels();
  kit.rules = device_update_rules();
  kit.epoch_order = host_training::epoch_order;
  return kit;
}

void add_train_mnist_flags(course::ArgParser& args, framework::TrainFlagWords words) {
  const TrainMnistConfig defaults;
  words.profile_help = "before training, time every layer's forward, backward and update (CUDA events)";
  framework::add_train_flags(args, defaults, words);
  args.add_choice("--conv", conv_algorithm_name(defaults.conv), {"auto", "im2col", "direct"},
                  "convolution algorithm: im2col + GEMM (lesson 07), direct (lesson 05), or auto: per layer, "
                  "direct where in_c*k*k < " + std::to_string(kDirectBelowK) + ", im2col elsewhere");
}

TrainMnistConfig train_mnist_config(const course::ArgParser& args) {
  TrainMnistConfig config;
  framework::apply_given_flags(args, config);
  if (args.given("--conv")) config.conv = conv_algorithm_by_name(args.get_string("--conv"));
  return config;
}

}  // namespace mnist_gpu
