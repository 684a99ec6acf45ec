// Lesson 08 (given code): the GPU training loop (see trainer.hpp).
#include "trainer.hpp"

#include <algorithm>
#include <cstdio>

#include "course/cuda_check.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"
#include "evaluation.hpp"
#include "framework/device_data.hpp"
#include "framework/epoch_counters.hpp"
#include "framework/epoch_log.hpp"
#include "framework/epoch_loop.hpp"
#include "framework/loss_watch.hpp"
#include "framework/run_files.hpp"
#include "framework/step_profile.hpp"
#include "host_training.hpp"
#include "mnist_gpu.hpp"
#include "network.hpp"
#include "optimizer.hpp"
#include "pictures.hpp"
#include "profile.hpp"
#include "framework/run_pictures.hpp"

namespace mnist_gpu {

framework::TrainSummary train_on_gpu(const GpuTrainConfig& config, const framework::TrainingData& data,
                                     const GpuTrainerExtras& extras) {
  if (config.epochs < 1 || config.batch < 1) throw course::Error("epochs and batch must be >= 1");
  course::require_gpu(extras.program);
  const course::Dataset& train_set = data.train;
  const course::Dataset& test_set = data.test;
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
  // Lesson 08's own network draws what its layers computed; another network, its results only.
  const bool own_network = !extras.network;
  std::vector<std::string> out_files = {"metrics.csv", "misclassified.png", "confusion.png"};
  if (own_network) out_files.insert(out_files.begin() + 1, {"filters.png", "feature_maps.png"});
  // Every output is checked before any work: a bad --out or --save stops the run before it trains.
  const framework::RunFiles files(config.out_dir, out_files, config.save_dir, npy_files);

  const int max_batch = std::max(batch, kEvalBatch);
  cudaStream_t stream = extras.stream;
  std::unique_ptr<framework::DeviceNetwork> owned;
  GpuNetwork* layers = nullptr;  // the network as lesson 08's, when it is (its pictures and profile)
  if (own_network) {
    auto made = std::make_unique<GpuNetwork>(spec, std::move(init), max_batch, config.conv, extras.layers, extras.loss);
    if (stream) made->set_stream(stream);
    layers = made.get();
    owned = std::move(made);
  } else {
    owned = extras.network(spec, init, max_batch);
  }
  framework::DeviceNetwork& net = *owned;
  const host_training::OptimizerConfig opt_config = host_training::optimizer_config(config);
  DeviceOptimizer optimizer(opt_config, net.parameters(), extras.rule);
  const framework::DeviceDataset train(train_set), test(test_set);
  if (extras.check_steps) {
    extras.check_steps(net);
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::printf("device: %s; %s\n", course::device_summary().c_str(), course::cuda_versions().c_str());
  const std::string network_text = layers ? "conv " + layers->conv_summary() : extras.network_text;
  std::printf("model %s (%zu parameters), %s, %s lr %g%s, batch %d, %d epoch(s), seed %llu\n", spec.name.c_str(),
              net.parameters().parameter_count(), network_text.c_str(), framework::optimizer_name(config.optimizer),
              double(opt_config.lr), host_training::momentum_text(opt_config).c_str(), batch, config.epochs,
              static_cast<unsigned long long>(config.seed));
  std::printf("layers: %s\n", host_training::plan_summary(spec).c_str());
  if (extras.describe) std::printf("%s", extras.describe().c_str());
  if (layers)
    std::printf("data: %d training and %d test images from %s, on the GPU; network buffers %.1f MiB\n",
                train_set.count(), test_set.count(), data.dir.c_str(), double(layers->device_bytes()) / (1 << 20));
  if (!extras.steps_text.empty()) std::printf("steps: %s\n", extras.steps_text.c_str());
  std::fflush(stdout);

  // Everything a step touches exists before the first step and keeps its address (a captured step
  // holds the pointers): no allocation inside the loop.
  const int n = train.count, classes = spec.classes;
  const int steps_per_epoch = (n + batch - 1) / batch;
  course::DeviceBuffer<float> x(size_t(batch) * train.per_example);
  course::DeviceBuffer<int> labels{size_t(batch)}, predictions{size_t(batch)}, order{size_t(n)};
  framework::EpochCounters counters;
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
      const cudaStream_t counting = extras.counters_stream ? extras.counters_stream() : stream;
      accumulate_loss(net.row_loss(), count, step + 1, counters.loss_sum.data(), counters.bad_step(), counting);
      predict_and_count(net.logits(), labels.data(), count, classes, predictions.data(), counters.correct(), counting);
      optimizer.step(stream);
      if (extras.after_update) extras.after_update();
    }
  };

  if (config.profile && extras.profile_capture) {
    // Real steps change the weights and the optimizer's state: save them, profile, restore.
    const std::vector<host_training::Parameter> saved = net.parameters().download();
    const std::vector<float> saved_state = optimizer.download_state();
    const int saved_steps = optimizer.steps();
    order.upload(host_training::epoch_order(n, config.seed, 0));
    const int full = std::max(1, n / batch - 1);  // a full batch: every profiled step has the same shape
    const framework::StepProfile p = framework::profile_step(
        stream, [&] { enqueue_steps(full - 1, full); }, extras.profile_capture, 3, config.profile_steps);
    net.parameters().upload(saved);
    optimizer.restore(saved_state, saved_steps);
    counters.ints.upload(std::vector<int>{0, -1});  // the profile's steps counted too
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("\nprofile: model %s, batch %d, one training step (gather, forward, loss, backward, update)\n",
                spec.name.c_str(), batch);
    framework::print_step_profile(stdout, p);
    std::fflush(stdout);
  } else if (config.profile) {
    if (!layers) throw course::Error("--profile: this network has no profile of its layers");
    print_profile(stdout, *layers, optimizer, train, batch, config.profile_steps);
  }

  framework::EpochLog log(files.out_path("metrics.csv"), config.epochs);

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
    // into the same buffer (a captured step reads it there).
    order.upload(host_training::epoch_order(n, config.seed, epoch));
    net.set_training(true);
    counters.new_epoch();
  };
  loop.run_stretch = [&](size_t k, int, int) { run_stretch[k](); };
  loop.wait = [] { CUDA_CHECK(cudaDeviceSynchronize()); };  // every stream and the uploads too
  loop.counts = [&](int steps_before) {
    const framework::CounterReport r = framework::read_report(counters, steps_per_epoch, steps_before);
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
    const std::vector<host_training::Parameter> params = net.parameters().download();
    framework::save_npy(files.save_dir(), params, eval.logits, classes);  // PyTorch's layouts
    saved = npy_files;
    std::printf("saved %zu parameter tensors and test_logits.npy to %s\n", params.size(), files.save_dir().c_str());
  }
  if (files.has_out()) {
    written.push_back("metrics.csv");
    if (layers) {
      if (write_filters_png(files.out_path("filters.png"), *layers)) written.push_back("filters.png");
      write_feature_maps_png(files.out_path("feature_maps.png"), *layers, test_set, test);
      written.push_back("feature_maps.png");
    }
    framework::write_misclassified_png(files.out_path("misclassified.png"), test_set, eval.predictions);
    framework::write_confusion_png(files.out_path("confusion.png"), eval.confusion, classes);
    written.insert(written.end(), {"misclassified.png", "confusion.png"});
    std::printf("wrote %s/{%s}\n", files.out_dir().c_str(), framework::file_list(written).c_str());
  }
  files.finish(written, saved);
  return log.summary();
}

}  // namespace mnist_gpu
