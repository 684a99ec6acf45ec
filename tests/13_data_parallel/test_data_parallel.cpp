// Lesson 13, steps 13.1 and 13.2 with one rank on one GPU: the broadcast leaves rank 0's values
// as they are, the weighted all-reduce scales by shard / batch, and the data-parallel step of one
// rank is the step of one GPU: lesson 09's fast network's, and a layer list's on lesson 12's layers
// (dropout included). (Two ranks: test_two_gpus.cpp, on a machine with two GPUs.)
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
#include "device_download.hpp"

using course::DeviceBuffer;
using framework::Rank;

namespace {

using course::test::download;

}  // namespace

TEST_CASE("broadcast_parameters with one rank: the values stay rank 0's, the gradients untouched", "[13.1]") {
  const host_training::ModelSpec spec = host_training::model_by_name("small");
  framework::ParameterStore store(host_training::init_parameters(spec, 1301));
  const std::vector<float> grads = course::test::random_vector(store.total(), 1302, -1.0f, 1.0f);
  CUDA_CHECK(cudaMemcpy(store.grads(), grads.data(), grads.size() * sizeof(float), cudaMemcpyHostToDevice));
  const std::vector<float> values = download(store.values(), store.total());
  framework::run_ranks({0}, [&](const framework::Rank& rank) {
    data_parallel::broadcast_parameters(rank, store, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
  });
  REQUIRE_ALL_CLOSE(download(store.values(), store.total()), values, 0.0, 0.0);
  REQUIRE_ALL_CLOSE(download(store.grads(), store.total()), grads, 0.0, 0.0);
}

// One rank: the sum over ranks has one term, fl(fl(shard / batch) * x): within half an ulp of the
// product in double of the float weight and x, so rtol 2^-23 (one ulp) covers it; the wrong weight
// (1, batch / shard, a sum over shards) is off by far more.
TEST_CASE("allreduce_mean with one rank multiplies by shard / batch, in place; count 0 works", "[13.2]") {
  const size_t n = 1000003;  // odd, and several of NCCL's chunks
  const std::vector<float> x = course::test::random_vector(n, 1310, -3.0f, 3.0f);
  struct Case {
    int shard, batch;
  };
  for (const Case c : {Case{3, 7}, Case{7, 7}, Case{0, 5}, Case{1, 128}}) {
    CAPTURE(c.shard, c.batch);
    DeviceBuffer<float> d(x);
    framework::run_ranks({0}, [&](const framework::Rank& rank) {
      data_parallel::allreduce_mean(rank, d.data(), n, c.shard, c.batch, nullptr);
      data_parallel::allreduce_mean(rank, d.data(), 0, c.shard, c.batch, nullptr);  // nothing to do
      CUDA_CHECK(cudaDeviceSynchronize());
    });
    const double weight = double(float(c.shard) / float(c.batch));
    std::vector<double> expected(n);
    for (size_t i = 0; i < n; ++i) expected[i] = weight * x[i];
    REQUIRE_ALL_CLOSE(download(d.data(), n), expected, 0.0, 1.0 / (1 << 23));
  }
}

TEST_CASE("allreduce_mean refuses a shard outside 0..batch and a batch below 1", "[13.2]") {
  DeviceBuffer<float> d(std::vector<float>{1.0f});
  struct Case {
    int shard, batch;
  };
  const std::vector<Case> bad = {{3, 2}, {-1, 2}, {0, 0}};
  std::vector<int> refused(bad.size(), 0);  // checked here: a test's checks belong to the main thread
  framework::run_ranks({0}, [&](const framework::Rank& rank) {
    for (size_t i = 0; i < bad.size(); ++i) {
      try {
        data_parallel::allreduce_mean(rank, d.data(), 1, bad[i].shard, bad[i].batch, nullptr);
      } catch (const course::Error&) {
        refused[i] = 1;
      }
    }
  });
  REQUIRE(refused == std::vector<int>{1, 1, 1});
}

namespace {

// One rank taking a whole batch of random images three times with SGD: the reference network on
// one GPU, and the replica (weight 1 in every all-reduce: exact), with and without overlap.
struct OneRankCase {
  host_training::ModelSpec spec;
  std::vector<host_training::Parameter> init;
  int batch;
  DeviceBuffer<float> x;
  DeviceBuffer<int> labels;
  host_training::OptimizerConfig opt;

  OneRankCase(host_training::ModelSpec model, uint64_t seed, int count) : spec(std::move(model)), batch(count) {
    spec.height = spec.width = 15;
    init = host_training::init_parameters(spec, seed);
    x = DeviceBuffer<float>(course::test::random_vector(size_t(batch) * 15 * 15, seed + 1, 0.0f, 1.0f));
    std::vector<int> host(batch);
    for (int b = 0; b < batch; ++b) host[b] = int((7 * b + seed) % 10);
    labels = DeviceBuffer<int>(host);
    opt.lr = 0.05f;
  }

  template <typename Network>
  std::vector<host_training::Parameter> three_steps(Network& reference) const {
    mnist_gpu::DeviceOptimizer optimizer(opt, reference.parameters());
    for (int s = 0; s < 3; ++s) {
      reference.forward_backward(x.data(), labels.data(), batch);
      optimizer.step();
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    return reference.parameters().download();
  }

  // The replica's three steps with `options` (batch and optimizer set here); its buckets.
  std::vector<host_training::Parameter> replica_three_steps(data_parallel::ReplicaOptions options,
                                                           size_t* buckets) const {
    std::vector<host_training::Parameter> got;
    options.batch = batch, options.optimizer = opt;
    framework::run_ranks({0}, [&](const framework::Rank& rank) {
      data_parallel::Replica replica(rank, spec, init, options);
      *buckets = replica.buckets();
      for (int s = 0; s < 3; ++s) replica.step_on_batch(x.data(), labels.data(), batch);
      CUDA_CHECK(cudaStreamSynchronize(replica.stream()));
      got = replica.parameters().download();
    });
    return got;
  }
};

void require_identical(const std::vector<host_training::Parameter>& got,
                       const std::vector<host_training::Parameter>& expected) {
  REQUIRE(got.size() == expected.size());
  for (size_t t = 0; t < got.size(); ++t) {
    CAPTURE(got[t].name);
    REQUIRE_ALL_CLOSE(got[t].value, expected[t].value, 0.0, 0.0);
    REQUIRE_ALL_CLOSE(got[t].grad, expected[t].grad, 0.0, 0.0);
  }
}

}  // namespace

// One rank takes the whole batch with weight 1 (exact): its step must be lesson 09's, bit for bit,
// with and without overlap (three buckets: fc2, fc1, then both convs).
TEST_CASE("the data-parallel step of one rank is lesson 09's step on one GPU, bit for bit", "[13.2]") {
  const OneRankCase c(host_training::model_by_name("a"), 1320, 23);
  fast_training::FastNetwork reference(c.spec, c.init, c.batch, nullptr, fast_training::ConvEngine::tiled);  // the replica's
  const std::vector<host_training::Parameter> expected = c.three_steps(reference);
  for (const bool overlap : {false, true}) {
    CAPTURE(overlap);
    data_parallel::ReplicaOptions options;
    options.overlap = overlap;
    options.bucket_floats = 200000;  // fc1's 1.6M floats alone, then the rest
    size_t buckets = 0;
    require_identical(c.replica_three_steps(options, &buckets), expected);
    REQUIRE(buckets == (overlap ? 3u : 1u));
  }
}

// The same for a layer list on lesson 12's layers, dropout included: the reference is lesson 08's
// network built as lesson 12 builds it, taking three steps on one GPU; the replica's dropout draws
// the same masks (same seed, same training passes). Four buckets of one layer each with overlap.
TEST_CASE("the data-parallel step of one rank on a lesson 12 layer list is that network's step, bit for bit",
          "[13.2]") {
  const uint64_t seed = 1322;
  const OneRankCase c(host_training::model_from_text(
                          "conv3x3x8, relu, conv3x3x16, relu, pool2, dropout0.25, dense32, relu, dropout0.5, dense10"),
                      seed, 23);
  mnist_gpu::GpuNetwork reference(c.spec, c.init, c.batch, mnist_gpu::ConvAlgorithm::automatic,
                                  beyond_mnist::beyond_gpu_layers(seed, beyond_mnist::GpuLayers::lesson09).get(),
                                  beyond_mnist::fused_loss_maker());
  const std::vector<host_training::Parameter> expected = c.three_steps(reference);
  for (const bool overlap : {false, true}) {
    CAPTURE(overlap);
    data_parallel::ReplicaOptions options;
    options.overlap = overlap;
    options.network = data_parallel::NetworkKind::layer_list, options.dropout_seed = seed;
    options.bucket_floats = 1000;  // dense10, dense32, conv2, conv1: one bucket each
    size_t buckets = 0;
    require_identical(c.replica_three_steps(options, &buckets), expected);
    REQUIRE(buckets == (overlap ? 4u : 1u));
  }
}
