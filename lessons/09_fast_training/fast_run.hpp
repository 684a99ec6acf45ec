#pragma once
// Lesson 09's fast network (09.8) as the framework's GPU trainer runs it (given): every step on a
// stream of its own, and with --graph (the default for SGD) the steps replayed from CUDA graphs
// (09.9) instead of launched one by one. train_fast hands it to the trainer with lesson 08's kit
// (the step's kernels and update rules); a later lesson hands it other kernels for the same network.
//
// A graph bakes in every launch's arguments, the batch's first example included, so the epoch is
// captured once as graphs of framework::kReportEvery steps each (one per stretch between two progress
// reports, the last one shorter): about 10 graphs for MNIST at batch 128. Each epoch uploads its
// new order into the same buffer and replays them. Adam's bias corrections change every step, so
// with --optimizer adam the steps are launched one by one. With --branches (the default) the weight
// gradients, the loss sum and the accuracy count run on a second stream beside the rest (09.12); with
// --thin (the default) the first block runs on the thin kernels where they run it (09.13).
#include <string>

#include "branch.hpp"
#include "fast_network.hpp"
#include "step_graph.hpp"
#include "host_training.hpp"
#include "framework/gpu_trainer.hpp"
#include "framework/training_data.hpp"

namespace fast_training {

struct FastTrainConfig : framework::GpuTrainConfig {
  bool graph = true;  // replay the steps from CUDA graphs (SGD only)
  bool branches = true;  // weight gradients and counters on a side stream (09.12)
  bool thin = true;      // the first block's conv, ReLU and pool on the thin kernels where they run (09.13)
  ConvEngine conv = ConvEngine::tiled;  // 09.10's kernel where it runs (FastNetwork says which convs)
  std::shared_ptr<const ConvKernels> conv_kernels;  // other kernels for the convs they run (plugged in)
  const GemmProducts* products = nullptr;  // the implicit-GEMM engine's products (null: this lesson's FP32)
};

// What the framework's trainer needs of the fast network for a run of `config`: the network, its
// checks of your steps, its lines, its graphs (`run`) and the counters' side stream (`counters`,
// unset with --branches off). `program` names the run in the message without a GPU. Holds the
// step's streams: it outlives the training (it cannot be copied or moved).
class FastRun {
 public:
  FastRun(const FastTrainConfig& config, const std::string& program);
  FastRun(const FastRun&) = delete;
  FastRun& operator=(const FastRun&) = delete;

  framework::DeviceRun run;
  framework::CounterStream counters;
  // Lesson 08's kit: its step's kernels and update rules (its layers are not used: the network is `run`'s).
  static framework::GpuKit kit();

 private:
  FastTrainConfig config_;
  Stream stream_;  // every step's launch goes here (the default stream cannot be captured)
  Branch branch_;  // 09.12: a second stream beside it
};

}  // namespace fast_training
