// Lesson 15 (given code): what a DeeperHostNetwork will hold by lesson 11's count for a layer list
// (fast_cpu::layer_list_bytes, the number train_deeper --device cpu refuses a run with before
// anything is allocated) against the peak resident memory of training steps and evaluations at the
// trainer's batches, measured.
#include <memory>
#include <vector>

#include "course_test.hpp"
#include "deeper_host_network.hpp"
#include "fast_host_network.hpp"
#include "network_memory.hpp"

namespace {
struct MemoryCase {
  const char* model;
  int batch, threads;
};
}  // namespace

TEST_CASE("fast_cpu::layer_list_bytes for a DeeperHostNetwork: not below the peak training steps and evaluations reach",
          "[15-network_memory]") {
  // conv8x8x1p8 and the block's conv9x9x8p4 (648 taps) run on im2col: their workspaces at the
  // evaluation's batch of 256 are most of what the network holds.
  for (const MemoryCase& c : {MemoryCase{"conv8x8x1p8,relu,pool2,dense10", 16, 1},
                              MemoryCase{"conv3x3x8p1,relu,res(conv9x9x8p4,relu,conv1x1x8),pool2,dense10", 32, 2},
                              MemoryCase{"dense16384,relu,dense10", 64, 2}}) {
    CAPTURE(c.model, c.batch, c.threads);
    const host_training::ModelSpec spec = host_training::model_by_name(c.model);
    const std::vector<host_training::LayerPlan> plan = host_training::plan_layers(spec);
    const int eval = framework::kHostEvalBatch;
    const uint64_t estimate = fast_cpu::layer_list_bytes(plan, spec.classes, c.batch, eval, c.threads);

    const uint64_t used = course::test::network_peak_bytes(
        [&] {
          return std::make_unique<deeper_cnns::DeeperHostNetwork>(spec, host_training::init_parameters(spec, 1),
                                                                  c.threads);
        },
        c.batch, 15);
    course::test::check_memory_estimate(estimate, used);
  }
}
