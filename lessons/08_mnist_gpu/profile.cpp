// Lesson 08 (given code): the per-layer profile of a training step (--profile).
#include "profile.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/timer.hpp"
#include "host_training.hpp"
#include "mnist_gpu.hpp"

namespace mnist_gpu {

namespace {

// A pair of events around one piece of the step; ms accumulates over the measured steps.
struct Span {
  cudaEvent_t start = nullptr, stop = nullptr;
  double ms = 0;
  Span() {
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Span() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  void begin() { CUDA_CHECK(cudaEventRecord(start)); }
  void end() { CUDA_CHECK(cudaEventRecord(stop)); }
  void collect() {  // after the step has finished
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms += t;
  }
};

struct LayerSpans {
  Span forward, backward, update;
};

std::string shape_text(int batch, const host_training::LayerPlan& p) {
  if (p.out_h == 1 && p.out_w == 1) return "[" + std::to_string(batch) + "," + std::to_string(p.out_c) + "]";
  return "[" + std::to_string(batch) + "," + std::to_string(p.out_c) + "," + std::to_string(p.out_h) + "," +
         std::to_string(p.out_w) + "]";
}

}  // namespace

void print_profile(std::FILE* out, GpuNetwork& net, DeviceOptimizer& optimizer, const DeviceDataset& train,
                   int batch, int steps, int warmup) {
  auto& layers = net.layers();
  ParameterStore& params = net.parameters();
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

  std::vector<LayerSpans> spans(layers.size());
  Span gather, loss, whole;
  const int batches = n / batch;  // full batches only: every measured step has the same shape
  for (int step = 0; step < warmup + steps; ++step) {
    const int first = (step % batches) * batch;
    whole.begin();
    gather.begin();
    gather_batch(train.images.data(), train.labels.data(), n, train.per_example, order.data(), first, batch, x.data(),
                 labels.data());
    gather.end();
    // The chain of GpuNetwork::forward_backward (step 08.4), with events between the layers.
    const float* in = x.data();
    for (size_t i = 0; i < layers.size(); ++i) {
      spans[i].forward.begin();
      layers[i]->forward(in, batch);
      spans[i].forward.end();
      in = layers[i]->output();
    }
    loss.begin();
    net.loss().forward(net.logits(), labels.data(), batch);
    net.loss().backward(labels.data(), batch);
    accumulate_loss(net.loss().row_loss(), batch, step + 1, loss_sum.data(), bad_step.data());
    loss.end();
    const float* dy = net.loss().logits_grad();
    for (size_t i = layers.size(); i-- > 0;) {
      spans[i].backward.begin();
      layers[i]->backward(i == 0 ? x.data() : layers[i - 1]->output(), dy, batch);
      spans[i].backward.end();
      dy = layers[i]->input_grad();
    }
    // The update, one launch per layer's parameters (weight and bias are neighbours in the store).
    optimizer.begin_step();
    for (size_t i = 0; i < layers.size(); ++i) {
      const int w = layers[i]->plan().weight;
      if (w < 0) continue;
      const size_t begin = params.offset(size_t(w)), end = params.offset(size_t(w) + 1) + params.size(size_t(w) + 1);
      spans[i].update.begin();
      optimizer.update_range(begin, end - begin);
      spans[i].update.end();
    }
    whole.end();
    CUDA_CHECK(cudaEventSynchronize(whole.stop));
    if (step < warmup) continue;
    whole.collect(), gather.collect(), loss.collect();
    for (size_t i = 0; i < layers.size(); ++i) {
      spans[i].forward.collect(), spans[i].backward.collect();
      if (layers[i]->plan().weight >= 0) spans[i].update.collect();
    }
  }
  // The update as training runs it: one launch over every parameter.
  const course::TimingStats fused = course::time_gpu([&] { optimizer.step(); }, 3, 20);

  params.upload(saved);
  optimizer.restore(saved_state, saved_steps);
  CUDA_CHECK(cudaDeviceSynchronize());

  const double step_ms = whole.ms / steps;
  auto pct = [&](double ms) { return step_ms > 0 ? 100.0 * ms / step_ms : 0.0; };
  std::fprintf(out, "\nprofile: model %s, conv %s, batch %d, mean over %d steps after %d warm-up (CUDA events)\n",
               net.spec().name.c_str(), net.conv_summary().c_str(), batch, steps, warmup);
  std::fprintf(out, "%-8s %-18s %11s %12s %10s %10s %9s\n", "layer", "output", "forward ms", "backward ms",
               "update ms", "total ms", "% of step");
  auto row = [&](const std::string& name, const std::string& shape, double f, double b, double u, bool has_u) {
    char update[16] = "-";
    if (has_u) std::snprintf(update, sizeof update, "%.4f", u);
    std::fprintf(out, "%-8s %-18s %11.4f %12.4f %10s %10.4f %8.1f%%\n", name.c_str(), shape.c_str(), f, b, update,
                 f + b + u, pct(f + b + u));
  };
  double sum = gather.ms / steps + loss.ms / steps;
  row("gather", "[" + std::to_string(batch) + "," + std::to_string(train.per_example) + "]", gather.ms / steps, 0, 0,
      false);
  for (size_t i = 0; i < layers.size(); ++i) {
    const double f = spans[i].forward.ms / steps, b = spans[i].backward.ms / steps, u = spans[i].update.ms / steps;
    row(layers[i]->name(), shape_text(batch, layers[i]->plan()), f, b, u, layers[i]->plan().weight >= 0);
    sum += f + b + u;
  }
  row("loss", "softmax-CE", loss.ms / steps, 0, 0, false);
  std::fprintf(out, "%-8s %-18s %46.4f %8.1f%%\n", "sum", "of the rows", sum, pct(sum));
  std::fprintf(out, "%-8s %-18s %46.4f %8.1f%%\n", "step", "events around it", step_ms, 100.0);
  std::fprintf(out,
               "update as trained: one launch over all %zu parameters: %.4f ms (median of %d)\n"
               "(the loss row holds softmax-CE forward and backward and the loss accumulation)\n\n",
               params.parameter_count(), fused.median_ms, fused.repeats);
}

}  // namespace mnist_gpu
