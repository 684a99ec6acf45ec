// The course framework: the CPU trainer (host_trainer.hpp). The framework's epoch loop runs the
// epochs; each one takes the kit's order, then for every minibatch gathers it, runs forward +
// backward and the update; then it evaluates the test set, prints one line and appends one CSV row.
#include "framework/host_trainer.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "course/error.hpp"
#include "course/number_text.hpp"
#include "framework/epoch_log.hpp"
#include "framework/epoch_loop.hpp"
#include "framework/loss_watch.hpp"
#include "framework/optimizer_config.hpp"
#include "framework/run_files.hpp"
#include "framework/run_pictures.hpp"

namespace framework {

namespace {

// The data set's name and the limits are checked where the data is loaded (load_training_data).
void check_config(const TrainConfig& c) {
  if (c.epochs < 1) throw course::Error("epochs must be at least 1, got " + std::to_string(c.epochs));
  if (c.batch < 1) throw course::Error("batch must be at least 1, got " + std::to_string(c.batch));
}

void check_kit(const HostKit& kit) {
  if (!kit.network || !kit.bytes || !kit.epoch_order || !kit.gather || !kit.evaluate)
    throw course::Error("train_on_host: the kit's network, bytes, epoch order, gather and evaluation must be given");
}

// Index of the largest of n values (the first one on ties).
int arg_max(const float* v, int n) { return static_cast<int>(std::max_element(v, v + n) - v); }

// The network's logits for every example of `data`, in order (count x classes), for --save.
std::vector<float> test_logits(HostModel& net, const course::Dataset& data, int batch) {
  const int n = data.count(), classes = net.spec().classes;
  const size_t plane = n ? data.images.size() / size_t(n) : 0;
  std::vector<float> logits(size_t(n) * classes);
  for (int first = 0; first < n; first += batch) {
    const int count = std::min(batch, n - first);
    net.forward(data.images.data() + size_t(first) * plane, count, logits.data() + size_t(first) * classes);
  }
  return logits;
}

// filters.png of the network's first layer; false when it has no weights.
bool draw_filters(const std::string& path, const HostModel& net) {
  const LayerPlan& first = net.plan().front();
  if (first.weight < 0) return false;
  const Parameter& w = net.parameters()[size_t(first.weight)];
  return write_filters_png(path, first, w.name, w.value.data());
}

}  // namespace

uint64_t host_run_bytes(const TrainConfig& config, const std::vector<LayerPlan>& plan, int classes, int train_count,
                        int test_count, const HostKit& kit) {
  const int batch = std::max(1, std::min(config.batch, train_count));  // the most a step runs
  const uint64_t params = parameter_values(plan);
  const uint64_t per_example = plan.empty() ? 0 : plan.front().in_size();
  const int eval_batch = std::max(1, std::min(kHostEvalBatch, test_count));  // evaluate's and --save's batches
  const uint64_t network = kit.bytes(plan, classes, batch, eval_batch);
  const uint64_t optimizer = uint64_t(HostOptimizer::state_arrays(optimizer_config(config), kit.rules)) * params;
  const uint64_t step = uint64_t(std::max(config.batch, 1)) * (per_example + 1);  // the batch's images, its labels
  const uint64_t tests = uint64_t(std::max(test_count, 0));
  // evaluate: the logits and probabilities of a batch, every prediction, the confusion matrix;
  // --save: the parameters' values (a copy) and every test image's logits.
  const uint64_t eval = 2 * uint64_t(eval_batch) * classes + tests + uint64_t(classes) * classes;
  const uint64_t save = params + tests * classes;
  const uint64_t buffers = network + sizeof(float) * (optimizer + step + eval + save);
  return buffers + allocator_allowance(buffers);
}

TrainSummary train_on_host(const TrainConfig& config, const TrainingData& data, const HostKit& kit) {
  check_config(config);
  check_kit(kit);
  const course::Dataset& train_set = data.train;
  const course::Dataset& test_set = data.test;
  const ModelSpec spec = model_for_data(config.model, data);
  // A run the machine cannot hold is refused before anything is allocated: every buffer it will
  // hold counted, the evaluation's and the network's workspaces too.
  require_memory(host_run_bytes(config, plan_layers(spec), spec.classes, train_set.count(), test_set.count(), kit),
                 available_host_bytes(),
                 "model '" + course::shown(spec.name, 80) + "' at batch " + std::to_string(config.batch), "this machine");
  const std::unique_ptr<HostModel> network = kit.network(spec, init_parameters(spec, config.seed));
  if (!network) throw course::Error("train_on_host: no network was built for model '" + spec.name + "'");
  HostModel& net = *network;
  const OptimizerConfig opt_config = optimizer_config(config);
  HostOptimizer optimizer(opt_config, net.parameters(), kit.rules);

  size_t parameter_count = 0;
  for (const Parameter& p : net.parameters()) parameter_count += p.value.size();
  std::printf("model %s (%zu parameters), %s lr %g%s, batch %d, %d epoch(s), seed %llu\n",
              model_title(config.model, spec).c_str(), parameter_count, optimizer_name(opt_config.kind),
              double(opt_config.lr), momentum_text(opt_config).c_str(), config.batch, config.epochs,
              static_cast<unsigned long long>(config.seed));
  std::printf("layers: %s\n", plan_summary(spec).c_str());
  std::printf("data: %d training and %d test images from %s\n", train_set.count(), test_set.count(), data.dir.c_str());
  if (!kit.network_text.empty()) std::printf("network: %s\n", kit.network_text.c_str());

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
  HostEvaluation eval;

  // The framework's epoch loop (the GPU trainers' too) decides when: the epochs, the report points
  // (progress bar, running loss), the clock around the training steps, the evaluation and the
  // epoch's line. This trainer runs the steps: each on the CPU, finished when it returns.
  LossWatch watch(opt_config.lr, classes);  // every step's loss: a NaN stops the run naming its step
  long step = 0;
  std::vector<int> order;
  double loss_sum = 0;
  long long correct = 0;
  EpochLoop loop;
  loop.examples = n, loop.batch = config.batch, loop.epochs = config.epochs;
  loop.start_epoch = [&](int epoch) {
    order = kit.epoch_order(n, config.seed, epoch);
    loss_sum = 0, correct = 0;
  };
  loop.run_stretch = [&](int, size_t, int first_step, int last_step) {
    for (int s = first_step; s < last_step; ++s) {
      const int first = s * config.batch, count = std::min(config.batch, n - first);
      kit.gather(train_set, order, first, count, x.data(), labels.data());
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
  loop.counts = [&](int) { return EpochCounts{loss_sum, correct}; };
  loop.evaluate = [&] {
    eval = kit.evaluate(net, test_set, kHostEvalBatch);
    return TestScore{eval.loss, eval.accuracy};
  };
  run_epochs(loop, nullptr, &log);

  // The weights first: a picture that cannot be written then costs no trained model.
  std::vector<std::string> saved, written;
  if (files.has_save()) {
    const std::vector<Parameter> tensors = saved_tensors();
    save_npy(files.save_dir(), tensors, test_logits(net, test_set, kHostEvalBatch), classes);
    saved = npy_names(tensors);
    std::printf("saved %s and test_logits.npy to %s\n", saved_tensors_text(tensors).c_str(), files.save_dir().c_str());
  }
  if (files.has_out()) {
    written.push_back("metrics.csv");
    if (draw_filters(files.out_path("filters.png"), net)) written.push_back("filters.png");
    write_misclassified_png(files.out_path("misclassified.png"), test_set, eval.predictions);
    write_confusion_png(files.out_path("confusion.png"), eval.confusion, classes);
    written.insert(written.end(), {"misclassified.png", "confusion.png"});
    std::printf("wrote %s/{%s}\n", files.out_dir().c_str(), file_list(written).c_str());
  }
  files.finish(written, saved);
  return log.summary();
}

}  // namespace framework
