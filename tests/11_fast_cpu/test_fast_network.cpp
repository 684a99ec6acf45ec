// Lesson 11 (given code): the host network on lesson 11's layers against lesson 02's HostNetwork on
// lesson 01's, from the same parameters on the same batch: loss, probabilities, every gradient and
// the inference logits, the batch whole and in 11.7's shards; and the same bits for every thread
// count that cuts the batch the same way.
#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <cmath>
#include <vector>

#include "course_test.hpp"
#include "fast_host_network.hpp"
#include "host_training.hpp"

using host_training::HostNetwork;
using host_training::Parameter;

namespace {

struct NetCase {
  const char* model;
  int height, width, batch;
};

host_training::ModelSpec spec_of(const NetCase& c) {
  host_training::ModelSpec spec = host_training::model_by_name(c.model);
  spec.height = c.height, spec.width = c.width;
  return spec;
}

std::vector<float> all_grads(const framework::HostModel& net) {
  std::vector<float> g;
  for (const Parameter& p : net.parameters()) g.insert(g.end(), p.grad.begin(), p.grad.end());
  return g;
}

}  // namespace

// Both sides compute in float and sum in other orders: values differ by rounding only.
//   loss, probabilities, logits: atol 1e-5 + rtol 1e-4;  gradients: atol 1e-5 * the tensor's largest + rtol 1e-3
TEST_CASE("FastHostNetwork equals lesson 02's HostNetwork: loss, probabilities, gradients, logits", "[11-network]") {
  uint64_t seed = 4100;
  // Batch 37 on two threads: two shards (18 and 19 examples) whose gradients are added.
  for (const NetCase& c : {NetCase{"small", 28, 28, 5}, NetCase{"a", 12, 12, 3}, NetCase{"small", 28, 28, 37}}) {
    const host_training::ModelSpec spec = spec_of(c);
    CAPTURE(c.model);
    ++seed;
    COURSE_INPUT_SEED(seed);
    const std::vector<Parameter> init = host_training::init_parameters(spec, seed);
    const size_t per_example = size_t(spec.in_channels) * spec.height * spec.width;
    const std::vector<float> x = course::test::random_vector(size_t(c.batch) * per_example, seed + 1, 0.0f, 1.0f);
    std::vector<int> labels(size_t(c.batch));
    for (int b = 0; b < c.batch; ++b) labels[size_t(b)] = int((seed + 7 * b) % spec.classes);

    HostNetwork reference(spec, init);
    const float ref_loss = reference.forward_backward(x.data(), labels.data(), c.batch);
    fast_cpu::FastHostNetwork net(spec, init, 2);
    for (Parameter& p : net.parameters()) std::fill(p.grad.begin(), p.grad.end(), NAN);  // must be overwritten
    const float loss = net.forward_backward(x.data(), labels.data(), c.batch);
    REQUIRE(std::isfinite(loss));
    REQUIRE(std::fabs(loss - ref_loss) <= 1e-5 + 1e-4 * std::fabs(ref_loss));
    REQUIRE_ALL_CLOSE(net.probabilities(), reference.probabilities(), 1e-5, 1e-4);
    for (size_t t = 0; t < init.size(); ++t) {
      CAPTURE(init[t].name);
      const std::vector<float>& want = reference.parameters()[t].grad;
      double largest = 0;
      for (float g : want) largest = std::max(largest, double(std::fabs(g)));
      REQUIRE_ALL_CLOSE(net.parameters()[t].grad, want, 1e-5 * largest, 1e-3);
    }

    std::vector<float> logits(size_t(c.batch) * spec.classes, NAN), ref_logits(logits.size());
    reference.forward(x.data(), c.batch, ref_logits.data());
    net.forward(x.data(), c.batch, logits.data());
    REQUIRE_ALL_CLOSE(logits, ref_logits, 1e-5, 1e-4);
  }
}

TEST_CASE("FastHostNetwork: the same bits for 1, 2 and 3 threads; threads < 1 throws", "[11-network]") {
  // Model A at full size and batch 16: conv2's products (3.2e8 flops) and fc1's (5.1e7) are large
  // enough that kMinFlopsPerThread lets them use 2 and 3 threads.
  const int batch = 16;
  const host_training::ModelSpec spec = spec_of({"a", 28, 28, batch});
  const std::vector<Parameter> init = host_training::init_parameters(spec, 42);
  const std::vector<float> x = course::test::random_vector(size_t(batch) * 784, 43, 0.0f, 1.0f);
  std::vector<int> labels(batch);
  for (int b = 0; b < batch; ++b) labels[size_t(b)] = (b * 7 + 3) % 10;
  std::vector<float> first_grads, first_probs;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    fast_cpu::FastHostNetwork net(spec, init, threads);
    net.forward_backward(x.data(), labels.data(), batch);
    if (threads == 1) {
      first_grads = all_grads(net), first_probs = net.probabilities();
      continue;
    }
    REQUIRE(all_grads(net) == first_grads);
    REQUIRE(net.probabilities() == first_probs);
  }
  REQUIRE_THROWS_AS(fast_cpu::FastHostNetwork(spec, init, 0), course::Error);
}

TEST_CASE("FastHostNetwork in shards (11.7): the same bits for 2, 3 and 4 threads, one thread within rounding",
          "[11-network]") {
  // Batch 48: three shards of 16 from two threads up; one thread runs the batch whole and adds
  // the weight gradients in another order.
  const int batch = 48;
  const host_training::ModelSpec spec = spec_of({"small", 28, 28, batch});
  const std::vector<Parameter> init = host_training::init_parameters(spec, 7);
  const std::vector<float> x = course::test::random_vector(size_t(batch) * 784, 8, 0.0f, 1.0f);
  std::vector<int> labels(batch);
  for (int b = 0; b < batch; ++b) labels[size_t(b)] = (b * 3 + 1) % 10;
  fast_cpu::FastHostNetwork whole(spec, init, 1);
  const float whole_loss = whole.forward_backward(x.data(), labels.data(), batch);
  std::vector<float> sharded_grads, sharded_probs;
  float sharded_loss = 0;
  for (int threads : {2, 3, 4}) {
    CAPTURE(threads);
    fast_cpu::FastHostNetwork net(spec, init, threads);
    for (Parameter& p : net.parameters()) std::fill(p.grad.begin(), p.grad.end(), NAN);  // must be overwritten
    const float loss = net.forward_backward(x.data(), labels.data(), batch);
    if (threads == 2) {
      sharded_grads = all_grads(net), sharded_probs = net.probabilities(), sharded_loss = loss;
      REQUIRE(std::fabs(loss - whole_loss) <= 1e-6 * std::fabs(whole_loss));
      REQUIRE(net.probabilities() == whole.probabilities());  // an example's probabilities: computed alone
      for (size_t t = 0; t < init.size(); ++t) {
        CAPTURE(init[t].name);
        double largest = 0;
        for (float g : whole.parameters()[t].grad) largest = std::max(largest, double(std::fabs(g)));
        REQUIRE_ALL_CLOSE(net.parameters()[t].grad, whole.parameters()[t].grad, 1e-6 * largest, 1e-4);
      }
      continue;
    }
    REQUIRE(loss == sharded_loss);
    REQUIRE(all_grads(net) == sharded_grads);
    REQUIRE(net.probabilities() == sharded_probs);
  }
}

TEST_CASE("FastHostNetwork::forward: the same logits, bit for bit, for 1, 2 and 3 threads", "[11-network]") {
  const int batch = 70;  // 1, 2 and 3 shards
  const host_training::ModelSpec spec = spec_of({"small", 28, 28, batch});
  const std::vector<Parameter> init = host_training::init_parameters(spec, 9);
  const std::vector<float> x = course::test::random_vector(size_t(batch) * 784, 10, 0.0f, 1.0f);
  std::vector<float> first;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    fast_cpu::FastHostNetwork net(spec, init, threads);
    std::vector<float> logits(size_t(batch) * spec.classes, NAN);
    net.forward(x.data(), batch, logits.data());
    for (float v : logits) REQUIRE(std::isfinite(v));
    if (threads == 1) first = logits;
    REQUIRE(logits == first);
  }
}

TEST_CASE("FastHostNetwork::for_ranges covers [0, count) once; the optimizer on its ranges changes no bit",
          "[11-network]") {
  const host_training::ModelSpec spec = spec_of({"small", 28, 28, 8});
  const std::vector<Parameter> init = host_training::init_parameters(spec, 12);
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    fast_cpu::FastHostNetwork net(spec, init, threads);
    for (size_t count : {size_t(0), size_t(1), size_t(4097), size_t(196000), size_t(300001)}) {
      CAPTURE(count);
      std::vector<std::atomic<int>> seen(count);
      std::atomic<bool> outside{false};  // no REQUIRE on the pool's threads: Catch2's are the caller's
      net.for_ranges(count, [&](size_t begin, size_t end) {
        if (begin > end || end > count) outside = true;
        for (size_t i = begin; i < end && !outside; ++i) seen[i].fetch_add(1);
      });
      REQUIRE_FALSE(outside.load());
      size_t not_once = 0;
      for (size_t i = 0; i < count; ++i) not_once += seen[i].load() != 1;
      REQUIRE(not_once == 0);
    }
  }
  // SGD with momentum, Adam, Adam with weight decay: three steps on one range and on the network's.
  for (const char* kind : {"sgd", "adam", "adam+decay"}) {
    CAPTURE(kind);
    host_training::OptimizerConfig config;
    config.kind = std::string(kind).substr(0, 4) == "adam" ? framework::OptimizerKind::adam : framework::OptimizerKind::sgd;
    config.lr = 0.01f;
    if (std::string(kind) == "adam+decay") config.weight_decay = 0.01f;
    std::vector<Parameter> one = init, split = init;
    uint64_t seed = 70;
    for (Parameter& p : one) p.grad = course::test::random_vector(p.value.size(), ++seed);
    for (size_t t = 0; t < one.size(); ++t) split[t].grad = one[t].grad;
    host_training::Optimizer on_one(config, one), on_ranges(config, split);
    fast_cpu::FastHostNetwork net(spec, init, 2);
    for (int step = 0; step < 3; ++step) {
      on_one.step(one);
      on_ranges.step(split, [&net](size_t count, const std::function<void(size_t, size_t)>& body) {
        net.for_ranges(count, body);
      });
    }
    for (size_t t = 0; t < one.size(); ++t) {
      CAPTURE(one[t].name);
      REQUIRE(split[t].value == one[t].value);
    }
    REQUIRE(one[2].value != init[2].value);  // the steps did move the weights
  }
}
