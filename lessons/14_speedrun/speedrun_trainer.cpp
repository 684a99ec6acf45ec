// Lesson 14 (given): the speedrun trainer (speedrun_trainer.hpp).
#include "speedrun_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

#include "beyond_gpu_layers.hpp"
#include "branch.hpp"
#include "course/arithmetic.hpp"
#include "course/atomic_file.hpp"
#include "course/cuda_check.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"
#include "framework/device_data.hpp"
#include "evaluation.hpp"
#include "fast_gpu_layers.hpp"
#include "framework/run_files.hpp"
#include "framework/timed_run.hpp"
#include "image_shift.hpp"
#include "mnist_gpu.hpp"
#include "network.hpp"
#include "optimizer.hpp"
#include "framework/layered_network.hpp"
#include "speedrun.hpp"
#include "tensor_core_convs.hpp"
#include "tensor_cores.hpp"
#include "tf32_products.hpp"
#include "step_graph.hpp"
#include "framework/device_trainer.hpp"  // kEvalBatch

namespace speedrun {

namespace {

// Examples first .. first + count - 1 of a data set, as a data set of their own.
course::Dataset slice(const course::Dataset& all, int first, int count) {
  course::Dataset part;
  std::vector<int> dims = all.images.dims();
  const size_t per_example = all.images.size() / size_t(all.count());
  dims[0] = count;
  part.images = course::HostTensor(dims);
  std::copy_n(all.images.data() + size_t(first) * per_example, size_t(count) * per_example, part.images.data());
  part.labels.assign(all.labels.begin() + first, all.labels.begin() + first + count);
  return part;
}

// --precision bf16: lesson 10's Tensor Core convolutions and TF32 products; --thin: lesson 09's thin
// first layer (09.13).
beyond_mnist::OtherKernels other_kernels(const Recipe& r) {
  beyond_mnist::OtherKernels other;
  other.thin_first = r.thin;
  if (r.precision == "bf16") {
    other.conv = std::make_shared<tensor_cores::TensorCoreConvs>();
    other.products = &tensor_cores::tf32_products();
  }
  return other;
}

SeedResult run_seed(const Recipe& r, const host_training::ModelSpec& spec, const framework::DeviceDataset& train,
                    const framework::DeviceDataset& eval, uint64_t seed, bool profile) {
  SeedResult result;
  result.seed = seed;
  course::HostTimer whole;
  fast_training::Stream stream;
  const cudaStream_t s = stream.get();
  const int n = train.count, batch = std::min(r.batch, n);
  const int total_steps = course::ceil_div(n, batch) * r.epochs;
  const int warmup_steps = std::min(total_steps - 1, int(std::lround(double(r.warmup) * total_steps)));

  mnist_gpu::GpuNetwork net(spec, host_training::init_parameters(spec, seed), std::max(batch, framework::kEvalBatch),
                            mnist_gpu::ConvAlgorithm::automatic,
                            beyond_mnist::beyond_gpu_layers(seed, beyond_mnist::GpuLayers::lesson09, other_kernels(r)).get(),
                            smoothed_loss_maker(r.smoothing));
  net.set_stream(s);
  host_training::OptimizerConfig config;
  config.kind = r.optimizer, config.lr = r.peak_lr(), config.momentum = r.momentum;
  config.weight_decay = r.weight_decay;
  const mnist_gpu::DeviceUpdateRule rule =
      scheduled_rule(r.optimizer, r.schedule, total_steps, warmup_steps, config.lr);
  mnist_gpu::DeviceOptimizer optimizer(config, net.parameters(), &rule);

  if (profile) {  // lesson 08's table; it restores the weights and the optimizer's state afterwards
    std::printf("\nprofile: one training step of batch %d (forward, loss, backward, update; the shifts not in it)\n",
                batch);
    framework::profile_layers(stdout, net, optimizer, train, batch, r.profile_steps, mnist_gpu::step_kernels(),
                              "conv " + net.conv_summary());
    std::printf("\n");
    std::fflush(stdout);
  }

  // After the profile (lesson 08's, which times every pass on the one stream): the branch.
  fast_training::Branch branch(s);
  if (r.branches) beyond_mnist::use_branch(net, &branch);

  // The framework's timed run: every epoch's order on the GPU and every step captured (each epoch
  // into a graph of its own) before the clock starts; a step's number counts over the whole run,
  // so its shifts draw a key of their own.
  course::DeviceBuffer<float> gathered(r.shift > 0 ? size_t(batch) * train.per_example : 0);
  framework::TimedRun run;
  run.epochs = r.epochs, run.batch = batch, run.seed = seed, run.stream = s;
  run.epoch_order = host_training::epoch_order;
  if (r.graph) run.capture = [s](const std::function<void()>& enqueue) { return fast_training::replayed(s, enqueue); };
  run.step = [&](const framework::StepArgs& a) {
    float* into = r.shift > 0 ? gathered.data() : a.x;
    mnist_gpu::gather_batch(a.data.images.data(), a.data.labels.data(), a.data.count, a.data.per_example, a.order,
                            a.first, a.count, into, a.labels, a.stream);
    if (r.shift > 0)
      shift_images_gpu(gathered.data(), a.x, a.count, spec.in_channels, spec.height, spec.width, r.shift,
                       shift_key(seed, uint64_t(a.number - 1)), a.stream);
    a.net.forward_backward(a.x, a.labels, a.count);
    // With branches: the weight gradients are done once the stream joins the side; then the loss
    // sum goes aside, beside the update.
    cudaStream_t counting = a.stream;
    if (r.branches) {
      branch.join();
      branch.fork();
      counting = branch.side();
    }
    mnist_gpu::accumulate_loss(net.loss().row_loss(), a.count, a.number, a.counters.loss_sum.data(),
                               a.counters.bad_step(), counting);
    a.update.step(a.stream);  // the schedule's rate for this step
    if (r.branches) branch.join();  // the next step's forward writes what the loss sum reads
  };
  const double built_ms = whole.milliseconds();
  const framework::TimedTraining timed = framework::time_training(net, optimizer, train, run);  // stops on a NaN loss
  result.train_ms = timed.train_ms;
  result.setup_ms = built_ms + timed.setup_ms;

  net.set_training(false);
  const mnist_gpu::GpuEvaluation evaluation = mnist_gpu::evaluate_on_gpu(net, eval);
  result.accuracy = evaluation.accuracy, result.loss = evaluation.loss;
  result.whole_ms = whole.milliseconds();
  return result;
}

}  // namespace

double SpeedrunResult::mean_accuracy() const {
  double sum = 0;
  for (const SeedResult& r : runs) sum += r.accuracy;
  return runs.empty() ? 0 : sum / double(runs.size());
}

double SpeedrunResult::min_accuracy() const {
  double least = runs.empty() ? 0 : runs.front().accuracy;
  for (const SeedResult& r : runs) least = std::min(least, r.accuracy);
  return least;
}

double SpeedrunResult::median_train_ms() const {
  std::vector<double> times;
  for (const SeedResult& r : runs) times.push_back(r.train_ms);
  return times.empty() ? 0 : course::median(times);
}

host_training::ModelSpec speedrun_model(const Recipe& recipe, const framework::TrainingData& data,
                                        const std::string& models_dir) {
  host_training::ModelSpec spec;
  try {  // a plain name may be a file of models/ (as lesson 12's --model)
    spec = framework::model_for_data(host_training::model_in_folder(recipe.model, models_dir), data);
  } catch (const course::Error& e) {
    throw course::Error(std::string("--model: ") + e.what());
  }
  const std::string problem = beyond_mnist::stream_problem(spec);
  if (!problem.empty())
    throw course::Error("--model: every layer of a speedrun runs on lesson 09's kernels or yours, inside CUDA "
                        "graphs; " + problem);
  return spec;
}

void check_recipe(const Recipe& recipe, const framework::TrainingData& data) {
  if (recipe.epochs < 1 || recipe.batch < 1 || recipe.seeds < 1)
    throw course::Error("epochs, batch and seeds must be >= 1");
  const int all = data.train.count();
  if (recipe.val < 0 || recipe.val >= all)
    throw course::Error("--val " + std::to_string(recipe.val) + ": must leave training images (0 .. " +
                        std::to_string(all - 1) + ")");
  if (recipe.precision != "fp32" && recipe.precision != "bf16")
    throw course::Error("--precision " + recipe.precision + ": expected fp32 or bf16");
  // Every step of the run becomes nodes of a graph: a run of more steps than this is no speedrun, and
  // its graphs would take minutes and gigabytes to capture.
  constexpr long long kMostCapturedSteps = 20000;
  const int train_count = all - recipe.val, batch = std::min(recipe.batch, train_count);
  const long long per_epoch = (train_count + batch - 1) / batch, steps = per_epoch * recipe.epochs;
  if (recipe.graph && steps > kMostCapturedSteps)
    throw course::Error(std::to_string(steps) + " steps (--epochs " + std::to_string(recipe.epochs) + " of " +
                        std::to_string(per_epoch) + " batches of " + std::to_string(batch) +
                        "): a speedrun captures every step, at most " + std::to_string(kMostCapturedSteps) +
                        "; use a larger --batch, fewer --epochs, or --graph off");
}

SpeedrunResult run_speedrun(const Recipe& recipe, const framework::TrainingData& data,
                            const host_training::ModelSpec& spec, const std::string& out_dir) {
  check_recipe(recipe, data);
  const int all = data.train.count();
  course::require_gpu("train_speedrun");
  if (recipe.precision == "bf16") {
    const std::string why = tensor_cores::tensor_core_problem();
    if (!why.empty()) throw course::Error("--precision bf16: " + why + "; use --precision fp32");
  }
  // Every output is checked before any work: a bad --out stops the run before it trains.
  const framework::RunFiles files(out_dir, {"runs.csv"}, "", {});

  // The validation split is the END of the training set: never trained on, and the test set is
  // then not read at all.
  SpeedrunResult result;
  result.evaluated = recipe.val > 0 ? "validation" : "test";
  const framework::DeviceDataset train(recipe.val > 0 ? slice(data.train, 0, all - recipe.val) : data.train);
  const framework::DeviceDataset eval(recipe.val > 0 ? slice(data.train, all - recipe.val, recipe.val) : data.test);

  std::string csv = "seed,accuracy,loss,train_ms,setup_ms,whole_ms\n";
  for (int k = 0; k < recipe.seeds; ++k) {
    const SeedResult r = run_seed(recipe, spec, train, eval, recipe.first_seed + uint64_t(k), recipe.profile && k == 0);
    result.runs.push_back(r);
    std::printf("seed %3llu  %s acc %6.2f %%  loss %.4f  training %8.1f ms  (set-up %6.1f ms, whole run %7.1f ms)\n",
                static_cast<unsigned long long>(r.seed), result.evaluated.c_str(), 100 * r.accuracy, r.loss,
                r.train_ms, r.setup_ms, r.whole_ms);
    std::fflush(stdout);
    char line[160];
    std::snprintf(line, sizeof line, "%llu,%.6f,%.6f,%.3f,%.3f,%.3f\n", static_cast<unsigned long long>(r.seed),
                  r.accuracy, r.loss, r.train_ms, r.setup_ms, r.whole_ms);
    csv += line;
  }
  if (files.has_out()) course::write_file_atomically(files.out_path("runs.csv"), csv);
  files.finish({"runs.csv"}, {});
  return result;
}

}  // namespace speedrun
