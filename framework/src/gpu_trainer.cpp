// The course framework: the GPU trainer (gpu_trainer.hpp).
#include "framework/gpu_trainer.hpp"

#include <cstdio>
#include <string>
#include <utility>

#include "course/error.hpp"
#include "framework/layered_network.hpp"
#include "framework/optimizer_config.hpp"

namespace framework {

namespace {

// The run's network from the kit's layers, with what the framework reads of a layer list: its
// first lines, its memory, its layer profile and its pictures.
void use_kit_layers(DeviceRun& run, const GpuKit& kit, const TrainingData& data) {
  if (!kit.layers) throw course::Error(run.program + ": the kit has no layers and the run no network");
  auto stack = [](DeviceNetwork& net) -> LayerStack& { return static_cast<LayerStack&>(net); };
  run.network = [&kit, stream = run.stream](const ModelSpec& spec, const std::vector<Parameter>& init,
                                            int max_batch) -> std::shared_ptr<DeviceNetwork> {
    std::shared_ptr<LayerStack> net = kit.layers(spec, init, max_batch);
    if (net && stream) net->set_stream(stream);
    return net;
  };
  const auto text = [&kit, stack](DeviceNetwork& net) {
    return kit.layers_text ? kit.layers_text(stack(net)) : std::string("layers");
  };
  run.network_text = text;
  run.describe = [more = run.describe, &data, stack](DeviceNetwork& net) {
    char mib[32];
    std::snprintf(mib, sizeof mib, "%.1f", double(stack(net).device_bytes()) / (1 << 20));
    return (more ? more(net) : std::string()) + "data: " + std::to_string(data.train.count()) + " training and " +
           std::to_string(data.test.count()) + " test images from " + data.dir + ", on the GPU; network buffers " +
           mib + " MiB\n";
  };
  run.layer_profile = [&kit, stack, text](DeviceNetwork& net, DeviceUpdate& update, const DeviceDataset& train,
                                          int batch, int steps) {
    profile_layers(stdout, stack(net), update, train, batch, steps, kit.kernels, text(net));
  };
  run.network_pictures = {"filters.png", "feature_maps.png"};
  run.draw_network = [stack](DeviceNetwork& net, const RunFiles& files, const course::Dataset& test,
                             const DeviceDataset& test_on_device) {
    std::vector<std::string> drawn;
    if (write_filters_png(files.out_path("filters.png"), stack(net))) drawn.push_back("filters.png");
    write_feature_maps_png(files.out_path("feature_maps.png"), stack(net), test, test_on_device);
    drawn.push_back("feature_maps.png");
    return drawn;
  };
}

}  // namespace

TrainSummary train_on_gpu(const TrainConfig& config, const TrainingData& data, const GpuKit& kit, DeviceRun run,
                          const CounterStream& counters) {
  if (run.program.empty()) run.program = "the GPU trainer";
  if (!kit.kernels.gather || !kit.kernels.accumulate || !kit.kernels.count_correct)
    throw course::Error(run.program + ": the kit's step kernels (gather, loss sum, right answers) must be given");
  if (!run.network) use_kit_layers(run, kit, data);
  const OptimizerConfig opt_config = optimizer_config(config);
  if (!run.optimizer)
    run.optimizer = [&kit, opt_config](DeviceNetwork& net) {
      return std::make_shared<DeviceOptimizer>(opt_config, net.parameters(), kit.rules);
    };
  char lr[64];
  std::snprintf(lr, sizeof lr, " lr %g", double(opt_config.lr));
  run.optimizer_text = optimizer_name(config.optimizer) + std::string(lr) + momentum_text(opt_config);
  run.lr = opt_config.lr;
  if (!run.epoch_order) run.epoch_order = kit.epoch_order;
  run.profile = config.profile, run.profile_steps = config.profile_steps;

  // THE TRAINING STEP, all on the device, the host never waiting.
  run.step = [&kit, &counters](const StepArgs& s) {
    kit.kernels.gather(s.data, s.order, s.first, s.count, s.x, s.labels, s.stream);
    s.net.forward_backward(s.x, s.labels, s.count);
    const cudaStream_t counting = counters.fork ? counters.fork() : s.stream;
    kit.kernels.accumulate(s.net.row_loss(), s.count, s.number, s.counters.loss_sum.data(), s.counters.bad_step(),
                           counting);
    kit.kernels.count_correct(s.net.logits(), s.labels, s.count, s.net.classes(), s.predictions,
                              s.counters.correct(), counting);
    s.update.step(s.stream);
    if (counters.join) counters.join();
  };
  if (!run.evaluate)
    run.evaluate = [&kit](DeviceNetwork& net, const DeviceDataset& test) {
      return evaluate_on_device(net, test, kit.kernels);
    };
  return train_on_device(config, data, run);
}

}  // namespace framework
