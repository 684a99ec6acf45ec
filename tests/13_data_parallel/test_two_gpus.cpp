// Lesson 13 with two ranks on two GPUs (SKIPPED on a machine with fewer): the broadcast, the
// weighted all-reduce, and the data-parallel step against one GPU taking the whole batch.
// Checks run on the main thread: each rank hands back what it saw.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "beyond_gpu_layers.hpp"
#include "course_test.hpp"
#include "data_parallel.hpp"
#include "network.hpp"
#include "optimizer.hpp"
#include "replica.hpp"
#include "step_graph.hpp"
#include "device_download.hpp"

using course::DeviceBuffer;
using data_parallel::NetworkKind;
using framework::Rank;
using host_training::Parameter;

namespace {

using course::test::download;

const std::vector<int> kTwo = {0, 1};

}  // namespace

TEST_CASE("two ranks: broadcast_parameters gives rank 1 rank 0's values and leaves the gradients", "[two_gpus]") {
  const host_training::ModelSpec spec = host_training::model_by_name("a");
  std::vector<std::vector<float>> values(2), grads(2), values_after(2), grads_after(2);
  framework::run_ranks(kTwo, [&](const framework::Rank& rank) {
    framework::ParameterStore store(host_training::init_parameters(spec, 1400 + rank.rank));  // not the same
    const std::vector<float> g = course::test::random_vector(store.total(), 1410 + rank.rank, -1.0f, 1.0f);
    CUDA_CHECK(cudaMemcpy(store.grads(), g.data(), g.size() * sizeof(float), cudaMemcpyHostToDevice));
    values[rank.rank] = download(store.values(), store.total());
    grads[rank.rank] = g;
    data_parallel::broadcast_parameters(rank, store, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    values_after[rank.rank] = download(store.values(), store.total());
    grads_after[rank.rank] = download(store.grads(), store.total());
  });
  REQUIRE(values[0] != values[1]);
  for (int r = 0; r < 2; ++r) {
    CAPTURE(r);
    REQUIRE_ALL_CLOSE(values_after[r], values[0], 0.0, 0.0);
    REQUIRE_ALL_CLOSE(grads_after[r], grads[r], 0.0, 0.0);
  }
}

// Expected: w0 x0 + w1 x1 with the float weights, in double. NCCL rounds each product and the sum
// to float: within one ulp of |w0 x0| + |w1 x1| (not of the result, which may cancel).
TEST_CASE("two ranks: allreduce_mean weighs each rank's data by its shard, the same result on both", "[two_gpus]") {
  const size_t n = 1000003;
  struct Case {
    int shard0, shard1;
  };
  for (const Case c : {Case{3, 4}, Case{1, 0}, Case{64, 64}}) {
    const int batch = c.shard0 + c.shard1;
    CAPTURE(c.shard0, c.shard1);
    std::vector<std::vector<float>> x(2), got(2);
    framework::run_ranks(kTwo, [&](const framework::Rank& rank) {
      x[rank.rank] = course::test::random_vector(n, 1420 + rank.rank, -2.0f, 2.0f);
      DeviceBuffer<float> d(x[rank.rank]);
      data_parallel::allreduce_mean(rank, d.data(), n, rank.rank == 0 ? c.shard0 : c.shard1, batch, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      got[rank.rank] = download(d.data(), n);
    });
    REQUIRE(got[0] == got[1]);  // bit for bit: every rank then takes the same optimizer step
    const double w0 = float(c.shard0) / float(batch), w1 = float(c.shard1) / float(batch);
    size_t bad = 0, worst_at = 0;
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
      const double expected = w0 * x[0][i] + w1 * x[1][i];
      const double scale = std::fabs(w0 * x[0][i]) + std::fabs(w1 * x[1][i]);
      const double err = std::fabs(got[0][i] - expected);
      if (!(err <= scale / (1 << 22))) ++bad;  // two ulps of the terms' size; NaN counts as bad
      if (!(err <= worst)) worst = err, worst_at = i;
    }
    CAPTURE(worst, worst_at, got[0][worst_at]);
    REQUIRE(bad == 0);
  }
}

namespace {

struct StepResult {
  std::vector<Parameter> after_first, after_last;  // values and (reduced) gradients
};

// `steps` SGD steps on the same batch of `count` examples: on one GPU (lesson 09's network, or lesson
// 08's network built as lesson 12 builds it, and lesson 08's optimizer), and on two ranks (each its shard).
template <typename Network>
StepResult steps_on_one_gpu(Network& net, const float* x, const int* labels, int count, int steps,
                            const host_training::OptimizerConfig& opt) {
  mnist_gpu::DeviceOptimizer optimizer(opt, net.parameters());
  StepResult r;
  for (int s = 0; s < steps; ++s) {
    net.forward_backward(x, labels, count);
    optimizer.step();
    if (s == 0) r.after_first = net.parameters().download();
  }
  r.after_last = net.parameters().download();
  return r;
}

StepResult one_gpu(NetworkKind kind, const host_training::ModelSpec& spec, const std::vector<Parameter>& init,
                   const float* x, const int* labels, int count, int steps, const host_training::OptimizerConfig& opt) {
  if (kind == NetworkKind::fast_network) {
    fast_training::FastNetwork net(spec, init, count, nullptr, fast_training::ConvEngine::tiled);  // the replica's
    return steps_on_one_gpu(net, x, labels, count, steps, opt);
  }
  mnist_gpu::GpuNetwork net(spec, init, count, mnist_gpu::ConvAlgorithm::automatic,
                            beyond_mnist::beyond_gpu_layers(1, beyond_mnist::GpuLayers::lesson09).get(),
                            beyond_mnist::fused_loss_maker());
  return steps_on_one_gpu(net, x, labels, count, steps, opt);
}

std::vector<StepResult> two_ranks(NetworkKind kind, const host_training::ModelSpec& spec, const std::vector<Parameter>& init,
                                  const std::vector<float>& x, const std::vector<int>& labels, int count, int steps,
                                  const host_training::OptimizerConfig& opt, bool overlap, bool graph) {
  std::vector<StepResult> results(2);
  framework::run_ranks(kTwo, [&](const framework::Rank& rank) {
    // Rank 1 starts from other weights: the replica's broadcast must replace them with rank 0's.
    const std::vector<Parameter> start = rank.rank == 0 ? init : host_training::init_parameters(spec, 99);
    data_parallel::ReplicaOptions options;
    options.batch = count, options.optimizer = opt, options.overlap = overlap, options.bucket_floats = 200000;
    options.network = kind;
    data_parallel::Replica replica(rank, spec, start, options);
    DeviceBuffer<float> d_x(x);  // every rank holds the batch on its own GPU and reads its shard
    DeviceBuffer<int> d_labels(labels);
    // With graph: the step captured once (NCCL's collectives inside it) and replayed, as the trainer does.
    fast_training::GraphExec exec;
    if (graph)
      exec = fast_training::GraphExec(fast_training::capture_graph(
          replica.stream(), [&] { replica.step_on_batch(d_x.data(), d_labels.data(), count); }));
    for (int s = 0; s < steps; ++s) {
      if (graph)
        exec.launch(replica.stream());
      else
        replica.step_on_batch(d_x.data(), d_labels.data(), count);
      CUDA_CHECK(cudaStreamSynchronize(replica.stream()));
      if (s == 0) results[rank.rank].after_first = replica.parameters().download();
    }
    results[rank.rank].after_last = replica.parameters().download();
  });
  return results;
}

}  // namespace

// Tolerances. The shards' gradients are summed in another order than one GPU's (per shard, then
// across ranks): they differ by rounding, as lesson 09's network differs from lesson 08's, so 09.8's
// bound: atol 1e-4 * the tensor's largest entry + rtol 1e-3. The weights after three steps differ by
// at most lr times that per step (with momentum 0.9: 1 + 1.9 + 2.71 times), so atol 3e-4 * 5.61 *
// lr * the largest gradient + rtol 1e-6. Forgetting the averaging (a sum), the weights (shard / batch)
// or a bucket is off by far more. Both ranks must agree bit for bit.
// Both kinds of network: model A on lesson 09's fast network, and a layer list on lesson 12's layers
// (no dropout: two ranks draw other masks than one GPU, as they must).
TEST_CASE("two ranks: the data-parallel step equals one GPU's step on the whole batch", "[two_gpus]") {
  const NetworkKind kind = GENERATE(NetworkKind::fast_network, NetworkKind::layer_list);
  CAPTURE(data_parallel::network_kind_name(kind));
  host_training::ModelSpec spec =
      kind == NetworkKind::fast_network
          ? host_training::model_by_name("a")
          : host_training::model_from_text("conv3x3x8p1, tanh, conv3x3x16, relu, pool2, dense32, sigmoid, dense10");
  spec.height = spec.width = 15;
  const std::vector<Parameter> init = host_training::init_parameters(spec, 1430);
  host_training::OptimizerConfig opt;
  opt.lr = 0.05f;
  const int steps = 3;
  for (const int count : {37, 1}) {  // shards 19 + 18; 1 + 0 (rank 1 has nothing, and must still take part)
    const std::vector<float> x = course::test::random_vector(size_t(count) * 15 * 15, 1431 + count, 0.0f, 1.0f);
    std::vector<int> labels(count);
    for (int b = 0; b < count; ++b) labels[b] = (3 * b + count) % 10;
    DeviceBuffer<float> d_x(x);
    DeviceBuffer<int> d_labels(labels);
    const StepResult ref = one_gpu(kind, spec, init, d_x.data(), d_labels.data(), count, steps, opt);
    for (const auto [overlap, graph] : {std::pair{false, false}, {true, false}, {false, true}, {true, true}}) {
      CAPTURE(count, overlap, graph);
      const std::vector<StepResult> got = two_ranks(kind, spec, init, x, labels, count, steps, opt, overlap, graph);
      for (size_t t = 0; t < ref.after_last.size(); ++t) {
        CAPTURE(ref.after_last[t].name);
        double largest = 0;
        for (float g : ref.after_first[t].grad) largest = std::max(largest, double(std::fabs(g)));
        for (int r = 0; r < 2; ++r) {
          CAPTURE(r);
          REQUIRE_ALL_CLOSE(got[r].after_first[t].grad, ref.after_first[t].grad, 1e-4 * largest, 1e-3);
          REQUIRE_ALL_CLOSE(got[r].after_last[t].value, ref.after_last[t].value, 3e-4 * 5.61 * opt.lr * largest, 1e-6);
        }
        REQUIRE_ALL_CLOSE(got[1].after_last[t].value, got[0].after_last[t].value, 0.0, 0.0);
      }
    }
  }
}
