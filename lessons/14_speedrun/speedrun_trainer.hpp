#pragma once
// Lesson 14 (given): the speedrun trainer. It runs one recipe for several seeds and reports what
// the rules (README) ask for:
//   - training time: CUDA events on the training stream around the whole run, from the data
//     already on the GPU (every epoch's order uploaded first) to the final weights; evaluation,
//     building the network and capturing the graphs are not in it (reported beside it);
//   - accuracy: of the final weights, on the validation split (--val N: the last N training
//     images, never trained on; the test set is then not touched) or on the test set;
//   - over the seeds: the mean and the minimum accuracy, the median training time.
// Every step of the run (gather, your shifts, forward, your loss, backward, your update with your
// schedule's rate) is captured into CUDA graphs, one per epoch, and replayed.
#include <cstdint>
#include <string>
#include <vector>

#include "host_training.hpp"
#include "speedrun_parts.hpp"
#include "framework/training_data.hpp"

namespace speedrun {

struct Recipe {
  std::string model = "speedrun";   // a named network (models/) or a layer list, as lesson 12's
  framework::OptimizerKind optimizer = framework::OptimizerKind::adam;  // chosen on a validation split (README)
  int epochs = 3, batch = 256;
  float lr = 0.f;                   // the schedule's peak; 0: the optimizer's default (below)
  float momentum = 0.9f, weight_decay = 5e-4f;
  Schedule schedule = Schedule::one_cycle;
  float warmup = 0.2f;              // fraction of the steps the one-cycle schedule rises over
  float smoothing = 0.1f;           // your 14.2; 0: none
  int shift = 1;                    // your 14.3: pixels each image may move; 0: none
  bool graph = true;                // false: every launch one by one (what the graphs earn)
  bool branches = true;             // weight gradients and the loss sum on a side stream (lesson 09's 09.12)
  bool thin = true;                 // the first conv, ReLU and pool in one kernel where it runs (lesson 09's 09.13)
  // "fp32" (lesson 09's kernels), or "bf16": the convolutions on lesson 10's Tensor Core kernels
  // (BF16 products, FP32 sums) and the other products in TF32, as lesson 10's train_mixed
  std::string precision = "fp32";
  uint64_t first_seed = 1;
  int seeds = 10;
  int val = 0;                      // > 0: validation split of that many training images; test unused
  bool profile = false;             // before the first seed's run: lesson 08's table of every pass (not timed)
  int profile_steps = 200;          // the steps that table averages over
  float default_lr() const { return optimizer == framework::OptimizerKind::adam ? 0.003f : 0.1f; }
  float peak_lr() const { return lr > 0.f ? lr : default_lr(); }
};

struct SeedResult {
  uint64_t seed = 0;
  double accuracy = 0, loss = 0;     // on the evaluated split
  double train_ms = 0;               // CUDA events: the run
  double setup_ms = 0;               // host clock: the network, its buffers, the capture
  double whole_ms = 0;               // host clock: set-up, run and evaluation
};

struct SpeedrunResult {
  std::vector<SeedResult> runs;
  std::string evaluated;  // "test" or "validation"
  double mean_accuracy() const;
  double min_accuracy() const;
  double median_train_ms() const;
};

// The recipe's model for these images: its layer list (lessons/14_speedrun/models/<name>.txt, a
// lesson 12 model file, or a list), checked to run on a stream (lesson 12's layers).
host_training::ModelSpec speedrun_model(const Recipe& recipe, const framework::TrainingData& data,
                                        const std::string& models_dir);

// Throws course::Error (naming the flag) for a recipe that cannot run on these data: sizes < 1, a
// --val that leaves nothing to train on, an unknown precision, more steps than a run may capture.
void check_recipe(const Recipe& recipe, const framework::TrainingData& data);

// Runs the recipe once per seed (first_seed, first_seed + 1, ...), one line each on stdout, and
// writes out_dir/runs.csv (out_dir empty: no file). Throws course::Error on bad input or a NaN loss.
SpeedrunResult run_speedrun(const Recipe& recipe, const framework::TrainingData& data,
                            const host_training::ModelSpec& spec, const std::string& out_dir);

}  // namespace speedrun
