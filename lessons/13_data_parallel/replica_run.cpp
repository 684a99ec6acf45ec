// Lesson 13 (given): a rank's replica as the framework's run takes it (replica_run.hpp).
#include "replica_run.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "course/device_info.hpp"
#include "course/error.hpp"
#include "evaluation.hpp"
#include "framework/device_choice.hpp"
#include "framework/rank_trainer.hpp"
#include "mnist_gpu.hpp"
#include "replica.hpp"
#include "step_graph.hpp"

namespace data_parallel {

std::vector<int> devices_of(const ParallelTrainConfig& config) {
  return framework::first_devices(config.gpus > 0 ? config.gpus : framework::usable_gpus());
}

framework::DeviceRun replica_run(const ParallelTrainConfig& config, const framework::TrainingData& data,
                                 const framework::Rank& rank, const std::string& program) {
  const std::string not_replayed = framework::graph_problem(config.graph, config);  // "": replayed
  const host_training::OptimizerConfig opt = host_training::optimizer_config(config);  // as train_mnist
  // The run's settings, shared by its hooks (they outlive this call).
  const auto cfg = std::make_shared<const ParallelTrainConfig>(config);
  // The rank's replica, once the run has built it (the hooks below share it).
  auto replica = std::make_shared<std::shared_ptr<Replica>>();
  framework::DeviceRun run;
  run.program = program;
  run.network = [cfg, rank, replica, opt, train_count = data.train.count()](const host_training::ModelSpec& spec,
                                   const std::vector<host_training::Parameter>& init, int max_batch) {
    ReplicaOptions options;
    options.batch = std::min(cfg->batch * rank.ranks, train_count);  // over all ranks
    options.optimizer = opt, options.overlap = cfg->overlap;
    options.bucket_floats = cfg->bucket_floats, options.conv = cfg->conv;
    options.network = cfg->network, options.dropout_seed = cfg->seed;
    options.make_network = cfg->make_network;
    options.eval_batch = max_batch;  // the lead also evaluates
    *replica = std::make_shared<Replica>(rank, spec, init, options);
    return std::shared_ptr<framework::DeviceNetwork>(*replica, &(*replica)->net());
  };
  run.optimizer = [replica](framework::DeviceNetwork&) {
    return std::shared_ptr<framework::DeviceUpdate>(*replica, &(*replica)->optimizer());
  };
  // THE DATA-PARALLEL STEP: this rank's share of the batch through 13.1-13.3 and the update
  // (Replica::step); the loss and right answers of its share counted (lesson 08's 08.4).
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
  run.network_text = [cfg](framework::DeviceNetwork&) {
    if (!cfg->network_text.empty()) return cfg->network_text;
    return std::string(cfg->network == NetworkKind::fast_network ? "fast network (lesson 09)"
                                                                   : "lesson 12's layers");
  };
  char lr[64];
  std::snprintf(lr, sizeof lr, " lr %g", double(opt.lr));
  run.optimizer_text = framework::optimizer_name(config.optimizer) + std::string(lr) + host_training::momentum_text(opt);
  run.lr = opt.lr;
  run.describe = [cfg, rank](framework::DeviceNetwork&) {
    return "gradients: averaged over " + std::to_string(rank.ranks) + " rank(s) by NCCL all-reduce" +
           (cfg->overlap ? ", bucket by bucket during the backward pass\n" : " after the backward pass\n");
  };
  run.steps_text = framework::steps_text(not_replayed);
  if (not_replayed.empty())
    run.capture = [replica](const std::function<void()>& enqueue) {
      return fast_training::replayed((*replica)->stream(), enqueue);
    };
  return run;
}

}  // namespace data_parallel
