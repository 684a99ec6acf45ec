#pragma once
// The course framework: where a training step's time goes, layer by layer (the --profile of lesson
// 08's trainer and of the trainers built on it).
//
// Each measured step runs the network's own forward_backward (the one that trains), with a CUDA
// event recorded wherever a layer's or the loss's pass starts (the network tells a PassObserver), so
// a pass lasts until the next one starts; the batch's gather, the loss's sum and each layer's
// parameter update run as pieces of their own between events. The trainer saves and restores what
// the steps change (weights, optimizer state) around the profile; it waits for the GPU after every
// step, which is allowed here: the user asked for a report.
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace framework {

// Told when a pass of a layer or of the loss starts. A network's layers tell it as each pass opens;
// without an observer (training) that costs one null test.
class PassObserver {
 public:
  virtual ~PassObserver() = default;
  // who: the layer's (or the loss's) name; backward: false for a forward pass.
  virtual void pass_starts(const std::string& who, bool backward) = 0;
};

// One training step, piece by piece, as the profile runs it. Every launch goes to the default stream.
struct ProfiledStep {
  std::vector<std::string> layers;   // the network's layers, in order, named as the observer hears them
  std::vector<std::string> shapes;   // each layer's output, e.g. "[128,32,28,28]"
  std::vector<bool> has_update;      // whether a layer has parameters to update
  std::string loss = "loss";         // the loss's name, as the observer hears it
  std::string gather_shape;          // the batch's shape, e.g. "[128,784]"
  std::function<void(PassObserver*)> observe;  // attach the observer (nullptr: detach it)
  std::function<void(int step)> gather;        // the batch of step `step`
  std::function<void()> forward_backward;      // the network's own passes; tells the observer
  std::function<void(int step)> accumulate;    // the loss's sum
  std::function<void()> begin_update;          // once before the layers' updates (a step counter)
  std::function<void(size_t layer)> update;    // one layer's parameters
  std::function<void()> fused_update;          // the update as training runs it: one launch
};

struct PassProfileRow {
  std::string name, shape;
  double forward_ms = 0, backward_ms = 0, update_ms = 0;  // means over the measured steps
  bool has_update = false;
};

struct PassProfile {
  std::vector<PassProfileRow> rows;  // the gather, the layers, the loss (its sum included)
  double step_ms = 0;                // events around the whole step
  double fused_update_ms = 0;        // median of the one-launch update
  int fused_repeats = 0;
  int steps = 0, warmup = 0;
};

// Runs warmup + steps steps and times the measured ones. Throws course::Error when a hook is
// missing, when steps < 1 or warmup < 0, or when forward_backward does not run exactly one forward
// and one backward pass of every layer and of the loss (then a row's time would not be its own).
PassProfile profile_passes(const ProfiledStep& step, int steps, int warmup);

// The table: a row each, its share of the step, the sum of the rows against the step, the update as
// trained. title: the first line's description ("model a, conv auto, batch 128").
void print_pass_profile(std::FILE* out, const PassProfile& profile, const std::string& title, size_t parameters);

}  // namespace framework
