// Lesson 09 (given): the fast trainer (fast_trainer.hpp): the framework's GPU trainer with lesson
// 08's kit (its step's kernels and update rules) and this lesson's network, streams and graphs.
#include "fast_trainer.hpp"

#include <memory>
#include <string>

#include "branch.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "fast_network.hpp"
#include "framework/gpu_trainer.hpp"
#include "gpu_kit.hpp"
#include "step_graph.hpp"
#include "your_steps_check.hpp"

namespace fast_training {

framework::TrainSummary train_fast(const FastTrainConfig& config, const framework::TrainingData& data) {
  const bool use_graph = config.graph && config.optimizer == framework::OptimizerKind::sgd;
  Stream stream;                // every step's launch goes here (the default stream cannot be captured)
  Branch branch(stream.get());  // 09.12: a second stream beside it

  framework::DeviceRun run;  // what this lesson sets of the run; the trainer fills the rest from the kit
  run.program = "train_fast";
  run.stream = stream.get();
  run.network = [&](const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
                       int max_batch) {
    return std::make_shared<FastNetwork>(spec, init, max_batch, stream.get(), config.conv, config.conv_kernels,
                                         config.products);
  };
  // The hooks below get back the network made above: a FastNetwork.
  auto fast_network = [](framework::DeviceNetwork& net) -> FastNetwork& { return static_cast<FastNetwork&>(net); };
  run.network_text = [](framework::DeviceNetwork&) { return std::string("fast network (lesson 09)"); };
  // Your steps in the lesson's order, before anything trains: 09.8's pass and 09.9's capture throw
  // their TODO when unwritten, a quick look catches the kernels of 09.10, 09.11 and 09.13 (an
  // unwritten kernel throws nothing: it leaves garbage), and 09.12's fork and join throw theirs.
  run.check_steps = [&](framework::DeviceNetwork& net) {
    const course::DeviceBuffer<float> image(std::vector<float>(net.input_size(), 0.0f));
    const course::DeviceBuffer<int> label(std::vector<int>{0});
    net.forward_backward(image.data(), label.data(), 1);                  // 09.8
    CUDA_CHECK(cudaGraphDestroy(capture_step(stream.get(), [] {})));      // 09.9
    if (config.conv != ConvEngine::implicit_gemm) check_tiled_steps();   // 09.10, 09.11
    if (config.branches) branch.fork(), branch.join();                    // 09.12
    if (config.thin) check_thin_step();                                   // 09.13
    if (config.products && config.products->check) config.products->check();  // another math's products
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    if (config.branches) fast_network(net).use_branch(&branch);
    fast_network(net).use_thin_first_layer(config.thin);
  };
  run.describe = [&](framework::DeviceNetwork& net) {
    const FastNetwork& fast = fast_network(net);
    std::string lines = "convolutions: " + std::to_string(fast.tiled_convs()) + " of " +
                        std::to_string(fast.conv_blocks()) +
                        " by the tiled kernel (09.10), the others implicit GEMMs (09.2-09.4)" +
                        (config.conv == ConvEngine::tiled ? "" : " (--conv implicit)") + "\n";
    if (fast.thin_first_layer())
      lines += "  the first block's conv, ReLU and pool in one kernel, its dW from the pool's argmax (09.13)\n";
    if (config.conv_kernels)
      lines += "  forward and input gradient of " + std::to_string(fast.other_convs()) + " of " +
               std::to_string(fast.conv_blocks()) + ", weight gradient of " +
               std::to_string(fast.other_weight_gradients()) + ", by " + config.conv_kernels->name() + "\n";
    if (config.products && config.products != &fp32_products())
      lines += "implicit-GEMM products (dense layers, implicit-GEMM convs) " + config.products->name + "\n";
    return lines;
  };
  const char* adam_steps = "launched one by one (--optimizer adam: its step number changes every step)";
  run.steps_text = std::string(use_graph ? "replayed from CUDA graphs"
                                  : config.graph ? adam_steps
                                                 : "launched one by one (--graph off)") +
                      "; " +
                      (config.branches ? "weight gradients and counters on a second stream (09.12)"
                                       : "one stream (--branches off)");
  framework::CounterStream counters;
  if (config.branches) {
    // The weight gradients are done once the main stream joins the side; then the counters go
    // aside, beside the update (they read the loss and logits, it the gradients). The next step's
    // forward writes what the counters read: join again after the update.
    counters.fork = [&] {
      branch.join();
      branch.fork();
      return branch.side();
    };
    counters.join = [&] { branch.join(); };
  }
  if (use_graph)
    run.capture = [s = stream.get()](const std::function<void()>& enqueue) { return replayed(s, enqueue); };
  run.profile_capture = capture_step;
  // Lesson 08's kit: its step's kernels and update rules (its layers are not used: the network is this lesson's).
  return framework::train_on_gpu(config, data, mnist_gpu::gpu_kit(mnist_gpu::ConvAlgorithm::automatic), run,
                                 counters);
}

}  // namespace fast_training
