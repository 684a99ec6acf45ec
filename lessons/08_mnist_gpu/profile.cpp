// Lesson 08 (given code): the per-layer profile of a training step (--profile).
#include "profile.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "course/device_buffer.hpp"
#include "framework/pass_profile.hpp"
#include "host_training.hpp"
#include "mnist_gpu.hpp"

namespace mnist_gpu {

namespace {

std::string shape_text(int batch, const host_training::LayerPlan& p) {
  if (p.out_h == 1 && p.out_w == 1) return "[" + std::to_string(batch) + "," + std::to_string(p.out_c) + "]";
  return "[" + std::to_string(batch) + "," + std::to_string(p.out_c) + "," + std::to_string(p.out_h) + "," +
         std::to_string(p.out_w) + "]";
}

}  // namespace

void print_profile(std::FILE* out, GpuNetwork& net, DeviceOptimizer& optimizer, const framework::DeviceDataset& train,
                   int batch, int steps, int warmup) {
  auto& layers = net.layers();
  framework::ParameterStore& params = net.parameters();
  const int n = train.count;
  batch = std::min(batch, n);
  if (batch < 1 || steps < 1) return;

  // Snapshot: profiling runs real steps, which change the weights and the optimizer state.
  const std::vector<host_training::Parameter> saved = params.download();
  const std::vector<float> saved_state = optimizer.download_state();
  const int saved_steps = optimizer.steps();

  course::DeviceBuffer<float> x(size_t(batch) * train.per_example);
  course::DeviceBuffer<int> labels{size_t(batch)};
  course::DeviceBuffer<int> order(host_training::epoch_order(n, 12345, 0));
  course::DeviceBuffer<double> loss_sum(1);
  course::DeviceBuffer<int> bad_step(1);
  loss_sum.zero();
  bad_step.upload(std::vector<int>{-1});
  const int batches = n / batch;  // full batches only: every measured step has the same shape

  framework::ProfiledStep step;
  for (const auto& layer : layers) {
    step.layers.push_back(layer->name());
    step.shapes.push_back(shape_text(batch, layer->plan()));
    step.has_update.push_back(layer->plan().weight >= 0);
  }
  step.loss = SoftmaxCrossEntropy::name();
  step.gather_shape = "[" + std::to_string(batch) + "," + std::to_string(train.per_example) + "]";
  step.observe = [&](framework::PassObserver* o) { net.set_observer(o); };
  step.gather = [&](int s) {
    gather_batch(train.images.data(), train.labels.data(), n, train.per_example, order.data(), (s % batches) * batch,
                 batch, x.data(), labels.data());
  };
  step.forward_backward = [&] { net.forward_backward(x.data(), labels.data(), batch); };  // step 08.8's passes
  step.accumulate = [&](int s) { accumulate_loss(net.loss().row_loss(), batch, s + 1, loss_sum.data(), bad_step.data()); };
  step.begin_update = [&] { optimizer.begin_step(); };
  step.update = [&](size_t i) {  // one launch per layer's parameters (weight and bias are neighbours in the store)
    const size_t w = size_t(layers[i]->plan().weight);
    const size_t begin = params.offset(w), end = params.offset(w + 1) + params.size(w + 1);
    optimizer.update_range(begin, end - begin);
  };
  step.fused_update = [&] { optimizer.step(); };
  const framework::PassProfile profile = framework::profile_passes(step, steps, warmup);

  params.upload(saved);
  optimizer.restore(saved_state, saved_steps);
  CUDA_CHECK(cudaDeviceSynchronize());
  framework::print_pass_profile(out, profile,
                                "model " + net.spec().name + ", conv " + net.conv_summary() + ", batch " +
                                    std::to_string(batch),
                                params.parameter_count());
}

}  // namespace mnist_gpu
