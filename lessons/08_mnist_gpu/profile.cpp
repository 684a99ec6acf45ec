// Lesson 08 (given code): the per-layer profile of a training step (--profile).
#include "profile.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
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

// Per-layer times of GpuNetwork::forward_backward itself: a CUDA event where each pass starts (the
// network tells us through PassObserver) and one after the last, so a pass lasts until the next
// one starts. Rows: the network's layers, then the loss.
class PassTimes : public PassObserver {
 public:
  explicit PassTimes(GpuNetwork& net) : net_(net), events_(2 * (net.layers().size() + 1) + 1) {
    for (const auto& layer : net.layers()) rows_.push_back(layer->name());
    rows_.push_back(SoftmaxCrossEntropy::name());
    forward_ms.assign(rows_.size(), 0.0), backward_ms.assign(rows_.size(), 0.0);
    marks_.resize(events_.size());
    for (cudaEvent_t& e : events_) CUDA_CHECK(cudaEventCreate(&e));
    net_.set_observer(this);
  }
  ~PassTimes() override {
    net_.set_observer(nullptr);
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  PassTimes(const PassTimes&) = delete;
  PassTimes& operator=(const PassTimes&) = delete;

  void pass_starts(const std::string& who, bool backward) override {
    const size_t row = size_t(std::find(rows_.begin(), rows_.end(), who) - rows_.begin());
    if (count_ + 1 < events_.size()) {  // the last event is the end's
      CUDA_CHECK(cudaEventRecord(events_[count_]));
      marks_[count_] = {row, backward};
    }
    ++count_;
  }
  // Call after forward_backward returns.
  void end_step() { CUDA_CHECK(cudaEventRecord(events_[std::min(count_, events_.size() - 1)])); }
  // After the step has finished: adds every pass's time (measured: true) and starts the next step.
  // Throws unless every layer and the loss ran one forward and one backward pass, each opened by
  // check_batch: then every row's time is its own.
  void collect(bool measured) {
    std::vector<int> seen(2 * rows_.size(), 0);
    for (size_t i = 0; i < std::min(count_, marks_.size()); ++i)
      if (marks_[i].row < rows_.size()) ++seen[2 * marks_[i].row + marks_[i].backward];
    if (count_ != events_.size() - 1 || std::any_of(seen.begin(), seen.end(), [](int n) { return n != 1; }))
      throw course::Error("--profile: forward_backward must run one forward and one backward pass of every layer "
                          "and of the loss, each starting with check_batch (" + std::to_string(count_) +
                          " passes seen, " + std::to_string(events_.size() - 1) + " expected)");
    for (size_t i = 0; measured && i < count_; ++i) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
      (marks_[i].backward ? backward_ms : forward_ms)[marks_[i].row] += ms;
    }
    count_ = 0;
  }
  size_t loss_row() const { return rows_.size() - 1; }

  std::vector<double> forward_ms, backward_ms;  // per row, summed over the measured steps

 private:
  struct Mark {
    size_t row = 0;
    bool backward = false;
  };
  GpuNetwork& net_;
  std::vector<std::string> rows_;
  std::vector<cudaEvent_t> events_;
  std::vector<Mark> marks_;
  size_t count_ = 0;
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

  PassTimes passes(net);
  std::vector<Span> updates(layers.size());
  Span gather, accumulate, whole;
  const int batches = n / batch;  // full batches only: every measured step has the same shape
  for (int step = 0; step < warmup + steps; ++step) {
    const int first = (step % batches) * batch;
    whole.begin();
    gather.begin();
    gather_batch(train.images.data(), train.labels.data(), n, train.per_example, order.data(), first, batch, x.data(),
                 labels.data());
    gather.end();
    net.forward_backward(x.data(), labels.data(), batch);  // the training step's own passes (step 08.8)
    passes.end_step();
    accumulate.begin();
    accumulate_loss(net.loss().row_loss(), batch, step + 1, loss_sum.data(), bad_step.data());
    accumulate.end();
    // The update, one launch per layer's parameters (weight and bias are neighbours in the store).
    optimizer.begin_step();
    for (size_t i = 0; i < layers.size(); ++i) {
      const int w = layers[i]->plan().weight;
      if (w < 0) continue;
      const size_t begin = params.offset(size_t(w)), end = params.offset(size_t(w) + 1) + params.size(size_t(w) + 1);
      updates[i].begin();
      optimizer.update_range(begin, end - begin);
      updates[i].end();
    }
    whole.end();
    CUDA_CHECK(cudaEventSynchronize(whole.stop));
    const bool measured = step >= warmup;
    passes.collect(measured);
    if (!measured) continue;
    whole.collect(), gather.collect(), accumulate.collect();
    for (size_t i = 0; i < layers.size(); ++i)
      if (layers[i]->plan().weight >= 0) updates[i].collect();
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
  const size_t loss = passes.loss_row();
  const double loss_ms = (passes.forward_ms[loss] + passes.backward_ms[loss] + accumulate.ms) / steps;
  double sum = gather.ms / steps + loss_ms;
  row("gather", "[" + std::to_string(batch) + "," + std::to_string(train.per_example) + "]", gather.ms / steps, 0, 0,
      false);
  for (size_t i = 0; i < layers.size(); ++i) {
    const double f = passes.forward_ms[i] / steps, b = passes.backward_ms[i] / steps, u = updates[i].ms / steps;
    row(layers[i]->name(), shape_text(batch, layers[i]->plan()), f, b, u, layers[i]->plan().weight >= 0);
    sum += f + b + u;
  }
  row("loss", "softmax-CE", loss_ms, 0, 0, false);
  std::fprintf(out, "%-8s %-18s %46.4f %8.1f%%\n", "sum", "of the rows", sum, pct(sum));
  std::fprintf(out, "%-8s %-18s %46.4f %8.1f%%\n", "step", "events around it", step_ms, 100.0);
  std::fprintf(out,
               "update as trained: one launch over all %zu parameters: %.4f ms (median of %d)\n"
               "(the loss row holds softmax-CE forward and backward and the loss accumulation)\n\n",
               params.parameter_count(), fused.median_ms, fused.repeats);
}

}  // namespace mnist_gpu
