// Lesson 09 (given): the per-kernel profile of a training step (step_profile.hpp).
#include "framework/step_profile.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"

namespace framework {

namespace {

// "void fast_training::detail::relu_kernel<4>(float const*, ...)" -> "relu_kernel<4>", and
// namespaces cut inside template arguments too.
std::string short_name(const void* func) {
  const char* raw = nullptr;
  if (cudaFuncGetName(&raw, func) != cudaSuccess || raw == nullptr) {
    cudaGetLastError();
    return "(unnamed kernel)";
  }
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(raw, nullptr, nullptr, &status), std::free);
  std::string name = status == 0 && demangled ? demangled.get() : raw;
  for (const std::string anonymous : {"(anonymous namespace)::", "(anonymous namespace)"})
    for (size_t at = name.find(anonymous); at != std::string::npos; at = name.find(anonymous))
      name.erase(at, anonymous.size());
  // Drop the parameter list: the last '(' at template depth 0.
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0) {
      name.resize(i);
      break;
    }
  }
  if (name.rfind("void ", 0) == 0) name.erase(0, 5);
  // Drop every namespace qualifier ("a::b::name" -> "name"), inside template arguments too.
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name.compare(i, 2, "::") == 0) {
      size_t j = out.size();
      while (j > 0 && (std::isalnum(static_cast<unsigned char>(out[j - 1])) || out[j - 1] == '_')) --j;
      out.resize(j);
      ++i;
      continue;
    }
    out += name[i];
  }
  return out.size() > 72 ? out.substr(0, 69) + "..." : out;
}

struct Graph {
  cudaGraph_t graph = nullptr;
  ~Graph() {
    if (graph) cudaGraphDestroy(graph);
  }
};
struct Exec {
  cudaGraphExec_t exec = nullptr;
  ~Exec() {
    if (exec) cudaGraphExecDestroy(exec);
  }
};

// The nodes of a graph in an order that respects its edges (for one stream's capture: launch order).
std::vector<cudaGraphNode_t> nodes_in_order(cudaGraph_t graph) {
  size_t n = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  if (n) CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
  std::map<cudaGraphNode_t, int> waiting;  // unfinished dependencies per node
  std::map<cudaGraphNode_t, std::vector<cudaGraphNode_t>> next;
  for (cudaGraphNode_t node : nodes) waiting[node];
  for (cudaGraphNode_t node : nodes) {
    size_t d = 0;
    CUDA_CHECK(cudaGraphNodeGetDependentNodes(node, nullptr, nullptr, &d));
    std::vector<cudaGraphNode_t> deps(d);
    if (d) CUDA_CHECK(cudaGraphNodeGetDependentNodes(node, deps.data(), nullptr, &d));
    for (cudaGraphNode_t m : deps) ++waiting[m];
    next[node] = deps;
  }
  std::vector<cudaGraphNode_t> ready, order;
  for (cudaGraphNode_t node : nodes)
    if (waiting[node] == 0) ready.push_back(node);
  while (!ready.empty()) {
    cudaGraphNode_t node = ready.front();
    ready.erase(ready.begin());
    order.push_back(node);
    for (cudaGraphNode_t m : next[node])
      if (--waiting[m] == 0) ready.push_back(m);
  }
  return order;
}

}  // namespace

StepProfile profile_step(cudaStream_t stream, const std::function<void()>& enqueue, const StepCapture& capture,
                         int warmup, int steps) {
  if (stream == nullptr) throw course::Error("profile_step needs a stream of its own, not the default stream");
  if (!capture) throw course::Error("profile_step needs a way to capture the step");
  if (steps < 1 || warmup < 0) throw course::Error("profile_step: steps must be >= 1 and warmup >= 0");
  StepProfile profile;
  profile.steps = steps;

  Graph step;
  step.graph = capture(stream, enqueue);
  const std::vector<cudaGraphNode_t> order = nodes_in_order(step.graph);

  // The timed copy: event, node, event, node, ..., event, as one chain.
  Graph timed;
  CUDA_CHECK(cudaGraphCreate(&timed.graph, 0));
  std::vector<cudaEvent_t> events(order.size() + 1);
  for (cudaEvent_t& e : events) CUDA_CHECK(cudaEventCreate(&e));
  struct EventsOwner {
    std::vector<cudaEvent_t>& e;
    ~EventsOwner() {
      for (cudaEvent_t x : e) cudaEventDestroy(x);
    }
  } owner{events};
  std::vector<int> kernel_of_interval(order.size(), -1);
  cudaGraphNode_t last = nullptr;
  auto chain = [&](cudaGraphNode_t node) { last = node; };
  for (size_t i = 0; i <= order.size(); ++i) {
    cudaGraphNode_t mark = nullptr;
    CUDA_CHECK(cudaGraphAddEventRecordNode(&mark, timed.graph, last ? &last : nullptr, last ? 1 : 0, events[i]));
    chain(mark);
    if (i == order.size()) break;
    cudaGraphNodeType type;
    CUDA_CHECK(cudaGraphNodeGetType(order[i], &type));
    cudaGraphNode_t copy = nullptr;
    if (type == cudaGraphNodeTypeKernel) {
      cudaKernelNodeParams p{};
      CUDA_CHECK(cudaGraphKernelNodeGetParams(order[i], &p));
      CUDA_CHECK(cudaGraphAddKernelNode(&copy, timed.graph, &last, 1, &p));
      kernel_of_interval[i] = int(profile.kernels.size());
      profile.kernels.push_back({short_name(p.func), p.gridDim, p.blockDim, 0.0});
    } else if (type == cudaGraphNodeTypeMemset) {
      cudaMemsetParams p{};
      CUDA_CHECK(cudaGraphMemsetNodeGetParams(order[i], &p));
      CUDA_CHECK(cudaGraphAddMemsetNode(&copy, timed.graph, &last, 1, &p));
      ++profile.other_nodes;
    } else if (type == cudaGraphNodeTypeMemcpy) {
      cudaMemcpy3DParms p{};
      CUDA_CHECK(cudaGraphMemcpyNodeGetParams(order[i], &p));
      CUDA_CHECK(cudaGraphAddMemcpyNode(&copy, timed.graph, &last, 1, &p));
      ++profile.other_nodes;
    } else if (type == cudaGraphNodeTypeEmpty) {
      continue;
    } else {
      throw course::Error("profile_step: the step holds a graph node of a kind the profile cannot copy (" +
                          std::to_string(int(type)) + ")");
    }
    chain(copy);
  }

  Exec timed_exec, step_exec;
  CUDA_CHECK(cudaGraphInstantiate(&timed_exec.exec, timed.graph, 0));
  CUDA_CHECK(cudaGraphInstantiate(&step_exec.exec, step.graph, 0));
  for (int s = 0; s < warmup + steps; ++s) {
    CUDA_CHECK(cudaGraphLaunch(timed_exec.exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (s < warmup) continue;
    for (size_t i = 0; i < order.size(); ++i) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, events[i], events[i + 1]));
      if (kernel_of_interval[i] >= 0) profile.kernels[size_t(kernel_of_interval[i])].ms += ms / steps;
    }
  }
  for (const KernelTime& k : profile.kernels) profile.kernel_sum_ms += k.ms;

  course::CudaEventTimer timer;
  auto median_of = [&](const std::function<void()>& run) {
    for (int s = 0; s < warmup; ++s) run();
    std::vector<double> ms;
    for (int s = 0; s < steps; ++s) {
      timer.start(stream);
      run();
      timer.stop(stream);
      ms.push_back(timer.milliseconds());
    }
    return course::median(ms);
  };
  profile.launched_ms = median_of(enqueue);
  profile.graph_ms = median_of([&] { CUDA_CHECK(cudaGraphLaunch(step_exec.exec, stream)); });
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return profile;
}

void print_step_profile(std::FILE* out, const StepProfile& p) {
  std::fprintf(out, "\n%-3s %-72s %-14s %6s %9s %7s\n", "#", "kernel", "grid", "block", "ms", "% sum");
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const KernelTime& k = p.kernels[i];
    char grid[32];
    std::snprintf(grid, sizeof grid, "%ux%ux%u", k.grid.x, k.grid.y, k.grid.z);
    std::fprintf(out, "%-3zu %-72s %-14s %6u %9.4f %6.1f%%\n", i + 1, k.name.c_str(), grid,
                 k.block.x * k.block.y * k.block.z, k.ms, p.kernel_sum_ms > 0 ? 100 * k.ms / p.kernel_sum_ms : 0.0);
  }
  std::fprintf(out, "%zu kernels%s; mean of %d steps, CUDA events\n", p.kernels.size(),
               p.other_nodes ? (", " + std::to_string(p.other_nodes) + " memsets/copies").c_str() : "", p.steps);
  std::fprintf(out, "  sum of the kernels, back to back in a graph:  %8.4f ms\n", p.kernel_sum_ms);
  std::fprintf(out, "  the step as one graph launch (median):        %8.4f ms\n", p.graph_ms);
  std::fprintf(out, "  the step launched kernel by kernel (median):  %8.4f ms  (%.4f ms more than the graph: "
               "launches and the gaps between kernels)\n", p.launched_ms, p.launched_ms - p.graph_ms);
}

}  // namespace framework
