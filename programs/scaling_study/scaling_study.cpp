// lesson11_scaling_study (lesson 11's study, a program above the lessons): how the training time of an epoch grows with the batch size and
// with the width of the network, on the course's CPU and GPU trainers side by side.
//
// The network: conv 3x3 with d filters, no padding (28x28 -> 26x26xd) -> ReLU -> max-pool 2
// (13x13xd) -> dense 169d -> 10, softmax cross-entropy, plain SGD (lr 0.1, momentum 0). Each run
// trains it for one epoch of MNIST (or the first --images images) and times the training part,
// for every batch of --batch-list at the largest d of --filters-list, and for every d at the
// largest batch. The systems:
//   cpu-naive      the CPU trainer on lesson 01's loops, 1 thread
//   cpu-fast-1     the CPU trainer on lesson 11's layers, 1 thread
//   cpu-fast-all   the same on every core
//   gpu-lesson08   the GPU trainer on lesson 08's kit (train_mnist's kernels)
//   gpu-fastest    lesson 09's network as train_mixed --precision bf16 runs it
// One CSV row per run (scaling_results.hpp), written after every run. The CPU systems and the GPU
// systems run on different machines; --plot merges their CSVs and draws the charts.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "course/atomic_file.hpp"
#include "course/chart.hpp"
#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "course/png.hpp"
#include "fast_host_network.hpp"
#include "fast_run.hpp"
#include "host_training.hpp"
#include "scaling_results.hpp"
#include "tensor_core_convs.hpp"
#include "tensor_cores.hpp"
#include "tf32_products.hpp"
#include "framework/device_choice.hpp"  // default_threads
#include "framework/gpu_trainer.hpp"
#include "gpu_kit.hpp"
#include "framework/training_data.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif
#ifndef COURSE_NATIVE_BUILD
#define COURSE_NATIVE_BUILD 0
#endif

namespace {

using scaling_study::Result;
using scaling_study::SystemInfo;

// cpu-naive runs lesson 01's loops: about 100 times slower than the GPU trainers; by default it
// times a tenth of an epoch.
constexpr long kNaiveDefaultImages = 6000;

std::string gpu_name() {
  const std::string summary = course::device_summary();  // "NVIDIA H100 80GB HBM3, sm_90, ..."
  return summary.substr(0, summary.find(','));
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items(1);
  for (char c : text) {
    if (c == ',') items.emplace_back();
    else items.back() += c;
  }
  return items;
}

// A comma list of integers in [1, max] ("32,64,128"), in the order given, repeats dropped.
std::vector<int> int_list(const std::string& flag, const std::string& text, int max) {
  std::vector<int> values;
  for (const std::string& item : split_list(text)) {
    const bool digits = !item.empty() && item.size() <= 9 && item.find_first_not_of("0123456789") == std::string::npos;
    const long v = digits ? std::stol(item) : 0;
    if (!digits || v < 1 || v > max)
      throw course::Error(flag + " must be a comma list of integers in [1, " + std::to_string(max) + "], got '" + text +
                          "'");
    if (std::find(values.begin(), values.end(), int(v)) == values.end()) values.push_back(int(v));
  }
  return values;
}

// The study's runs: every batch at the largest d, then every other d at the largest batch.
std::vector<std::pair<int, int>> sweep_points(const std::vector<int>& filters, const std::vector<int>& batches) {
  const int max_filters = *std::max_element(filters.begin(), filters.end());
  const int max_batch = *std::max_element(batches.begin(), batches.end());
  std::vector<std::pair<int, int>> points;
  for (int b : batches) points.push_back({max_filters, b});
  for (int d : filters)
    if (d != max_filters) points.push_back({d, max_batch});
  return points;
}

struct StudySettings {
  long images = 0;       // 0: the system's default
  int test_images = 10000;
  int epochs = 0;        // 0: 1 on the CPU, 2 on the GPU
  float lr = 0.1f, momentum = 0.0f;
  uint64_t seed = 1;
  std::string data_dir;
};

long images_of(const SystemInfo& system, const StudySettings& s) {
  if (s.images > 0) return s.images;
  return system.name == "cpu-naive" ? kNaiveDefaultImages : scaling_study::kEpochImages;
}

int epochs_of(const SystemInfo& system, const StudySettings& s) {
  if (s.epochs > 0) return s.epochs;
  return system.gpu ? 2 : 1;  // the GPU's first epoch pays for loading kernels and warming caches
}

// The fields every trainer's config shares.
void set_common(framework::TrainConfig& c, int filters, int batch, int epochs, const StudySettings& s) {
  c.model = "scaling-" + std::to_string(filters);
  c.optimizer = framework::OptimizerKind::sgd;
  c.batch = batch;
  c.epochs = epochs;
  c.lr = s.lr;
  c.momentum = s.momentum;
  c.seed = s.seed;
  c.out_dir.clear();  // no pictures, no metrics.csv: the study writes its own CSV
  c.save_dir.clear();
}

// A NetworkMaker whose networks have run one training pass at `batch` before they are handed to
// the trainer: the first pass allocates and first touches every buffer (about 3 GB at batch 1000
// with 256 filters), a cost the GPU trainers pay before their timed epoch too. The pass writes
// only gradients, which the first real step overwrites: the training is unchanged.
host_training::NetworkMaker warmed_up(host_training::NetworkMaker make, int batch) {
  return [make = std::move(make), batch](const host_training::ModelSpec& spec,
                                         std::vector<host_training::Parameter> params) {
    std::unique_ptr<framework::HostModel> net =
        make ? make(spec, std::move(params)) : std::make_unique<host_training::HostNetwork>(spec, std::move(params));
    const std::vector<float> x(size_t(batch) * spec.in_channels * spec.height * spec.width, 0.0f);
    const std::vector<int> labels(size_t(batch), 0);
    net->forward_backward(x.data(), labels.data(), batch);
    return net;
  };
}

std::string cpu_build_note() {
  return COURSE_NATIVE_BUILD ? "; lesson 11 built with COURSE_NATIVE=ON (-march=native)"
                             : "; lesson 11 built for any x86-64 (COURSE_NATIVE=OFF)";
}

// One run: trains, returns the row (seconds and accuracy of the last epoch).
Result run_one(const SystemInfo& system, int filters, int batch, const StudySettings& s,
               const framework::TrainingData& data) {
  const int epochs = epochs_of(system, s);
  Result r;
  r.system = system.name;
  r.filters = filters;
  r.batch = batch;
  r.images_timed = data.train.count();
  r.test_images = data.test.count();
  framework::TrainSummary summary;
  if (system.name == "cpu-naive" || system.name == "cpu-fast-1" || system.name == "cpu-fast-all") {
    framework::TrainConfig config;
    set_common(config, filters, batch, epochs, s);
    r.machine = course::cpu_model_name();
    const int warm_batch = std::min(batch, data.train.count());
    if (system.name == "cpu-naive") {
      r.threads = 1;
      r.setup = "lesson 01's loops (HostNetwork)";
      summary = framework::train_on_host(
          config, data, host_training::host_kit(warmed_up(nullptr, warm_batch), "lesson 01's loops, 1 thread"));
    } else {
      r.threads = system.name == "cpu-fast-1" ? 1 : framework::default_threads();
      r.setup = fast_cpu::network_description(r.threads) + cpu_build_note();
      // Lesson 11's count of what its network holds, for the trainer's memory check (its shards and
      // workspaces: a HostNetwork's count would fall short).
      summary = framework::train_on_host(
          config, data,
          host_training::host_kit(warmed_up(fast_cpu::network_maker(r.threads), warm_batch),
                                  fast_cpu::network_description(r.threads), fast_cpu::network_bytes(r.threads)));
    }
    r.setup += "; buffers allocated by an untimed pass before the epoch";
  } else if (system.name == "gpu-lesson08") {
    framework::GpuTrainConfig config;
    set_common(config, filters, batch, epochs, s);
    r.machine = gpu_name();
    r.setup = "lesson 08's kernels (conv auto), FP32";
    framework::DeviceRun run;
    run.program = "lesson11_scaling_study's GPU runs";
    summary = framework::train_on_gpu(config, data, mnist_gpu::gpu_kit(mnist_gpu::ConvAlgorithm::automatic), run);
  } else {
    // train_mixed --precision bf16: the convolutions on the Tensor Cores in BF16 where lesson 10's
    // kernels run them (lesson 09's otherwise), the other products in TF32.
    fast_training::FastTrainConfig config;
    set_common(config, filters, batch, epochs, s);
    r.machine = gpu_name();
    const std::string why_not = tensor_cores::tensor_core_problem();
    if (why_not.empty()) {
      config.products = &tensor_cores::tf32_products();
      config.conv_kernels = std::make_shared<tensor_cores::TensorCoreConvs>();
      r.setup = "train_mixed --precision bf16: BF16 convolutions, TF32 dense layers, CUDA graphs";
    } else {
      r.setup = "FP32 fallback, no Tensor Cores for BF16/TF32 (" + why_not + "): lesson 09's kernels, CUDA graphs";
    }
    const fast_training::FastRun fast(config, "scaling_study");
    summary = framework::train_on_gpu(config, data, fast.kit(), fast.run, fast.counters);
  }
  if (summary.epoch_seconds.empty()) throw course::Error(system.name + ": the trainer returned no epoch");
  r.seconds_timed = summary.epoch_seconds.back();
  if (!summary.test_accuracy.empty()) r.test_accuracy = summary.test_accuracy.back();
  scaling_study::set_epoch_figure(r);
  char lr_text[128];
  std::snprintf(lr_text, sizeof lr_text, "; SGD lr %g momentum %g; %d epoch(s), the last timed", double(s.lr),
                double(s.momentum), epochs);
  r.setup += lr_text;
  return r;
}

int measure(const course::ArgParser& args) {
  // Everything is checked before the first run: a bad flag never costs a finished sweep.
  std::vector<const SystemInfo*> systems;
  if (args.given("--systems")) {
    for (const std::string& name : split_list(args.get_string("--systems"))) {
      const SystemInfo* s = &scaling_study::system_info(name);
      if (std::find(systems.begin(), systems.end(), s) == systems.end()) systems.push_back(s);
    }
  } else {
    const bool gpu = course::gpu_available();
    for (const SystemInfo& s : scaling_study::study_systems())
      if (s.gpu == gpu) systems.push_back(&s);
    std::printf("systems: %s (no --systems: the %s ones, as this machine %s)\n",
                gpu ? "gpu-lesson08, gpu-fastest" : "cpu-naive, cpu-fast-1, cpu-fast-all", gpu ? "GPU" : "CPU",
                gpu ? "has a usable GPU" : "has no usable GPU");
  }
  for (const SystemInfo* s : systems)
    if (s->gpu) course::require_gpu("system " + s->name);
  const std::vector<int> filters =
      int_list("--filters-list", args.get_string("--filters-list"), host_training::kMaxScalingFilters);
  const std::vector<int> batches =
      int_list("--batch-list", args.get_string("--batch-list"), scaling_study::kEpochImages);
  const std::vector<std::pair<int, int>> points = sweep_points(filters, batches);
  const int max_batch = *std::max_element(batches.begin(), batches.end());

  StudySettings settings;
  settings.images = args.get_int("--images");
  settings.test_images = int(args.get_int("--test-images"));
  settings.epochs = int(args.get_int("--epochs"));
  settings.lr = float(args.get_float("--lr"));
  settings.momentum = float(args.get_float("--momentum"));
  settings.seed = uint64_t(args.get_int("--seed"));
  settings.data_dir = args.get_string("--data");
  for (const SystemInfo* s : systems)
    if (images_of(*s, settings) < max_batch)
      throw course::Error(s->name + " would time " + std::to_string(images_of(*s, settings)) +
                          " images, fewer than the batch " + std::to_string(max_batch) +
                          ": give --images at least the largest batch");

  bool any_cpu = false, any_gpu = false;
  for (const SystemInfo* s : systems) (s->gpu ? any_gpu : any_cpu) = true;
  const std::string csv_path = args.given("--csv") ? args.get_string("--csv")
                               : args.get_string("--out") + (any_cpu && any_gpu ? "/scaling.csv"
                                                             : any_gpu         ? "/scaling_gpu.csv"
                                                                               : "/scaling_cpu.csv");

  // The data, loaded before the first run: once per number of training images (each run trains on
  // the first N).
  std::map<long, framework::TrainingData> data_by_images;
  for (const SystemInfo* s : systems) {
    const long images = images_of(*s, settings);
    if (data_by_images.count(images)) continue;
    framework::TrainConfig c;
    c.data_dir = settings.data_dir;
    c.train_limit = int(images);
    c.test_limit = settings.test_images;
    framework::TrainingData data = framework::load_training_data(c);
    if (data.train.count() < max_batch)
      throw course::Error(data.dir + " holds " + std::to_string(data.train.count()) +
                          " training images, fewer than the batch " + std::to_string(max_batch));
    data_by_images.emplace(images, std::move(data));
  }
  course::create_parent_folder(csv_path);
  // While the sweep runs its rows go to <csv>.partial; the CSV itself is replaced only by a finished
  // sweep. So an interrupted rerun keeps both the earlier complete CSV and what it measured.
  const std::string partial_path = csv_path + ".partial";
  course::check_output_path(csv_path);
  course::check_output_path(partial_path);

  const size_t total = systems.size() * points.size();
  std::printf("scaling study: %zu run(s): %zu system(s) x %zu (filters, batch) points; results to %s (row by row to\n"
              "%s until the last run)\n", total, systems.size(), points.size(), csv_path.c_str(), partial_path.c_str());
  std::fflush(stdout);
  std::vector<Result> rows;
  size_t done = 0;
  for (const SystemInfo* system : systems) {
    for (const auto& [d, batch] : points) {
      ++done;
      const framework::TrainingData& data = data_by_images.at(images_of(*system, settings));
      char head[96];
      std::snprintf(head, sizeof head, "[%zu/%zu] %s, %d filters, batch %d", done, total, system->name.c_str(), d, batch);
      std::printf("\n== %s: %d training images, %d epoch(s), the last timed; then %d test images\n", head,
                  data.train.count(), epochs_of(*system, settings), data.test.count());
      std::fflush(stdout);
      const Result r = run_one(*system, d, batch, settings, data);
      rows.push_back(r);
      course::write_file_atomically(partial_path, scaling_study::results_csv(rows));  // an interrupted sweep keeps its rows
      char accuracy[48] = "";
      if (r.test_accuracy >= 0) std::snprintf(accuracy, sizeof accuracy, "; test accuracy %.2f %%", 100 * r.test_accuracy);
      std::printf("-> %s: %.3f s for %ld images = %.2f s per epoch%s%s\n", head, r.seconds_timed, r.images_timed,
                  r.seconds_per_epoch, r.scaled ? " (scaled to 60000 images)" : "", accuracy);
      std::fflush(stdout);
    }
  }
  course::write_file_atomically(csv_path, scaling_study::results_csv(rows));
  std::remove(partial_path.c_str());
  std::printf("\n%s\nwrote %s\n", scaling_study::results_table(rows).c_str(), csv_path.c_str());
  return 0;
}

int plot(const course::ArgParser& args) {
  for (const char* flag : {"--systems", "--filters-list", "--batch-list", "--images", "--test-images", "--epochs",
                           "--lr", "--momentum", "--seed", "--data", "--csv"})
    if (args.given(flag))
      throw course::Error(std::string("--plot draws the CSVs it is given and measures nothing: leave out ") + flag);
  const std::vector<std::string> files = split_list(args.get_string("--plot"));
  std::vector<std::vector<Result>> parts;
  for (const std::string& file : files) {
    if (file.empty())
      throw course::Error("--plot must be a comma list of CSV files, got '" + args.get_string("--plot") + "'");
    parts.push_back(scaling_study::read_results(file));
  }
  const std::vector<Result> rows = scaling_study::merge_results(parts, files);
  if (rows.empty()) throw course::Error("nothing to plot: " + args.get_string("--plot") + " hold(s) no rows");

  const std::string out = args.get_string("--out");
  course::create_folder(out, "for --out");
  std::printf("%s\n", scaling_study::results_table(rows).c_str());
  const std::string merged = out + "/scaling_merged.csv";
  course::write_file_atomically(merged, scaling_study::results_csv(rows));
  std::printf("wrote %s\n", merged.c_str());
  const std::vector<scaling_study::NamedChart> charts = scaling_study::study_charts(rows);
  for (const scaling_study::NamedChart& c : charts) {
    const std::string path = out + "/" + c.file;
    course::write_png(path, course::line_chart(c.spec));  // all or nothing (course/atomic_file.hpp)
    std::printf("wrote %s\n", path.c_str());
  }
  if (charts.size() < 4)
    std::printf("note: %zu of 4 charts drawn: a speed-up needs GPU rows and cpu-naive or cpu-fast-all rows at the same "
                "filters and batch\n",
                charts.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    std::string system_help;
    for (const SystemInfo& s : scaling_study::study_systems()) system_help += "\n      " + s.name + ": " + s.description;
    course::ArgParser args(
        "lesson11_scaling_study",
        "Lesson 11: seconds per epoch of MNIST against the batch size and the width d of a one-conv network\n"
        "(conv 3x3 x d, no padding -> ReLU -> max-pool 2 -> dense 169d -> 10; plain SGD), on the course's CPU and\n"
        "GPU trainers. One CSV row per (system, d, batch). --plot merges CSVs (the CPU machine's and the GPU\n"
        "machine's) and draws the charts.");
    args.add_string("--systems", "",
                    "comma list of systems to measure (default: the CPU ones without a usable GPU, gpu-lesson08 and "
                    "gpu-fastest with one):" + system_help);
    args.add_string("--filters-list", "32,64,128,256", "values of d; the batch sweep runs at the largest");
    args.add_string("--batch-list", "100,250,500,1000", "batch sizes; the sweep over d runs at the largest");
    args.add_int("--images", 0, 0, scaling_study::kEpochImages,
                 "training images timed per run (the first N of the set); fewer than 60000: the per-epoch figure is "
                 "scaled and the CSV says so. 0: " + std::to_string(kNaiveDefaultImages) +
                     " for cpu-naive, the whole epoch for the others");
    args.add_int("--test-images", 10000, 1, 10000, "test images evaluated after each run (not timed)");
    args.add_int("--epochs", 0, 0, 100,
                 "epochs per run, the last one timed (0: 1 on the CPU, 2 on the GPU: its first warms it up)");
    args.add_float("--lr", 0.1, 1e-7, 10.0, "learning rate of SGD");
    args.add_float("--momentum", 0.0, 0.0, 0.999, "SGD's momentum (0: plain SGD, as the study)");
    args.add_int("--seed", 1, 0, 1LL << 62, "seed of the weight init and the shuffling");
    args.add_string("--data", "", "folder with MNIST's four IDX files (default: data/mnist)");
    args.add_string("--csv", "", "the results CSV (default: --out/scaling_cpu.csv, scaling_gpu.csv or scaling.csv)");
    args.add_string("--out", std::string(COURSE_OUTPUT_DIR) + "/lesson11",
                    "folder of the default CSV, and of --plot's charts and merged CSV");
    args.add_string("--plot", "",
                    "comma list of CSVs (e.g. scaling_cpu.csv,scaling_gpu.csv): merge them, print the table, draw "
                    "seconds_vs_batch.png, seconds_vs_filters.png, speedup_vs_batch.png and speedup_vs_filters.png "
                    "into --out; measures nothing");
    if (!args.parse(argc, argv)) return 0;
    return args.given("--plot") ? plot(args) : measure(args);
  });
}
