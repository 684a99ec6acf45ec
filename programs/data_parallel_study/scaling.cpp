// Lesson 13's study (a program above the lessons): the measurements of lesson13_data_parallel (scaling.hpp).
#include "scaling.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "course/atomic_file.hpp"
#include "course/chart.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "data_parallel.hpp"
#include "fast_training.hpp"
#include "framework/nccl_check.hpp"
#include "optimizer.hpp"
#include "replica.hpp"
#include "scaling_model.hpp"
#include "step_graph.hpp"

namespace data_parallel {

namespace hs = host_training;

namespace {

// A layer list of lesson 12's models/ folder, for images of channels x height x width.
hs::ModelSpec lesson12_model(const std::string& name, int channels, int height, int width) {
  hs::ModelSpec spec = hs::model_by_name(std::string("@") + COURSE_MODELS_DIR + "/" + name + ".txt");
  spec.name = name;
  spec.in_channels = channels, spec.height = height, spec.width = width;
  hs::plan_layers(spec);  // throws if the file and the image size do not fit
  return spec;
}

}  // namespace

std::vector<StudyNetwork> study_networks() {
  auto spec = [](const std::string& name, std::vector<hs::LayerSpec> layers) {
    hs::ModelSpec s;
    s.name = name;
    s.layers = std::move(layers);
    return s;
  };
  using hs::conv_layer, hs::dense_layer, hs::maxpool_layer, hs::relu_layer;
  return {
      {"mlp", "784-512-512-10, ReLU",
       spec("mlp", {dense_layer(512), relu_layer(), dense_layer(512), relu_layer(), dense_layer(10)})},
      {"a", "model A: 5x5x32, 5x5x64, 3136-512-10", hs::model_a()},
      {"a_wide", "model A twice as wide: 5x5x64, 5x5x128, 6272-1024-10",
       spec("a_wide", {conv_layer(64, 5, 2), relu_layer(), maxpool_layer(), conv_layer(128, 5, 2), relu_layer(),
                       maxpool_layer(), dense_layer(1024), relu_layer(), dense_layer(10)})},
      {"conv3", "three convs: 5x5x64, 5x5x128, 3x3x256, 2304-10",
       spec("conv3", {conv_layer(64, 5, 2), relu_layer(), maxpool_layer(), conv_layer(128, 5, 2), relu_layer(),
                      maxpool_layer(), conv_layer(256, 3, 1), relu_layer(), maxpool_layer(), dense_layer(10)})},
      {"mnist_cnn", "lesson 12: 3x3x32, 3x3x64, dropout, 9216-128-10, dropout",
       lesson12_model("mnist_cnn", 1, 28, 28), NetworkKind::layer_list},
      {"colour_cnn", "lesson 12, 3x32x32 images: 3x3x64 twice, 3x3x128 twice, 3x3x256, 4096-256-10",
       lesson12_model("colour_cnn", 3, 32, 32), NetworkKind::layer_list},
  };
}

std::vector<StudyNetwork> pick_networks(const std::vector<StudyNetwork>& all, const std::string& names) {
  if (names.empty()) return all;
  std::string known;
  for (const StudyNetwork& n : all) known += (known.empty() ? "" : ", ") + n.name;
  std::vector<StudyNetwork> picked;
  std::stringstream in(names);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const StudyNetwork& n) { return n.name == item; });
    if (it == all.end())
      throw course::Error("--networks: no network '" + item + "' in the study (there are: " + known + ")");
    picked.push_back(*it);
  }
  if (names.back() == ',') throw course::Error("--networks: an empty name in '" + names + "' (there are: " + known + ")");
  return picked;
}

std::vector<int> parse_batches(const std::string& text) {
  const std::string what = "--batches must be a comma-separated list of batch sizes a GPU, each 1 .. 65536, got '" +
                           text + "'";
  std::vector<int> batches;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    int b = 0;
    try {
      b = std::stoi(item, &used);
    } catch (const std::exception&) {
      throw course::Error(what);
    }
    if (used != item.size() || b < 1 || b > 65536) throw course::Error(what);
    batches.push_back(b);
  }
  if (batches.empty() || text.back() == ',') throw course::Error(what);
  return batches;
}

NetworkCost network_cost(const hs::ModelSpec& spec) {
  NetworkCost c;
  for (const hs::Parameter& p : hs::init_parameters(spec, 0)) c.parameters += p.value.size();
  const std::vector<hs::LayerPlan> plan = hs::plan_layers(spec);
  for (size_t i = 0; i < plan.size(); ++i)
    c.step_flops_per_example += fast_training::layer_pass_cost(plan[i], 1, false).flops +
                                fast_training::layer_pass_cost(plan[i], 1, true, i > 0).flops;
  return c;
}

void print_network_table(const std::vector<StudyNetwork>& networks, int ranks, const AlphaBeta* model) {
  std::printf("\n## The networks (counted, not timed)\n\n");
  std::printf("| network | layers | parameters | gradients (MB) | GFLOP per example (step) | all-reduce through each GPU, %d GPUs (MB per step) | flops per byte all-reduced, 128 a GPU |%s\n",
              ranks, model ? " one all-reduce of the gradients, model (us) |" : "");
  std::printf("|---|---|---:|---:|---:|---:|---:|%s\n", model ? "---:|" : "");
  for (const StudyNetwork& n : networks) {
    const NetworkCost c = network_cost(n.spec);
    const double grad_mb = c.parameters * 4e-6, moved = grad_mb * ring_link_share(ranks);
    std::printf("| %s | %s | %zu | %.2f | %.4f | %.2f | %.0f |", n.name.c_str(), n.description.c_str(), c.parameters,
                grad_mb, c.step_flops_per_example * 1e-9, moved,
                moved > 0 ? 128 * c.step_flops_per_example / (moved * 1e6) : 0.0);
    if (model) std::printf(" %.1f |", allreduce_model_seconds(*model, c.parameters * 4.0, ranks) * 1e6);
    std::printf("\n");
  }
  std::fflush(stdout);
}

AllReduceSweep print_allreduce_table(int ranks, const std::string& csv_path, bool quick) {
  std::vector<size_t> sizes;  // bytes
  for (size_t b = 4096; b <= (size_t(256) << 20); b *= quick ? 16 : 4) sizes.push_back(b);
  std::vector<double> ms(sizes.size());
  framework::run_ranks(framework::first_devices(ranks), [&](const framework::Rank& rank) {
    course::DeviceBuffer<float> data(sizes.back() / sizeof(float));
    data.zero();
    fast_training::Stream stream;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const size_t count = sizes[i] / sizeof(float);
      for (int w = 0; w < 3; ++w)
        NCCL_CHECK(ncclAllReduce(data.data(), data.data(), count, ncclFloat, ncclSum, rank.comm, stream.get()));
      std::vector<double> times;
      for (int r = 0; r < 10; ++r) {
        course::CudaEventTimer timer;
        timer.start(stream.get());
        NCCL_CHECK(ncclAllReduce(data.data(), data.data(), count, ncclFloat, ncclSum, rank.comm, stream.get()));
        timer.stop(stream.get());
        times.push_back(timer.milliseconds());
      }
      if (rank.rank == 0) ms[i] = course::median(times);
    }
  });
  std::printf("\n## NCCL all-reduce on %d GPUs (float, sum, in place; median of 10)%s\n\n", ranks,
              link_note().empty() ? "" : ", NCCL_P2P_DISABLE=1: through host memory");
  std::printf("| size | time (us) | algorithm bandwidth (GB/s) | bus bandwidth (GB/s) |\n|---:|---:|---:|---:|\n");
  AllReduceSweep sweep;
  sweep.ranks = ranks;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const double alg = sizes[i] / (ms[i] * 1e-3) * 1e-9, bus = alg * ring_link_share(ranks);
    std::printf("| %s | %.1f | %.1f | %.1f |\n", bytes_text(double(sizes[i])).c_str(), ms[i] * 1e3, alg, bus);
    sweep.points.push_back({double(sizes[i]), ms[i] * 1e-3});
  }
  course::write_file_atomically(csv_path, allreduce_csv(sweep));
  std::printf("wrote %s\n", csv_path.c_str());
  std::fflush(stdout);
  return sweep;
}

namespace {

// A batch of synthetic MNIST-shaped data on the current GPU: values in [0, 1), labels 0..9.
struct SyntheticBatch {
  course::DeviceBuffer<float> x;
  course::DeviceBuffer<int> labels;
  SyntheticBatch(const hs::ModelSpec& spec, int count, uint64_t seed) {
    course::Rng rng(seed);
    std::vector<float> hx(size_t(count) * spec.in_channels * spec.height * spec.width);
    for (float& v : hx) v = rng.uniform(0.0f, 1.0f);
    std::vector<int> hl(count);
    for (int& l : hl) l = rng.uniform_int(spec.classes);
    x = course::DeviceBuffer<float>(hx);
    labels = course::DeviceBuffer<int>(hl);
  }
};

// The median time of one step: `repeats` replays of a graph of `steps` steps, each between events.
double time_graph(const fast_training::GraphExec& graph, cudaStream_t stream, int steps, int repeats,
                  framework::HostBarrier* barrier) {
  graph.launch(stream);  // warm-up: first-launch costs, caches
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    if (barrier) barrier->arrive_and_wait();  // every rank starts together
    course::CudaEventTimer timer;
    timer.start(stream);
    graph.launch(stream);
    timer.stop(stream);
    times.push_back(timer.milliseconds() / steps);
  }
  return course::median(times);
}

// The network's own step on one GPU: the baseline, with no NCCL in it.
double time_one_gpu(const StudyNetwork& n, int batch, int steps, int repeats) {
  CUDA_CHECK(cudaSetDevice(0));
  fast_training::Stream stream;
  const std::unique_ptr<framework::DeviceNetwork> net = make_replica_network(
      n.kind, n.spec, hs::init_parameters(n.spec, 13), batch, stream.get(), fast_training::ConvEngine::tiled, 1);
  hs::OptimizerConfig opt;
  mnist_gpu::DeviceOptimizer optimizer(opt, net->parameters());
  const SyntheticBatch data(n.spec, batch, 1301);
  const fast_training::GraphExec graph(fast_training::capture_graph(stream.get(), [&] {
    for (int s = 0; s < steps; ++s) {
      net->forward_backward(data.x.data(), data.labels.data(), batch);
      optimizer.step(stream.get());
    }
  }));
  return time_graph(graph, stream.get(), steps, repeats, nullptr);
}

}  // namespace

std::vector<ScalingRow> measure_scaling(const std::vector<StudyNetwork>& networks, const std::vector<int>& batches,
                                        int ranks, int steps, int repeats) {
  std::vector<ScalingRow> rows;
  for (const StudyNetwork& n : networks) {
    const NetworkCost c = network_cost(n.spec);
    for (int b : batches) {
      ScalingRow row;
      row.network = n.name, row.parameters = c.parameters, row.batch_per_gpu = b, row.ranks = ranks;
      row.gflop_per_gpu_step = c.step_flops_per_example * b * 1e-9;
      row.one_gpu_ms = time_one_gpu(n, b, steps, repeats);
      rows.push_back(row);
      std::printf("  %-10s batch %4d: one GPU %.3f ms a step\n", n.name.c_str(), b, row.one_gpu_ms);
      std::fflush(stdout);
    }
  }
  if (ranks < 2) return rows;
  framework::HostBarrier barrier(ranks);
  framework::run_ranks(framework::first_devices(ranks), [&](const framework::Rank& rank) {
    for (ScalingRow& row : rows) {
      const StudyNetwork& n = *std::find_if(networks.begin(), networks.end(),
                                            [&](const StudyNetwork& s) { return s.name == row.network; });
      const int count = row.batch_per_gpu * ranks;
      const SyntheticBatch data(n.spec, count, 1302);  // the same on every rank: each reads its shard
      for (const bool overlap : {false, true}) {
        ReplicaOptions options;
        options.batch = count, options.overlap = overlap, options.network = n.kind;
        Replica replica(rank, n.spec, hs::init_parameters(n.spec, 13), options);
        const fast_training::GraphExec graph(fast_training::capture_graph(replica.stream(), [&] {
          for (int s = 0; s < steps; ++s) replica.step_on_batch(data.x.data(), data.labels.data(), count);
        }));
        const double ms = time_graph(graph, replica.stream(), steps, repeats, &barrier);
        if (rank.rank == 0) (overlap ? row.overlap_ms : row.no_overlap_ms) = ms;
        if (rank.rank == 0 && overlap) {
          row.bucket_bytes.clear();
          for (const Bucket& b : make_buckets(replica.parameters(), options.bucket_floats))
            row.bucket_bytes.push_back(b.count * double(sizeof(float)));
        }
      }
      if (rank.rank == 0) {
        std::printf("  %-10s batch %4d a GPU: %d GPUs %.3f ms a step, %.3f ms with overlap\n", row.network.c_str(),
                    row.batch_per_gpu, ranks, row.no_overlap_ms, row.overlap_ms);
        std::fflush(stdout);
      }
    }
  });
  return rows;
}

std::string link_note() {
  const char* p2p = std::getenv("NCCL_P2P_DISABLE");
  return p2p != nullptr && std::string(p2p) == "1" ? "NO P2P" : "";
}

course::ChartSpec scaling_chart(const std::vector<ScalingRow>& rows, const std::string& link) {
  const int ranks = rows.empty() ? 2 : rows.front().ranks;
  course::ChartSpec chart = speedup_chart_frame(
      "DATA PARALLEL ON " + std::to_string(ranks) + " GPUS" + (link.empty() ? "" : ", " + link) +
          ": SPEED-UP OVER ONE GPU, SAME BATCH A GPU",
      "GFLOP A GPU A STEP", ranks);
  std::map<std::string, size_t> series_of;
  for (const ScalingRow& r : rows) {
    if (!series_of.count(r.network)) {
      series_of[r.network] = chart.series.size();
      chart.series.push_back({r.network, {}, {}});
    }
    course::ChartSeries& s = chart.series[series_of[r.network]];
    s.x.push_back(r.gflop_per_gpu_step);
    s.y.push_back(r.images_per_s(r.overlap_ms) / (r.images_per_s(r.one_gpu_ms) / r.ranks));
  }
  return chart;
}

namespace {

// The rows as 13.4's model table and picture take them.
std::vector<MeasuredStep> measured_steps(const std::vector<ScalingRow>& rows) {
  std::vector<MeasuredStep> steps;
  for (const ScalingRow& r : rows)
    steps.push_back({r.network, long(r.parameters), r.batch_per_gpu, r.ranks, r.one_gpu_ms, r.no_overlap_ms,
                     r.overlap_ms, r.bucket_bytes});
  return steps;
}

}  // namespace

void report_scaling(const std::vector<ScalingRow>& rows, const std::string& out_dir, const std::string& gpu,
                    const AlphaBeta* model) {
  if (rows.empty()) return;
  const int ranks = rows.front().ranks;
  // One GPU's step at a batch, to compare N GPUs with one GPU taking the same (N times larger) batch.
  std::map<std::pair<std::string, int>, double> one_gpu;
  for (const ScalingRow& r : rows) one_gpu[{r.network, r.batch_per_gpu}] = r.one_gpu_ms;
  const std::string link = link_note().empty() ? "" : ", NCCL_P2P_DISABLE=1: through host memory";
  if (ranks < 2) {
    std::printf("\n## One GPU: images per second of each network's own step (%s)\n\n", gpu.c_str());
    std::printf("The N-GPU columns need two GPUs. Epoch: 60000 images at that rate.\n\n");
    std::printf("| network | parameters | batch | GFLOP a step | 1 GPU (img/s) | epoch (s) |\n");
    std::printf("|---|---:|---:|---:|---:|---:|\n");
  } else {
    std::printf("\n## Data-parallel training: images per second, %d GPUs (%s%s)\n\n", ranks, gpu.c_str(), link.c_str());
    std::printf("Speed-up: N GPUs with overlap against one GPU with the same batch per GPU; \"same step\": against one GPU\n"
                "taking the whole batch of all N (the same training, one GPU). Epoch: 60000 images at that rate.\n\n");
    std::printf("| network | parameters | batch a GPU | GFLOP a GPU a step | 1 GPU (img/s) | %d GPUs, all-reduce after backward (img/s) | %d GPUs, overlapped (img/s) | overlap gain | speed-up | speed-up, same step | epoch 1 GPU -> %d GPUs (s) |\n",
                ranks, ranks, ranks);
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  std::string csv = std::string(kScalingHeader) + "\n";
  for (const ScalingRow& r : rows) {
    const double one = r.images_per_s(r.one_gpu_ms) / r.ranks;  // one GPU: batch_per_gpu a step
    char line[512];
    if (ranks < 2) {
      std::printf("| %s | %zu | %d | %.3f | %.0f | %.2f |\n", r.network.c_str(), r.parameters, r.batch_per_gpu,
                  r.gflop_per_gpu_step, one, 60000 / one);
      std::snprintf(line, sizeof line, "%s,%zu,%d,%d,%.6f,%.6f,,,%.1f,,,,,,\n", r.network.c_str(), r.parameters,
                    r.batch_per_gpu, r.ranks, r.gflop_per_gpu_step, r.one_gpu_ms, one);
      csv += line;
      continue;
    }
    const double after = r.images_per_s(r.no_overlap_ms), overlapped = r.images_per_s(r.overlap_ms);
    const double speedup = overlapped / one;
    const auto same = one_gpu.find({r.network, r.batch_per_gpu * ranks});
    const double same_step = same == one_gpu.end() ? 0 : same->second / r.overlap_ms;
    char same_text[32] = "";
    if (same_step > 0) std::snprintf(same_text, sizeof same_text, "%.2f", same_step);
    std::printf("| %s | %zu | %d | %.3f | %.0f | %.0f | %.0f | %.2f | %.2f | %s | %.2f -> %.2f |\n", r.network.c_str(),
                r.parameters, r.batch_per_gpu, r.gflop_per_gpu_step, one, after, overlapped, r.no_overlap_ms / r.overlap_ms,
                speedup, same_text, 60000 / one, 60000 / overlapped);
    std::snprintf(line, sizeof line, "%s,%zu,%d,%d,%.6f,%.6f,%.6f,%.6f,%.1f,%.1f,%.1f,%.4f,%s,", r.network.c_str(),
                  r.parameters, r.batch_per_gpu, r.ranks, r.gflop_per_gpu_step, r.one_gpu_ms, r.no_overlap_ms,
                  r.overlap_ms, one, after, overlapped, speedup, same_text);
    csv += line;
    if (model)
      std::snprintf(line, sizeof line, "%.6f,%.6f\n", predicted_step_ms(r.one_gpu_ms, r.bucket_bytes, *model, ranks, false),
                    predicted_step_ms(r.one_gpu_ms, r.bucket_bytes, *model, ranks, true));
    else
      std::snprintf(line, sizeof line, ",\n");
    csv += line;
  }
  if (model && ranks >= 2) print_model_table(measured_steps(rows), *model);
  const std::string csv_path = out_dir + "/scaling.csv";
  course::write_file_atomically(csv_path, csv);
  std::printf("\nwrote %s", csv_path.c_str());
  if (ranks >= 2) {
    const std::string png_path = out_dir + "/scaling.png";
    course::write_png(png_path, course::line_chart(scaling_chart(rows, link_note())));
    std::printf(" and %s", png_path.c_str());
    if (model) {
      const std::string model_png = out_dir + "/scaling_model.png";
      course::write_png(model_png, course::line_chart(model_chart(measured_steps(rows), *model, link_note())));
      std::printf(" and %s", model_png.c_str());
    }
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace data_parallel
