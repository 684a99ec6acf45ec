// Lesson 13 (given): the data-parallel trainer (parallel_trainer.hpp): on every rank, the
// framework's run with this rank's replica (replica.hpp) as the network, optimizer and step.
#include "parallel_trainer.hpp"

#include <memory>
#include <string>

#include "course/device_info.hpp"
#include "course/error.hpp"
#include "evaluation.hpp"
#include "framework/rank_trainer.hpp"
#include "mnist_gpu.hpp"
#include "replica.hpp"
#include "step_graph.hpp"

namespace data_parallel {

framework::TrainSummary train_parallel(const ParallelTrainConfig& config, const framework::TrainingData& data) {
  course::require_gpu("train_parallel");
  const std::vector<int> devices = framework::first_devices(config.gpus > 0 ? config.gpus : framework::usable_gpus());
  const bool use_graph = config.graph && config.optimizer == framework::OptimizerKind::sgd;
  const host_training::OptimizerConfig opt = host_training::optimizer_config(config);  // as train_mnist

  return framework::train_on_ranks(config, data, devices, [&](const framework::Rank& rank) {
    // The rank's replica, once the run has built it (the hooks below share it).
    auto replica = std::make_shared<std::shared_ptr<Replica>>();
    framework::DeviceRun run;
    run.program = "train_parallel";
    run.network = [&, rank, replica](const host_training::ModelSpec& spec,
                                     const std::vector<host_training::Parameter>& init, int max_batch) {
      ReplicaOptions options;
      options.batch = std::min(config.batch * rank.ranks, data.train.count());  // over all ranks
      options.optimizer = opt, options.overlap = config.overlap;
      options.bucket_floats = config.bucket_floats, options.conv = config.conv;
      options.network = config.network, options.dropout_seed = config.seed;
      options.make_network = config.make_network;
      options.eval_batch = max_batch;  // the lead also evaluates
      *replica = std::make_shared<Replica>(rank, spec, init, options);
      return std::shared_ptr<framework::DeviceNetwork>(*replica, &(*replica)->net());
    };
    run.optimizer = [replica](framework::DeviceNetwork&) {
      return std::shared_ptr<framework::DeviceUpdate>(*replica, &(*replica)->optimizer());
    };
    // THE DATA-PARALLEL STEP: this rank's share of the batch through 13.1-13.3 and the update
    // (Replica::step); the loss and right answers of its share counted (lesson 08's 08.8).
    run.step = [replica](const framework::StepArgs& s) {
      Replica& r = **replica;
      r.step(s.data, s.order, s.first, s.count);
      const int mine = r.shard(s.count).count;
      if (mine == 0) return;
      mnist_gpu::accumulate_loss(r.net().row_loss(), mine, s.number, s.counters.loss_sum.data(),
                                 s.counters.bad_step(), s.stream);
      mnist_gpu::predict_and_count(r.net().logits(), r.shard_labels(), mine, r.net().classes(), s.predictions,
                                   s.counters.correct(), s.stream);
    };
    run.evaluate = mnist_gpu::evaluate_on_gpu;
    run.epoch_order = host_training::epoch_order;  // the same order on every rank
    run.network_text = [&](framework::DeviceNetwork&) {
      if (!config.network_text.empty()) return config.network_text;
      return std::string(config.network == NetworkKind::fast_network ? "fast network (lesson 09)"
                                                                     : "lesson 12's layers");
    };
    char lr[64];
    std::snprintf(lr, sizeof lr, " lr %g", double(opt.lr));
    run.optimizer_text = framework::optimizer_name(config.optimizer) + std::string(lr) + host_training::momentum_text(opt);
    run.lr = opt.lr;
    run.describe = [&, rank](framework::DeviceNetwork&) {
      return "gradients: averaged over " + std::to_string(rank.ranks) + " rank(s) by NCCL all-reduce" +
             (config.overlap ? ", bucket by bucket during the backward pass\n" : " after the backward pass\n");
    };
    run.steps_text = use_graph ? "replayed from CUDA graphs"
                     : config.graph ? "launched one by one (--optimizer adam: its step number changes every step)"
                                    : "launched one by one (--graph off)";
    if (use_graph)
      run.capture = [replica](const std::function<void()>& enqueue) {
        return fast_training::replayed((*replica)->stream(), enqueue);
      };
    return run;
  });
}

}  // namespace data_parallel
