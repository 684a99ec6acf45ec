// Lesson 09, step 09.12: Branch::fork and Branch::join. A held stream (a host function that does not
// return until the test lets it) shows the order on the GPU: after fork the side waits for the
// main stream, after join the main stream waits for the side. Captured, fork and join are the
// graph's edges. Then the fast network with its weight gradients on the side: the same loss and
// gradients as on one stream, launched directly and replayed from a graph.
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "branch.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "fast_network.hpp"
#include "step_graph.hpp"

using course::DeviceBuffer;
using fast_training::Branch;

namespace {

// Holds a stream: the host function it enqueues returns only once open() is called. The destructor
// opens it and waits for the GPU, so a failed check never leaves a stream held. Declare it after
// the streams and buffers: it must go first (freeing a buffer waits for the GPU, which waits for it).
class Gate {
 public:
  void hold(cudaStream_t stream) { CUDA_CHECK(cudaLaunchHostFunc(stream, wait_open, this)); }
  void open() { open_.store(true); }
  ~Gate() {
    open();
    cudaDeviceSynchronize();
  }

 private:
  static void CUDART_CB wait_open(void* self) {
    while (!static_cast<Gate*>(self)->open_.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  std::atomic<bool> open_{false};
};

// Whether `stream` still has work it has not finished, after giving it time to run what it can.
bool still_waiting(cudaStream_t stream) {
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const cudaError_t state = cudaStreamQuery(stream);
  if (state != cudaErrorNotReady) CUDA_CHECK(state);
  return state == cudaErrorNotReady;
}

void fill_async(DeviceBuffer<int>& buffer, unsigned char byte, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(buffer.data(), byte, buffer.size() * sizeof(int), stream));
}

int repeated(unsigned char byte) { return int(0x01010101u * byte); }

// Captures what `enqueue` launches on `stream` into a graph (ended whatever happens).
cudaGraph_t capture(cudaStream_t stream, const std::function<void()>& enqueue) {
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  cudaGraph_t graph = nullptr;
  try {
    enqueue();
  } catch (...) {
    cudaStreamEndCapture(stream, &graph);
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    throw;
  }
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  return graph;
}

}  // namespace

TEST_CASE("Branch::fork: the side stream's later work waits for the main stream's work so far", "[09.12]") {
  fast_training::Stream main;
  Branch branch(main.get());
  DeviceBuffer<int> a(std::vector<int>(1021, 7)), copy(std::vector<int>(1021, -1));
  CUDA_CHECK(cudaDeviceSynchronize());
  Gate gate;
  gate.hold(main.get());
  fill_async(a, 0x11, main.get());  // runs only once the gate opens
  branch.fork();
  CUDA_CHECK(cudaMemcpyAsync(copy.data(), a.data(), a.size() * sizeof(int), cudaMemcpyDeviceToDevice, branch.side()));
  REQUIRE(still_waiting(branch.side()));  // the copy waits for the fill, which waits for the gate
  gate.open();
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE(copy.to_host() == std::vector<int>(1021, repeated(0x11)));
}

TEST_CASE("Branch::join: the main stream's later work waits for the side stream's work so far", "[09.12]") {
  fast_training::Stream main;
  Branch branch(main.get());
  DeviceBuffer<int> b(std::vector<int>(777, 5)), copy(std::vector<int>(777, -1));
  CUDA_CHECK(cudaDeviceSynchronize());
  Gate gate;
  gate.hold(branch.side());
  fill_async(b, 0x22, branch.side());
  branch.join();
  CUDA_CHECK(cudaMemcpyAsync(copy.data(), b.data(), b.size() * sizeof(int), cudaMemcpyDeviceToDevice, main.get()));
  REQUIRE(still_waiting(main.get()));
  gate.open();
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE(copy.to_host() == std::vector<int>(777, repeated(0x22)));
  // Then a fork after the join: the same events mark the new points.
  Gate again;
  again.hold(main.get());
  fill_async(b, 0x33, main.get());
  branch.fork();
  CUDA_CHECK(cudaMemcpyAsync(copy.data(), b.data(), b.size() * sizeof(int), cudaMemcpyDeviceToDevice, branch.side()));
  REQUIRE(still_waiting(branch.side()));
  again.open();
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE(copy.to_host() == std::vector<int>(777, repeated(0x33)));
}

TEST_CASE("Branch: captured, fork and join are edges; the two branches have no path between them", "[09.12]") {
  fast_training::Stream main;
  Branch branch(main.get());
  DeviceBuffer<int> a(301), b(302), c(303), d(304);
  // a on main; fork; b on the side while c on main; join; d on main.
  cudaGraph_t graph = capture(main.get(), [&] {
    fill_async(a, 0x01, main.get());
    branch.fork();
    fill_async(b, 0x02, branch.side());
    fill_async(c, 0x03, main.get());
    branch.join();
    fill_async(d, 0x04, main.get());
  });
  struct Owner {
    cudaGraph_t g;
    ~Owner() { cudaGraphDestroy(g); }
  } owner{graph};

  size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count) CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
  std::map<void*, cudaGraphNode_t> node_of;  // each fill by the buffer it writes
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type;
    CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeMemset) continue;
    cudaMemsetParams p{};
    CUDA_CHECK(cudaGraphMemsetNodeGetParams(node, &p));
    node_of[p.dst] = node;
  }
  REQUIRE(node_of.size() == 4);
  // What each node is reached from (its ancestors), by the graph's edges.
  std::function<void(cudaGraphNode_t, std::set<cudaGraphNode_t>&)> ancestors = [&](cudaGraphNode_t node,
                                                                                   std::set<cudaGraphNode_t>& seen) {
    size_t n = 0;
    CUDA_CHECK(cudaGraphNodeGetDependencies(node, nullptr, nullptr, &n));
    std::vector<cudaGraphNode_t> deps(n);
    if (n) CUDA_CHECK(cudaGraphNodeGetDependencies(node, deps.data(), nullptr, &n));
    for (cudaGraphNode_t dep : deps)
      if (seen.insert(dep).second) ancestors(dep, seen);
  };
  auto before = [&](DeviceBuffer<int>& first, DeviceBuffer<int>& then) {
    std::set<cudaGraphNode_t> seen;
    ancestors(node_of.at(then.data()), seen);
    return seen.count(node_of.at(first.data())) == 1;
  };
  REQUIRE(before(a, b));   // fork: the side starts after a
  REQUIRE(before(a, c));
  REQUIRE(before(b, d));   // join: d after the side's b
  REQUIRE(before(c, d));
  REQUIRE_FALSE(before(b, c));  // side by side: neither waits for the other
  REQUIRE_FALSE(before(c, b));

  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  fast_training::GraphExec step(exec);
  step.launch(main.get());
  CUDA_CHECK(cudaStreamSynchronize(main.get()));
  REQUIRE(b.to_host() == std::vector<int>(302, repeated(0x02)));
  REQUIRE(d.to_host() == std::vector<int>(304, repeated(0x04)));
}

// The same kernels on the same data: the same results to the last bit, unless a kernel's result
// depends on timing (atomics): 1e-6 relative allows that.
TEST_CASE("FastNetwork with a branch: the loss and every gradient as on one stream, direct and from a graph",
          "[09.12]") {
  struct NetCase {
    const char* model;
    int height, width, batch, max_batch;
  };
  for (const NetCase c : {NetCase{"a", 15, 15, 7, 8}, NetCase{"small", 28, 28, 9, 9}}) {
    CAPTURE(c.model, c.batch);
    host_training::ModelSpec spec = host_training::model_by_name(c.model);
    spec.height = c.height, spec.width = c.width;
    const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, 123);
    const size_t per_example = size_t(spec.in_channels) * spec.height * spec.width;
    DeviceBuffer<float> x(course::test::random_vector(size_t(c.batch) * per_example, 124, 0.0f, 1.0f));
    std::vector<int> labels(size_t(c.batch));
    for (int b = 0; b < c.batch; ++b) labels[size_t(b)] = (3 * b + 1) % spec.classes;
    DeviceBuffer<int> d_labels(labels);

    fast_training::Stream stream;
    fast_training::FastNetwork net(spec, init, c.max_batch, stream.get());
    auto results = [&] {  // every gradient, then each example's loss
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> all;
      for (const host_training::Parameter& p : net.parameters().download())
        all.insert(all.end(), p.grad.begin(), p.grad.end());
      std::vector<float> loss(size_t(c.batch));
      CUDA_CHECK(cudaMemcpy(loss.data(), net.row_loss(), loss.size() * sizeof(float), cudaMemcpyDeviceToHost));
      all.insert(all.end(), loss.begin(), loss.end());
      return all;
    };
    auto poison = [&] {
      CUDA_CHECK(cudaMemset(net.parameters().grads(), 0xff, net.parameters().total() * sizeof(float)));
    };
    net.forward_backward(x.data(), d_labels.data(), c.batch);
    const std::vector<float> one_stream = results();

    Branch branch(stream.get());
    net.use_branch(&branch);
    poison();
    net.forward_backward(x.data(), d_labels.data(), c.batch);
    branch.join();
    REQUIRE_ALL_CLOSE(results(), one_stream, 0.0, 1e-6);

    poison();
    cudaGraph_t graph = capture(stream.get(), [&] {
      net.forward_backward(x.data(), d_labels.data(), c.batch);
      branch.join();  // a capture must end with every forked stream joined
    });
    cudaGraphExec_t exec = nullptr;
    const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    CUDA_CHECK(instantiated);
    fast_training::GraphExec step(exec);
    for (int replay = 0; replay < 2; ++replay) {
      poison();
      step.launch(stream.get());
      REQUIRE_ALL_CLOSE(results(), one_stream, 0.0, 1e-6);
    }
    net.use_branch(nullptr);
  }
}

TEST_CASE("FastNetwork: a branch and a gradient hook together are refused; so is another stream's branch", "[09.12]") {
  const host_training::ModelSpec spec = host_training::model_by_name("small");
  fast_training::Stream stream, other;
  fast_training::FastNetwork net(spec, host_training::init_parameters(spec, 5), 4, stream.get());
  Branch branch(stream.get()), elsewhere(other.get());
  REQUIRE_THROWS_AS(net.use_branch(&elsewhere), course::Error);
  net.use_branch(&branch);
  REQUIRE_THROWS_AS(net.set_gradient_hook([](size_t) {}), course::Error);
  net.use_branch(nullptr);
  net.set_gradient_hook([](size_t) {});
  REQUIRE_THROWS_AS(net.use_branch(&branch), course::Error);
}
