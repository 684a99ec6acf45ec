#pragma once
// The course framework: the GPU trainer of every lesson from 08 on. A lesson registers what is its
// own as a GpuKit (the layers its network is built from, the step's kernels, the optimizers'
// update kernels, the order of an epoch's examples); the trainer puts them together into ONE
// TRAINING STEP and hands it to the run (device_trainer.hpp), which does the rest:
//
//   gather (kit.kernels) -> forward + loss + backward (the network: a LayerStack's chain, or a
//   lesson's own) -> loss sum and NaN flag, right answers (kit.kernels) -> ONE update launch
//   (the rule of kit.rules for --optimizer)
//
// all on the device, the host never waiting. A later lesson changes the run by setting fields of
// the DeviceRun it hands in (its own network, a stream and graphs, checks of its steps); what it
// leaves unset the trainer fills from the kit.
#include <cuda_runtime_api.h>  // cudaStream_t

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "framework/device_trainer.hpp"
#include "framework/layer_stack.hpp"
#include "framework/optimizer.hpp"
#include "framework/train_config.hpp"
#include "framework/training_data.hpp"

namespace framework {

// The GPU trainers' defaults: what a GPU trains in seconds (a CPU in half an hour an epoch).
// Fields not set here keep TrainConfig's (the CPU trainer's).
struct GpuTrainConfig : TrainConfig {
  GpuTrainConfig() {
    model = "a";
    epochs = 5;
    batch = 128;
    default_sgd_lr = 0.05f;  // the setting of lesson 08's measured runs
  }
};

// What a lesson registers with the trainer.
struct GpuKit {
  // The network of layers for batches of up to max_batch, from the initial weights.
  std::function<std::shared_ptr<LayerStack>(const ModelSpec& spec, const std::vector<Parameter>& init,
                                            int max_batch)>
      layers;
  // What its layers run, for the first lines ("conv auto (conv1 direct, conv2 im2col)").
  std::function<std::string(const LayerStack& net)> layers_text;
  StepKernels kernels;                         // the batch's gather, the loss sum, the right answers
  std::vector<const DeviceUpdateRule*> rules;  // for kind k the last rule of kind k trains
  std::function<std::vector<int>(int n, uint64_t seed, int epoch)> epoch_order;
};

// Where the step's counters run, when not on the step's stream (a second stream beside it): fork()
// is called once the passes are enqueued and returns the stream the loss sum and the right answers
// go to; join() once the update is enqueued (the next forward overwrites what they read).
struct CounterStream {
  std::function<cudaStream_t()> fork;
  std::function<void()> join;
};

// Trains on `data` (loaded and checked by load_training_data(config)) with the kit, evaluates after
// every epoch, writes the files. `run`: what the lesson sets itself (program, network, stream,
// capture, check_steps, describe, ...); left unset: the network of kit.layers (on run.stream when
// set) with its pictures and layer profile, the optimizer of kit.rules, the kit's epoch order, the
// step above and the evaluation on kit.kernels. Throws course::Error on bad input, out of device
// memory or a NaN loss.
TrainSummary train_on_gpu(const TrainConfig& config, const TrainingData& data, const GpuKit& kit, DeviceRun run = {},
                          const CounterStream& counters = {});

}  // namespace framework
