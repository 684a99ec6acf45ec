// The course framework: the profile of a training step, layer by layer (pass_profile.hpp).
#include "framework/pass_profile.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"

namespace framework {

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

// The passes of forward_backward: a CUDA event where each pass starts and one after the last, so
// a pass lasts until the next one starts. Rows: the layers, then the loss.
class PassTimes : public PassObserver {
 public:
  explicit PassTimes(std::vector<std::string> rows) : rows_(std::move(rows)), events_(2 * rows_.size() + 1) {
    forward_ms.assign(rows_.size(), 0.0), backward_ms.assign(rows_.size(), 0.0);
    marks_.resize(events_.size());
    for (cudaEvent_t& e : events_) CUDA_CHECK(cudaEventCreate(&e));
  }
  ~PassTimes() override {
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
  void end_step() { CUDA_CHECK(cudaEventRecord(events_[std::min(count_, events_.size() - 1)])); }
  // After the step has finished: adds every pass's time (measured: true) and starts the next step.
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

  std::vector<double> forward_ms, backward_ms;  // per row, summed over the measured steps

 private:
  struct Mark {
    size_t row = 0;
    bool backward = false;
  };
  std::vector<std::string> rows_;
  std::vector<cudaEvent_t> events_;
  std::vector<Mark> marks_;
  size_t count_ = 0;
};

// Detaches the observer however the profile ends.
struct Observing {
  const ProfiledStep& step;
  Observing(const ProfiledStep& s, PassObserver* o) : step(s) { step.observe(o); }
  ~Observing() { step.observe(nullptr); }
};

}  // namespace

PassProfile profile_passes(const ProfiledStep& step, int steps, int warmup) {
  if (!step.observe || !step.gather || !step.forward_backward || !step.accumulate || !step.begin_update ||
      !step.update || !step.fused_update)
    throw course::Error("profile_passes: every hook of the profiled step must be set");
  if (step.shapes.size() != step.layers.size() || step.has_update.size() != step.layers.size())
    throw course::Error("profile_passes: a shape and an update flag for every layer");
  if (steps < 1 || warmup < 0) throw course::Error("profile_passes: steps must be >= 1 and warmup >= 0");
  const size_t layers = step.layers.size();
  std::vector<std::string> rows = step.layers;
  rows.push_back(step.loss);

  PassTimes passes(rows);
  std::vector<Span> updates(layers);
  Span gather, accumulate, whole;
  {
    Observing observing(step, &passes);
    for (int s = 0; s < warmup + steps; ++s) {
      whole.begin();
      gather.begin();
      step.gather(s);
      gather.end();
      step.forward_backward();
      passes.end_step();
      accumulate.begin();
      step.accumulate(s);
      accumulate.end();
      step.begin_update();
      for (size_t i = 0; i < layers; ++i) {
        if (!step.has_update[i]) continue;
        updates[i].begin();
        step.update(i);
        updates[i].end();
      }
      whole.end();
      CUDA_CHECK(cudaEventSynchronize(whole.stop));
      const bool measured = s >= warmup;
      passes.collect(measured);
      if (!measured) continue;
      whole.collect(), gather.collect(), accumulate.collect();
      for (size_t i = 0; i < layers; ++i)
        if (step.has_update[i]) updates[i].collect();
    }
  }
  const course::TimingStats fused = course::time_gpu([&] { step.fused_update(); }, 3, 20);

  PassProfile p;
  p.steps = steps, p.warmup = warmup;
  p.step_ms = whole.ms / steps;
  p.fused_update_ms = fused.median_ms, p.fused_repeats = fused.repeats;
  p.rows.push_back({"gather", step.gather_shape, gather.ms / steps, 0, 0, false});
  for (size_t i = 0; i < layers; ++i)
    p.rows.push_back({step.layers[i], step.shapes[i], passes.forward_ms[i] / steps, passes.backward_ms[i] / steps,
                      updates[i].ms / steps, bool(step.has_update[i])});
  // The loss row holds its forward and backward and the loss's sum.
  p.rows.push_back({"loss", "softmax-CE", (passes.forward_ms[layers] + passes.backward_ms[layers] + accumulate.ms) / steps,
                    0, 0, false});
  return p;
}

void print_pass_profile(std::FILE* out, const PassProfile& p, const std::string& title, size_t parameters) {
  auto pct = [&](double ms) { return p.step_ms > 0 ? 100.0 * ms / p.step_ms : 0.0; };
  std::fprintf(out, "\nprofile: %s, mean over %d steps after %d warm-up (CUDA events)\n", title.c_str(), p.steps,
               p.warmup);
  std::fprintf(out, "%-8s %-18s %11s %12s %10s %10s %9s\n", "layer", "output", "forward ms", "backward ms",
               "update ms", "total ms", "% of step");
  double sum = 0;
  for (const PassProfileRow& r : p.rows) {
    char update[16] = "-";
    if (r.has_update) std::snprintf(update, sizeof update, "%.4f", r.update_ms);
    const double total = r.forward_ms + r.backward_ms + r.update_ms;
    std::fprintf(out, "%-8s %-18s %11.4f %12.4f %10s %10.4f %8.1f%%\n", r.name.c_str(), r.shape.c_str(), r.forward_ms,
                 r.backward_ms, update, total, pct(total));
    sum += total;
  }
  std::fprintf(out, "%-8s %-18s %46.4f %8.1f%%\n", "sum", "of the rows", sum, pct(sum));
  std::fprintf(out, "%-8s %-18s %46.4f %8.1f%%\n", "step", "events around it", p.step_ms, 100.0);
  std::fprintf(out,
               "update as trained: one launch over all %zu parameters: %.4f ms (median of %d)\n"
               "(the loss row holds softmax-CE forward and backward and the loss accumulation)\n\n",
               parameters, p.fused_update_ms, p.fused_repeats);
}

}  // namespace framework
