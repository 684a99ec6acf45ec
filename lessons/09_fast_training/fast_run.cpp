// Lesson 09 (given): the fast network as the framework's GPU trainer runs it (fast_run.hpp): its
// network, streams and graphs.
#include "fast_run.hpp"

#include <memory>
#include <string>

#include "branch.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "framework/device_choice.hpp"
#include "fast_network.hpp"
#include "framework/gpu_trainer.hpp"
#include "gpu_kit.hpp"
#include "step_graph.hpp"
#include "your_steps_check.hpp"

namespace fast_training {

framework::GpuKit FastRun::kit() { return mnist_gpu::gpu_kit(mnist_gpu::ConvAlgorithm::automatic); }

FastRun::FastRun(const FastTrainConfig& fast, const std::string& program) : config_(fast), branch_(stream_.get()) {
  // The hooks below read this object's copy of the config and its streams (never the constructor's locals).
  const FastTrainConfig& config = config_;
  const std::string not_replayed = framework::graph_problem(config.graph, config);  // "": replayed
  run.program = program;  // what this lesson sets of the run; the trainer fills the rest from the kit
  run.stream = stream_.get();
  run.network = [this](const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& init,
                       int max_batch) {
    return std::make_shared<FastNetwork>(spec, init, max_batch, stream_.get(), config_.conv, config_.conv_kernels,
                                         config_.products);
  };
  // The hooks below get back the network made above: a FastNetwork.
  auto fast_network = [](framework::DeviceNetwork& net) -> FastNetwork& { return static_cast<FastNetwork&>(net); };
  run.network_text = [](framework::DeviceNetwork&) { return std::string("fast network (lesson 09)"); };
  // Your steps in the lesson's order, before anything trains: 09.8's pass and 09.9's capture throw
  // their TODO when unwritten, a quick look catches the kernels of 09.10, 09.11 and 09.13 (an
  // unwritten kernel throws nothing: it leaves garbage), and 09.12's fork and join throw theirs.
  run.check_steps = [this, fast_network](framework::DeviceNetwork& net) {
    const course::DeviceBuffer<float> image(std::vector<float>(net.input_size(), 0.0f));
    const course::DeviceBuffer<int> label(std::vector<int>{0});
    net.forward_backward(image.data(), label.data(), 1);                         // 09.8
    CUDA_CHECK(cudaGraphDestroy(capture_step(stream_.get(), [] {})));            // 09.9
    if (config_.conv != ConvEngine::implicit_gemm) check_tiled_steps();          // 09.10, 09.11
    if (config_.branches) branch_.fork(), branch_.join();                        // 09.12
    if (config_.thin) check_thin_step();                                         // 09.13
    if (config_.products && config_.products->check) config_.products->check();  // another math's products
    CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    if (config_.branches) fast_network(net).use_branch(&branch_);
    fast_network(net).use_thin_first_layer(config_.thin);
  };
  run.describe = [this, fast_network](framework::DeviceNetwork& net) {
    const FastNetwork& fast = fast_network(net);
    std::string lines = "convolutions: " + std::to_string(fast.tiled_convs()) + " of " +
                        std::to_string(fast.conv_blocks()) +
                        " by the tiled kernel (09.10), the others implicit GEMMs (09.2-09.4)" +
                        (config_.conv == ConvEngine::tiled ? "" : " (--conv implicit)") + "\n";
    if (fast.thin_first_layer())
      lines += "  the first block's conv, ReLU and pool in one kernel, its dW from the pool's argmax (09.13)\n";
    if (config_.conv_kernels)
      lines += "  forward and input gradient of " + std::to_string(fast.other_convs()) + " of " +
               std::to_string(fast.conv_blocks()) + ", weight gradient of " +
               std::to_string(fast.other_weight_gradients()) + ", by " + config_.conv_kernels->name() + "\n";
    if (config_.products && config_.products != &fp32_products())
      lines += "implicit-GEMM products (dense layers, implicit-GEMM convs) " + config_.products->name + "\n";
    return lines;
  };
  run.steps_text = framework::steps_text(not_replayed) + "; " +
                   (config.branches ? "weight gradients and counters on a second stream (09.12)"
                                    : "one stream (--branches off)");
  if (config.branches) counters = counters_aside(branch_);  // 09.12's second stream
  if (not_replayed.empty())
    run.capture = [s = stream_.get()](const std::function<void()>& enqueue) { return replayed(s, enqueue); };
  run.profile_capture = capture_step;
}

}  // namespace fast_training
