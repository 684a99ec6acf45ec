// train_sine: an LSTM (your 16.1) with a dense head learns to predict the next value of sine waves at
// random phases (PyTorch's time_sequence_prediction task), on the CPU (lesson 11's threads) or on the
// GPU (--device gpu: your 16.2 or 16.3 recurrence, --recurrence steps|persistent). Each epoch is one
// Adam step on the whole training set (every sequence, every step, backpropagated through all of its
// time); after training the network continues the held-out waves on its own (on the CPU). Writes
// metrics.csv, sine.png (the true wave, the one-step-ahead predictions and the continuation) and the
// starting point (start_params.npy, offsets.npy: tools/pytorch_sine.py --start starts from them) to --out.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "course/chart.hpp"
#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "course/npy.hpp"
#include "course/png.hpp"
#include "course/timer.hpp"
#include "data_parallel.hpp"      // lesson 13's shards
#include "framework/device_choice.hpp"  // --device, --graph, --threads
#include "framework/epoch_log.hpp"
#include "framework/epoch_loop.hpp"
#include "framework/host_barrier.hpp"
#include "framework/host_trainer.hpp"  // allocator_allowance
#include "framework/model.hpp"  // available_host_bytes
#include "framework/optimizer_config.hpp"
#include "framework/ranks.hpp"
#include "framework/run_files.hpp"
#include "framework/train_flags.hpp"
#include "lstm_gpu_layer.hpp"   // the GPU's sequence layers
#include "lstm_host_layer.hpp"  // the CPU's
#include "sine_gpu_model.hpp"
#include "sine_model.hpp"
#include "sine_task.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

namespace {

using recurrent::SineSpec;

// The run's settings as every trainer's (the framework's flags): 300 epochs of Adam at 0.01, PyTorch's
// example's recipe.
struct SineConfig : framework::TrainConfig {
  SineConfig() {
    model = "lstm51,dense1";  // PyTorch's example
    epochs = 300;
    optimizer = framework::OptimizerKind::adam;
    default_adam_lr = 0.01f;
  }
};

// The first held-out sequence: the true wave over the data and the continuation, the network one
// step ahead over the data, then on its own (every `stride`-th point: a chart of lines, not dots).
course::Image wave_picture(const SineSpec& spec, const std::string& model, int offset, const std::vector<float>& ahead, int count,
                           const std::vector<float>& future) {
  // In 64 bits: --test x --future values may pass what an int holds.
  const long steps = spec.length - 1, horizon = long(future.size() / size_t(count));
  const long stride = recurrent::chart_stride(spec, horizon);
  course::ChartSeries truth{"the true wave", {}, {}}, fitted{"the network, one step ahead", {}, {}},
      alone{"the network on its own, fed its predictions", {}, {}};
  for (long t = 0; t < spec.length + horizon; t += stride)
    truth.x.push_back(double(t)), truth.y.push_back(recurrent::sine_value(spec, offset, t));
  for (long t = 0; t < steps; t += stride) fitted.x.push_back(t + 1.0), fitted.y.push_back(ahead[size_t(t) * count]);
  for (long k = 0; k < horizon; k += stride)
    alone.x.push_back(double(spec.length + k)), alone.y.push_back(future[size_t(k) * count]);
  course::ChartSpec chart;
  chart.title = "The network " + course::shown(model, 40) + " continues a sine wave (held-out sequence 1)";
  chart.x_label = "time step";
  chart.y_label = "value";
  chart.series = {truth, fitted, alone};
  chart.y_lines = {{double(0), ""}};
  return course::line_chart(chart);
}

// The epochs, on the framework's epoch loop: an epoch is ONE step on every training wave. step() trains
// it (the GPU finished when it returns) and gives the training set's loss before the update, test()
// the held-out loss after it; `log` prints and writes metrics.csv. A rank other than the first runs
// the same steps (they meet in every step) and neither evaluates nor prints (log null).
framework::TrainSummary train_epochs(int epochs, int waves, const std::function<double()>& step,
                                     const std::function<double()>& test, framework::EpochLog* log) {
  int epoch = 0;
  double loss = 0;
  framework::EpochLoop loop;
  loop.examples = waves, loop.batch = waves, loop.epochs = epochs;
  loop.progress_bar = false;
  loop.start_epoch = [&](int e) { epoch = e + 1; };
  loop.run_stretch = [&](int, size_t, int, int) {
    loss = step();
    if (!std::isfinite(loss))  // every rank sees the same loss: they stop together
      throw course::Error("epoch " + std::to_string(epoch) + ": the training loss is " + std::to_string(loss) +
                          "; try a smaller --lr");
  };
  loop.wait = [] {};
  loop.counts = [&](int) { return framework::EpochCounts{loss * waves, 0}; };
  loop.evaluate = [&] { return framework::TestScore{log ? test() : 0.0, 0.0}; };
  return framework::run_epochs(loop, nullptr, log);
}

// Several GPUs: lesson 13's ranks, each with its shard of the training waves (13.1's shard_of) and
// the whole network; their gradients averaged in every step (13.2's allreduce_mean inside
// train_step). The training loss is each shard's mean weighted by its waves, added in rank order on
// the host. Returns the first rank's epochs (it logs them); `trained` gets its weights (every rank's
// are the same).
framework::TrainSummary train_on_ranks(int gpus, const recurrent::SineData& data, const framework::ModelSpec& model,
                                       uint64_t seed,
                                       recurrent::Recurrence recurrence, bool graph,
                                       const framework::OptimizerConfig& optimizer, int epochs,
                                       framework::EpochLog& log, std::vector<float>& trained) {
  const std::vector<int> devices = framework::first_devices(gpus);
  if (data.train.count < gpus)
    throw course::Error("--gpus " + std::to_string(gpus) + ": " + std::to_string(data.train.count) +
                        " training waves leave a GPU without one; use more --sequences or fewer --gpus");
  std::vector<double> parts(size_t(gpus), 0.0);
  framework::HostBarrier meet(gpus);
  framework::TrainSummary first;
  framework::run_ranks(devices, [&](const framework::Rank& rank) {
    const data_parallel::Shard shard = data_parallel::shard_of(data.train.count, rank.ranks, rank.rank);
    recurrent::SineData mine;
    mine.spec = data.spec, mine.test = data.test;
    recurrent::slice_sequences(data.train, shard.first, shard.first + shard.count, mine.train);
    recurrent::SineGpuNetwork net(model, seed, recurrence, graph, mine, optimizer, &rank, data.train.count);
    const auto step = [&] {
      const double own = net.train_step();
      parts[size_t(rank.rank)] = own * shard.count / data.train.count;
      meet.arrive_and_wait();
      double all = 0;
      for (double part : parts) all += part;  // rank order: the same sum on every rank
      meet.arrive_and_wait();                 // read by all before the next step writes
      return all;
    };
    framework::TrainSummary run = train_epochs(epochs, data.train.count, step, [&] { return net.test_loss(); },
                                               rank.rank == 0 ? &log : nullptr);
    if (rank.rank == 0) first = std::move(run), trained = net.parameters();
  });
  return first;
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("train_sine",
                           "Lesson 16: an LSTM learns to predict sine waves one value ahead, on the CPU or the "
                           "GPU, then continues held-out waves on its own.");
    // The flags every trainer shares (the framework's): --epochs --lr --optimizer --seed --out.
    const SineConfig defaults;
    framework::TrainFlagWords words;
    words.images = false, words.save = false;
    words.model_help = "network: a layer list (or @file) that reads one value a step and gives one: lstm<units>, "
                       "dense<units> and relu on the CPU, LSTMs and a last dense1 on the GPU (--hidden N: lstmN,dense1)";
    words.optimizers = {framework::OptimizerKind::adam};
    words.optimizer_help = "adam (this task's optimizer)";
    words.max_epochs = 1000000;
    words.epochs_note = ": each one Adam step on the whole training set";
    words.seed_help = "seed of the phases and the weights";
    words.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson16";
    words.out_help = "metrics.csv and sine.png go here";
    framework::add_train_flags(args, defaults, words);
    args.add_int("--hidden", 51, 1, 4096,
                 "the network lstm<N>,dense1: LSTM units (PyTorch's example: 51; the source's network: 5)");
    args.add_int("--sequences", 100, 2, 100000, "sine waves, the first --test of them held out");
    args.add_int("--test", 3, 1, 100000, "held-out waves (evaluated every epoch, continued at the end)");
    args.add_int("--length", 1000, 3, 1000000, "values a wave (the network predicts the length - 1 after the first)");
    args.add_int("--period", 20, 1, 1000000, "the waves are sin((t + offset) / period)");
    args.add_int("--future", 1000, 0, 1000000, "values the network generates on its own after each held-out wave");
    framework::DeviceFlagWords device_words;  // the CPU by default: your 16.1 is the lesson's first step
    device_words.default_device = "cpu";
    device_words.graph_help = "on the GPU: each pass's launches as one CUDA graph (lesson 09)";
    device_words.threads_help = "CPU: threads (lesson 11's pool), the sequences' shards side by side; the same results for any";
    framework::add_device_flags(args, device_words);
    args.add_choice("--recurrence", "persistent", {"steps", "persistent"},
                    "on the GPU: 16.2 (a product and a cell kernel a step) or 16.3 (one launch)");
    args.add_int("--gpus", 1, 1, 64,
                 "with --device gpu: GPUs, each with a shard of the training waves (lesson 13's data parallelism)");
    if (!args.parse(argc, argv)) return 0;
    SineConfig config = defaults;
    framework::FlagOptions flag_options;
    flag_options.layers = recurrent::sequence_layers();
    framework::apply_given_flags(args, config, flag_options);
    if (args.given("--model") && args.given("--hidden"))
      throw course::Error("--model and --hidden both name the network; give one of them");
    if (!args.given("--model")) config.model = recurrent::sine_model_text(int(args.get_int("--hidden")));

    SineSpec spec;
    spec.sequences = int(args.get_int("--sequences")), spec.test = int(args.get_int("--test"));
    spec.length = int(args.get_int("--length")), spec.period = int(args.get_int("--period"));
    spec.seed = config.seed;
    const int epochs = config.epochs;
    const int future = int(args.get_int("--future"));
    const float lr = config.learning_rate();
    // Everything the run holds on this machine, counted before any of it is allocated.
    const bool gpu = framework::use_gpu(args);  // --device gpu without a GPU stops here
    if (!gpu) framework::say_cpu_fallback(args);
    const framework::ModelSpec model =
        recurrent::sine_model(config.model, gpu ? recurrent::sequence_gpu_kinds() : recurrent::sequence_layers());
    const std::vector<framework::LayerPlan> plan = framework::plan_layers(model);
    // What one epoch holds at most: every layer's outputs (an LSTM's states and gates) of every step
    // of every sequence.
    const double floats = double(recurrent::forward_floats(plan, uint64_t(spec.sequences) * (spec.length - 1)));
    if (floats > 2e9)
      throw course::Error("--sequences x --length x the network: " + std::to_string(long(floats / 1e9)) +
                          " billion floats of states for one epoch; make one of them smaller");
    const uint64_t buffers = recurrent::SineNetwork::run_bytes(spec, plan, future, !gpu),
                   bytes = buffers + framework::allocator_allowance(buffers),
                   available = framework::available_host_bytes();
    if (available > 0 && bytes > available) {
      char text[320];
      std::snprintf(text, sizeof text,
                    "--sequences %d --length %d --model %s --test %d --future %d: the run needs about %.1f GiB, "
                    "more than the %.1f GiB this machine has free; make one of them smaller",
                    spec.sequences, spec.length, course::shown(config.model, 60).c_str(), spec.test, future,
                    double(bytes) / (1ull << 30),
                    double(available) / (1ull << 30));
      throw course::Error(text);
    }
    const recurrent::SineData data = recurrent::make_sine_data(spec);
    framework::RunFiles files(config.out_dir, {"metrics.csv", "sine.png", "start_params.npy", "offsets.npy"},
                              "", {});

    const int threads = framework::cpu_threads(args), gpus = int(args.get_int("--gpus"));
    const bool graph = args.get_string("--graph") == "on";
    if (gpus > 1 && !gpu) throw course::Error("--gpus " + std::to_string(gpus) + " needs --device gpu");
    const recurrent::Recurrence recurrence =
        args.get_string("--recurrence") == "steps" ? recurrent::Recurrence::steps : recurrent::Recurrence::persistent;
    // The CPU's network (after the GPU's training, it continues the waves), and its optimizer's settings.
    const framework::OptimizerConfig optimizer = framework::optimizer_config(config);
    recurrent::SineNetwork net(model, spec.seed, threads, optimizer);
    std::string where;
    if (gpu) {
      where = std::string(gpus > 1 ? "GPU x" + std::to_string(gpus) + ", data parallel, " : "GPU, ") +
              recurrent::recurrence_name(recurrence) + " recurrence" + (graph ? ", CUDA graphs" : "");
      std::printf("train_sine on the GPU (%s): ", where.c_str());
    } else {
      where = "CPU, " + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s");
      std::printf("train_sine on the CPU (%d thread%s): ", threads, threads == 1 ? "" : "s");
    }
    std::printf("the network %s (%zu parameters), Adam lr %g\n", course::shown(model.name, 100).c_str(),
                net.parameter_count(), double(lr));
    std::printf("layers: %s\n", framework::plan_summary(model).c_str());
    std::printf("data: %d training and %d held-out sine waves of %d values, period %d; each epoch one step on "
                "all of them, backpropagated through %d steps\n",
                data.train.count, data.test.count, spec.length, spec.period, data.train.steps);
    course::HostTimer whole;
    framework::EpochLog log(files.out_path("metrics.csv"), epochs, framework::no_score());
    framework::TrainSummary run;
    if (gpus > 1) {
      std::vector<float> trained;
      run = train_on_ranks(gpus, data, model, spec.seed, recurrence, graph, optimizer, epochs, log, trained);
      net.set_parameters(trained);
    } else if (gpu) {
      recurrent::SineGpuNetwork gpu_net(model, spec.seed, recurrence, graph, data, optimizer);
      run = train_epochs(epochs, data.train.count, [&] { return gpu_net.train_step(); },
                         [&] { return gpu_net.test_loss(); }, &log);
      net.set_parameters(gpu_net.parameters());
    } else {
      const auto step = [&] {
        const double loss = net.loss(data.train, true);
        if (std::isfinite(loss)) net.update();
        return loss;
      };
      run = train_epochs(epochs, data.train.count, step, [&] { return net.loss(data.test, false); }, &log);
    }
    // The last step's update is only seen here (an earlier one shows in the next training loss).
    const double last_test = run.test_loss.back();
    if (!std::isfinite(last_test))
      throw course::Error("after epoch " + std::to_string(epochs) + " the held-out loss is " +
                          std::to_string(last_test) + ": the last Adam step diverged; try a smaller --lr");
    std::vector<float> ahead;
    const std::vector<float> generated = net.predict(data.test, future, &ahead);
    double error = 0;
    for (long k = 0; k < future; ++k)
      for (int b = 0; b < data.test.count; ++b) {
        const double d = generated[size_t(k) * data.test.count + b] -
                         recurrent::sine_value(spec, data.test.offsets[b], spec.length + k);
        error += d * d;
      }
    // The median epoch over those after the first (which holds the graphs' capture and first launches).
    std::vector<double> timed(run.epoch_seconds.begin() + (epochs > 1 ? 1 : 0), run.epoch_seconds.end());
    std::sort(timed.begin(), timed.end());
    std::printf("summary (%s): %d epoch(s) in %.2f s, median epoch %.6f s, final test loss %.6f", where.c_str(), epochs,
                whole.seconds(), timed[timed.size() / 2], last_test);
    if (future > 0) std::printf("; the continuation's mean squared error over %d steps %.6f", future,
                                error / (double(future) * data.test.count));
    std::printf("\n");
    if (files.has_out()) {
      std::vector<std::string> written = {"metrics.csv", "start_params.npy", "offsets.npy"};
      const std::vector<float> start = recurrent::start_parameters(model, spec.seed);
      course::write_npy(files.out_path("start_params.npy"), start.data(), {start.size()});
      std::vector<int32_t> offsets(data.test.offsets.begin(), data.test.offsets.end());
      offsets.insert(offsets.end(), data.train.offsets.begin(), data.train.offsets.end());
      course::write_npy(files.out_path("offsets.npy"), offsets.data(), {offsets.size()});
      if (future > 0) {
        course::write_png(files.out_path("sine.png"),
                          wave_picture(spec, model.name, data.test.offsets[0], ahead, data.test.count, generated));
        written.push_back("sine.png");
      }
      files.finish(written, {});
      std::printf("wrote %s/{%s, start_params.npy, offsets.npy}\n", files.out_dir().c_str(),
                  future > 0 ? "metrics.csv, sine.png" : "metrics.csv");
    }
    return 0;
  });
}
