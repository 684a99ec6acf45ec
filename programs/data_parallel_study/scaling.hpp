#pragma once
// Lesson 13's study (a program above the lessons): the measurements of lesson13_data_parallel. Every figure
// is timed in this run on this machine; the one-GPU figures are the network's own step (no NCCL at all),
// the N-GPU figures the data-parallel step of 13.1-13.3 on N ranks.
#include <string>
#include <vector>

#include "allreduce_sweep.hpp"
#include "course/chart.hpp"
#include "host_training.hpp"
#include "network_kinds.hpp"

namespace data_parallel {

// The networks of the study, from little computation per parameter to much: four on lesson 09's
// fast network, then lesson 12's two largest layer lists (mnist_cnn on 1x28x28 images, colour_cnn on
// CIFAR-10's 3x32x32) on lesson 12's layers.
struct StudyNetwork {
  std::string name, description;
  host_training::ModelSpec spec;
  NetworkKind kind = NetworkKind::fast_network;
};
std::vector<StudyNetwork> study_networks();
// The networks of `all` named in "a,colour_cnn" (in that order); "" keeps them all. An unknown name
// or an empty item is a course::Error listing the names there are.
std::vector<StudyNetwork> pick_networks(const std::vector<StudyNetwork>& all, const std::string& names);
// "32,64,1024" -> {32, 64, 1024}: batches a GPU, each 1 .. 65536; else a course::Error naming --batches.
std::vector<int> parse_batches(const std::string& text);

struct NetworkCost {
  size_t parameters = 0;
  double step_flops_per_example = 0;  // forward + backward, 09.1's counts (first layer: no dx)
};
NetworkCost network_cost(const host_training::ModelSpec& spec);

// Prints, for each network: parameters, gradient bytes, GFLOP per example, and the bytes an
// all-reduce moves through each GPU per step with `ranks` GPUs; with a model (13.4), also what the
// model says one all-reduce of all the gradients takes.
void print_network_table(const std::vector<StudyNetwork>& networks, int ranks, const AlphaBeta* model = nullptr);

// NCCL all-reduce of float buffers from 4 KiB to 256 MiB on `ranks` GPUs: time, algorithm bandwidth
// (bytes / time) and bus bandwidth (x 2 (N-1) / N: what each GPU's links carry). Also written
// to csv_path (allreduce_csv) and returned, for 13.4's fit.
AllReduceSweep print_allreduce_table(int ranks, const std::string& csv_path, bool quick);

struct ScalingRow {
  std::string network;
  size_t parameters = 0;
  int batch_per_gpu = 0, ranks = 1;
  double gflop_per_gpu_step = 0;
  double one_gpu_ms = 0;          // the network's step on one GPU (no NCCL), batch_per_gpu examples
  double no_overlap_ms = 0;       // the data-parallel step on `ranks` GPUs, all-reduce after backward
  double overlap_ms = 0;          // ... bucket by bucket during backward (13.3)
  std::vector<double> bucket_bytes;  // the gradients' buckets with overlap, in backward order (ranks >= 2)
  double images_per_s(double ms) const { return ranks * batch_per_gpu / (ms * 1e-3); }
};

// Every network at every per-GPU batch: steps replayed from CUDA graphs on synthetic data (the
// kernels do not depend on the values), the median of `repeats` replays of `steps` steps.
std::vector<ScalingRow> measure_scaling(const std::vector<StudyNetwork>& networks, const std::vector<int>& batches,
                                        int ranks, int steps, int repeats);
// The picture: speed-up of N GPUs (overlapped) over one GPU at the same batch a GPU, against the
// GFLOP each GPU computes a step, one line per network, log x.
// `link` names the way the gradients travel when it is not the default (e.g. "NO P2P").
course::ChartSpec scaling_chart(const std::vector<ScalingRow>& rows, const std::string& link = "");
// "" normally; "NO P2P" when NCCL_P2P_DISABLE=1 keeps NCCL off the GPUs' direct links (NVLink):
// the gradients then go through host memory, a much slower link.
std::string link_note();
// The table (markdown), scaling.csv and scaling.png (scaling_chart). With a model (13.4) and two
// GPUs or more, also the speed-ups the model predicts (predicted_step_ms) beside the measured ones,
// in the table and in scaling.csv.
void report_scaling(const std::vector<ScalingRow>& rows, const std::string& out_dir, const std::string& gpu,
                    const AlphaBeta* model = nullptr);

}  // namespace data_parallel
