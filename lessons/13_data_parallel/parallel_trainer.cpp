// Lesson 13 (given): the data-parallel trainer (parallel_trainer.hpp).
#include "parallel_trainer.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"
#include "framework/device_data.hpp"
#include "framework/device_trainer.hpp"
#include "framework/epoch_counters.hpp"
#include "framework/epoch_log.hpp"
#include "framework/epoch_loop.hpp"
#include "evaluation.hpp"
#include "framework/loss_watch.hpp"
#include "framework/run_files.hpp"
#include "mnist_gpu.hpp"
#include "replica.hpp"
#include "step_graph.hpp"

namespace data_parallel {

framework::TrainSummary train_parallel(const ParallelTrainConfig& config, const framework::TrainingData& data) {
  using namespace mnist_gpu;
  if (config.epochs < 1 || config.batch < 1) throw course::Error("epochs and batch must be >= 1");
  course::require_gpu("train_parallel");
  const std::vector<int> devices = framework::first_devices(config.gpus > 0 ? config.gpus : framework::usable_gpus());
  const int ranks = int(devices.size());
  const course::Dataset& train_set = data.train;
  const host_training::ModelSpec spec = framework::model_for_data(config.model, data);
  const int n = train_set.count();
  const int batch = std::min(config.batch * ranks, n);  // over all ranks
  const int steps_per_epoch = (n + batch - 1) / batch;
  const bool use_graph = config.graph && config.optimizer == framework::OptimizerKind::sgd;
  const host_training::OptimizerConfig opt = host_training::optimizer_config(config);  // as train_mnist

  // Every output is checked before any work: a bad --out or --save stops the run before it trains.
  const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, config.seed);  // every rank's
  const framework::RunFiles files(config.out_dir, {"metrics.csv", "misclassified.png", "confusion.png"},
                                  config.save_dir, framework::npy_names(init));
  framework::EpochLog log(files.out_path("metrics.csv"), config.epochs);

  std::printf("devices: %d x %s; %s; NCCL %s\n", ranks, course::device_summary(devices[0]).c_str(),
              course::cuda_versions().c_str(), framework::nccl_version().c_str());
  std::printf("model %s, %s, %s lr %g%s, batch %d (%d a GPU), %d epoch(s), seed %llu\n", spec.name.c_str(),
              config.network == NetworkKind::fast_network ? "fast network (lesson 09)" : "lesson 12's layers",
              framework::optimizer_name(config.optimizer), double(opt.lr), host_training::momentum_text(opt).c_str(),
              batch, shard_of(batch, ranks, 0).count, config.epochs, static_cast<unsigned long long>(config.seed));
  std::printf("layers: %s\n", host_training::plan_summary(spec).c_str());
  std::printf("gradients: averaged over %d rank(s) by NCCL all-reduce%s; steps %s\n", ranks,
              config.overlap ? ", bucket by bucket during the backward pass" : " after the backward pass",
              use_graph ? "replayed from CUDA graphs" : "launched one by one");
  std::fflush(stdout);

  framework::HostBarrier barrier(ranks);
  std::vector<framework::CounterReport> reports(ranks);
  GpuEvaluation eval;
  std::vector<host_training::Parameter> final_params;
  framework::run_ranks(devices, [&](const framework::Rank& rank) {
    const bool lead = rank.rank == 0;  // evaluates, prints, writes
    ReplicaOptions options;
    options.batch = batch, options.optimizer = opt, options.overlap = config.overlap;
    options.bucket_floats = config.bucket_floats, options.conv = config.conv;
    options.network = config.network, options.dropout_seed = config.seed;
    options.eval_batch = lead ? kEvalBatch : 0;
    Replica replica(rank, spec, init, options);
    const framework::DeviceDataset train(train_set);  // every GPU its own copy: each gathers its own shards
    std::unique_ptr<framework::DeviceDataset> test;
    if (lead) test = std::make_unique<framework::DeviceDataset>(data.test);
    course::DeviceBuffer<int> order{size_t(n)}, predictions{size_t(std::max(1, replica.shard(batch).count))};
    framework::EpochCounters counters;
    const cudaStream_t stream = replica.stream();

    auto enqueue_steps = [&](int first_step, int last_step) {
      for (int step = first_step; step < last_step; ++step) {
        const int first = step * batch, count = std::min(batch, n - first);
        replica.step(train, order.data(), first, count);
        const int mine = replica.shard(count).count;  // this rank's loss and right answers
        if (mine == 0) continue;
        accumulate_loss(replica.net().row_loss(), mine, step + 1, counters.loss_sum.data(), counters.bad_step(), stream);
        predict_and_count(replica.net().logits(), replica.shard_labels(), mine, spec.classes, predictions.data(),
                          counters.correct(), stream);
      }
    };
    // A report point: every rank's counters, added up on the host (the ranks' threads share it).
    auto gather_counts = [&](int steps_before) {
      reports[rank.rank] = framework::read_report(counters, steps_per_epoch, steps_before);
      barrier.arrive_and_wait();
      framework::EpochCounts sum;
      for (const framework::CounterReport& r : reports) sum.loss_sum += r.loss_sum, sum.correct += r.correct;
      barrier.arrive_and_wait();  // nobody overwrites its report before everyone has read them all
      return sum;
    };

    std::vector<fast_training::GraphExec> graphs;
    if (use_graph) {
      course::HostTimer capture;
      for (const auto& [first, last] : framework::report_stretches(steps_per_epoch))
        graphs.emplace_back(fast_training::capture_graph(stream, [&, first = first, last = last] { enqueue_steps(first, last); }));
      if (lead)
        std::printf("captured %zu graph(s) of up to %d steps on each GPU (%d steps an epoch) in %.1f ms\n", graphs.size(),
                    framework::kReportEvery, steps_per_epoch, capture.milliseconds());
    }

    framework::LossWatch watch(opt.lr, spec.classes);
    framework::EpochLoop loop;
    loop.examples = n, loop.batch = batch, loop.epochs = config.epochs;
    loop.start_epoch = [&](int epoch) {
      order.upload(host_training::epoch_order(n, config.seed, epoch));  // the same order on every rank
      counters.new_epoch();
    };
    loop.run_stretch = [&](size_t k, int first, int last) {
      if (use_graph)
        graphs[k].launch(stream);
      else
        enqueue_steps(first, last);
    };
    loop.wait = [&] {
      CUDA_CHECK(cudaDeviceSynchronize());
      barrier.arrive_and_wait();  // every GPU idle: the epoch starts and ends with all of them
    };
    loop.counts = gather_counts;
    loop.evaluate = [&] {
      framework::TestScore score;
      if (lead) {  // the other ranks wait meanwhile
        replica.net().set_training(false);  // dropout keeps everything while evaluating
        eval = evaluate_on_gpu(replica.net(), *test);
        replica.net().set_training(true);
        score = {eval.loss, eval.accuracy};
      }
      barrier.arrive_and_wait();
      return score;
    };
    framework::run_epochs(loop, lead ? &watch : nullptr, lead ? &log : nullptr);
    if (lead) final_params = replica.parameters().download();
  });

  framework::finish_run(files, [&] { return final_params; }, eval, data.test, spec.classes);
  return log.summary();
}

}  // namespace data_parallel
