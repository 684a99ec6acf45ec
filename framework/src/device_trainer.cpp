// The course framework: the GPU trainers' run (device_trainer.hpp).
#include "framework/device_trainer.hpp"

#include "device_run.hpp"

#include <algorithm>
#include <cstdio>

#include "course/arithmetic.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/number_text.hpp"
#include "course/timer.hpp"
#include "framework/epoch_loop.hpp"
#include "framework/loss_watch.hpp"
#include "framework/run_pictures.hpp"

namespace framework {

namespace detail {

RunStart start_run(const TrainConfig& config, const TrainingData& data, const DeviceRun& run,
                   const std::vector<int>& devices) {
  if (config.epochs < 1 || config.batch < 1) throw course::Error("epochs and batch must be >= 1");
  if (!run.network || !run.optimizer || !run.epoch_order || !run.step || !run.evaluate)
    throw course::Error("train_on_device: the network, optimizer, epoch order, step and evaluation must be given");
  RunStart start;
  start.spec = model_for_data(config.model, data);
  const int ranks = int(devices.size());
  start.batch = std::min(config.batch * ranks, data.train.count());
  // A network a GPU cannot hold is refused before anything is allocated.
  int current = 0;
  CUDA_CHECK(cudaGetDevice(&current));
  for (int r = 0; r < ranks; ++r) {
    CUDA_CHECK(cudaSetDevice(devices[size_t(r)]));
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::vector<LayerPlan> plan = plan_layers(start.spec);
    // Beside the network, each GPU holds the training set (every rank its copy: it gathers its own
    // share), the test set (the first rank), the epoch's order and a batch's images, labels and
    // predictions (train_rank's buffers).
    const uint64_t data_bytes =
        sizeof(float) * (data.train.images.size() + (r == 0 ? data.test.images.size() : 0)) +
        sizeof(int) * (2 * data.train.labels.size() + (r == 0 ? data.test.labels.size() : 0)) +
        sizeof(float) * uint64_t(start.batch) * (data.train.images.size() / std::max<size_t>(1, data.train.labels.size()) + 2);
    const uint64_t room = free_bytes > data_bytes ? free_bytes - data_bytes : 0;
    const int network =
        network_batch(start.batch, r, ranks, [&](int b) { return training_bytes(plan, b) <= room; });
    require_memory(training_bytes(plan, network) + data_bytes, free_bytes,
                   "model '" + course::shown(start.spec.name, 80) + "' at batch " + std::to_string(start.batch),
                   ranks == 1 ? std::string("the GPU") : "GPU " + std::to_string(devices[size_t(r)]));
    start.network_batches.push_back(network);
  }
  CUDA_CHECK(cudaSetDevice(current));
  start.init = init_parameters(start.spec, config.seed);
  std::vector<std::string> out_files = {"metrics.csv"};
  out_files.insert(out_files.end(), run.network_pictures.begin(), run.network_pictures.end());
  if (run.report_results)
    out_files.insert(out_files.end(), run.result_pictures.begin(), run.result_pictures.end());
  else
    out_files.insert(out_files.end(), {"misclassified.png", "confusion.png"});
  // Every output is checked before any work: a bad --out or --save stops the run before it trains.
  start.files = std::make_unique<RunFiles>(config.out_dir, out_files, config.save_dir,
                                           npy_names(start.init, running_statistics(start.spec)));
  start.log = std::make_unique<EpochLog>(start.files->out_path("metrics.csv"), config.epochs, run.score);
  return start;
}

void train_rank(const TrainConfig& config, const TrainingData& data, const DeviceRun& run, RunStart& start,
                const RankSide& side) {
  const ModelSpec& spec = start.spec;
  const int batch = start.batch, ranks = side.ranks;
  const bool lead = side.lead();
  const std::shared_ptr<DeviceNetwork> owned =
      run.network(spec, start.init, start.network_batches.at(size_t(side.rank)));
  if (!owned) throw course::Error(run.program + ": no network was built for model '" + spec.name + "'");
  DeviceNetwork& net = *owned;
  const std::shared_ptr<DeviceUpdate> update = run.optimizer(net);
  if (!update) throw course::Error(run.program + ": no optimizer was built");
  const DeviceDataset train(data.train);  // every rank its own copy: each gathers its own share
  std::unique_ptr<DeviceDataset> test;
  if (lead) test = std::make_unique<DeviceDataset>(data.test);
  if (run.check_steps) {
    run.check_steps(net);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  const cudaStream_t stream = run.stream ? run.stream : net.stream();

  if (lead) {
    std::string batch_text = std::to_string(batch);
    if (ranks > 1) batch_text += " (" + std::to_string(share_of_batch(batch, ranks)) + " a GPU)";
    std::printf("%s\n", side.device_line.c_str());
    std::printf("model %s (%zu parameters), %s, %s, batch %s, %d epoch(s), seed %llu\n",
                model_title(config.model, spec).c_str(),
                net.parameters().parameter_count(), run.network_text ? run.network_text(net).c_str() : "GPU network",
                run.optimizer_text.c_str(), batch_text.c_str(), config.epochs,
                static_cast<unsigned long long>(config.seed));
    std::printf("layers: %s\n", plan_summary(spec).c_str());
    if (run.describe) std::printf("%s", run.describe(net).c_str());
    if (!run.steps_text.empty()) std::printf("steps: %s\n", run.steps_text.c_str());
    std::fflush(stdout);
  }

  // Everything a step touches exists before the first step and keeps its address (a captured step
  // holds the pointers): no allocation inside the loop.
  const int n = train.count, classes = spec.classes;
  const int steps_per_epoch = course::ceil_div(n, batch);
  course::DeviceBuffer<float> x(size_t(batch) * train.per_example);
  course::DeviceBuffer<int> labels{size_t(batch)}, predictions{size_t(batch)}, order{size_t(n)};
  EpochCounters counters;
  DeviceEvaluation eval;
  LossWatch watch(run.lr, classes);  // fed at the report points: the step never waits

  // The steps first .. last-1 of an epoch. The NaN flag gets the step's number within the epoch
  // (read_report adds the steps of the earlier epochs), so the same launches serve every epoch.
  auto enqueue_steps = [&](int first_step, int last_step) {
    detail::enqueue_steps(run.step,
                          StepArgs{net, *update, train, order.data(), 0, 0, 0, x.data(), labels.data(),
                                   predictions.data(), counters, stream},
                          n, batch, first_step, last_step, 0);
  };

  if (run.profile && run.profile_capture) {  // one GPU: train_on_ranks refuses --profile on several
    TrainingSnapshot snapshot(net, *update);  // real steps change the weights and the optimizer's state
    order.upload(run.epoch_order(n, config.seed, 0));
    const int full = std::max(1, n / batch - 1);  // a full batch: every profiled step has the same shape
    const StepProfile p = profile_step(stream, [&] { enqueue_steps(full - 1, full); }, run.profile_capture, 3,
                                       run.profile_steps);
    snapshot.restore();
    counters.ints.upload(std::vector<int>{0, -1});  // the profile's steps counted too
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("\nprofile: model %s, batch %d, one training step (gather, forward, loss, backward, update)\n",
                spec.name.c_str(), batch);
    print_step_profile(stdout, p);
    std::fflush(stdout);
  } else if (run.profile) {
    if (!run.layer_profile) throw course::Error("--profile: this network has no profile of its layers");
    run.layer_profile(net, *update, train, batch, run.profile_steps);
  }

  // Each stretch of the epoch between two report points runs as it is enqueued or as run.capture replays it.
  // The update reads the learning rate from device memory when it runs, so one set of stretches
  // serves every rate of --lr-drops: a drop writes the new rate before the epoch's first step.
  std::vector<std::function<void()>> run_stretch;
  net.set_training(true);
  course::HostTimer capture_timer;
  for (const auto& [first, last] : report_stretches(steps_per_epoch)) {
    std::function<void()> enqueue = [&enqueue_steps, first = first, last = last] { enqueue_steps(first, last); };
    run_stretch.push_back(run.capture ? run.capture(enqueue) : enqueue);
  }
  if (run.capture && lead)
    std::printf("captured %zu graph(s) of up to %d steps (%d steps an epoch)%s in %.1f ms\n", run_stretch.size(),
                kReportEvery, steps_per_epoch, ranks > 1 ? " on each GPU" : "", capture_timer.milliseconds());
  int drops = 0;  // the drops of the rate the update reads now

  EpochLoop loop;
  loop.examples = n, loop.batch = batch, loop.epochs = config.epochs;
  loop.start_epoch = [&](int epoch) {
    // The epoch's order (the CPU trainer's, so both see the same batches; the same on every rank),
    // uploaded once into the same buffer (a captured step reads it there).
    order.upload(run.epoch_order(n, config.seed, epoch));
    net.set_training(true);
    counters.new_epoch();
    if (!config.lr_drops.empty()) {
      const int now = config.lr_drops_by(epoch);
      const float rate = config.learning_rate_after(now);
      if (now != drops) update->set_learning_rate(rate, stream);  // before the epoch's first step
      if (lead && (epoch == 0 || now != drops))
        std::printf("from epoch %d: learning rate %s\n", epoch + 1, course::shortest_text(rate).c_str());
      drops = now;
    }
  };
  loop.run_stretch = [&](int, size_t k, int, int) { run_stretch[k](); };
  loop.wait = [&] {
    CUDA_CHECK(cudaDeviceSynchronize());  // every stream and the uploads too
    side.meet();                          // every GPU idle: an epoch starts and ends with all of them
  };
  loop.counts = [&](int steps_before) {
    // Every rank's counters, added up on the host (the ranks' threads share the reports).
    (*side.reports)[size_t(side.rank)] = read_report(counters, steps_per_epoch, steps_before);
    side.meet();
    EpochCounts sum;
    for (const CounterReport& r : *side.reports) sum.loss_sum += r.loss_sum, sum.correct += r.correct;
    side.meet();  // nobody overwrites its report before everyone has read them all
    return sum;
  };
  loop.evaluate = [&] {
    TestScore score;
    if (lead) {  // the other ranks wait meanwhile
      net.set_training(false);  // dropout off while the test set is evaluated (and for the pictures)
      eval = run.evaluate(net, *test);
      score = {eval.loss, eval.accuracy};
    }
    side.meet();
    return score;
  };
  run_epochs(loop, lead ? &watch : nullptr, lead ? start.log.get() : nullptr);
  if (!lead) return;

  std::function<std::vector<std::string>()> draw_network;
  if (run.draw_network) draw_network = [&] { return run.draw_network(net, *start.files, data.test, *test); };
  std::function<std::vector<std::string>()> report;
  if (run.report_results) report = [&] { return run.report_results(eval, data.test, *start.files); };
  // --save: the parameters, and batch norm's running statistics (what evaluation normalises with).
  auto saved = [&] {
    std::vector<Parameter> tensors = net.parameters().download();
    for (Parameter& p : running_statistics(spec, net.download_buffers())) tensors.push_back(std::move(p));
    return tensors;
  };
  finish_run(*start.files, saved, eval, data.test, classes, draw_network, report);
}

}  // namespace detail

TrainSummary train_on_device(const TrainConfig& config, const TrainingData& data, const DeviceRun& run) {
  course::require_gpu(run.program);
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  detail::RunStart start = detail::start_run(config, data, run, {device});
  std::vector<CounterReport> reports(1);
  detail::RankSide side;
  side.reports = &reports;
  side.device_line = "device: " + course::device_summary() + "; " + course::cuda_versions();
  detail::train_rank(config, data, run, start, side);
  return start.log->summary();
}

DeviceEvaluation evaluate_on_device(DeviceNetwork& net, const DeviceDataset& data, const StepKernels& kernels) {
  const int n = data.count, classes = net.classes(), chunk = net.max_batch();
  if (size_t(data.per_example) != net.input_size())
    throw course::Error("evaluate: the data set's examples have " + std::to_string(data.per_example) +
                        " values, the network takes " + std::to_string(net.input_size()));
  DeviceEvaluation result;
  result.confusion.assign(size_t(classes) * classes, 0);
  if (n == 0) return result;

  course::DeviceBuffer<float> logits(size_t(n) * classes);
  course::DeviceBuffer<int> predictions{size_t(n)}, counters{2};  // counters: correct, unused bad-step flag
  course::DeviceBuffer<double> loss_sum(1);
  loss_sum.zero();
  counters.upload(std::vector<int>{0, -1});
  for (int first = 0; first < n; first += chunk) {
    const int count = std::min(chunk, n - first);
    const float* x = data.images.data() + size_t(first) * data.per_example;  // in order: no gather
    const int* labels = data.labels.data() + first;
    net.forward_and_loss(x, labels, count);
    kernels.accumulate(net.row_loss(), count, first / chunk + 1, loss_sum.data(), counters.data() + 1, net.stream());
    kernels.count_correct(net.logits(), labels, count, classes, predictions.data() + first, counters.data(),
                          net.stream());
    CUDA_CHECK(cudaMemcpyAsync(logits.data() + size_t(first) * classes, net.logits(),
                               size_t(count) * classes * sizeof(float), cudaMemcpyDeviceToDevice, net.stream()));
  }
  const std::vector<int> c = counters.to_host();  // waits for the GPU
  result.loss = loss_sum.to_host()[0] / n;
  result.accuracy = double(c[0]) / n;
  result.predictions = predictions.to_host();
  result.logits = logits.to_host();
  const std::vector<int> labels = data.labels.to_host();
  for (int i = 0; i < n; ++i) {
    const int p = result.predictions[size_t(i)], t = labels[size_t(i)];
    if (t >= 0 && t < classes && p >= 0 && p < classes) result.confusion[size_t(t) * classes + p] += 1;
  }
  return result;
}

void finish_run(const RunFiles& files, const std::function<std::vector<Parameter>()>& params,
                const DeviceEvaluation& eval, const course::Dataset& test, int classes,
                const std::function<std::vector<std::string>()>& draw_network,
                const std::function<std::vector<std::string>()>& report_results) {
  std::vector<std::string> saved, written;
  if (files.has_save()) {
    const std::vector<Parameter> values = params();
    save_npy(files.save_dir(), values, eval.logits, classes);
    saved = npy_names(values);
    std::printf("saved %s and test_logits.npy to %s\n", saved_tensors_text(values).c_str(), files.save_dir().c_str());
  }
  if (files.has_out()) {
    written.push_back("metrics.csv");
    if (draw_network) {
      const std::vector<std::string> drawn = draw_network();
      written.insert(written.end(), drawn.begin(), drawn.end());
    }
    if (report_results) {
      const std::vector<std::string> drawn = report_results();
      written.insert(written.end(), drawn.begin(), drawn.end());
    } else {
      write_misclassified_png(files.out_path("misclassified.png"), test, eval.predictions);
      write_confusion_png(files.out_path("confusion.png"), eval.confusion, classes);
      written.insert(written.end(), {"misclassified.png", "confusion.png"});
    }
    std::printf("wrote %s/{%s}\n", files.out_dir().c_str(), file_list(written).c_str());
  } else if (report_results) {
    report_results();  // its report, without pictures
  }
  files.finish(written, saved);
}

}  // namespace framework
