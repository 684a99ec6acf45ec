// Lesson 08 (given code): the GPU training loop (see trainer.hpp).
#include "trainer.hpp"

#include <algorithm>
#include <cstdio>

#include "course/atomic_file.hpp"
#include "course/cuda_check.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"
#include "device_data.hpp"
#include "epoch_counters.hpp"
#include "framework/epoch_log.hpp"
#include "framework/epoch_loop.hpp"
#include "evaluation.hpp"
#include "host_training.hpp"
#include "framework/loss_watch.hpp"
#include "framework/run_files.hpp"
#include "mnist_gpu.hpp"
#include "framework/training_data.hpp"
#include "training_pictures.hpp"
#include "network.hpp"
#include "optimizer.hpp"
#include "pictures.hpp"
#include "profile.hpp"

namespace mnist_gpu {


framework::TrainSummary train_on_gpu(const GpuTrainConfig& config, const framework::TrainingData& data,
                                         const GpuTrainerExtras& extras) {
  if (config.epochs < 1 || config.batch < 1) throw course::Error("epochs and batch must be >= 1");
  course::require_gpu("train_mnist on the GPU");
  const course::Dataset& train_set = data.train;
  const course::Dataset& test_set = data.test;
  const std::string& dir = data.dir;
  const host_training::ModelSpec spec = framework::model_for_data(config.model, data);
  const int batch = std::min(config.batch, train_set.count());
  {  // a network the GPU cannot hold is refused before anything is allocated
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    framework::require_memory(framework::training_bytes(host_training::plan_layers(spec), std::max(batch, kEvalBatch)),
                              free_bytes, "model '" + spec.name + "' at batch " + std::to_string(batch), "the GPU");
  }
  std::vector<host_training::Parameter> init = host_training::init_parameters(spec, config.seed);
  const std::vector<std::string> npy_files = framework::npy_names(init);  // what --save writes
  // Every output is checked before any work: a bad --out or --save stops the run before it trains.
  const framework::RunFiles files(
      config.out_dir, {"metrics.csv", "filters.png", "feature_maps.png", "misclassified.png", "confusion.png"},
      config.save_dir, npy_files);
  GpuNetwork net(spec, std::move(init), std::max(batch, kEvalBatch), config.conv, extras.layers, extras.loss);
  cudaStream_t stream = extras.stream;
  if (stream) net.set_stream(stream);
  const host_training::OptimizerConfig opt_config = host_training::optimizer_config(config);
  DeviceOptimizer optimizer(opt_config, net.parameters(), extras.rule);
  const DeviceDataset train(train_set), test(test_set);

  std::printf("device: %s; %s\n", course::device_summary().c_str(), course::cuda_versions().c_str());
  std::printf("model %s (%zu parameters), conv %s, %s lr %g%s, batch %d, %d epoch(s), seed %llu\n",
              spec.name.c_str(), net.parameters().parameter_count(), net.conv_summary().c_str(),
              framework::optimizer_name(config.optimizer), double(opt_config.lr), host_training::momentum_text(opt_config).c_str(), batch,
              config.epochs, static_cast<unsigned long long>(config.seed));
  std::printf("layers: %s\n", host_training::plan_summary(spec).c_str());
  std::printf("data: %d training and %d test images from %s, on the GPU; network buffers %.1f MiB\n",
              train_set.count(), test_set.count(), dir.c_str(), double(net.device_bytes()) / (1 << 20));
  if (!extras.steps_text.empty()) std::printf("steps: %s\n", extras.steps_text.c_str());
  std::fflush(stdout);

  if (config.profile) print_profile(stdout, net, optimizer, train, batch, config.profile_steps);

  framework::EpochLog log(files.out_path("metrics.csv"), config.epochs);

  // Everything a step touches exists before the first step and keeps its address (a captured step
  // holds the pointers): no allocation inside the loop.
  const int n = train.count, classes = spec.classes;
  const int steps_per_epoch = (n + batch - 1) / batch;
  course::DeviceBuffer<float> x(size_t(batch) * train.per_example);
  course::DeviceBuffer<int> labels{size_t(batch)}, predictions{size_t(batch)}, order{size_t(n)};
  EpochCounters counters;
  GpuEvaluation eval;
  framework::LossWatch watch(opt_config.lr, classes);  // fed at the report points: the step never waits

  // The steps first .. last-1 of an epoch. The NaN flag gets the step's number within the epoch
  // (read_report adds the steps of the earlier epochs), so the same launches serve every epoch.
  auto enqueue_steps = [&](int first_step, int last_step) {
    for (int step = first_step; step < last_step; ++step) {
      const int first = step * batch, count = std::min(batch, n - first);
      gather_batch(train.images.data(), train.labels.data(), n, train.per_example, order.data(), first, count,
                   x.data(), labels.data(), stream);
      net.forward_backward(x.data(), labels.data(), count);
      accumulate_loss(net.loss().row_loss(), count, step + 1, counters.loss_sum.data(), counters.bad_step(), stream);
      predict_and_count(net.logits(), labels.data(), count, classes, predictions.data(), counters.correct(), stream);
      optimizer.step(stream);
    }
  };
  // Each stretch of the epoch between two report points runs as it is enqueued or as extras.capture replays it.
  std::vector<std::function<void()>> run_stretch;
  net.set_training(true);
  course::HostTimer capture_timer;
  for (const auto& [first, last] : framework::report_stretches(steps_per_epoch)) {
    std::function<void()> enqueue = [&enqueue_steps, first = first, last = last] { enqueue_steps(first, last); };
    run_stretch.push_back(extras.capture ? extras.capture(enqueue) : enqueue);
  }
  if (extras.capture)
    std::printf("captured %zu graph(s) of up to %d steps (%d steps an epoch) in %.1f ms\n", run_stretch.size(),
                framework::kReportEvery, steps_per_epoch, capture_timer.milliseconds());

  framework::EpochLoop loop;
  loop.examples = n, loop.batch = batch, loop.epochs = config.epochs;
  loop.start_epoch = [&](int epoch) {
    // The epoch's order (lesson 02's, so the CPU trainer would see the same batches), uploaded once
    // into the same buffer.
    order.upload(host_training::epoch_order(n, config.seed, epoch));
    net.set_training(true);
    counters.new_epoch();
  };
  loop.run_stretch = [&](size_t k, int, int) { run_stretch[k](); };
  loop.wait = [] { CUDA_CHECK(cudaDeviceSynchronize()); };
  loop.counts = [&](int steps_before) {
    const Report r = read_report(counters, steps_per_epoch, steps_before);
    return framework::EpochCounts{r.loss_sum, r.correct};
  };
  loop.evaluate = [&] {
    net.set_training(false);  // dropout off while the test set is evaluated (and for the pictures)
    eval = evaluate_on_gpu(net, test);
    return framework::TestScore{eval.loss, eval.accuracy};
  };
  framework::run_epochs(loop, &watch, &log);

  // The weights first: a picture that cannot be written then costs no trained model.
  std::vector<std::string> saved, written;
  if (files.has_save()) {
    save_npy(files.save_dir(), net, eval, classes);
    saved = npy_files;
    std::printf("saved %zu parameter tensors and test_logits.npy to %s\n", net.parameters().tensors(),
                files.save_dir().c_str());
  }
  if (files.has_out()) {
    written.push_back("metrics.csv");
    if (write_filters_png(files.out_path("filters.png"), net)) written.push_back("filters.png");
    write_feature_maps_png(files.out_path("feature_maps.png"), net, test_set, test);
    host_training::write_misclassified_png(files.out_path("misclassified.png"), test_set, eval.predictions);
    host_training::write_confusion_png(files.out_path("confusion.png"), eval.confusion, classes);
    written.insert(written.end(), {"feature_maps.png", "misclassified.png", "confusion.png"});
    std::printf("wrote %s/{%s}\n", files.out_dir().c_str(), host_training::file_list(written).c_str());
  }
  files.finish(written, saved);
  return log.summary();
}

}  // namespace mnist_gpu
