// Lesson 08 (given code): the GPU trainer (trainer.hpp): this lesson's network, optimizer and
// training step, handed to the framework's run (framework/device_trainer.hpp).
#include "trainer.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "evaluation.hpp"
#include "framework/device_trainer.hpp"
#include "framework/layered_network.hpp"
#include "framework/run_pictures.hpp"
#include "host_training.hpp"
#include "mnist_gpu.hpp"
#include "network.hpp"
#include "optimizer.hpp"

namespace mnist_gpu {

framework::TrainSummary train_on_gpu(const GpuTrainConfig& config, const framework::TrainingData& data,
                                     const GpuTrainerExtras& extras) {
  const host_training::OptimizerConfig opt_config = host_training::optimizer_config(config);
  framework::DeviceRun run = extras;  // what a later lesson plugs into the run, handed on
  // This lesson's kernels, with what a later lesson counts as right: for the step, the evaluation
  // and the profile alike.
  framework::StepKernels kernels = step_kernels();
  if (extras.count_correct) kernels.count_correct = extras.count_correct;
  if (!run.network) {
    // The hooks below get back the network made here: a GpuNetwork.
    auto layers = [](framework::DeviceNetwork& net) -> GpuNetwork& { return static_cast<GpuNetwork&>(net); };
    run.network = [&](const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
                      int max_batch) -> std::shared_ptr<framework::DeviceNetwork> {
      auto net = std::make_shared<GpuNetwork>(spec, init, max_batch, config.conv, extras.layers, extras.loss);
      if (extras.stream) net->set_stream(extras.stream);
      return net;
    };
    run.network_text = [=](framework::DeviceNetwork& net) { return "conv " + layers(net).conv_summary(); };
    run.describe = [&](framework::DeviceNetwork& net) {
      char mib[32];
      std::snprintf(mib, sizeof mib, "%.1f", double(layers(net).device_bytes()) / (1 << 20));
      return (extras.describe ? extras.describe(net) : std::string()) + "data: " +
             std::to_string(data.train.count()) + " training and " + std::to_string(data.test.count()) +
             " test images from " + data.dir + ", on the GPU; network buffers " + mib + " MiB\n";
    };
    run.layer_profile = [=](framework::DeviceNetwork& net, framework::DeviceUpdate& update,
                            const framework::DeviceDataset& train, int batch, int steps) {
      framework::profile_layers(stdout, layers(net), update, train, batch, steps, kernels,
                                "conv " + layers(net).conv_summary());
    };
    run.network_pictures = {"filters.png", "feature_maps.png"};
    run.draw_network = [=](framework::DeviceNetwork& net, const framework::RunFiles& files, const course::Dataset& test,
                           const framework::DeviceDataset& test_on_device) {
      std::vector<std::string> drawn;
      if (framework::write_filters_png(files.out_path("filters.png"), layers(net))) drawn.push_back("filters.png");
      framework::write_feature_maps_png(files.out_path("feature_maps.png"), layers(net), test, test_on_device);
      drawn.push_back("feature_maps.png");
      return drawn;
    };
  }
  run.optimizer = [&](framework::DeviceNetwork& net) {
    return std::make_shared<DeviceOptimizer>(opt_config, net.parameters(), extras.rule);
  };
  char lr[64];
  std::snprintf(lr, sizeof lr, " lr %g", double(opt_config.lr));
  run.optimizer_text = framework::optimizer_name(config.optimizer) + std::string(lr) +
                       host_training::momentum_text(opt_config);
  run.lr = opt_config.lr;
  run.epoch_order = host_training::epoch_order;  // lesson 02's: the CPU trainer sees the same batches
  run.profile = config.profile, run.profile_steps = config.profile_steps;

  // THE TRAINING STEP, all on the device, the host never waiting: the batch gathered (08.7), the
  // passes (the framework's chain of the layers of 08.1-08.5), the loss summed and the right answers
  // counted (08.8), the update (08.6).
  run.step = [&](const framework::StepArgs& s) {
    gather_batch(s.data.images.data(), s.data.labels.data(), s.data.count, s.data.per_example, s.order, s.first,
                 s.count, s.x, s.labels, s.stream);
    s.net.forward_backward(s.x, s.labels, s.count);
    const cudaStream_t counting = extras.counters_stream ? extras.counters_stream() : s.stream;
    accumulate_loss(s.net.row_loss(), s.count, s.number, s.counters.loss_sum.data(), s.counters.bad_step(), counting);
    kernels.count_correct(s.net.logits(), s.labels, s.count, s.net.classes(), s.predictions, s.counters.correct(),
                          counting);
    s.update.step(s.stream);
    if (extras.after_update) extras.after_update();
  };
  if (!run.evaluate)
    run.evaluate = [&](framework::DeviceNetwork& net, const framework::DeviceDataset& test) {
      return framework::evaluate_on_device(net, test, kernels);
    };
  return framework::train_on_device(config, data, run);
}

void add_gpu_train_flags(course::ArgParser& args, framework::TrainFlagWords words) {
  const GpuTrainConfig defaults;
  words.profile_help = "before training, time every layer's forward, backward and update (CUDA events)";
  framework::add_train_flags(args, defaults, words);
  args.add_choice("--conv", conv_algorithm_name(defaults.conv), {"auto", "im2col", "direct"},
                  "convolution algorithm: im2col + GEMM (lesson 07), direct (lesson 05), or auto: per layer, "
                  "direct where in_c*k*k < " + std::to_string(kDirectBelowK) + ", im2col elsewhere");
}

GpuTrainConfig gpu_train_config(const course::ArgParser& args) {
  GpuTrainConfig config;
  framework::apply_given_flags(args, config);
  if (args.given("--conv")) config.conv = conv_algorithm_by_name(args.get_string("--conv"));
  return config;
}

}  // namespace mnist_gpu
