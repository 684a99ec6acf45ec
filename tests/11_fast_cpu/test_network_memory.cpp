// Lesson 11 (given code): what a FastHostNetwork says it will hold (bytes_for, the number the
// trainers refuse a run with before anything is allocated) against what it does hold: the peak
// resident memory of a training step and an evaluation at the trainer's batches, measured.
#include <memory>
#include <vector>

#include "course_test.hpp"
#include "fast_host_network.hpp"
#include "host_training.hpp"
#include "network_memory.hpp"

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
    const int eval = framework::kHostEvalBatch;
    const uint64_t estimate = fast_cpu::FastHostNetwork::bytes_for(plan, spec.classes, c.batch, eval, c.threads);

    const uint64_t used = course::test::network_peak_bytes(
        [&] {
          return std::make_unique<fast_cpu::FastHostNetwork>(spec, host_training::init_parameters(spec, 1), c.threads);
        },
        c.batch, 5);
    course::test::check_memory_estimate(estimate, used);
  }
}
