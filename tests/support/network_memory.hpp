#pragma once
// A host network's memory estimate against what it really holds: the network is built and runs what
// the CPU trainer runs with it (full training batches, a smaller last one, an evaluation batch of
// framework::kHostEvalBatch and a smaller last one), and the peak resident memory above the start is
// compared with the estimate. Linux (/proc/self, resident_memory.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "course/rng.hpp"
#include "course_test.hpp"
#include "host_training.hpp"
#include "resident_memory.hpp"

namespace course::test {

// The peak resident bytes above the start while `make()`'s network trains at `batch` and evaluates.
inline uint64_t network_peak_bytes(const std::function<std::unique_ptr<framework::HostModel>()>& make,
                                   int batch, uint64_t seed) {
  const int eval = framework::kHostEvalBatch;
  course::Rng rng(seed, 0);
  std::vector<float> x(static_cast<size_t>(eval) * 28 * 28);
  for (float& v : x) v = rng.uniform(0.0f, 1.0f);
  std::vector<int> labels(static_cast<size_t>(eval));
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = int(i % 10);
  std::vector<float> logits(static_cast<size_t>(eval) * 10);

  const uint64_t before = status_bytes("VmRSS:");
  REQUIRE(before > 0);
  REQUIRE(start_peak());
  {
    auto net = make();
    net->forward_backward(x.data(), labels.data(), batch);
    net->forward(x.data(), eval, logits.data());
    net->forward_backward(x.data(), labels.data(), batch / 2 + 1);  // the buffers stay grown
    net->forward(x.data(), 37, logits.data());
  }
  const uint64_t peak = status_bytes("VmHWM:");
  return peak > before ? peak - before : 0;
}

// An estimate holds what is used (the trainers add framework::allocator_allowance to it: the
// allocator's freed pieces and bookkeeping, pages of code and stack), and is not a figure from
// nowhere: within a factor of about two of it (plus the pool's threads and the allocator's slack on
// small models).
inline void check_memory_estimate(uint64_t estimate, uint64_t used) {
  INFO("estimate " << estimate / 1e6 << " MB, measured peak " << used / 1e6 << " MB above the start");
  CHECK(used <= estimate + framework::allocator_allowance(estimate));
  CHECK(estimate <= 2 * used + (uint64_t(32) << 20));
}

}  // namespace course::test
