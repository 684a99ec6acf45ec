// Lesson 09 (given): the fast trainer (fast_trainer.hpp).
#include "fast_trainer.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "course/atomic_file.hpp"
#include "course/cuda_check.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"
#include "device_data.hpp"
#include "epoch_counters.hpp"
#include "framework/epoch_log.hpp"
#include "framework/epoch_loop.hpp"
#include "framework/step_profile.hpp"
#include "evaluation.hpp"
#include "fast_network.hpp"
#include "framework/loss_watch.hpp"
#include "framework/run_files.hpp"
#include "mnist_gpu.hpp"
#include "optimizer.hpp"
#include "your_steps_check.hpp"
#include "branch.hpp"
#include "step_graph.hpp"
#include "saved_model.hpp"
#include "training_pictures.hpp"

namespace fast_training {


framework::TrainSummary train_fast(const FastTrainConfig& config, const framework::TrainingData& data) {
  using namespace mnist_gpu;
  if (config.epochs < 1 || config.batch < 1) throw course::Error("epochs and batch must be >= 1");
  course::require_gpu("train_fast");
  const course::Dataset& train_set = data.train;
  const course::Dataset& test_set = data.test;
  const host_training::ModelSpec spec = framework::model_for_data(config.model, data);
  const int batch = std::min(config.batch, train_set.count());
  const bool use_graph = config.graph && config.optimizer == framework::OptimizerKind::sgd;

  Stream stream;  // every step's launch goes here (the default stream cannot be captured)
  std::vector<host_training::Parameter> init = host_training::init_parameters(spec, config.seed);
  // Every output is checked before any work: a bad --out or --save stops the run before it trains.
  const framework::RunFiles files(config.out_dir, {"metrics.csv", "misclassified.png", "confusion.png"},
                                  config.save_dir, framework::npy_names(init));
  FastNetwork net(spec, std::move(init), std::max(batch, kEvalBatch), stream.get(),
                  config.conv, config.conv_kernels, config.math);
  Branch branch(stream.get());  // 09.12: a second stream beside it
  const host_training::OptimizerConfig opt_config = host_training::optimizer_config(config);  // as train_mnist
  DeviceOptimizer optimizer(opt_config, net.parameters());
  const DeviceDataset train(train_set), test(test_set);
  // Your steps in the lesson's order, before anything trains: 09.8's pass and 09.9's capture throw
  // their TODO when unwritten, a quick look catches the kernels of 09.10, 09.11 and 09.13 (an
  // unwritten kernel throws nothing: it leaves garbage), and 09.12's fork and join throw theirs.
  {
    const course::DeviceBuffer<float> image(std::vector<float>(size_t(train.per_example), 0.0f));
    const course::DeviceBuffer<int> label(std::vector<int>{0});
    net.forward_backward(image.data(), label.data(), 1);                         // 09.8
    CUDA_CHECK(cudaGraphDestroy(capture_step(stream.get(), [] {})));             // 09.9
    if (config.conv != ConvEngine::implicit_gemm) check_tiled_steps();          // 09.10, 09.11
    if (config.branches) branch.fork(), branch.join();                           // 09.12
    if (config.thin) check_thin_step();                                          // 09.13
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  }
  if (config.branches) net.use_branch(&branch);
  net.use_thin_first_layer(config.thin);

  std::printf("device: %s; %s\n", course::device_summary().c_str(), course::cuda_versions().c_str());
  std::printf("model %s (%zu parameters), fast network (lesson 09), %s lr %g%s, batch %d, %d epoch(s), seed %llu\n",
              spec.name.c_str(), net.parameters().parameter_count(), framework::optimizer_name(config.optimizer), double(opt_config.lr),
              host_training::momentum_text(opt_config).c_str(), batch, config.epochs,
              static_cast<unsigned long long>(config.seed));
  std::printf("layers: %s\n", host_training::plan_summary(spec).c_str());
  std::printf("convolutions: %d of %d by the tiled kernel (09.10), the others implicit GEMMs (09.2-09.4)%s\n",
              net.tiled_convs(), net.conv_blocks(), config.conv == ConvEngine::tiled ? "" : " (--conv implicit)");
  if (net.thin_first_layer())
    std::printf("  the first block's conv, ReLU and pool in one kernel, its dW from the pool's argmax (09.13)\n");
  if (config.conv_kernels)
    std::printf("  forward and input gradient of %d of %d, weight gradient of %d, by %s\n", net.other_convs(),
                net.conv_blocks(), net.other_weight_gradients(), config.conv_kernels->name().c_str());
  if (config.math == GemmMath::tf32)
    std::printf("implicit-GEMM products (dense layers, implicit-GEMM convs) on the Tensor Cores in TF32\n");
  std::printf("steps: %s; %s\n", use_graph ? "replayed from CUDA graphs"
                             : config.graph ? "launched one by one (--optimizer adam: its step number changes every step)"
                                            : "launched one by one (--graph off)",
              config.branches ? "weight gradients and counters on a second stream (09.12)" : "one stream (--branches off)");
  std::fflush(stdout);

  // Everything a step touches exists before the first step and keeps its address: graphs hold the
  // pointers.
  const int n = train.count, classes = spec.classes;
  const int steps_per_epoch = (n + batch - 1) / batch;
  course::DeviceBuffer<float> x(size_t(batch) * train.per_example);
  course::DeviceBuffer<int> labels{size_t(batch)}, predictions{size_t(batch)}, order{size_t(n)};
  EpochCounters counters;

  // The steps first .. last-1 of an epoch; the loss flag gets the step's number within the epoch
  // (a graph cannot know the epoch).
  auto enqueue_steps = [&](int first_step, int last_step) {
    for (int step = first_step; step < last_step; ++step) {
      const int first = step * batch, count = std::min(batch, n - first);
      gather_batch(train.images.data(), train.labels.data(), n, train.per_example, order.data(), first, count,
                   x.data(), labels.data(), stream.get());
      net.forward_backward(x.data(), labels.data(), count);
      // With branches: the weight gradients are done once the main stream joins the side; then the
      // counters go aside, beside the update (they read the loss and logits, it the gradients).
      cudaStream_t counting = stream.get();
      if (config.branches) {
        branch.join();
        branch.fork();
        counting = branch.side();
      }
      accumulate_loss(net.row_loss(), count, step + 1, counters.loss_sum.data(), counters.bad_step(), counting);
      predict_and_count(net.logits(), labels.data(), count, classes, predictions.data(), counters.correct(), counting);
      optimizer.step(stream.get());
      if (config.branches) branch.join();  // the next step's forward writes what the counters read
    }
  };

  if (config.profile) {
    // Real steps change the weights and the optimizer's state: save them, profile, restore.
    const std::vector<host_training::Parameter> saved = net.parameters().download();
    const std::vector<float> saved_state = optimizer.download_state();
    const int saved_steps = optimizer.steps();
    order.upload(host_training::epoch_order(n, config.seed, 0));
    const int full = std::max(1, n / batch - 1);  // a full batch: every profiled step has the same shape
    const framework::StepProfile p =
        framework::profile_step(stream.get(), [&] { enqueue_steps(full - 1, full); }, capture_step, 3, config.profile_steps);
    net.parameters().upload(saved);
    optimizer.restore(saved_state, saved_steps);
    counters.ints.upload(std::vector<int>{0, -1});  // the profile's steps counted too
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("\nprofile: model %s, batch %d, one training step (gather, forward, loss, backward, update)\n",
                spec.name.c_str(), batch);
    framework::print_step_profile(stdout, p);
    std::fflush(stdout);
  }

  framework::EpochLog log(files.out_path("metrics.csv"), config.epochs);

  // The epoch in stretches between two report points; with graphs, one graph per stretch.
  std::vector<GraphExec> graphs;
  if (use_graph) {
    course::HostTimer capture;
    for (const auto& [first, last] : framework::report_stretches(steps_per_epoch))
      graphs.emplace_back(capture_graph(stream.get(), [&, first = first, last = last] { enqueue_steps(first, last); }));
    std::printf("captured %zu graph(s) of up to %d steps (%d steps an epoch) in %.1f ms\n", graphs.size(),
                framework::kReportEvery, steps_per_epoch, capture.milliseconds());
  }

  GpuEvaluation eval;
  const mnist_gpu::EvaluationTarget target = evaluation_target(net);
  framework::LossWatch watch(opt_config.lr, classes);
  framework::EpochLoop loop;
  loop.examples = n, loop.batch = batch, loop.epochs = config.epochs;
  loop.start_epoch = [&](int epoch) {
    order.upload(host_training::epoch_order(n, config.seed, epoch));  // same buffer: the graphs read it
    counters.new_epoch();
  };
  loop.run_stretch = [&](size_t k, int first, int last) {
    if (use_graph)
      graphs[k].launch(stream.get());
    else
      enqueue_steps(first, last);
  };
  loop.wait = [] { CUDA_CHECK(cudaDeviceSynchronize()); };  // the side stream and the uploads too
  loop.counts = [&](int steps_before) {
    const Report r = read_report(counters, steps_per_epoch, steps_before);
    return framework::EpochCounts{r.loss_sum, r.correct};
  };
  loop.evaluate = [&] {
    eval = evaluate_on_gpu(target, test);
    return framework::TestScore{eval.loss, eval.accuracy};
  };
  framework::run_epochs(loop, &watch, &log);

  // The weights first: a picture that cannot be written then costs no trained model.
  std::vector<std::string> saved, written;
  if (files.has_save()) {
    const std::vector<host_training::Parameter> params = net.parameters().download();
    host_training::save_npy(files.save_dir(), params, eval.logits, classes);  // lesson 02's layout
    saved = framework::npy_names(params);
    std::printf("saved %zu parameter tensors and test_logits.npy to %s\n", params.size(), files.save_dir().c_str());
  }
  if (files.has_out()) {
    host_training::write_misclassified_png(files.out_path("misclassified.png"), test_set, eval.predictions);
    host_training::write_confusion_png(files.out_path("confusion.png"), eval.confusion, classes);
    written = {"metrics.csv", "misclassified.png", "confusion.png"};
    std::printf("wrote %s/{metrics.csv, misclassified.png, confusion.png}\n", files.out_dir().c_str());
  }
  files.finish(written, saved);
  return log.summary();
}

}  // namespace fast_training
