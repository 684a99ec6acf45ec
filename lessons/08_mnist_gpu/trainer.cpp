// Lesson 08 (given code): the GPU trainer (trainer.hpp): this lesson's network, optimizer and
// training step, handed to the framework's run (framework/device_trainer.hpp).
#include "trainer.hpp"

#include <cstdio>
#include <string>

#include "course/error.hpp"
#include "evaluation.hpp"
#include "framework/device_trainer.hpp"
#include "framework/run_pictures.hpp"
#include "host_training.hpp"
#include "mnist_gpu.hpp"
#include "network.hpp"
#include "optimizer.hpp"
#include "pictures.hpp"
#include "profile.hpp"

namespace mnist_gpu {

framework::TrainSummary train_on_gpu(const GpuTrainConfig& config, const framework::TrainingData& data,
                                     const GpuTrainerExtras& extras) {
  const host_training::OptimizerConfig opt_config = host_training::optimizer_config(config);
  GpuNetwork* layers = nullptr;  // the network as this lesson's, when it is (its pictures and profile)
  framework::DeviceRun run;
  run.program = extras.program;
  run.network = [&](const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
                    int max_batch) -> std::unique_ptr<framework::DeviceNetwork> {
    if (extras.network) return extras.network(spec, init, max_batch);
    auto net = std::make_unique<GpuNetwork>(spec, init, max_batch, config.conv, extras.layers, extras.loss);
    if (extras.stream) net->set_stream(extras.stream);
    layers = net.get();
    return net;
  };
  run.optimizer = [&](framework::DeviceNetwork& net) {
    return std::make_unique<DeviceOptimizer>(opt_config, net.parameters(), extras.rule);
  };
  char lr[64];
  std::snprintf(lr, sizeof lr, " lr %g", double(opt_config.lr));
  run.optimizer_text = framework::optimizer_name(config.optimizer) + std::string(lr) +
                       host_training::momentum_text(opt_config);
  run.lr = opt_config.lr;
  run.network_text = [&](framework::DeviceNetwork&) {
    return layers ? "conv " + layers->conv_summary() : extras.network_text;
  };
  run.describe = [&](framework::DeviceNetwork&) {
    std::string lines = extras.describe ? extras.describe() : "";
    if (layers) {
      char mib[32];
      std::snprintf(mib, sizeof mib, "%.1f", double(layers->device_bytes()) / (1 << 20));
      lines += "data: " + std::to_string(data.train.count()) + " training and " + std::to_string(data.test.count()) +
               " test images from " + data.dir + ", on the GPU; network buffers " + mib + " MiB\n";
    }
    return lines;
  };
  run.check_steps = extras.check_steps;
  run.epoch_order = host_training::epoch_order;  // lesson 02's: the CPU trainer sees the same batches

  // THE TRAINING STEP, all on the device, the host never waiting: the batch gathered (08.7), the
  // passes (08.8), the loss summed and the right answers counted (08.9), the update (08.6).
  run.step = [&](const framework::StepArgs& s) {
    gather_batch(s.data.images.data(), s.data.labels.data(), s.data.count, s.data.per_example, s.order, s.first,
                 s.count, s.x, s.labels, s.stream);
    s.net.forward_backward(s.x, s.labels, s.count);
    const cudaStream_t counting = extras.counters_stream ? extras.counters_stream() : s.stream;
    accumulate_loss(s.net.row_loss(), s.count, s.number, s.counters.loss_sum.data(), s.counters.bad_step(), counting);
    predict_and_count(s.net.logits(), s.labels, s.count, s.net.classes(), s.predictions, s.counters.correct(),
                      counting);
    s.update.step(s.stream);
    if (extras.after_update) extras.after_update();
  };
  run.evaluate = [](framework::DeviceNetwork& net, const framework::DeviceDataset& test) {
    return evaluate_on_gpu(net, test);
  };

  run.stream = extras.stream;
  run.capture = extras.capture;
  run.steps_text = extras.steps_text;
  run.profile = config.profile, run.profile_steps = config.profile_steps;
  run.profile_capture = extras.profile_capture;
  run.layer_profile = [&](framework::DeviceNetwork&, framework::DeviceUpdate& update,
                          const framework::DeviceDataset& train, int batch, int steps) {
    if (!layers) throw course::Error("--profile: this network has no profile of its layers");
    print_profile(stdout, *layers, static_cast<DeviceOptimizer&>(update), train, batch, steps);
  };
  if (!extras.network) {
    run.network_pictures = {"filters.png", "feature_maps.png"};
    run.draw_network = [&](framework::DeviceNetwork&, const framework::RunFiles& files, const course::Dataset& test,
                           const framework::DeviceDataset& test_on_device) {
      std::vector<std::string> drawn;
      if (write_filters_png(files.out_path("filters.png"), *layers)) drawn.push_back("filters.png");
      write_feature_maps_png(files.out_path("feature_maps.png"), *layers, test, test_on_device);
      drawn.push_back("feature_maps.png");
      return drawn;
    };
  }
  return framework::train_on_device(config, data, run);
}

}  // namespace mnist_gpu
