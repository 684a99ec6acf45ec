// Lesson 13, step 13.3: OverlappedBackward on one GPU, with a stand-in for the all-reduce
// (snapshot_kernel.hpp: it copies a bucket's gradients aside and halves them). No NCCL here: what
// is checked is WHEN each reduction runs (after its bucket's gradients, beside the rest of the
// backward pass, before what follows on the network's stream), directly and in a CUDA graph, on both
// kinds of network a replica trains: lesson 09's fast network (model A) and a layer list on lesson
// 12's layers (tanh and sigmoid among them; no dropout, so that two passes give the same gradients).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "data_parallel.hpp"
#include "network_kinds.hpp"
#include "snapshot_kernel.hpp"
#include "step_graph.hpp"

using course::DeviceBuffer;
using data_parallel::Bucket;
using data_parallel::NetworkKind;
using data_parallel::OverlappedBackward;

namespace {

constexpr int kBatch = 9;

// Four layers with parameters in either kind: conv1 (80 floats), conv2 (1168), dense32 (18464), dense10 (330).
constexpr const char* kLayerList = "conv3x3x8p1, tanh, conv3x3x16, relu, pool2, dense32, sigmoid, dense10";

struct Setup {
  NetworkKind kind;
  host_training::ModelSpec spec;
  std::vector<host_training::Parameter> init;
  DeviceBuffer<float> x;
  DeviceBuffer<int> labels;
  std::vector<size_t> bucket_sizes;  // floats a bucket: one layer each, some layers each, one bucket

  std::unique_ptr<framework::DeviceNetwork> network(cudaStream_t stream) const {
    return data_parallel::make_replica_network(kind, spec, init, kBatch, stream, fast_training::ConvEngine::implicit_gemm,
                                               7);
  }
};

Setup setup(NetworkKind kind, uint64_t seed) {
  const bool fast = kind == NetworkKind::fast_network;
  host_training::ModelSpec spec = fast ? host_training::model_by_name("a") : host_training::model_from_text(kLayerList);
  spec.height = spec.width = 15;  // odd: the pools drop a row
  std::vector<int> labels(kBatch);
  for (int b = 0; b < kBatch; ++b) labels[b] = int((seed + 3 * b) % 10);
  return {kind,
          spec,
          host_training::init_parameters(spec, seed),
          DeviceBuffer<float>(course::test::random_vector(size_t(kBatch) * 15 * 15, seed + 1, 0.0f, 1.0f)),
          DeviceBuffer<int>(labels),
          fast ? std::vector<size_t>{0, 60000, size_t(1) << 30} : std::vector<size_t>{0, 2000, size_t(1) << 30}};
}

// One tensor of a device buffer laid out like the framework::ParameterStore.
std::vector<float> tensor(const float* device, const framework::ParameterStore& p, size_t t) {
  std::vector<float> host(p.size(t));
  CUDA_CHECK(cudaMemcpy(host.data(), device + p.offset(t), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

void poison(float* device, size_t n) { CUDA_CHECK(cudaMemset(device, 0xff, n * sizeof(float))); }

}  // namespace

TEST_CASE("OverlappedBackward: each bucket reduced once after its gradients, and the step goes on after all of them",
          "[13.3]") {
  const NetworkKind kind = GENERATE(NetworkKind::fast_network, NetworkKind::layer_list);
  CAPTURE(data_parallel::network_kind_name(kind));
  Setup s = setup(kind, 1330);
  const auto reference = s.network(nullptr);
  reference->forward_backward(s.x.data(), s.labels.data(), kBatch);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<host_training::Parameter> expected = reference->parameters().download();

  fast_training::Stream stream;
  const auto net_owner = s.network(stream.get());
  framework::DeviceNetwork& net = *net_owner;
  framework::ParameterStore& p = net.parameters();
  std::vector<size_t> bucket_counts;
  for (const size_t bucket_floats : s.bucket_sizes) {
    CAPTURE(bucket_floats);
    OverlappedBackward overlapped(p, bucket_floats);
    bucket_counts.push_back(overlapped.buckets().size());
    DeviceBuffer<float> snapshot(p.total()), after(p.total());
    std::vector<size_t> calls;
    auto enqueue = [&] {
      overlapped.forward_backward(net, s.x.data(), s.labels.data(), kBatch, [&](const Bucket& b, cudaStream_t cs) {
        calls.push_back(b.first_tensor);
        data_parallel_test::snapshot_and_halve(p.grads() + b.offset, snapshot.data() + b.offset, b.count, cs);
      });
      // What the optimizer would read: the network's stream after forward_backward returned.
      CUDA_CHECK(cudaMemcpyAsync(after.data(), p.grads(), p.total() * sizeof(float), cudaMemcpyDeviceToDevice,
                                 stream.get()));
    };
    for (const bool graph : {false, true}) {
      CAPTURE(graph);
      calls.clear();
      fast_training::GraphExec exec;
      if (graph) exec = fast_training::GraphExec(fast_training::capture_graph(stream.get(), enqueue));
      for (float* buffer : {p.grads(), snapshot.data(), after.data()}) poison(buffer, p.total());
      if (graph)
        exec.launch(stream.get());
      else
        enqueue();
      CUDA_CHECK(cudaDeviceSynchronize());
      // Once per bucket, in bucket order (the order every rank must share).
      std::vector<size_t> order;
      for (const Bucket& b : overlapped.buckets()) order.push_back(b.first_tensor);
      REQUIRE(calls == order);
      for (size_t t = 0; t < p.tensors(); ++t) {
        CAPTURE(p.name(t));
        // The reduction saw the finished gradients (not NaN, not a layer's half-written ones)...
        REQUIRE_ALL_CLOSE(tensor(snapshot.data(), p, t), expected[t].grad, 0.0, 0.0);
        // ... and the stream after forward_backward saw what the reduction left.
        std::vector<float> halved = expected[t].grad;
        for (float& v : halved) v *= 0.5f;
        REQUIRE_ALL_CLOSE(tensor(after.data(), p, t), halved, 0.0, 0.0);
      }
    }
  }
  REQUIRE(bucket_counts == std::vector<size_t>{4, 3, 1});
}

// The overlap itself, read off a captured graph: the first bucket's reduction (the last layer's
// gradients) must depend only on what comes before it, so that some backward kernels (the convs')
// have no path to or from it: they may run beside it. Reducing every bucket after the whole backward
// pass gives the same numbers but no such kernel.
TEST_CASE("OverlappedBackward: in a captured step, backward kernels run beside the first bucket's reduction", "[13.3]") {
  const NetworkKind kind = GENERATE(NetworkKind::fast_network, NetworkKind::layer_list);
  CAPTURE(data_parallel::network_kind_name(kind));
  Setup s = setup(kind, 1340);
  fast_training::Stream stream;
  const auto net_owner = s.network(stream.get());
  framework::DeviceNetwork& net = *net_owner;
  framework::ParameterStore& p = net.parameters();
  OverlappedBackward overlapped(p, 0);  // one layer a bucket: the two dense layers, then the two convs
  REQUIRE(overlapped.buckets().size() == 4);
  DeviceBuffer<float> snapshot(p.total()), after(p.total());

  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  try {
    overlapped.forward_backward(net, s.x.data(), s.labels.data(), kBatch, [&](const Bucket& b, cudaStream_t cs) {
      data_parallel_test::snapshot_and_halve(p.grads() + b.offset, snapshot.data() + b.offset, b.count, cs);
    });
    CUDA_CHECK(cudaMemcpyAsync(after.data(), p.grads(), p.total() * sizeof(float), cudaMemcpyDeviceToDevice,
                               stream.get()));
  } catch (...) {
    cudaStreamEndCapture(stream.get(), &graph);
    if (graph) cudaGraphDestroy(graph);
    throw;
  }
  CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));

  size_t n = 0, edges = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
  CUDA_CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
  std::vector<cudaGraphNode_t> from(edges), to(edges);
  CUDA_CHECK(cudaGraphGetEdges(graph, from.data(), to.data(), nullptr, &edges));
  std::map<cudaGraphNode_t, std::vector<cudaGraphNode_t>> children, parents;
  for (size_t e = 0; e < edges; ++e) children[from[e]].push_back(to[e]), parents[to[e]].push_back(from[e]);
  auto reach = [](cudaGraphNode_t start, std::map<cudaGraphNode_t, std::vector<cudaGraphNode_t>>& next) {
    std::set<cudaGraphNode_t> seen;
    std::vector<cudaGraphNode_t> todo{start};
    while (!todo.empty()) {
      cudaGraphNode_t node = todo.back();
      todo.pop_back();
      for (cudaGraphNode_t m : next[node])
        if (seen.insert(m).second) todo.push_back(m);
    }
    return seen;
  };
  // The network's kernels and the stand-in's, in capture order (the graph keeps the order of nodes).
  std::vector<cudaGraphNode_t> network_kernels, reductions;
  cudaGraphNode_t copy = nullptr;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type;
    CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeMemcpy) copy = node;
    if (type != cudaGraphNodeTypeKernel) continue;
    cudaKernelNodeParams params{};
    CUDA_CHECK(cudaGraphKernelNodeGetParams(node, &params));
    (params.func == data_parallel_test::snapshot_kernel() ? reductions : network_kernels).push_back(node);
  }
  REQUIRE(reductions.size() == 4);
  REQUIRE(copy != nullptr);
  // Which reduction is fc2's: the one with the fewest ancestors (the others wait for more layers).
  std::vector<size_t> ancestors;
  for (cudaGraphNode_t r : reductions) ancestors.push_back(reach(r, parents).size());
  const size_t first = size_t(std::min_element(ancestors.begin(), ancestors.end()) - ancestors.begin());
  const std::set<cudaGraphNode_t> before = reach(reductions[first], parents), after_it = reach(reductions[first], children);
  const long beside = std::count_if(network_kernels.begin(), network_kernels.end(), [&](cudaGraphNode_t k) {
    return before.count(k) == 0 && after_it.count(k) == 0;
  });
  CAPTURE(network_kernels.size(), ancestors);
  REQUIRE(beside > 0);
  // Every reduction comes before the copy (the join), and after some network kernel (its gradients).
  const std::set<cudaGraphNode_t> before_copy = reach(copy, parents);
  for (size_t k = 0; k < reductions.size(); ++k) {
    CAPTURE(k);
    REQUIRE(before_copy.count(reductions[k]) == 1);
    REQUIRE(ancestors[k] > 0);
  }
  cudaGraphDestroy(graph);
}

TEST_CASE("OverlappedBackward removes the network's hook, and throws when a bucket's layers never reported", "[13.3]") {
  const NetworkKind kind = GENERATE(NetworkKind::fast_network, NetworkKind::layer_list);
  CAPTURE(data_parallel::network_kind_name(kind));
  Setup s = setup(kind, 1350);
  const auto net_owner = s.network(nullptr);
  framework::DeviceNetwork& net = *net_owner;
  int calls = 0;
  auto count_calls = [&](const Bucket&, cudaStream_t) { ++calls; };
  {
    OverlappedBackward overlapped(net.parameters(), 0);
    overlapped.forward_backward(net, s.x.data(), s.labels.data(), kBatch, count_calls);
    REQUIRE(calls == 4);
    net.forward_backward(s.x.data(), s.labels.data(), kBatch);  // no hook any more: no reductions
    REQUIRE(calls == 4);
  }
  // Buckets of a model with more layers than the network: two of them never hear from it.
  host_training::ModelSpec bigger = s.spec;
  bigger.layers.insert(bigger.layers.end() - 1, {host_training::dense_layer(32), host_training::relu_layer()});
  framework::ParameterStore other(host_training::init_parameters(bigger, 1));
  OverlappedBackward wrong(other, 0);
  calls = 0;
  REQUIRE_THROWS_AS(wrong.forward_backward(net, s.x.data(), s.labels.data(), kBatch, count_calls), course::Error);
  const int after_throw = calls;
  net.forward_backward(s.x.data(), s.labels.data(), kBatch);  // the hook is gone after the throw too
  REQUIRE(calls == after_throw);
  CUDA_CHECK(cudaDeviceSynchronize());
}
