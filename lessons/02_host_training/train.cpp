// Lesson 02 (given code): the CPU trainer. The framework's epoch loop runs the epochs; each one
// shuffles (02.4), then for every minibatch gathers it (02.4), runs forward + backward (02.3) and
// the update (02.1 / 02.2); then it evaluates the test set (02.5), prints one line and appends
// one CSV row.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "course/atomic_file.hpp"
#include "course/error.hpp"
#include "framework/epoch_log.hpp"
#include "framework/epoch_loop.hpp"
#include "host_training.hpp"
#include "framework/loss_watch.hpp"
#include "framework/run_files.hpp"
#include "saved_model.hpp"
#include "framework/training_data.hpp"
#include "training_pictures.hpp"

namespace host_training {

namespace {

// The data set's name and the limits are checked where the data is loaded (load_training_data).
void check_config(const TrainConfig& c) {
  if (c.epochs < 1) throw course::Error("epochs must be at least 1, got " + std::to_string(c.epochs));
  if (c.batch < 1) throw course::Error("batch must be at least 1, got " + std::to_string(c.batch));
}

// Index of the largest of n values (the first one on ties).
int arg_max(const float* v, int n) { return static_cast<int>(std::max_element(v, v + n) - v); }

}  // namespace

uint64_t run_bytes(const TrainConfig& config, const std::vector<LayerPlan>& plan, int classes, int train_count,
                   int test_count, const TrainerExtras& extras) {
  const int batch = std::max(1, std::min(config.batch, train_count));  // the most a step runs
  const uint64_t params = framework::parameter_values(plan);
  const uint64_t per_example = plan.empty() ? 0 : plan.front().in_size();
  const int eval_batch = std::max(1, std::min(kEvalBatch, test_count));  // evaluate's and --save's batches
  const uint64_t network = extras.bytes ? extras.bytes(plan, classes, batch, eval_batch)
                                        : HostNetwork::bytes_for(plan, classes, batch, eval_batch);
  const uint64_t optimizer = uint64_t(Optimizer::state_arrays(optimizer_config(config), extras.rule)) * params;
  const uint64_t step = uint64_t(std::max(config.batch, 1)) * (per_example + 1);  // the batch's images, its labels
  const uint64_t tests = uint64_t(std::max(test_count, 0));
  // evaluate: the logits and probabilities of a batch, every prediction, the confusion matrix;
  // --save: the parameters' values (a copy) and every test image's logits.
  const uint64_t eval = 2 * uint64_t(eval_batch) * classes + tests + uint64_t(classes) * classes;
  const uint64_t save = params + tests * classes;
  const uint64_t buffers = network + sizeof(float) * (optimizer + step + eval + save);
  return buffers + allocator_allowance(buffers);
}

TrainSummary train(const TrainConfig& config) {
  check_config(config);  // before the data: a bad setting is reported without loading anything
  return train(config, load_training_data(config));
}

TrainSummary train(const TrainConfig& config, const TrainingData& data) {
  return train(config, data, nullptr, "");
}

TrainSummary train(const TrainConfig& config, const TrainingData& data, const NetworkMaker& make,
                   const std::string& what) {
  return train(config, data, TrainerExtras{make, what, nullptr});
}

TrainSummary train(const TrainConfig& config, const TrainingData& data, const TrainerExtras& extras) {
  check_config(config);
  const NetworkMaker& make = extras.make;
  const std::string& what = extras.what;
  const course::Dataset& train_set = data.train;
  const course::Dataset& test_set = data.test;
  const std::string& dir = data.dir;
  const ModelSpec spec = model_for_data(config.model, data);
  // A run the machine cannot hold is refused before anything is allocated: every buffer it will
  // hold counted, the evaluation's and the network's workspaces too.
  require_memory(run_bytes(config, plan_layers(spec), spec.classes, train_set.count(), test_set.count(), extras),
                 available_host_bytes(),
                 "model '" + course::shown(spec.name, 80) + "' at batch " + std::to_string(config.batch), "this machine");
  std::unique_ptr<HostNetwork> network = make ? make(spec, init_parameters(spec, config.seed))
                                              : std::make_unique<HostNetwork>(spec, init_parameters(spec, config.seed));
  HostNetwork& net = *network;
  const OptimizerConfig opt_config = optimizer_config(config);
  Optimizer optimizer(opt_config, net.parameters(), extras.rule);

  size_t parameter_count = 0;
  for (const Parameter& p : net.parameters()) parameter_count += p.value.size();
  std::printf("model %s (%zu parameters), %s lr %g%s, batch %d, %d epoch(s), seed %llu\n",
              framework::model_title(config.model, spec).c_str(),
              parameter_count, optimizer_name(opt_config.kind), double(opt_config.lr), momentum_text(opt_config).c_str(),
              config.batch, config.epochs, static_cast<unsigned long long>(config.seed));
  std::printf("layers: %s\n", host_training::plan_summary(spec).c_str());
  std::printf("data: %d training and %d test images from %s\n", train_set.count(), test_set.count(), dir.c_str());
  if (!what.empty()) std::printf("network: %s\n", what.c_str());

  // Every output is checked before the first step: a bad --out or --save stops the run before it trains.
  // --save: the parameters and what training changes beside them (batch norm's running statistics).
  auto saved_tensors = [&] {
    std::vector<Parameter> tensors;
    for (const Parameter& p : net.parameters()) tensors.push_back({p.name, p.shape, p.value, {}});  // no gradients
    for (Parameter& p : net.running_tensors()) tensors.push_back(std::move(p));
    return tensors;
  };
  const RunFiles files(config.out_dir, {"metrics.csv", "filters.png", "misclassified.png", "confusion.png"},
                       config.save_dir, npy_names(net.parameters(), net.running_tensors()));
  EpochLog log(files.out_path("metrics.csv"), config.epochs);

  const int n = train_set.count(), classes = spec.classes;
  const size_t per_example = train_set.images.size() / size_t(n);
  std::vector<float> x(size_t(config.batch) * per_example);
  std::vector<int> labels(size_t(config.batch));
  Evaluation eval;
  const int eval_batch = kEvalBatch;  // inference keeps nothing per layer, so a larger batch is cheap

  // The framework's epoch loop (the GPU trainers' too) decides when: the epochs, the report points
  // (progress bar, running loss), the clock around the training steps, the evaluation and the
  // epoch's line. This trainer runs the steps: each on the CPU, finished when it returns.
  LossWatch watch(opt_config.lr, classes);  // every step's loss: a NaN stops the run naming its step
  long step = 0;
  std::vector<int> order;
  double loss_sum = 0;
  long long correct = 0;
  framework::EpochLoop loop;
  loop.examples = n, loop.batch = config.batch, loop.epochs = config.epochs;
  loop.start_epoch = [&](int epoch) {
    order = epoch_order(n, config.seed, epoch);
    loss_sum = 0, correct = 0;
  };
  loop.run_stretch = [&](size_t, int first_step, int last_step) {
    for (int s = first_step; s < last_step; ++s) {
      const int first = s * config.batch, count = std::min(config.batch, n - first);
      gather_batch(train_set, order, first, count, x.data(), labels.data());
      const float loss = net.forward_backward(x.data(), labels.data(), count);
      watch.at_step(++step, loss);
      optimizer.step(net.parameters(), [&net](size_t values, const std::function<void(size_t, size_t)>& body) {
        net.for_ranges(values, body);  // a network with threads shares the update
      });
      // Running training figures from the batch just seen (weights change as the epoch goes on).
      loss_sum += double(loss) * count;
      const std::vector<float>& probs = net.probabilities();
      for (int j = 0; j < count; ++j)
        correct += arg_max(probs.data() + size_t(j) * classes, classes) == labels[size_t(j)];
    }
  };
  loop.wait = [] {};  // a CPU step is done when it returns
  loop.counts = [&](int) { return framework::EpochCounts{loss_sum, correct}; };
  loop.evaluate = [&] {
    eval = evaluate(net, test_set, eval_batch);
    return framework::TestScore{eval.loss, eval.accuracy};
  };
  framework::run_epochs(loop, nullptr, &log);

  // The weights first: a picture that cannot be written then costs no trained model.
  std::vector<std::string> saved, written;
  if (files.has_save()) {
    const std::vector<Parameter> tensors = saved_tensors();
    framework::save_npy(files.save_dir(), tensors, logits_of(net, test_set), classes);
    saved = npy_names(tensors);
    std::printf("saved %s and test_logits.npy to %s\n", framework::saved_tensors_text(tensors).c_str(),
                files.save_dir().c_str());
  }
  if (files.has_out()) {
    written.push_back("metrics.csv");
    if (write_filters_png(files.out_path("filters.png"), net)) written.push_back("filters.png");
    framework::write_misclassified_png(files.out_path("misclassified.png"), test_set, eval.predictions);
    framework::write_confusion_png(files.out_path("confusion.png"), eval.confusion, classes);
    written.insert(written.end(), {"misclassified.png", "confusion.png"});
    std::printf("wrote %s/{%s}\n", files.out_dir().c_str(), framework::file_list(written).c_str());
  }
  files.finish(written, saved);
  return log.summary();
}

}  // namespace host_training
