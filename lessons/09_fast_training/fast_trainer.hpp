#pragma once
// Lesson 09's trainer (train_fast): the framework's GPU trainer (its step with lesson 08's kernels)
// on the fast network (09.8), every step on a stream of its own, and with --graph (the default for
// SGD) the steps replayed from CUDA graphs (09.9) instead of launched one by one.
//
// A graph bakes in every launch's arguments, the batch's first example included, so the epoch is
// captured once as graphs of framework::kReportEvery steps each (one per stretch between two progress
// reports, the last one shorter): about 10 graphs for MNIST at batch 128. Each epoch uploads its
// new order into the same buffer and replays them. Adam's bias corrections change every step, so
// with --optimizer adam the steps are launched one by one. With --branches (the default) the weight
// gradients, the loss sum and the accuracy count run on a second stream beside the rest (09.12); with
// --thin (the default) the first block runs on the thin kernels where they run it (09.13).
#include "fast_network.hpp"
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

// Trains on `data` as train_mnist does (same recipe, same order of batches, same
// reports), evaluates after every epoch, writes metrics.csv and the pictures of the results, and
// with --save the weights and test logits as .npy files (lesson 02's layout).
framework::TrainSummary train_fast(const FastTrainConfig& config, const framework::TrainingData& data);

}  // namespace fast_training
