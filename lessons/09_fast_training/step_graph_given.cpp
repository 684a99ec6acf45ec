// Lesson 09 (given): the owners of a graph, of a stream (step_graph.hpp) and of a branch's stream
// and events (branch.hpp), and capture_graph around your capture_step. Capturing is step 09.9
// (exercises/step_graph.cpp), fork and join step 09.12 (exercises/branch.cpp).
#include <memory>

#include "branch.hpp"
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "step_graph.hpp"

namespace fast_training {

GraphExec::~GraphExec() {
  if (exec_) cudaGraphExecDestroy(exec_);
}

GraphExec& GraphExec::operator=(GraphExec&& other) noexcept {
  if (this != &other) {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = other.exec_;
    other.exec_ = nullptr;
  }
  return *this;
}

cudaGraphExec_t capture_graph(cudaStream_t stream, const std::function<void()>& enqueue) {
  cudaGraph_t graph = capture_step(stream, enqueue);  // 09.9: yours
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);  // the executable graph is a copy: the template can go
  CUDA_CHECK(instantiated);
  return exec;
}

std::function<void()> replayed(cudaStream_t stream, const std::function<void()>& enqueue) {
  auto graph = std::make_shared<GraphExec>(capture_graph(stream, enqueue));
  return [graph, stream] { graph->launch(stream); };
}

framework::GraphReplay graph_replay() { return {replayed, "lesson 09's 09.9"}; }

void GraphExec::launch(cudaStream_t stream) const {
  if (!exec_) throw course::Error("GraphExec::launch: no graph (capture_graph returned none)");
  CUDA_CHECK(cudaGraphLaunch(exec_, stream));
}

framework::CounterStream counters_aside(Branch& branch) {
  framework::CounterStream counters;
  counters.fork = [&branch] {
    branch.join();
    branch.fork();
    return branch.side();
  };
  counters.join = [&branch] { branch.join(); };
  return counters;
}

Branch::Branch(cudaStream_t main) : main_(main) {
  if (main == nullptr) throw course::Error("Branch: the main stream must be a stream of its own, not the default stream");
  // Ordering only: events without timing are the cheap kind.
  cudaError_t error = cudaStreamCreate(&side_);
  if (error == cudaSuccess) error = cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming);
  if (error == cudaSuccess) error = cudaEventCreateWithFlags(&joined_, cudaEventDisableTiming);
  if (error != cudaSuccess) {  // a throwing constructor runs no destructor: free what was made
    if (forked_) cudaEventDestroy(forked_);
    if (side_) cudaStreamDestroy(side_);
    CUDA_CHECK(error);
  }
}

Branch::~Branch() {
  cudaEventDestroy(forked_);
  cudaEventDestroy(joined_);
  cudaStreamDestroy(side_);
}

void WeightGradientAside::use(Branch* branch, cudaStream_t layer_stream, size_t workspace_floats) {
  if (branch && branch->main() != layer_stream)
    throw course::Error("use_branch: the branch's main stream is not the stream the layer's work goes to");
  if (branch && side_workspace_.size() < workspace_floats) side_workspace_ = course::DeviceBuffer<float>(workspace_floats);
  branch_ = branch;
}

WeightGradientAside::Target WeightGradientAside::target(cudaStream_t layer_stream, float* layer_workspace,
                                                        bool input_gradient_follows) {
  if (!branch_ || !input_gradient_follows) return {layer_stream, layer_workspace};
  branch_->fork();
  return {branch_->side(), side_workspace_.data()};
}

}  // namespace fast_training
