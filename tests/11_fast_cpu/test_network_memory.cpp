// Lesson 11 (given code): what a FastHostNetwork says it will hold (bytes_for, the number the
// trainers refuse a run with before anything is allocated) against what it does hold: the peak
// resident memory of a training step and an evaluation at the trainer's batches, measured.
#include <memory>
#include <vector>

#include "course/rng.hpp"
#include "course_test.hpp"
#include "fast_host_network.hpp"
#include "host_training.hpp"
#include "resident_memory.hpp"

namespace {

struct MemoryCase {
  const char* model;
  int batch, threads;
};

}  // namespace

TEST_CASE("FastHostNetwork::bytes_for: not below the peak a training step and an evaluation reach",
          "[11-network_memory]") {
  // conv8x8x1p8: 64 taps, so im2col with a workspace of 64 x (examples x 37 x 37) floats: about
  // 90 MB at the evaluation's batch of 256, where a training batch of 16 needs 6 MB. dense16384:
  // 12.8 million weights (51 MB), which the evaluation's shards must not copy once per thread.
  for (const MemoryCase& c : {MemoryCase{"conv8x8x1p8,relu,pool2,dense10", 16, 1},
                              MemoryCase{"conv8x8x1p8,relu,pool2,dense10", 64, 2},
                              MemoryCase{"dense16384,relu,dense10", 32, 2},
                              MemoryCase{"dense16384,relu,dense10", 128, 4}}) {
    CAPTURE(c.model, c.batch, c.threads);
    const host_training::ModelSpec spec = host_training::model_by_name(c.model);
    const std::vector<host_training::LayerPlan> plan = host_training::plan_layers(spec);
    const int eval = host_training::kEvalBatch;
    const uint64_t estimate = fast_cpu::FastHostNetwork::bytes_for(plan, spec.classes, c.batch, eval, c.threads);

    course::Rng rng(5, 0);
    std::vector<float> x(size_t(eval) * 28 * 28);
    for (float& v : x) v = rng.uniform(0.0f, 1.0f);
    std::vector<int> labels(static_cast<size_t>(eval));
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = int(i % 10);
    std::vector<float> logits(static_cast<size_t>(eval) * 10);

    const uint64_t before = course::test::status_bytes("VmRSS:");
    REQUIRE(before > 0);
    REQUIRE(course::test::start_peak());
    {
      auto net = std::make_unique<fast_cpu::FastHostNetwork>(spec, host_training::init_parameters(spec, 1), c.threads);
      // What the trainer runs: full training batches, a smaller last one, an evaluation batch of 256
      // and a smaller last one.
      net->forward_backward(x.data(), labels.data(), c.batch);
      net->forward_backward(x.data(), labels.data(), c.batch / 2 + 1);
      net->forward(x.data(), eval, logits.data());
      net->forward(x.data(), 37, logits.data());
    }
    const uint64_t peak = course::test::status_bytes("VmHWM:"), used = peak > before ? peak - before : 0;
    INFO("estimate " << estimate / 1e6 << " MB, measured peak " << used / 1e6 << " MB above the start");
    // The trainers add host_training::allocator_allowance to it: what resident memory holds beside
    // the buffers (the allocator's freed pieces and bookkeeping, pages of code and stack).
    CHECK(used <= estimate + host_training::allocator_allowance(estimate));
    // And not a figure from nowhere: within a factor of about two of what is used (plus the pool's
    // threads and the allocator's slack on small models).
    CHECK(estimate <= 2 * used + (uint64_t(32) << 20));
  }
}
