// Lesson 09, step 09.9: capture_step (and the given capture_graph around it). A capture runs nothing; a replay runs every captured launch,
// in order, with the arguments they had at capture and the buffers' current contents; a failed
// capture leaves the stream usable. Then a whole training step of the fast network from a graph
// against the same step launched directly.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "fast_network.hpp"
#include "first_kernels.hpp"
#include "step_graph.hpp"

using course::DeviceBuffer;
using fast_training::GraphExec;

namespace {

// lesson 03's SGD step with momentum 0 and no weight decay: velocity = g, w -= lr * g. One launch
// is one easily predicted change of w, and repeated launches add up.
// Its rate is read from device memory (03.2): the rates this file uses, uploaded once, before any
// capture (every test case calls rates() first; an upload while a stream is captured would fail).
const std::map<float, DeviceBuffer<float>>& rates() {
  static const std::map<float, DeviceBuffer<float>> made = [] {
    std::map<float, DeviceBuffer<float>> m;
    for (float lr : {0.25f, 0.5f, 1.0f, 2.0f, 4.0f}) m.emplace(lr, DeviceBuffer<float>(std::vector<float>{lr}));
    CUDA_CHECK(cudaDeviceSynchronize());
    return m;
  }();
  return made;
}
void sgd(DeviceBuffer<float>& w, const DeviceBuffer<float>& g, DeviceBuffer<float>& v, size_t n, float lr,
         cudaStream_t stream) {
  first_kernels::sgd_momentum_update(w.data(), g.data(), v.data(), n, rates().at(lr).data(), 0.0f, 0.0f, stream);
}

// The host's version of the same updates, in the same float operations.
void sgd_on_host(std::vector<float>& w, const std::vector<float>& g, size_t n, float lr) {
  for (size_t i = 0; i < n; ++i) w[i] -= lr * g[i];
}

bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace

TEST_CASE("capture_step returns a graph of one kernel node a launch and runs nothing", "[09.9]") {
  rates();
  const size_t n = 777;
  const std::vector<float> w0 = course::test::random_vector(n, 81, -1.0f, 1.0f);
  DeviceBuffer<float> w(w0), dg(course::test::random_vector(n, 82, -1.0f, 1.0f)), v(n);
  fast_training::Stream stream;
  for (int launches : {1, 4}) {
    CAPTURE(launches);
    cudaGraph_t graph = fast_training::capture_step(stream.get(), [&] {
      for (int k = 0; k < launches; ++k) sgd(w, dg, v, n, 0.5f, stream.get());
    });
    REQUIRE(graph != nullptr);
    REQUIRE_FALSE(capturing(stream.get()));
    size_t nodes = 0;
    CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    std::vector<cudaGraphNode_t> list(nodes);
    if (nodes > 0) CUDA_CHECK(cudaGraphGetNodes(graph, list.data(), &nodes));
    int kernels = 0;
    for (cudaGraphNode_t node : list) {
      cudaGraphNodeType type{};
      CUDA_CHECK(cudaGraphNodeGetType(node, &type));
      kernels += type == cudaGraphNodeTypeKernel ? 1 : 0;
    }
    CUDA_CHECK(cudaGraphDestroy(graph));
    CHECK(kernels == launches);
    CUDA_CHECK(cudaDeviceSynchronize());
    REQUIRE(w.to_host() == w0);  // a capture runs nothing
  }
  REQUIRE_THROWS_AS(fast_training::capture_step(nullptr, [] {}), course::Error);
}

TEST_CASE("capture_graph runs nothing; each replay runs every captured launch in order", "[09.9]") {
  rates();
  const size_t n = 1003;
  const std::vector<float> w0 = course::test::random_vector(n, 91, -1.0f, 1.0f);
  const std::vector<float> g = course::test::random_vector(n, 92, -1.0f, 1.0f);
  DeviceBuffer<float> w(w0), dg(g), v(n);
  fast_training::Stream stream;
  // Three updates with different rates: in another order, w would round differently.
  GraphExec graph(fast_training::capture_graph(stream.get(), [&] {
    sgd(w, dg, v, n, 0.5f, stream.get());
    sgd(w, dg, v, n, 0.25f, stream.get());
    sgd(w, dg, v, n, 2.0f, stream.get());
  }));
  REQUIRE_FALSE(graph.empty());
  REQUIRE_FALSE(capturing(stream.get()));
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE(w.to_host() == w0);  // a capture runs nothing

  std::vector<float> expected = w0;
  for (int replay = 1; replay <= 2; ++replay) {
    CAPTURE(replay);
    graph.launch(stream.get());
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    for (float lr : {0.5f, 0.25f, 2.0f}) sgd_on_host(expected, g, n, lr);
    REQUIRE(w.to_host() == expected);
  }
}

TEST_CASE("capture_graph: arguments are those of the capture, buffer contents those of the replay", "[09.9]") {
  rates();
  const size_t n = 517;
  const std::vector<float> w0 = course::test::random_vector(n, 93, -1.0f, 1.0f);
  const std::vector<float> g1 = course::test::random_vector(n, 94, -1.0f, 1.0f);
  const std::vector<float> g2 = course::test::random_vector(n, 95, -1.0f, 1.0f);
  DeviceBuffer<float> w(w0), dg(g1), v(n);
  fast_training::Stream stream;
  size_t count = 200;  // a host variable: the graph keeps the value it had at capture
  float lr = 0.5f;
  GraphExec graph(fast_training::capture_graph(stream.get(), [&] { sgd(w, dg, v, count, lr, stream.get()); }));
  count = n, lr = 4.0f;
  dg.upload(g2);  // new contents of the same buffer: the replay reads them
  graph.launch(stream.get());
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  std::vector<float> expected = w0;
  sgd_on_host(expected, g2, 200, 0.5f);
  REQUIRE(w.to_host() == expected);
}

TEST_CASE("capture_graph refuses the default stream and leaves a stream usable after a failed capture", "[09.9]") {
  rates();
  const size_t n = 64;
  const std::vector<float> w0 = course::test::random_vector(n, 96, -1.0f, 1.0f);
  const std::vector<float> g = course::test::random_vector(n, 97, -1.0f, 1.0f);
  DeviceBuffer<float> w(w0), dg(g), v(n);
  REQUIRE_THROWS_AS(fast_training::capture_graph(nullptr, [&] { sgd(w, dg, v, n, 1.0f, nullptr); }), course::Error);
  REQUIRE_FALSE(capturing(nullptr));

  fast_training::Stream stream;
  // A launch on the default stream cannot join the capture.
  REQUIRE_THROWS_AS(fast_training::capture_graph(stream.get(),
                                                 [&] {
                                                   sgd(w, dg, v, n, 1.0f, stream.get());
                                                   sgd(w, dg, v, n, 1.0f, nullptr);
                                                 }),
                    course::CudaError);
  REQUIRE_FALSE(capturing(stream.get()));
  // An exception from the work itself passes through unchanged.
  REQUIRE_THROWS_WITH(fast_training::capture_graph(stream.get(),
                                                   [&] {
                                                     sgd(w, dg, v, n, 1.0f, stream.get());
                                                     throw std::runtime_error("stop here");
                                                   }),
                      "stop here");
  REQUIRE_FALSE(capturing(stream.get()));
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE(w.to_host() == w0);  // nothing of either capture ran

  // The stream still captures and runs.
  GraphExec graph(fast_training::capture_graph(stream.get(), [&] { sgd(w, dg, v, n, 1.0f, stream.get()); }));
  graph.launch(stream.get());
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  std::vector<float> expected = w0;
  sgd_on_host(expected, g, n, 1.0f);
  REQUIRE(w.to_host() == expected);
}

// The graph replays the very kernels the direct call launches, so the results are the same to
// the last bit, unless a kernel's result depends on timing (atomics): 1e-6 relative allows that.
TEST_CASE("FastNetwork: a training step replayed from a graph equals the step launched directly", "[09.9]") {
  rates();
  const host_training::ModelSpec spec = host_training::model_by_name("small");
  const int batch = 9;
  const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, 77);
  const size_t per_example = size_t(spec.in_channels) * spec.height * spec.width;
  const std::vector<float> x1 = course::test::random_vector(size_t(batch) * per_example, 78, 0.0f, 1.0f);
  const std::vector<float> x2 = course::test::random_vector(size_t(batch) * per_example, 79, 0.0f, 1.0f);
  std::vector<int> labels(batch);
  for (int b = 0; b < batch; ++b) labels[b] = (7 * b + 3) % spec.classes;
  DeviceBuffer<float> d_x(x1);
  DeviceBuffer<int> d_labels(labels);
  fast_training::Stream stream;
  fast_training::FastNetwork net(spec, init, batch, stream.get());
  auto poison_grads = [&] {
    CUDA_CHECK(cudaMemset(net.parameters().grads(), 0xff, net.parameters().total() * sizeof(float)));
  };
  auto grads = [&] {
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> all;
    for (const host_training::Parameter& p : net.parameters().download()) all.insert(all.end(), p.grad.begin(), p.grad.end());
    return all;
  };

  net.forward_backward(d_x.data(), d_labels.data(), batch);
  const std::vector<float> direct1 = grads();
  d_x.upload(x2);
  net.forward_backward(d_x.data(), d_labels.data(), batch);
  const std::vector<float> direct2 = grads();

  d_x.upload(x1);
  poison_grads();
  GraphExec step(fast_training::capture_graph(stream.get(), [&] { net.forward_backward(d_x.data(), d_labels.data(), batch); }));
  for (const auto& [input, direct] : {std::pair{&x1, &direct1}, std::pair{&x2, &direct2}}) {
    d_x.upload(*input);
    poison_grads();
    step.launch(stream.get());
    REQUIRE_ALL_CLOSE(grads(), *direct, 0.0, 1e-6);
  }
}
