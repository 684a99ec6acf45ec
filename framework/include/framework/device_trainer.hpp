#pragma once
// The course framework: the GPU trainers' run, from the checked outputs to the manifest. A lesson
// hands it what is its own: the network, the optimizer, the ORDER of an epoch's examples, ONE
// TRAINING STEP on the device and the test set's evaluation; the run does the rest the same way for
// every lesson: the memory check, the first lines, --profile, the epochs in stretches between two
// progress reports (each replayed from a CUDA graph where the lesson captures them), the NaN watch,
// metrics.csv, --save's .npy files, the pictures and run.txt.
#include <cuda_runtime_api.h>  // cudaStream_t

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "course/idx.hpp"
#include "framework/device_data.hpp"
#include "framework/device_network.hpp"
#include "framework/epoch_counters.hpp"
#include "framework/epoch_log.hpp"
#include "framework/run_files.hpp"
#include "framework/step_profile.hpp"
#include "framework/train_config.hpp"
#include "framework/training_data.hpp"

namespace framework {

// The optimizer as the run sees it: one update of every parameter (a launch on `stream`), and for
// --profile the update in pieces and its state saved and put back.
class DeviceUpdate {
 public:
  virtual ~DeviceUpdate() = default;
  virtual void step(cudaStream_t stream) = 0;
  // step() in pieces: begin_step() once (the step count), then update_range over parts of the
  // parameter store (offset and count in floats), together every float once.
  virtual void begin_step() = 0;
  virtual void update_range(size_t offset, size_t count, cudaStream_t stream = nullptr) = 0;
  virtual std::vector<float> download_state() const = 0;
  virtual void restore(const std::vector<float>& state, int steps) = 0;
  virtual int steps() const = 0;
  // The rate every update from now on uses (--lr-drops), replayed from a CUDA graph or not: the rate
  // lives in device memory, read by the update kernel when it runs, so one set of graphs serves every
  // rate. Written in the order of `stream` (after the updates enqueued there before it); not while a
  // stream is being captured.
  virtual void set_learning_rate(float lr, cudaStream_t stream) = 0;
};

// The test set through a network: loss, accuracy, every prediction and logit, the confusion matrix.
struct DeviceEvaluation {
  double loss = 0, accuracy = 0;
  std::vector<int> predictions;  // one per example
  std::vector<float> logits;     // count x classes
  std::vector<int> confusion;    // classes x classes: row = true label, column = predicted
};

// The kernels of a step that a lesson owns and the framework calls (the test set's evaluation, the
// layer profile): the batch's gather (examples order[first .. first+count) of `data` into x and
// labels), the loss's sum (row_loss's count values added to *loss_sum; a NaN or Inf marks *bad_step
// with `number` if it is still negative) and the right answers (each row's argmax into predictions,
// the matches with labels added to *correct). Each launches on `stream` and does not wait.
struct StepKernels {
  std::function<void(const DeviceDataset& data, const int* order, int first, int count, float* x, int* labels,
                     cudaStream_t stream)>
      gather;
  std::function<void(const float* row_loss, int count, int number, double* loss_sum, int* bad_step,
                     cudaStream_t stream)>
      accumulate;
  std::function<void(const float* logits, const int* labels, int count, int classes, int* predictions, int* correct,
                     cudaStream_t stream)>
      count_correct;
};

// Runs `data` in order through the network (its forward pass and loss, as it is set:
// set_training(false) first, for dropout), max_batch examples at a time, on the network's stream,
// counting with `kernels`. It waits for the GPU once, at the end (an evaluation is a report point).
DeviceEvaluation evaluate_on_device(DeviceNetwork& net, const DeviceDataset& data, const StepKernels& kernels);

// One training step: examples order[first .. first + count) of `data`, gathered into x and labels,
// through the network and the update; the batch's loss summed into counters.loss_sum (a NaN marks
// counters.bad_step() with `number`, the step's number within the epoch counted from 1; within the
// whole run in a timed run, timed_run.hpp) and its
// right answers into counters.correct() (predictions: scratch for count ints). Every launch on
// `stream` (or a stream joined back to it): the host never waits.
struct StepArgs {
  DeviceNetwork& net;
  DeviceUpdate& update;
  const DeviceDataset& data;
  const int* order;
  int first, count, number;
  float* x;
  int* labels;
  int* predictions;
  EpochCounters& counters;
  cudaStream_t stream;
};

struct DeviceRun {
  std::string program;  // for the message without a GPU, e.g. "train_mnist on the GPU"
  // What the lesson builds once the outputs are checked: the network for batches of up to max_batch
  // (every launch on `stream`), and its optimizer. Shared pointers: what a lesson returns may live
  // inside something bigger of its own (lesson 13's replica holds both).
  std::function<std::shared_ptr<DeviceNetwork>(const ModelSpec& spec, const std::vector<Parameter>& init,
                                               int max_batch)> network;
  std::function<std::shared_ptr<DeviceUpdate>(DeviceNetwork& net)> optimizer;
  std::string optimizer_text;  // for the first line: "sgd lr 0.05 momentum 0.9"
  float lr = 0;                // the loss watch's learning rate
  std::function<std::string(DeviceNetwork& net)> network_text;  // "conv auto (...)", "fast network"
  std::function<std::string(DeviceNetwork& net)> describe;      // lines after the layers ("\n"-ended)
  std::function<void(DeviceNetwork& net)> check_steps;          // before anything trains
  std::function<std::vector<int>(int n, uint64_t seed, int epoch)> epoch_order;
  std::function<void(const StepArgs& step)> step;
  std::function<DeviceEvaluation(DeviceNetwork& net, const DeviceDataset& test)> evaluate;
  // Where the steps launch (nullptr: the network's own stream), and how a stretch of them is
  // replayed (unset: enqueued each time).
  cudaStream_t stream = nullptr;
  std::function<std::function<void()>(const std::function<void()>& enqueue)> capture;
  std::string steps_text;  // "steps: ..." line ("" : none)
  // --profile: one step kernel by kernel and as a graph this captures; or, unset, layer_profile.
  StepCapture profile_capture;
  std::function<void(DeviceNetwork& net, DeviceUpdate& update, const DeviceDataset& train, int batch, int steps)>
      layer_profile;
  bool profile = false;
  int profile_steps = 200;
  // Pictures of the network itself (besides the run's): their names, and what draws them (returns
  // the names it wrote).
  std::vector<std::string> network_pictures;
  std::function<std::vector<std::string>(DeviceNetwork& net, const RunFiles& files, const course::Dataset& test,
                                         const DeviceDataset& test_on_device)>
      draw_network;
  // A task whose outputs are not classes (a box regression): the name of its score, and what it
  // does with the last evaluation instead of drawing misclassified.png and confusion.png: prints
  // its report and, under --out, draws result_pictures (returns the names it wrote). Unset: a
  // classifier's.
  ScoreName score;
  std::vector<std::string> result_pictures;
  std::function<std::vector<std::string>(const DeviceEvaluation& eval, const course::Dataset& test,
                                         const RunFiles& files)>
      report_results;
};

constexpr int kEvalBatch = 1000;  // examples per forward pass when the test set is evaluated

// A finished run's files, the weights first (a picture that cannot be written then costs no trained
// model): with --save, `params()` and the test logits as .npy files; with --out, beside metrics.csv
// (written by the EpochLog), what draw_network draws (unset: nothing; it returns the names it
// wrote), misclassified.png and confusion.png; then run.txt. Says on stdout what it wrote.
// report_results (set): called instead of drawing misclassified.png and confusion.png, with or
// without --out (DeviceRun::report_results).
void finish_run(const RunFiles& files, const std::function<std::vector<Parameter>()>& params,
                const DeviceEvaluation& eval, const course::Dataset& test, int classes,
                const std::function<std::vector<std::string>()>& draw_network = nullptr,
                const std::function<std::vector<std::string>()>& report_results = nullptr);

// Trains on `data` (loaded and checked by load_training_data(config)) and evaluates after every
// epoch; throws course::Error on bad input, out of device memory or a NaN loss.
TrainSummary train_on_device(const TrainConfig& config, const TrainingData& data, const DeviceRun& run);

}  // namespace framework
